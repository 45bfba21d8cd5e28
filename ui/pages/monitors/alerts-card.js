// A monitor's alerts and who was told (its page's "Who was told" card): the newest alerts about it from
// the alert log (GET /api/webhooks/alerts?monitor_id=, webhooks:read), each with what became of it (sent,
// held back and by what, a reminder) and per webhook whether it was told, how the delivery went, or why
// not (held, not routed to it, disabled, cooldown). Shown to those who may read webhooks.
import { html } from '../../lib/html.js';
import { useApi } from '../../lib/hooks.js';
import { EmptyState, ErrorState, Loading } from '../../components/empty.js';
import { Icon } from '../../components/icons.js';
import { Card } from '../../components/page.js';
import { AlertItem } from '../alert-told.js';

const SHOWN = 5;

export function AlertsCard({ id }) {
  // A state change may raise an alert (live), and deliveries move on without one (every 30 s).
  const r = useApi('/api/webhooks/alerts', { query: { monitor_id: id, limit: SHOWN }, live: true, every: 30 });
  const actions = html`<a class="btn btn-sm btn-ghost" href=${`/alerts?monitor_id=${id}`} aria-label="All alerts of this monitor">All<${Icon} name="chevron" size=${14} /></a>`;
  return html`<${Card} title="Who was told" actions=${actions} pad=${false} class="mon-alerts">
    ${r.error ? html`<${ErrorState} error=${r.error} retry=${r.reload} />`
      : !r.data ? html`<${Loading} />`
        : !r.data.items.length ? html`<${EmptyState} icon="bell" title="No alerts yet">
            <p>When this monitor goes down or recovers, each webhook's part is shown here: told, or why not.</p><//>`
          : html`<ul class="al-list" aria-label="Alerts about this monitor">${r.data.items.map((a) => html`<${AlertItem} key=${a.id} a=${a} />`)}</ul>
            ${r.data.total > SHOWN ? html`<p class="al-pad muted small">The newest ${SHOWN} of ${r.data.total}.</p>` : null}`}
  <//>`;
}
