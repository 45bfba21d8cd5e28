// A scan's offered routes (the result's `routes`: what its layer-3 devices' SNMP routing tables said),
// each with "Import": POST /api/v1sion/routes with source snmp and the device's inventory endpoint when
// the device is linked to one (the inventory comparison says so), else the person picks the endpoint or
// none. A route documented already is the API's 409, shown plainly on its row. Loaded on first use.
import { api } from '../../lib/api.js';
import { count } from '../../lib/format.js';
import { html, useEffect, useMemo, useState } from '../../lib/html.js';
import { can, useSession } from '../../lib/session.js';
import { SearchBox } from '../../components/controls.js';
import { EmptyState } from '../../components/empty.js';
import { Pager, Table } from '../../components/table.js';
import { importBody, sortByIp } from './model.js';
import { ImportCell, ImportRouteDialog, offeredKey, useImports } from './route-import.js';
import { none, RecordRef } from './section.js';

const PAGE = 100;

/** The endpoint each device of the scan is linked to (by every id of a merged device), from the diff. */
function useLinkedEndpoints(jobId, enabled) {
  const [linked, setLinked] = useState(null);
  useEffect(() => {
    if (!enabled) { setLinked(new Map()); return undefined; }
    const ctl = new AbortController();
    api.post('/api/v1sion/brain/diff', { scan_job_id: jobId }, { signal: ctl.signal }).then((d) => {
      const m = new Map();
      for (const it of d.items) {
        if (it.linked && it.match?.inventory?.type === 'endpoints') for (const id of it.device.device_ids) m.set(id, it.match.inventory);
      }
      setLinked(m);
    }, (e) => { if (e?.name !== 'AbortError') setLinked(new Map()); });
    return () => ctl.abort();
  }, [jobId, enabled]);
  return linked;
}

export function OfferedRoutes({ result, writable }) {
  const s = useSession();
  const inventory = can(s, 'brain:read') && writable;
  const linked = useLinkedEndpoints(result.job_id, inventory);
  const imports = useImports();
  const [q, setQ] = useState('');
  const [deviceFilter, setDeviceFilter] = useState('');
  const [offset, setOffset] = useState(0);
  const [picking, setPicking] = useState(null);
  const devices = useMemo(() => new Map(result.devices.map((d) => [d.id, d])), [result.devices]);
  const routes = useMemo(() => sortByIp(result.routes ?? [], (r) => r.destination.split('/')[0]), [result.routes]);
  const withRoutes = [...new Set(routes.map((r) => r.device_id))];

  const words = q.toLowerCase().split(/\s+/).filter(Boolean);
  const shown = routes.filter((r) => (!deviceFilter || r.device_id === deviceFilter) && (!words.length
    || words.every((w) => [r.destination, r.next_hop, r.interface, r.protocol, devices.get(r.device_id)?.name].filter(Boolean).join(' ').toLowerCase().includes(w))));
  const from = Math.min(offset, Math.max(0, shown.length - 1));

  const importOne = (r) => {
    const ep = linked?.get(r.device_id);
    if (ep) imports.post(offeredKey(r), importBody(r, { type: 'endpoint', id: ep.id }, 'snmp'));
    else setPicking(r);
  };

  const columns = [
    { key: 'destination', label: 'Destination', render: (r) => html`<span class="cell-title mono">${r.destination}</span>` },
    { key: 'next_hop', label: 'Next hop', render: (r) => (r.next_hop ? html`<span class="mono">${r.next_hop}</span>` : html`<span class="muted">Directly connected</span>`) },
    { key: 'interface', label: 'Interface', render: (r) => (r.interface ? html`<span class="mono">${r.interface}</span>` : none) },
    { key: 'metric', label: 'Metric', class: 'num', render: (r) => (r.metric ?? none) },
    { key: 'protocol', label: 'Protocol', render: (r) => r.protocol ?? none },
    { key: 'device', label: 'Device', render: (r) => {
      const ep = linked?.get(r.device_id);
      return html`<div class="disc-name-cell"><span>${devices.get(r.device_id)?.name ?? r.device_id}</span>
        <div class="cell-sub">${ep ? html`<${RecordRef} record=${ep} />` : inventory && linked ? 'Not linked to an endpoint' : html`<span class="mono">${r.agent}</span>`}</div></div>`;
    } },
    ...(writable ? [{ key: 'import', label: 'Document', class: 'actions-col', render: (r) => html`<${ImportCell}
      state=${imports.states.get(offeredKey(r))} disabled=${inventory && !linked}
      label=${`Import the route to ${r.destination} via ${r.next_hop ?? 'a direct link'}`} onImport=${() => importOne(r)} />` }] : []),
  ];

  if (!routes.length) {
    return html`<${EmptyState} icon="send" title="No routes offered">
      <p>A scan reads the routing tables of the routers and layer-3 switches it identifies over SNMP and offers their routes here
        for import. ${result.routes ? 'This scan identified none, or their tables were empty or too large to read.' : 'This result was kept before scans read routes.'}</p><//>`;
  }
  return html`
    <div class="disc-toolbar">
      <${SearchBox} value=${q} label="Filter the offered routes" placeholder="Filter by destination, next hop, interface" onInput=${(v) => { setQ(v); setOffset(0); }} />
      ${withRoutes.length > 1 ? html`<select class="select-sm" aria-label="Device" value=${deviceFilter} onChange=${(e) => { setDeviceFilter(e.currentTarget.value); setOffset(0); }}>
        <option value="">Every device</option>
        ${withRoutes.map((id) => html`<option key=${id} value=${id}>${devices.get(id)?.name ?? id}</option>`)}
      </select>` : null}
      <span class="muted small">${words.length || deviceFilter ? `${shown.length} of ${count(routes.length)}` : count(routes.length)} offered; nothing is imported on its own</span>
    </div>
    <${Table} columns=${columns} rows=${shown.slice(from, from + PAGE)} rowKey=${offeredKey} caption="Offered routes"
      empty=${html`<${EmptyState} icon="search" title="No route matches the filter" />`} />
    <${Pager} total=${shown.length} limit=${PAGE} offset=${from} onChange=${setOffset} />
    ${picking ? html`<${ImportRouteDialog} route=${picking} source="snmp" deviceName=${devices.get(picking.device_id)?.name}
      suggestQuery=${picking.agent} onImport=${(body) => imports.post(offeredKey(picking), body)} onClose=${() => setPicking(null)} />` : null}`;
}
