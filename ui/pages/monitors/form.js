// Create and edit a monitor: the check type first, then the fields that type needs (HTTP request and
// response checks with authentication and headers, ping packets, TCP with TLS, DNS record and
// resolver), the schedule and alert thresholds, tags and parent monitors (alert dependencies). The
// API's messages appear beside the fields they name (settings.auth.password, parents.0, …).
import { api } from '../../lib/api.js';
import { useForm } from '../../lib/form.js';
import { duration } from '../../lib/format.js';
import { html, useEffect } from '../../lib/html.js';
import { useApi } from '../../lib/hooks.js';
import { navigate } from '../../lib/router.js';
import { noteDroppedSecrets } from '../../lib/secrets.js';
import { toast } from '../../lib/toast.js';
import { ErrorState, Loading } from '../../components/empty.js';
import { CheckField, Field, FormError, SelectField, TextArea } from '../../components/field.js';
import { ChipPicker, RowsField, Segmented, TagInput } from '../../components/field-extra.js';
import { Card, Page } from '../../components/page.js';
import { checkType, CHECK_TYPES, DNS_MATCHES, DNS_RECORD_TYPES, HTTP_AUTH_TYPES, HTTP_METHODS, KEYWORD_MODES, toBody, toForm } from './model.js';
import './section.js';

const S = 'settings.';
const opts = (list) => list.map((v) => ({ value: v, label: v }));

function HttpSettings({ form, stored: was }) {
  const v = form.values;
  const auth = v[`${S}auth.type`];
  const stored = (k) => was?.check_type === 'http' && was.settings?.auth?.type === auth && was.settings.auth[k]?.set;
  return html`
    <h3 class="form-sub">Request</h3>
    <div class="grid-2">
      <${SelectField} form=${form} name=${`${S}method`} label="Method" options=${opts(HTTP_METHODS)} />
      <${SelectField} form=${form} name=${`${S}auth.type`} label="Authentication"
        options=${[{ value: '', label: 'None' }, ...HTTP_AUTH_TYPES]} />
    </div>
    ${auth === 'basic' ? html`<div class="grid-2">
      <${Field} form=${form} name=${`${S}auth.username`} label="User name" autocomplete="off" />
      <${Field} form=${form} name=${`${S}auth.password`} label="Password" type="password" autocomplete="new-password"
        placeholder=${stored('password') ? 'Stored — type to replace' : ''} hint="Stored on the probe, never shown again." />
    </div>` : null}
    ${auth === 'bearer' ? html`<${Field} form=${form} name=${`${S}auth.token`} label="Token" type="password" autocomplete="new-password"
      placeholder=${stored('token') ? 'Stored — type to replace' : ''} hint="Sent as Authorization: Bearer …; stored, never shown again." />` : null}
    <${RowsField} form=${form} name=${`${S}headers`} label="Headers" addLabel="Add header" blank=${{ name: '', value: '' }}
      columns=${[{ key: 'name', label: 'Header name', placeholder: 'X-Request-Source' }, { key: 'value', label: 'Header value', placeholder: 'netprobe' }]}
      hint="Values of credential-like headers (Authorization, Cookie, …token…, …key…) are stored as secrets." />
    ${!['GET', 'HEAD'].includes(v[`${S}method`]) ? html`<${TextArea} form=${form} name=${`${S}body`} label="Request body" rows=${3} spellcheck="false" />` : null}
    <h3 class="form-sub">Response</h3>
    <div class="grid-3">
      <${Field} form=${form} name=${`${S}accepted_status`} label="Accepted status codes" spellcheck="false"
        hint="Codes or ranges, separated by commas: 200-299, 301" />
      <${Field} form=${form} name=${`${S}keyword`} label="Keyword" hint="Optional: text the body must contain (or must not)." />
      <${SelectField} form=${form} name=${`${S}keyword_mode`} label="The keyword must be"
        options=${KEYWORD_MODES} />
    </div>
    <div class="grid-3">
      <${Field} form=${form} name=${`${S}json_path`} label="JSON path" placeholder="$.status" spellcheck="false" hint="Optional: a value in a JSON answer to compare." />
      <${Field} form=${form} name=${`${S}json_expected`} label="Expected value" placeholder="ok" />
      ${v[`${S}follow_redirects`] ? html`<${Field} form=${form} name=${`${S}max_redirects`} label="Follow at most (redirects)" type="number" min="0" max="20" inputmode="numeric" />` : html`<div></div>`}
    </div>
    <div class="grid-2">
      <${CheckField} form=${form} name=${`${S}follow_redirects`} label="Follow redirects" />
      <${CheckField} form=${form} name=${`${S}verify_tls`} label="Verify the TLS certificate" hint="Turn off only for self-signed devices; the expiry is still tracked." />
    </div>`;
}

