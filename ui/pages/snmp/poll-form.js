// A polled device's settings in a dialog: add one (POST /api/snmp/polling) or edit one (PATCH
// /api/snmp/polling/:id, only what changed): the agent, the stored SNMP credential it is polled with (its
// secrets stay in the vault), the shown name, the inventory endpoint it is, the interval (60 s or 5 min), all interfaces or chosen ones,
// and the alert thresholds for watched interfaces. Also the actions a device's list row and its page share:
// poll now, pause or resume, delete.
import { api, request } from '../../lib/api.js';
import { confirm } from '../../lib/confirm.js';
import { useForm } from '../../lib/form.js';
import { html, useEffect } from '../../lib/html.js';
import { toast } from '../../lib/toast.js';
import { ErrorState, Loading } from '../../components/empty.js';
import { Field, FormError, SelectField } from '../../components/field.js';
import { Modal } from '../../components/modal.js';
import { kindLabel, useSnmpCredentials } from './templates.js';

const INTERVALS = [{ value: '60', label: 'Every 60 seconds' }, { value: '300', label: 'Every 5 minutes' }];
const SCOPES = [{ value: 'all', label: 'All interfaces' }, { value: 'chosen', label: 'Only the interfaces I choose' }];

const text = (v) => (v === null || v === undefined ? '' : String(v));
/** A number field's value: null when empty, a number when it is one, else the text (so the API names the field). */
const numberOrNull = (s) => {
  const t = String(s).trim();
  if (t === '') return null;
  return Number.isFinite(Number(t)) ? Number(t) : t;
};

/** The form's values from a device (edit) or from what a link offers (prefill: target, credential, name, endpoint). */
function initialValues(d, prefill = {}) {
  return {
    target: d?.target ?? prefill.target ?? '', port: text(d?.port ?? prefill.port), credential_id: d?.credential?.id ?? d?.credential_id ?? prefill.credential ?? '',
    name: d?.name ?? prefill.name ?? '', endpoint_id: d?.endpoint_id ?? prefill.endpoint ?? '',
    interval_s: text(d?.interval_s ?? 60), scope: d && !d.all_interfaces ? 'chosen' : 'all',
    util_alert_pct: text(d?.util_alert_pct), util_alert_minutes: text(d?.util_alert_minutes ?? ''), error_alert_ps: text(d?.error_alert_ps),
  };
}

/** The request body: on create every field given; on edit only those that changed. */
export function deviceBody(v, d) {
  const next = {
    target: v.target.trim(), port: numberOrNull(v.port), credential_id: v.credential_id, name: v.name.trim() || null,
    endpoint_id: v.endpoint_id.trim() || null, interval_s: Number(v.interval_s), all_interfaces: v.scope === 'all',
    util_alert_pct: numberOrNull(v.util_alert_pct), util_alert_minutes: numberOrNull(v.util_alert_minutes), error_alert_ps: numberOrNull(v.error_alert_ps),
  };
  if (!d) {
    const body = {};
    for (const [k, x] of Object.entries(next)) if (x !== null) body[k] = x;
    body.enabled = true;
    return body;
  }
  const old = { ...d, credential_id: d.credential?.id ?? d.credential_id };
  const body = {};
  for (const [k, x] of Object.entries(next)) {
    // A name left empty keeps the one it has (the API takes no null name); minutes left empty keep theirs.
    if (x === null && (k === 'name' || k === 'util_alert_minutes')) continue;
    if (x !== (old[k] ?? null)) body[k] = x;
  }
  return body;
}

