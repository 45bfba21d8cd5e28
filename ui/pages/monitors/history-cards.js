// The history cards of a monitor's page: incidents (down periods), the raw check results with a
// status filter, and the monitor's entries in the event log with a CSV export. Paging and filters
// are kept in the URL (prefixed per card), and all follow monitor state changes live.
import { qs } from '../../lib/api.js';
import { dateTime, duration, ms, relTime } from '../../lib/format.js';
import { html } from '../../lib/html.js';
import { useApi } from '../../lib/hooks.js';
import { setQuery } from '../../lib/router.js';
import { RESULT_STATUSES, STATUS_LABELS } from '../../lib/vocabulary.js';
import { Badge, StatusBadge } from '../../components/badge.js';
import { EmptyState, ErrorState, Loading } from '../../components/empty.js';
import { XIcon } from '../../components/extra-icons.js';
import { Icon } from '../../components/icons.js';
import { Card } from '../../components/page.js';
import { Pager, Table } from '../../components/table.js';
import { eventMark, eventText } from './event-view.js';

const paging = (key) => (o) => setQuery({ [key]: o || '' }, { replace: false });

const INCIDENT_COLUMNS = [
  { key: 'opened_at', label: 'Started', render: (i) => html`<div class="cell-title">${dateTime(i.opened_at)}</div>
    <div class="cell-sub">${i.closed_at ? `ended ${relTime(i.closed_at)}` : html`<${Badge} tone="bad">Ongoing<//>`}</div>` },
  { key: 'duration', label: 'Duration', class: 'nowrap', render: (i) => duration(i.duration) },
  { key: 'failures', label: 'Failed checks', class: 'num', render: (i) => i.failures },
  { key: 'message', label: 'Cause', render: (i) => html`<span>${i.message ?? '—'}</span>
    ${i.close_message ? html`<div class="cell-sub">Ended: ${i.close_message}</div>` : null}` },
];

export function IncidentsCard({ id, query }) {
  const offset = Number(query.i_offset) || 0;
  const r = useApi(`/api/monitors/${id}/incidents`, { query: { limit: 10, offset }, live: true });
  return html`<${Card} title="Incidents" pad=${false}>
    ${r.error ? html`<${ErrorState} error=${r.error} retry=${r.reload} />`
      : !r.data ? html`<${Loading} />`
        : html`<${Table} columns=${INCIDENT_COLUMNS} rows=${r.data.items} caption="Incidents"
            rowClass=${(i) => (i.closed_at ? '' : 'row-open')}
            empty=${html`<${EmptyState} icon="check" title="No incidents"><p>An incident opens when the monitor goes down, and closes when it answers again.</p><//>`} />
          <${Pager} total=${r.data.total} limit=${10} offset=${offset} onChange=${paging('i_offset')} />`}
  <//>`;
}

const RESULT_COLUMNS = [
  { key: 'at', label: 'Check', render: (x) => html`<div title=${relTime(x.at)}>${dateTime(x.at)}</div>
    <div class="cell-sub clip-2" title=${x.message ?? ''}>${x.message ?? '—'}</div>` },
  { key: 'status', label: 'Result', render: (x) => html`<div class="chips"><${StatusBadge} status=${x.status} />${x.in_maintenance
    ? html`<span class="badge status-maintenance" title="Checked in a maintenance window: its alerts held, its time in no uptime">Maintenance</span>` : null}</div>` },
  { key: 'response_time', label: 'Response', class: 'num', render: (x) => ms(x.response_time) },
];
const RESULTS_PAGE = 20;

const RESULT_FILTERS = [{ value: '', label: 'All results' }, ...RESULT_STATUSES.map((s) => ({ value: s, label: STATUS_LABELS[s] }))];

export function ResultsCard({ id, query, interval }) {
  const offset = Number(query.r_offset) || 0;
  const status = query.r_status ?? '';
  const r = useApi(`/api/monitors/${id}/results`, { query: { limit: RESULTS_PAGE, offset, status }, live: true, every: Math.max(10, Math.min(interval, 60)) });
  const filter = html`<select class="select-sm" aria-label="Show results" value=${status} onChange=${(e) => setQuery({ r_status: e.currentTarget.value, r_offset: '' })}>
    ${RESULT_FILTERS.map((f) => html`<option key=${f.value} value=${f.value}>${f.label}</option>`)}
  </select>`;
  return html`<${Card} title="Check results" actions=${filter} pad=${false}>
    ${r.error ? html`<${ErrorState} error=${r.error} retry=${r.reload} />`
      : !r.data ? html`<${Loading} />`
        : html`<${Table} columns=${RESULT_COLUMNS} rows=${r.data.items} rowKey="at" caption="Check results"
            empty=${html`<${EmptyState} icon="clock" title=${status ? `No ${status} results in the last 24 hours` : 'No checks yet'} />`} />
          <${Pager} total=${r.data.total} limit=${RESULTS_PAGE} offset=${offset} onChange=${paging('r_offset')} />`}
  <//>`;
}

export function EventsCard({ id }) {
  const r = useApi('/api/monitors/events', { query: { monitor_id: id, limit: 8, exclude_kind: 'manual_check' }, live: true });
  const actions = html`
    <a class="btn btn-sm btn-ghost" href=${`/api/monitors/events/export${qs({ monitor_id: id })}`} download><${XIcon} name="download" size=${15} />CSV</a>
    <a class="btn btn-sm btn-ghost" href=${`/monitors/events?monitor_id=${id}`}>All<${Icon} name="chevron" size=${14} /></a>`;
  return html`<${Card} title="Events" actions=${actions} pad=${false}>
    ${r.error ? html`<${ErrorState} error=${r.error} retry=${r.reload} />`
      : !r.data ? html`<${Loading} />`
        : !r.data.items.length ? html`<${EmptyState} icon="log" title="No events" />`
          : html`<ul class="rows">
              ${r.data.items.map((e) => html`<li key=${e.id} class="row">
                <span class=${`event-mark status-${eventMark(e)}`} aria-hidden="true"></span>
                <div class="row-main"><div class="row-sub ev-text">${eventText(e)}</div></div>
                <time class="row-side muted small" datetime=${e.at} title=${dateTime(e.at)}>${relTime(e.at)}</time>
              </li>`)}
            </ul>`}
  <//>`;
}