function PingSettings({ form }) {
  return html`<h3 class="form-sub">Packets</h3>
    <div class="grid-3">
      <${Field} form=${form} name=${`${S}count`} label="Packets per check" type="number" min="1" max="20" inputmode="numeric" />
      <${Field} form=${form} name=${`${S}packet_size`} label="Payload (bytes)" type="number" min="0" max="65000" inputmode="numeric" />
      <${Field} form=${form} name=${`${S}per_packet_timeout_ms`} label="Wait per packet (ms)" type="number" min="50" max="10000" inputmode="numeric" />
    </div>`;
}

function TcpSettings({ form }) {
  const tls = form.values[`${S}tls`];
  return html`<h3 class="form-sub">Connection</h3>
    <${CheckField} form=${form} name=${`${S}tls`} label="Complete a TLS handshake" hint="Checks the certificate too, and tracks its expiry." />
    ${tls ? html`<div class="grid-2">
      <${Field} form=${form} name=${`${S}servername`} label="Server name (SNI)" placeholder="The target's host" spellcheck="false" />
      <${CheckField} form=${form} name=${`${S}verify_tls`} label="Verify the certificate" />
    </div>` : null}`;
}

function DnsSettings({ form }) {
  const v = form.values;
  return html`<h3 class="form-sub">Query</h3>
    <div class="grid-3">
      <${SelectField} form=${form} name=${`${S}record_type`} label="Record type" options=${opts(DNS_RECORD_TYPES)} />
      <${Field} form=${form} name=${`${S}resolver`} label="Resolver" placeholder="System resolvers" spellcheck="false" hint="Optional: an IP address." />
      ${v[`${S}resolver`].trim() ? html`<${Field} form=${form} name=${`${S}port`} label="Resolver port" type="number" min="1" max="65535" inputmode="numeric" />` : html`<div></div>`}
    </div>
    <div class="grid-2">
      <${Field} form=${form} name=${`${S}expected`} label="Expected answer" hint="Optional: the check fails unless an answer matches." spellcheck="false" />
      <${SelectField} form=${form} name=${`${S}match`} label="Match"
        options=${DNS_MATCHES} />
    </div>`;
}

const SETTINGS = { http: HttpSettings, ping: PingSettings, tcp: TcpSettings, dns: DnsSettings };

/**
 * A new monitor offered from elsewhere (an endpoint's "New monitor"): `check_type`, `target` and `name`
 * prefill the form, `endpoint` (its short ID) is linked to the monitor once it is made (monitored_by).
 */
function presetOf(query) {
  const q = query ?? {};
  const preset = {};
  if (CHECK_TYPES.some((t) => t.value === q.check_type)) preset.check_type = q.check_type;
  if (typeof q.target === 'string') preset.target = q.target.slice(0, 500);
  if (typeof q.name === 'string') preset.name = q.name.slice(0, 200);
  const endpoint = typeof q.endpoint === 'string' && /^EP-\d{1,12}$/.test(q.endpoint) ? q.endpoint : null;
  return { preset, endpoint };
}