/** The add or edit dialog; `onDone(device)` after a save. */
export function DeviceForm({ device, prefill, onDone, onCancel }) {
  const editing = !!device;
  const form = useForm(initialValues(device, prefill), { request: editing ? 'PATCH /api/snmp/polling/:id' : 'POST /api/snmp/polling' });
  const creds = useSnmpCredentials();
  const onSubmit = form.submit(async (vals) => {
    const body = deviceBody(vals, device);
    if (editing && !Object.keys(body).length) { onDone(device); return; }
    const saved = editing ? await request('PATCH', `/api/snmp/polling/${device.id}`, { body }) : await api.post('/api/snmp/polling', body);
    onDone(saved);
  });
  const credOptions = [{ value: '', label: creds.items?.length ? 'Choose a credential' : 'No SNMP credentials yet' },
    ...(creds.items ?? []).map((c) => ({ value: c.id, label: `${c.short_id} · ${c.name} (${kindLabel(c.kind)}${c.port ? `, port ${c.port}` : ''})` }))];
  // A prefilled credential given by short ID (a link from the Devices tab) is chosen by its UUID once the list is in.
  useEffect(() => {
    const known = creds.items?.find((c) => c.short_id === form.values.credential_id);
    if (known) form.set('credential_id', known.id);
  }, [creds.items]);

  return html`<${Modal} title=${editing ? `Settings of ${device.name}` : 'Add a device to poll'} onClose=${onCancel} size="lg"
    footer=${html`
      <button type="button" class="btn" onClick=${onCancel}>Cancel</button>
      <button type="submit" form="snmp-poll-form" class="btn btn-primary" disabled=${form.busy}>${form.busy ? 'Saving…' : editing ? 'Save' : 'Add device'}</button>`}>
    <form id="snmp-poll-form" onSubmit=${onSubmit}>
      <${FormError} form=${form} />
      <div class="grid-2">
        <${Field} form=${form} name="target" label="Agent" required placeholder="192.0.2.10 or switch1" autocapitalize="none" spellcheck="false" />
        <${Field} form=${form} name="port" label="UDP port" type="number" min="1" max="65535" inputmode="numeric" placeholder="From the credential, else 161" />
      </div>
      ${creds.error ? html`<${ErrorState} error=${creds.error} />`
        : creds.items ? html`<${SelectField} form=${form} name="credential_id" label="Credential" options=${credOptions} required
            hint=${creds.items.length ? 'A stored SNMP credential: its kind sets the version, the vault keeps its secrets.'
              : html`No SNMP credentials are stored yet: <a href="/inventory/credentials/new">add one in the inventory</a>.`} />`
          : html`<${Loading} label="Loading the SNMP credentials…" />`}
      <div class="grid-2">
        <${Field} form=${form} name="name" label="Name" placeholder="The agent's address" hint=${editing ? 'Left empty, the name stays.' : 'Shown in the lists; the agent when empty.'} />
        <${SelectField} form=${form} name="interval_s" label="Interval" options=${INTERVALS} />
      </div>
      <div class="grid-2">
        <${Field} form=${form} name="endpoint_id" label="Inventory endpoint" placeholder="EP-3" autocapitalize="none" spellcheck="false"
          hint="Optional: the endpoint this device is (its short ID), linked from the device's page." />
        <${SelectField} form=${form} name="scope" label="Interfaces" options=${SCOPES}
          hint="Chosen ones: choose them on the device's page once it has been polled; the others are listed without rates." />
      </div>
      <fieldset class="field field-group">
        <legend>Alerts for watched interfaces</legend>
        <p class="field-hint">Watched interfaces alert when they go down or come up (uplinks with an LLDP neighbour are watched by default); also:</p>
        <div class="grid-3">
          <${Field} form=${form} name="util_alert_pct" label="Utilisation at or above (%)" type="number" min="1" max="100" step="any" placeholder="No alert" />
          <${Field} form=${form} name="util_alert_minutes" label="For (minutes)" type="number" min="1" max="1440" inputmode="numeric" placeholder="5" />
          <${Field} form=${form} name="error_alert_ps" label="Errors per second above" type="number" min="0.01" step="any" placeholder="No alert" />
        </div>
      </fieldset>
    </form>
  <//>`;
}

/** Polls the device now; resolves to the device as it stands after (or null when refused, after a toast). */
export async function pollNow(d) {
  try {
    const r = await api.post(`/api/snmp/polling/${d.id}/poll`);
    toast.ok(`Polled ${d.name}`);
    return r ?? null;
  } catch (e) { toast.error(e); return null; }
}

/** Pauses a polled device or resumes it (PATCH enabled). */
export async function togglePaused(d) {
  try {
    const r = await request('PATCH', `/api/snmp/polling/${d.id}`, { body: { enabled: !d.enabled } });
    toast.ok(d.enabled ? `Paused ${d.name}: its history is kept` : `Resumed ${d.name}`);
    return r;
  } catch (e) { toast.error(e); return null; }
}

/** Deletes a polled device after confirmation; resolves true when it was deleted. */
export async function removeDevice(d) {
  if (!(await confirm({ title: `Stop polling ${d.name}?`, message: 'The device, its interfaces and their history are removed; the credential stays.',
    confirmLabel: 'Delete', danger: true }))) return false;
  try {
    await api.del(`/api/snmp/polling/${d.id}`);
    toast.ok(`Deleted ${d.name}`);
    return true;
  } catch (e) { toast.error(e); return false; }
}
