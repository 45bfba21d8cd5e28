// Routes (/discovery/routes): how subnets are reached, as people documented them or imported them from
// what devices said. By address family and destination (the API's order), 100 to a page; filters kept
// in the URL: text, "contains" an address (sent once it is a whole address: the API refuses anything
// else), source, and a session's nodes. Add, edit and delete in a dialog.
import { api } from '../../lib/api.js';
import { confirm } from '../../lib/confirm.js';
import { count, dateTime, relTime } from '../../lib/format.js';
import { html, useState } from '../../lib/html.js';
import { useApi, useDebounced } from '../../lib/hooks.js';
import { setQuery } from '../../lib/router.js';
import { can, useSession } from '../../lib/session.js';
import { toast } from '../../lib/toast.js';
import { ROUTE_SOURCES } from '../../lib/vocabulary.js';
import { SearchBox } from '../../components/controls.js';
import { EmptyState, ErrorState, Loading } from '../../components/empty.js';
import { Icon } from '../../components/icons.js';
import { Card, Page } from '../../components/page.js';
import { Pager, Table } from '../../components/table.js';
import { isAddress } from './model.js';
import { RouteDialog } from './route-form.js';
import { DiscoveryTabs, none, RouteDevice, RouteSource } from './section.js';

const LIMIT = 100;

