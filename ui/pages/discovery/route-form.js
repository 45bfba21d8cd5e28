// The route dialog: document a route (POST /api/v1sion/routes) or change one (PUT with the fields that
// changed): destination CIDR, next hop (empty: directly connected), the device that holds it (a node of
// a saved session, an inventory endpoint, or none), interface, metric, source and a note. The API's
// messages land beside their fields (device.session_id, device.node_id, device.id), a 409 (the same
// device, destination and next hop are documented already) as the form's problem.
import { api } from '../../lib/api.js';
import { useForm } from '../../lib/form.js';
import { html, useMemo } from '../../lib/html.js';
import { useApi } from '../../lib/hooks.js';
import { can, useSession } from '../../lib/session.js';
import { ROUTE_SOURCES } from '../../lib/vocabulary.js';
import { ErrorState } from '../../components/empty.js';
import { Field, FormError, SelectField, TextArea } from '../../components/field.js';
import { Modal } from '../../components/modal.js';
import { EndpointPicker } from './endpoint-picker.js';
import { compareIp, deviceFormOf, routeBody } from './model.js';

function initial(route, preset) {
  const d = deviceFormOf(route?.device ?? preset?.device ?? null);
  return {
    destination: route?.destination ?? '', next_hop: route?.next_hop ?? '', interface: route?.interface ?? '',
    metric: route?.metric === null || route?.metric === undefined ? '' : String(route.metric), source: route?.source ?? 'manual',
    note: route?.note ?? '', 'device.kind': d.kind, 'device.session_id': d.session_id, 'device.node_id': d.node_id, 'device.endpoint': d.endpoint,
  };
}

/** The session and node selects of a route held by a session's node. */
function NodeChoice({ form }) {
  const sessionId = form.values['device.session_id'];
  const sessions = useApi('/api/v1sion/sessions', { query: { limit: 500 } });
  const session = useApi(sessionId ? `/api/v1sion/sessions/${encodeURIComponent(sessionId)}` : null);
  const nodes = useMemo(() => [...(session.data?.nodes ?? [])].sort((a, b) => a.label.localeCompare(b.label)
    || compareIp(a.addresses[0] ?? '', b.addresses[0] ?? '')), [session.data]);
  if (sessions.error) return html`<${ErrorState} error=${sessions.error} retry=${sessions.reload} />`;
  const list = sessions.data?.items ?? [];
  return html`<div class="disc-grid">
    <${SelectField} form=${form} name="device.session_id" label="Session" class="disc-span-2"
      onChange=${(e) => { form.set('device.session_id', e.currentTarget.value); form.set('device.node_id', ''); }}
      options=${[{ value: '', label: sessions.data ? (list.length ? 'Choose a session…' : 'No sessions saved yet') : 'Loading…' },
        ...list.map((x) => ({ value: x.id, label: `${x.name} (${x.node_count} nodes)` }))]} />
    <${SelectField} form=${form} name="device.node_id" label="Node" disabled=${!sessionId}
      options=${[{ value: '', label: sessionId ? (session.data ? 'Choose a node…' : 'Loading…') : 'Choose a session first' },
        ...nodes.map((n) => ({ value: n.id, label: n.addresses[0] && n.addresses[0] !== n.label ? `${n.label} (${n.addresses[0]})` : n.label }))]} />
  </div>`;
}

/** `route` to change one; `preset` ({device}) for a new one. `onDone(saved)`. */
export function RouteDialog({ route, preset, onDone, onClose }) {
  const s = useSession();
  const inventory = can(s, 'brain:read');
  const form = useForm(initial(route, preset));
  const v = form.values;
  const onSubmit = form.submit(async (vals) => {
    const values = { ...vals, device: { kind: vals['device.kind'], session_id: vals['device.session_id'], node_id: vals['device.node_id'],
      endpoint: vals['device.endpoint'] } };
    if (!route) { onDone(await api.post('/api/v1sion/routes', routeBody(values))); return; }
    const body = routeBody(values, route);
    if (!Object.keys(body).length) { onClose(); return; }
    onDone(await api.put(`/api/v1sion/routes/${route.id}`, body));
  });
  const kinds = [
    { value: 'none', label: 'Not said' },
    { value: 'session_node', label: 'A node of a saved session' },
    ...(inventory || v['device.kind'] === 'endpoint' ? [{ value: 'endpoint', label: 'An inventory endpoint' }] : []),
  ];
  return html`<${Modal} title=${route ? `Edit the route to ${route.destination}` : 'Document a route'} onClose=${onClose} size="lg"
    footer=${html`<button type="button" class="btn" onClick=${onClose}>Cancel</button>
      <button type="submit" form="disc-route-form" class="btn btn-primary" disabled=${form.busy}>${form.busy ? 'Saving…' : route ? 'Save' : 'Add route'}</button>`}>
    <form id="disc-route-form" onSubmit=${onSubmit}>
      <${FormError} form=${form} />
      <div class="disc-grid">
        <${Field} form=${form} name="destination" label="Destination" required autofocus placeholder="10.20.0.0/16" class="disc-mono-field"
          autocomplete="off" spellcheck=${false} autocapitalize="none" hint="A CIDR; a bare address is a host route." />
        <${Field} form=${form} name="next_hop" label="Next hop" placeholder="10.0.0.1" class="disc-mono-field"
          autocomplete="off" spellcheck=${false} autocapitalize="none" hint="Empty: directly connected." />
        <${Field} form=${form} name="interface" label="Interface" placeholder="Gi1/0/24" maxlength="100" autocomplete="off" spellcheck=${false} />
      </div>
      <${SelectField} form=${form} name="device.kind" label="Device that holds the route" options=${kinds} />
      ${v['device.kind'] === 'session_node' ? html`<${NodeChoice} form=${form} />` : null}
      ${v['device.kind'] === 'endpoint' ? html`<${EndpointPicker} value=${v['device.endpoint']} onChange=${(e) => form.set('device.endpoint', e)}
        label="Endpoint" error=${form.errorFor('device.id') ?? form.errorFor('device')} />` : null}
      ${v['device.kind'] !== 'endpoint' && form.errorFor('device') && !form.errorFor('device.session_id') && !form.errorFor('device.node_id')
        ? html`<div class="field-error">${form.errorFor('device')}</div>` : null}
      <div class="disc-grid">
        <${Field} form=${form} name="metric" label="Metric" type="number" min="0" max="4294967295" inputmode="numeric" />
        <${SelectField} form=${form} name="source" label="Source" class="disc-span-2"
          options=${Object.entries(ROUTE_SOURCES).map(([value, x]) => ({ value, label: `${x.label}: ${x.hint.charAt(0).toLowerCase()}${x.hint.slice(1)}` }))} />
      </div>
      <${TextArea} form=${form} name="note" label="Note" rows=${3} maxlength="2000" hint="Why it is there, who asked for it, a ticket." />
    </form>
  <//>`;
}
