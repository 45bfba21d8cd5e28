// Discovery sessions (/discovery/sessions): the saved topology sessions, newest change first, with their
// subnets and node and edge counts; a name search and paging kept in the URL; delete with confirmation.
import { api } from '../../lib/api.js';
import { confirm } from '../../lib/confirm.js';
import { count, dateTime, relTime } from '../../lib/format.js';
import { html } from '../../lib/html.js';
import { useApi, useDebounced } from '../../lib/hooks.js';
import { setQuery } from '../../lib/router.js';
import { can, useSession } from '../../lib/session.js';
import { toast } from '../../lib/toast.js';
import { SearchBox } from '../../components/controls.js';
import { EmptyState, ErrorState, Loading } from '../../components/empty.js';
import { Icon } from '../../components/icons.js';
import { Card, Page } from '../../components/page.js';
import { Pager, Table } from '../../components/table.js';
import { DiscoveryTabs, none } from './section.js';

const LIMIT = 50;

export default function SessionsPage({ query }) {
  const s = useSession();
  const writable = can(s, 'v1sion:write');
  const offset = Number(query.offset) || 0;
  const q = useDebounced((query.q ?? '').trim(), 250);
  const list = useApi('/api/v1sion/sessions', { query: { q, limit: LIMIT, offset } });

  const remove = async (x) => {
    if (!(await confirm({ title: `Delete ${x.name}?`, confirmLabel: 'Delete', danger: true,
      message: `Its ${x.node_count} nodes and ${x.edge_count} edges go with it. The scans it came from are not affected.` }))) return;
    try {
      await api.del(`/api/v1sion/sessions/${x.id}`);
      toast.ok(`Deleted ${x.name}`);
      list.reload();
    } catch (e) { toast.error(e); }
  };

  const columns = [
    { key: 'name', label: 'Session', render: (x) => html`<div class="disc-name-cell">
      <a href=${`/discovery/sessions/${x.id}`} class="cell-title">${x.name}</a>
      ${x.notes ? html`<div class="cell-sub clip" title=${x.notes}>${x.notes}</div>` : null}</div>` },
    { key: 'subnets', label: 'Subnets', render: (x) => (x.subnets.length
      ? html`<span class="chips">${x.subnets.map((n) => html`<span key=${n} class="disc-subnet-chip mono">${n}</span>`)}</span>` : none) },
    { key: 'node_count', label: 'Nodes', class: 'num', render: (x) => count(x.node_count) },
    { key: 'edge_count', label: 'Edges', class: 'num', render: (x) => count(x.edge_count) },
    { key: 'updated_at', label: 'Changed', class: 'nowrap', render: (x) => html`<time datetime=${x.updated_at} title=${dateTime(x.updated_at)}>${relTime(x.updated_at)}</time>` },
    ...(writable ? [{ key: 'actions', label: 'Actions', class: 'actions-col', hideLabel: true, render: (x) => html`<div class="actions">
      <button type="button" class="btn btn-sm btn-icon" onClick=${() => remove(x)} aria-label=${`Delete ${x.name}`} title="Delete"><${Icon} name="trash" size=${15} /></button>
    </div>` }] : []),
  ];

  const scanLink = writable ? html`<a class="btn btn-primary" href="/discovery"><${Icon} name="discovery" />Scan a subnet</a>` : null;
  return html`<${Page} title="Discovery" subtitle="Topology sessions: what was kept of scans, to compare with newer ones">
    <${DiscoveryTabs} active="/discovery/sessions" />
    <${Card} pad=${false}>
      <div class="disc-toolbar">
        <${SearchBox} value=${query.q ?? ''} label="Search sessions by name" placeholder="Search by name" onInput=${(v) => setQuery({ q: v, offset: '' })} />
      </div>
      ${list.error ? html`<div class="disc-note"><${ErrorState} error=${list.error} retry=${list.reload} /></div>`
        : !list.data ? html`<${Loading} />`
          : html`<${Table} columns=${columns} rows=${list.data.items} caption="Topology sessions"
              empty=${q ? html`<${EmptyState} icon="search" title="No session matches"
                  action=${html`<button type="button" class="btn" onClick=${() => setQuery({ q: '', offset: '' })}>Clear the search</button>`} />`
                : html`<${EmptyState} icon="discovery" title="No sessions yet" action=${scanLink}>
                    <p>Scan a subnet, then save the result as a session: its devices and links are kept, and newer scans can be merged into it to see what is new and what has gone.</p><//>`} />
            <${Pager} total=${list.data.total} limit=${LIMIT} offset=${offset} onChange=${(o) => setQuery({ offset: o || '' }, { replace: false })} />`}
    <//>
  <//>`;
}