export default function RoutesPage({ query }) {
  const s = useSession();
  const writable = can(s, 'v1sion:write');
  const offset = Number(query.offset) || 0;
  const q = useDebounced((query.q ?? '').trim(), 250);
  const containsText = (query.contains ?? '').trim();
  const contains = useDebounced(isAddress(containsText) ? containsText : '', 250);
  const source = ROUTE_SOURCES[query.source] ? query.source : '';
  const sessionId = /^[0-9a-f-]{36}$/i.test(query.session_id ?? '') ? query.session_id : undefined;
  const list = useApi('/api/v1sion/routes', { query: { q, contains, source, session_id: sessionId, limit: LIMIT, offset } });
  const session = useApi(sessionId ? `/api/v1sion/sessions/${sessionId}` : null);
  const [dialog, setDialog] = useState(null); // {route?} | null

  const remove = async (r) => {
    if (!(await confirm({ title: `Delete the route to ${r.destination}?`, confirmLabel: 'Delete', danger: true,
      message: `${r.next_hop ? `Via ${r.next_hop}` : 'Directly connected'}${r.device ? ', on its device' : ''}. Routes imported again later come back as new.` }))) return;
    try {
      await api.del(`/api/v1sion/routes/${r.id}`);
      toast.ok(`Deleted the route to ${r.destination}`);
      list.reload();
    } catch (e) { toast.error(e); }
  };
  const done = (r, isNew) => {
    setDialog(null);
    toast.ok(isNew ? `Added the route to ${r.destination}` : `Saved the route to ${r.destination}`);
    list.reload();
  };

  const columns = [
    { key: 'destination', label: 'Destination', render: (r) => html`<div class="disc-name-cell"><span class="cell-title mono">${r.destination}</span>
      ${r.note ? html`<div class="cell-sub clip-2" title=${r.note}>${r.note}</div>` : null}</div>` },
    { key: 'next_hop', label: 'Next hop', render: (r) => (r.next_hop ? html`<span class="mono">${r.next_hop}</span>` : html`<span class="muted">Directly connected</span>`) },
    { key: 'device', label: 'Device', render: (r) => html`<${RouteDevice} device=${r.device} />` },
    { key: 'interface', label: 'Interface', render: (r) => (r.interface ? html`<span class="mono">${r.interface}</span>` : none) },
    { key: 'metric', label: 'Metric', class: 'num', render: (r) => (r.metric ?? none) },
    { key: 'source', label: 'Source', render: (r) => html`<${RouteSource} source=${r.source} />` },
    { key: 'updated_at', label: 'Changed', class: 'nowrap', render: (r) => html`<time datetime=${r.updated_at} title=${dateTime(r.updated_at)}>${relTime(r.updated_at)}</time>` },
    ...(writable ? [{ key: 'actions', label: 'Actions', class: 'actions-col', hideLabel: true, render: (r) => html`<div class="actions">
      <button type="button" class="btn btn-sm btn-icon" onClick=${() => setDialog({ route: r })} aria-label=${`Edit the route to ${r.destination}`} title="Edit"><${Icon} name="edit" size=${15} /></button>
      <button type="button" class="btn btn-sm btn-icon" onClick=${() => remove(r)} aria-label=${`Delete the route to ${r.destination}`} title="Delete"><${Icon} name="trash" size=${15} /></button>
    </div>` }] : []),
  ];

  const containsBad = containsText && !isAddress(containsText);
  const apiContains = list.error?.status === 400 ? list.error.errors.find((e) => e.path === 'query.contains')?.message : null;
  const filtered = q || contains || source || sessionId;
  const add = writable ? html`<button type="button" class="btn btn-primary" onClick=${() => setDialog({})}><${Icon} name="plus" size=${16} />Add route</button>` : null;

  return html`<${Page} title="Discovery" subtitle="Routes: how each subnet is reached, as documented" actions=${add}>
    <${DiscoveryTabs} active="/discovery/routes" />
    <${Card} pad=${false} class="disc-table-card">
      <div class="disc-toolbar disc-route-filters">
        <${SearchBox} value=${query.q ?? ''} label="Search routes" placeholder="Destination, next hop, interface or note"
          onInput=${(v) => setQuery({ q: v, offset: '' })} />
        <div class="disc-filter">
          <${SearchBox} value=${query.contains ?? ''} label="Routes to an address" placeholder="Routes to address…" class="disc-contains"
            aria-invalid=${containsBad || apiContains ? 'true' : undefined} aria-describedby="disc-contains-help"
            onInput=${(v) => setQuery({ contains: v, offset: '' })} />
          <div id="disc-contains-help" class=${containsBad || apiContains ? 'field-error' : 'sr-only'}>${apiContains
            ?? (containsBad ? 'Type a whole IPv4 or IPv6 address.' : 'The routes whose destination holds this address.')}</div>
        </div>
        <select class="select-sm" aria-label="Source" value=${source} onChange=${(e) => setQuery({ source: e.currentTarget.value, offset: '' })}>
          <option value="">Every source</option>
          ${Object.entries(ROUTE_SOURCES).map(([value, x]) => html`<option key=${value} value=${value}>${x.label}</option>`)}
        </select>
        ${sessionId ? html`<span class="chip">Session: ${session.data?.name ?? '…'}<button type="button" class="chip-x" aria-label="Routes of every device"
          title="Remove the filter" onClick=${() => setQuery({ session_id: '', offset: '' })}><${Icon} name="close" size=${12} /></button></span>` : null}
        ${list.data ? html`<span class="muted small">${count(list.data.total)} ${list.data.total === 1 ? 'route' : 'routes'}</span>` : null}
      </div>
      ${list.error && !apiContains ? html`<div class="disc-note"><${ErrorState} error=${list.error} retry=${list.reload} /></div>`
        : !list.data ? html`<${Loading} />`
          : html`<${Table} columns=${columns} rows=${list.data.items} caption="Routes"
              empty=${filtered ? html`<${EmptyState} icon="search" title="No route matches"
                  action=${html`<button type="button" class="btn" onClick=${() => setQuery({ q: '', contains: '', source: '', session_id: '', offset: '' })}>Clear the filters</button>`} />`
                : html`<${EmptyState} icon="send" title="No routes documented yet" action=${add}>
                    <p>Document how subnets are reached: by hand, or import the routes a scan or SSH enrichment read from a device
                      (a scan's Offered routes, an SSH target's routes). Nothing is imported on its own.</p><//>`} />
            <${Pager} total=${list.data.total} limit=${LIMIT} offset=${offset} onChange=${(o) => setQuery({ offset: o || '' }, { replace: false })} />`}
    <//>
    ${dialog ? html`<${RouteDialog} route=${dialog.route} onClose=${() => setDialog(null)} onDone=${(r) => done(r, !dialog.route)} />` : null}
  <//>`;
}
