// Importing a route a device reported (a scan's SNMP routing tables, SSH enrichment's `ip route` or
// `show ip route`): one POST /api/v1sion/routes per route a person picks, with source snmp or ssh and the
// device it came from. Nothing is imported on its own. Each row then says what happened: imported, or
// already documented (the API's 409 route_exists, shown as it comes), or the API's refusal.
import { api, ApiError } from '../../lib/api.js';
import { useForm } from '../../lib/form.js';
import { html, useCallback, useState } from '../../lib/html.js';
import { toast } from '../../lib/toast.js';
import { Badge } from '../../components/badge.js';
import { FormError } from '../../components/field.js';
import { Icon } from '../../components/icons.js';
import { Modal } from '../../components/modal.js';
import { EndpointPicker } from './endpoint-picker.js';
import { importBody } from './model.js';

/** A route's key in a table of offered routes. */
export const offeredKey = (r) => `${r.device_id ?? ''}|${r.destination}|${r.next_hop ?? r.gateway ?? ''}|${r.interface ?? ''}`;

/**
 * What happened to each offered route, by key: {state: 'busy' | 'imported' | 'exists' | 'refused', detail, route}.
 * `post(key, body)` imports one.
 */
export function useImports() {
  const [states, setStates] = useState(() => new Map());
  const set = (key, v) => setStates((m) => new Map(m).set(key, v));
  const post = useCallback(async (key, body) => {
    set(key, { state: 'busy' });
    try {
      const route = await api.post('/api/v1sion/routes', body);
      set(key, { state: 'imported', route });
      toast.ok(`Imported the route to ${route.destination}`);
      return true;
    } catch (e) {
      if (e instanceof ApiError && e.status === 409) {
        set(key, { state: 'exists', detail: e.detail });
        return true;
      }
      const detail = e instanceof ApiError ? [e.detail, ...e.errors.map((x) => `${x.path}: ${x.message}`)].join(' ') : String(e?.message ?? e);
      set(key, { state: 'refused', detail });
      toast.error(e);
      return false;
    }
  }, []);
  return { states, post };
}

/** The cell of an offered route: an Import button, or what its import did. */
export function ImportCell({ state, onImport, label, disabled }) {
  if (state?.state === 'imported') {
    return html`<span class="disc-import-done"><${Badge} tone="ok">Imported<//>
      <a class="small" href=${`/discovery/routes?contains=${encodeURIComponent(state.route.destination.split('/')[0])}`}>See it</a></span>`;
  }
  if (state?.state === 'exists') {
    return html`<div class="disc-import-done"><${Badge} tone="info">Already documented<//><div class="cell-sub">${state.detail}</div></div>`;
  }
  return html`<div class="disc-import-cell">
    <button type="button" class="btn btn-sm" onClick=${onImport} disabled=${disabled || state?.state === 'busy'} aria-label=${label}>
      <${Icon} name="plus" size=${15} />${state?.state === 'busy' ? 'Importing…' : 'Import'}</button>
    ${state?.state === 'refused' ? html`<div class="field-error">${state.detail}</div>` : null}
  </div>`;
}

/**
 * Chooses the endpoint an offered route belongs to (the device is not linked to one yet), or none, then
 * imports it. `suggestQuery` starts the search (the device's address).
 */
export function ImportRouteDialog({ route, source, deviceName, suggestQuery, onImport, onClose }) {
  const [endpoint, setEndpoint] = useState(null);
  const form = useForm({});
  const onSubmit = form.submit(async () => {
    const ok = await onImport(importBody(route, endpoint ? { type: 'endpoint', id: endpoint.id } : null, source));
    if (ok) onClose();
  });
  return html`<${Modal} title=${`Import the route to ${route.destination}`} onClose=${onClose}
    footer=${html`<button type="button" class="btn" onClick=${onClose}>Cancel</button>
      <button type="submit" form="disc-import-form" class="btn btn-primary" disabled=${form.busy}>${form.busy ? 'Importing…' : 'Import route'}</button>`}>
    <form id="disc-import-form" onSubmit=${onSubmit}>
      <${FormError} form=${form} />
      <p class="muted disc-intro">${deviceName ? html`<strong>${deviceName}</strong> is not linked to an inventory endpoint yet. ` : null}
        Choose the endpoint that holds this route (Compare with inventory links devices to endpoints), or import it without one.</p>
      <${EndpointPicker} value=${endpoint} onChange=${setEndpoint} label="Endpoint" noneLabel="No device: document the route alone"
        initialQuery=${suggestQuery ?? ''} />
    </form>
  <//>`;
}