function MonitorForm({ stored, monitors, tags, query }) {
  const { preset, endpoint } = stored ? { preset: {}, endpoint: null } : presetOf(query);
  const form = useForm({ ...toForm(stored), ...preset });
  const v = form.values;
  const type = checkType(v.check_type);
  const Settings = SETTINGS[v.check_type];
  const back = stored ? `/monitors/${stored.id}` : '/monitors';

  useEffect(() => {
    if (form.error) document.querySelector('main [aria-invalid="true"], main .alert-error')?.scrollIntoView({ block: 'center', behavior: 'smooth' });
  }, [form.error]);

  const onSubmit = form.submit(async (vals) => {
    const body = toBody(vals, stored);
    if (stored && !Object.keys(body).length) { toast.info('Nothing changed'); navigate(back); return; }
    const saved = stored ? await api.put(`/api/monitors/${stored.id}`, body) : await api.post('/api/monitors', body);
    if (endpoint) {
      // The monitor exists either way; a link that cannot be made is said, not hidden.
      await api.post('/api/brain/links', { from: { type: 'endpoints', id: endpoint }, to: { type: 'monitors', id: saved.id }, relation: 'monitored_by' })
        .catch((e) => toast.error(`Created ${saved.name}, but it could not be linked to ${endpoint}: ${e.message}`));
    }
    toast.ok(`${stored ? 'Saved' : 'Created'} ${saved.name}`);
    noteDroppedSecrets(saved);
    navigate(`/monitors/${saved.id}`);
  });

  const parentOptions = monitors.filter((m) => m.id !== stored?.id).map((m) => ({ value: m.id, label: m.name }));
  const interval = Number(v.interval);

  return html`<form onSubmit=${onSubmit} class="mon-form" novalidate>
    <${FormError} form=${form} />
    ${endpoint ? html`<p class="field-hint">Linked to endpoint <a href=${`/inventory/endpoints/${endpoint}`}>${endpoint}</a> once it is created.</p>` : null}
    <${Card} title="What to check">
      <${Segmented} form=${form} name="check_type" label="Check type" options=${CHECK_TYPES} />
      <div class="grid-2">
        <${Field} form=${form} name="name" label="Name" required placeholder="Intranet portal" />
        <${Field} form=${form} name="target" label=${type.target} required placeholder=${type.placeholder} hint=${type.targetHint}
          spellcheck="false" autocapitalize="none" />
      </div>
      <${Settings} form=${form} stored=${stored} />
    <//>
    <${Card} title="Schedule and alerts">
      <div class="grid-3">
        <${Field} form=${form} name="interval" label="Check every (seconds)" type="number" min="5" max="86400" inputmode="numeric" required
          hint=${Number.isFinite(interval) && interval >= 5 ? `Every ${duration(interval)}.` : 'At least 5 seconds.'} />
        <${Field} form=${form} name="timeout" label="Timeout (seconds)" type="number" min="1" max="300" inputmode="numeric"
          placeholder=${String(Math.max(1, Math.min(10, (Number.isFinite(interval) ? interval : 60) - 1)))} hint="Below the interval." />
        <${Field} form=${form} name="failure_threshold" label="Down after (failed checks)" type="number" min="1" max="20" inputmode="numeric"
          hint="Consecutive failures before an incident opens." />
      </div>
      <div class="grid-3">
        <${Field} form=${form} name="degraded_ms" label="Degraded above (ms)" type="number" min="1" max="600000" inputmode="numeric"
          hint="Optional: slower answers count as degraded." />
        ${v.check_type === 'ping' ? html`<${Field} form=${form} name="max_loss_pct" label="Degraded above loss (%)" type="number" min="0" max="100" step="any"
          hint="Optional; without it any loss is degraded." />` : null}
      </div>
    <//>
    <${Card} title="Organise">
      <div class="grid-2">
        <${TagInput} form=${form} name="tags" label="Tags" suggestions=${tags} hint="Enter or comma adds a tag." />
        <${ChipPicker} form=${form} name="parents" label="Parent monitors" options=${parentOptions} placeholder="Add a parent…" empty="No parents"
          hint="While a parent is down, this monitor's down alerts are held back and summarised in the parent's alert." />
      </div>
    <//>
    <div class="form-actions form-actions-bar">
      <a class="btn" href=${back}>Cancel</a>
      <button type="submit" class="btn btn-primary" disabled=${form.busy}>${form.busy ? 'Saving…' : stored ? 'Save changes' : 'Create monitor'}</button>
    </div>
  </form>`;
}

export default function MonitorFormPage({ params, query }) {
  const editing = params.id !== undefined;
  const monitor = useApi(editing ? `/api/monitors/${encodeURIComponent(params.id)}` : null);
  const monitors = useApi('/api/monitors');
  const tags = useApi('/api/monitors/tags');
  const failed = monitor.error ?? monitors.error;
  const ready = (!editing || monitor.data) && monitors.data;
  const title = editing ? (monitor.data ? `Edit ${monitor.data.name}` : 'Edit monitor') : 'New monitor';
  return html`<${Page} title=${title} subtitle=${editing ? 'Changes to what is checked take effect at once' : 'It is checked as soon as it is saved'}>
    ${failed ? html`<${ErrorState} error=${failed} retry=${() => { monitor.reload(); monitors.reload(); }} />`
      : !ready ? html`<${Card}><${Loading} /><//>`
        : html`<${MonitorForm} key=${monitor.data?.id ?? 'new'} stored=${monitor.data ?? null} monitors=${monitors.data.monitors} tags=${tags.data ?? []} query=${query} />`}
  <//>`;
}
