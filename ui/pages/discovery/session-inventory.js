// A session compared with the inventory (/discovery/sessions/:id/inventory): its nodes that a scan found
// against the inventory's records, grouped new, changed and unchanged, and the endpoints it did not see
// (reconcile.js); the shown group is kept in the URL (?group=).
import { html } from '../../lib/html.js';
import { useApi } from '../../lib/hooks.js';
import { setQuery } from '../../lib/router.js';
import { Crumbs } from '../../components/controls.js';
import { EmptyState, ErrorState } from '../../components/empty.js';
import { Card, Page } from '../../components/page.js';
import { Reconcile } from './reconcile.js';

export default function SessionInventoryPage({ params, query }) {
  const session = useApi(`/api/v1sion/sessions/${encodeURIComponent(params.id)}`);
  if (session.error?.status === 404) {
    return html`<${Page} title="Not found"><${Card}><${EmptyState} icon="search" title="There is no such session"
      action=${html`<a class="btn btn-primary" href="/discovery/sessions">All sessions</a>`}><p>It may have been deleted.</p><//><//><//>`;
  }
  const name = session.data?.name ?? 'Session';
  const crumbs = [{ href: '/discovery', label: 'Discovery' }, { href: '/discovery/sessions', label: 'Sessions' },
    { href: `/discovery/sessions/${params.id}`, label: name }, { label: 'Inventory' }];
  return html`<${Page} title="Compare with inventory" subtitle=${html`<${Crumbs} items=${crumbs} />`}>
    ${session.error ? html`<${ErrorState} error=${session.error} retry=${session.reload} />` : null}
    <p class="muted disc-lead">The session's nodes that a scan found, against the inventory: new devices, matched ones whose fields differ
      (discovery never overwrites a field a person set), and the endpoints in its subnets that it did not see. Comparing writes nothing.</p>
    <${Reconcile} source=${{ session_id: params.id }} group=${query.group} onGroup=${(g) => setQuery({ group: g })} />
  <//>`;
}
