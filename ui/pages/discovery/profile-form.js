// The scan profile dialog: what to scan (subnets, SNMP and stored credentials by reference, which stages),
// when (every N minutes or hours, or a cron in a time zone, with a jitter) and which session each run merges
// into. Fields are the API's, each error beside its field. No secret is typed here: a profile only names
// stored credentials, whose secrets stay in the vault.
import { api } from '../../lib/api.js';
import { useForm } from '../../lib/form.js';
import { html, useState } from '../../lib/html.js';
import { useApi } from '../../lib/hooks.js';
import { can, useSession } from '../../lib/session.js';
import { CREDENTIAL_KINDS } from '../../lib/vocabulary.js';
import { CheckField, CheckGroup, Field, FormError, SelectField } from '../../components/field.js';
import { ChipPicker, Segmented, TagInput } from '../../components/field-extra.js';
import { Modal } from '../../components/modal.js';
import { TimeZoneField } from '../../components/time-zone.js';
import { toBody, toForm } from './profile-model.js';

const KINDS = [{ value: 'interval', label: 'Every…' }, { value: 'cron', label: 'Cron' }];
const UNITS = [{ value: 'minutes', label: 'minutes' }, { value: 'hours', label: 'hours' }];
const kindLabel = (kind) => CREDENTIAL_KINDS.find((k) => k.value === kind)?.label ?? kind;

export function ProfileDialog({ profile, zone, stages, ownSubnets, onDone, onCancel }) {
  const [initial] = useState(() => toForm(profile, zone, ownSubnets[0] ?? ''));
  const form = useForm(initial, { request: profile ? `PUT /api/v1sion/profiles/${profile.id}` : 'POST /api/v1sion/profiles' });
  const sessions = useApi('/api/v1sion/sessions', { query: { limit: 500 } });
  // Only for someone who may read the inventory: nobody else gets a refused request in the console.
  const vault = useApi(can(useSession(), 'brain:read') ? '/api/brain/credentials' : null, { query: { limit: 500 } });
  const v = form.values;
  const names = stages.map((s) => s.name);

  const onSubmit = form.submit(async (vals) => {
    if (!profile) {
      onDone(await api.post('/api/v1sion/profiles', toBody(vals, names)), true);
      return;
    }
    const body = toBody(vals, names, initial);
    onDone(Object.keys(body).length ? await api.put(`/api/v1sion/profiles/${profile.id}`, body) : profile, false);
  });

  const credentials = (vault.data?.items ?? []).filter((c) => String(c.kind ?? '').startsWith('snmp_'))
    .map((c) => ({ value: c.id, label: `${c.short_id ? `${c.short_id} ` : ''}${c.name} (${kindLabel(c.kind)})` }));
  const sessionOptions = [{ value: '', label: 'A new session named after the profile' },
    ...(sessions.data?.items ?? []).map((s) => ({ value: s.id, label: s.name }))];
  const cron = v['schedule.kind'] === 'cron';

  return html`<${Modal} title=${profile ? `Edit ${profile.name}` : 'New scheduled scan'} onClose=${onCancel} size="lg"
    footer=${html`
      <button type="button" class="btn" onClick=${onCancel}>Cancel</button>
      <button type="submit" form="profile-form" class="btn btn-primary" disabled=${form.busy}>
        ${form.busy ? 'Saving…' : profile ? 'Save' : 'Create schedule'}</button>`}>
    <form id="profile-form" class="disc-profile-form" onSubmit=${onSubmit} novalidate>
      <${FormError} form=${form} />
      <div class="grid-2">
        <${Field} form=${form} name="name" label="Name" required placeholder="Office network" />
        <${CheckField} form=${form} name="enabled" label="Enabled" hint="A disabled schedule keeps its settings and does not run." />
      </div>
      <${TagInput} form=${form} name="subnets" label="Subnets" placeholder="Add a subnet, e.g. 192.168.1.0/24" suggestions=${ownSubnets}
        hint="Scanned one after another, each as a scan would be: private networks and the probe's own subnets." />
      <${Segmented} form=${form} name="schedule.kind" label="When" options=${KINDS} />
      ${cron ? html`<div class="grid-2">
          <${Field} form=${form} name="schedule.cron" label="Cron expression" required class="mono-input" spellcheck="false" autocomplete="off"
            placeholder="*/15 * * * *" hint="Minute hour day month weekday: 0 3 * * 1-5 = weekdays at 03:00." />
          <${TimeZoneField} form=${form} name="timezone" hint=${v.timezone === zone ? "The probe's time zone." : `The probe's is ${zone}.`} />
        </div>`
        : html`<div class="grid-2 disc-every">
          <${Field} form=${form} name="schedule.every" label="Every" type="number" min="1" inputmode="numeric" required
            hint="At least every 5 minutes; at most every 168 hours." />
          <${SelectField} form=${form} name="schedule.unit" label="Unit" options=${UNITS} />
        </div>`}
      <${Field} form=${form} name="jitter_seconds" label="Jitter (seconds)" type="number" min="0" max="3600" inputmode="numeric"
        hint="Each run starts up to this much after its time (at most half the time between runs)." />
      <div class="grid-2">
        <${Field} form=${form} name="missing_after_minutes" label="Missing after (minutes)" type="number" min="0" inputmode="numeric"
          placeholder="Settings" hint="A known device is reported missing once it has not answered this long… Empty: Settings, Discovery." />
        <${Field} form=${form} name="missing_after_scans" label="…and runs in a row" type="number" min="1" inputmode="numeric"
          placeholder="Settings" hint="…in this many runs of this profile. Phones and laptops can be marked transient on Known devices." />
      </div>
      <${SelectField} form=${form} name="session_id" label="Merge into session" options=${sessionOptions}
        hint="Each run adds what is new, marks what it no longer finds missing, and keeps positions and notes." />
      <${CheckField} form=${form} name="snmp_enabled" label="Identify SNMP agents"
        hint="Vendor, model, OS and neighbours over SNMP. Off: ping, ARP, TCP ports and names only." />
      ${v.snmp_enabled ? html`<${ChipPicker} form=${form} name="credentials" label="SNMP credentials" placeholder="Add a stored credential…"
          empty="None chosen: the saved discovery credentials at each run" options=${credentials}
          hint="Stored credentials, tried in this order; their secrets stay in the vault and go only where their scope allows." />` : null}
      <details class="disc-stages" open=${(profile?.stages ?? null) !== null}>
        <summary>Stages</summary>
        <${CheckGroup} form=${form} name="stages" label="Stages to run" columns=${2}
          options=${stages.map((s) => ({ value: s.name, label: s.name, hint: s.phase }))}
          hint="None or all ticked: every stage. A stage needs the stages that find what it reads." />
      </details>
    </form>
  <//>`;
}
