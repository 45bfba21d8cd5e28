// Alerts: what was raised and who was told. Each alert, newest first, with what became of it (sent,
// held back by the alert gate and why, sent after a hold) and, per webhook offered it, whether it was
// told and how that delivery went (delivered, failed and waiting for its next attempt, given up) or why
// not; the deliveries waiting; every delivery attempt with its status, time and error. Filters and
// paging live in the query. Reads GET /api/webhooks/alerts, /deliveries and /deliveries/pending
// (webhooks:read); what they return was scrubbed of webhook secrets by the server.
import { dateTime, humanize, ms, relTime } from '../lib/format.js';
import { html } from '../lib/html.js';
import { useApi } from '../lib/hooks.js';
import { setQuery } from '../lib/router.js';
import { ALERT_OUTCOME_LABELS, ATTEMPT_OUTCOME_LABELS, ATTEMPT_OUTCOME_TONE } from '../lib/vocabulary.js';
import { Badge } from '../components/badge.js';
import { EmptyState, ErrorState, Loading } from '../components/empty.js';
import { Icon } from '../components/icons.js';
import { Card, Page } from '../components/page.js';
import { Pager, Table } from '../components/table.js';
import { Tabs } from '../components/tabs.js';
import { AlertItem, plural, untilText } from './alert-told.js';

const LIMIT = 25;
const TABS = [
  { href: '/alerts', label: 'Alerts', icon: 'bell' },
  { href: '/alerts/deliveries', label: 'Deliveries', icon: 'send' },
];
/** Alerts and deliveries change without a monitor event (retries): looked at again this often, in seconds. */
const REFRESH = 15;

/** A select whose choice is kept in the query (`name`), with "All" first. */
function QuerySelect({ id, label, name, value, all, options }) {
  return html`<div class="field"><label for=${id}>${label}</label>
    <select id=${id} value=${value ?? ''} onChange=${(e) => setQuery({ [name]: e.currentTarget.value, offset: '' })}>
      <option value="">${all}</option>
      ${options.map((o) => html`<option key=${o.value} value=${o.value}>${o.label}</option>`)}
    </select></div>`;
}

// ---- alerts ---------------------------------------------------------------------------------------------

function PendingNote() {
  const pending = useApi('/api/webhooks/deliveries/pending', { query: { limit: 1 }, every: REFRESH });
  const n = pending.data?.total ?? 0;
  if (!n) return null;
  return html`<div class="alert alert-warn" role="status">
    <${Icon} name="clock" />
    <div class="alert-body"><strong>${plural(n, 'delivery', 'deliveries')} waiting to be sent</strong>
      <div>${n === 1 ? 'It waits' : 'They wait'} for a first attempt or a retry. <a href="/alerts/deliveries">See the deliveries</a></div></div>
  </div>`;
}

function AlertsView({ query }) {
  const offset = Number(query.offset) || 0;
  const filters = { type: query.type, outcome: query.outcome, monitor_id: query.monitor_id };
  const alerts = useApi('/api/webhooks/alerts', { query: { ...filters, limit: LIMIT, offset }, live: true, every: REFRESH });
  const types = useApi('/api/webhooks/alert-types');
  const typeOptions = (types.data?.items ?? []).map((t) => ({ value: t.type, label: humanize(t.type) }));
  if (query.type && !typeOptions.some((o) => o.value === query.type)) typeOptions.push({ value: query.type, label: humanize(query.type) });
  const filtered = query.type || query.outcome || query.monitor_id;
  // From a monitor's page: its alerts only, named by the monitor of the first one.
  const about = query.monitor_id ? alerts.data?.items[0]?.alert.monitor?.name ?? 'one monitor' : null;
  return html`
    <${PendingNote} />
    <${Card} pad=${false}>
      <div class="al-filters">
        <${QuerySelect} id="al-type" label="Alert type" name="type" value=${query.type} all="All types" options=${typeOptions} />
        <${QuerySelect} id="al-outcome" label="Outcome" name="outcome" value=${query.outcome} all="All outcomes"
          options=${Object.entries(ALERT_OUTCOME_LABELS).map(([value, label]) => ({ value, label }))} />
        ${filtered ? html`<div class="field al-reset"><button type="button" class="btn" onClick=${() => setQuery({ type: '', outcome: '', monitor_id: '', offset: '' })}>Reset</button></div>` : null}
      </div>
      ${about ? html`<p class="al-hint muted small">Alerts about ${about} only.</p>` : null}
      <p class="al-hint muted small">Each alert lists the webhooks subscribed to its type when it was raised, told or why not (a reminder: those it was due for); the others were not offered it.</p>
      ${alerts.error ? html`<div class="al-pad"><${ErrorState} error=${alerts.error} retry=${alerts.reload} /></div>`
        : !alerts.data ? html`<${Loading} />`
          : alerts.data.items.length ? html`<ul class="al-list">${alerts.data.items.map((a) => html`<${AlertItem} key=${a.id} a=${a} />`)}</ul>
              <${Pager} total=${alerts.data.total} limit=${LIMIT} offset=${offset} onChange=${(o) => setQuery({ offset: o || '' }, { replace: false })} />`
            : html`<${EmptyState} icon="bell" title=${filtered ? 'No alert matches these filters' : 'No alerts yet'}>
                <p>${filtered ? 'Try another type or outcome.' : 'Alerts appear here when a monitor goes down, recovers, slows down or fails a check.'}</p><//>`}
    <//>`;
}

// ---- deliveries -----------------------------------------------------------------------------------------

// Each cell is one block: on a phone a row's cells are label-and-value lines (components/table.js).
const PENDING_COLUMNS = [
  { key: 'webhook', label: 'Webhook', render: (p) => html`<div class="cell-title">${p.webhook_name}</div>` },
  { key: 'alert', label: 'Alert', render: (p) => html`<div><div>${p.alert_title}</div>
    <div class="cell-sub">${humanize(p.alert_type)} · queued ${relTime(p.queued_at)}</div></div>` },
  { key: 'attempts', label: 'So far', render: (p) => (p.attempts
    ? html`<div><div>${plural(p.attempts, 'failed attempt')}</div>${p.last_error ? html`<div class="cell-sub al-error">${p.last_error}</div>` : null}</div>`
    : html`<span class="muted">Not tried yet</span>`) },
  // A webhook's deliveries go in order: one behind others goes when they are done, whatever its own time says.
  { key: 'next', label: 'Next attempt', render: (p) => (p.waiting_for
    ? html`<div><div>after ${plural(p.waiting_for, 'earlier delivery', 'earlier deliveries')}</div><div class="cell-sub">to ${p.webhook_name}</div></div>`
    : html`<div><div>${untilText(p.next_attempt_at)}</div><div class="cell-sub">${dateTime(p.next_attempt_at)}</div></div>`) },
];

function attemptTone(a) {
  if (a.outcome === 'test') return a.ok ? 'ok' : 'bad';
  return ATTEMPT_OUTCOME_TONE[a.outcome] ?? 'neutral';
}

const ATTEMPT_COLUMNS = [
  { key: 'at', label: 'Time', render: (a) => html`<div><div class="cell-title">${relTime(a.at)}</div><div class="cell-sub">${dateTime(a.at)}</div></div>` },
  { key: 'webhook', label: 'Webhook', render: (a) => a.webhook_name },
  { key: 'alert', label: 'Alert', render: (a) => (a.outcome === 'test' ? 'Test alert'
    : html`<div><div>${a.alert_title ?? humanize(a.alert_type)}</div><div class="cell-sub">${humanize(a.alert_type)}</div></div>`) },
  { key: 'outcome', label: 'Outcome', render: (a) => html`<div><${Badge} tone=${attemptTone(a)}>${a.outcome === 'test' ? `Test ${a.ok ? 'delivered' : 'failed'}`
    : ATTEMPT_OUTCOME_LABELS[a.outcome] ?? humanize(a.outcome)}<//>${a.attempt > 1 ? html`<div class="cell-sub">attempt ${a.attempt}</div>` : null}</div>` },
  { key: 'status', label: 'HTTP', class: 'num', render: (a) => a.status_code ?? '—' },
  { key: 'latency', label: 'Took', class: 'num', render: (a) => ms(a.latency_ms) },
  // What a receiver answered matters when it refused; a delivered answer ("ok") is no error.
  { key: 'error', label: 'Error', render: (a) => (a.error || (!a.ok && a.response_excerpt)
    ? html`<div>${a.error ? html`<div class="al-error">${a.error}</div>` : null}${!a.ok && a.response_excerpt
      ? html`<div class="cell-sub mono al-excerpt" title=${a.response_excerpt}>${a.response_excerpt}</div>` : null}</div>`
    : html`<span class="muted">—</span>`) },
];

function DeliveriesView({ query }) {
  const offset = Number(query.offset) || 0;
  const filters = { webhook_id: query.webhook_id, outcome: query.outcome };
  const pending = useApi('/api/webhooks/deliveries/pending', { query: { webhook_id: query.webhook_id, limit: 100 }, every: REFRESH });
  const attempts = useApi('/api/webhooks/deliveries', { query: { ...filters, limit: LIMIT, offset }, live: true, every: REFRESH });
  const hooks = useApi('/api/webhooks');
  const hookOptions = (hooks.data?.items ?? []).map((h) => ({ value: h.id, label: h.name }));
  // A filter on a deleted webhook still works: its attempts keep the name.
  if (query.webhook_id && !hookOptions.some((o) => o.value === query.webhook_id)) {
    hookOptions.push({ value: query.webhook_id, label: attempts.data?.items[0]?.webhook_name ?? 'Deleted webhook' });
  }
  const filtered = query.webhook_id || query.outcome;
  return html`
    <${Card} title="Waiting to be sent" pad=${false}>
      ${pending.error ? html`<div class="al-pad"><${ErrorState} error=${pending.error} retry=${pending.reload} /></div>`
        : !pending.data ? html`<${Loading} />`
          : html`<${Table} columns=${PENDING_COLUMNS} rows=${pending.data.items} rowKey="delivery_id" caption="Deliveries waiting to be sent"
              empty=${html`<p class="al-pad muted">Nothing is waiting: every delivery went out or was given up.</p>`} />
            ${pending.data.total > pending.data.items.length ? html`<p class="al-pad muted small">The first ${pending.data.items.length} of ${pending.data.total}.</p>` : null}`}
    <//>
    <${Card} title="Delivery attempts" pad=${false}>
      <div class="al-filters">
        <${QuerySelect} id="dl-webhook" label="Webhook" name="webhook_id" value=${query.webhook_id} all="All webhooks" options=${hookOptions} />
        <${QuerySelect} id="dl-outcome" label="Outcome" name="outcome" value=${query.outcome} all="All outcomes"
          options=${Object.entries(ATTEMPT_OUTCOME_LABELS).map(([value, label]) => ({ value, label }))} />
        ${filtered ? html`<div class="field al-reset"><button type="button" class="btn" onClick=${() => setQuery({ webhook_id: '', outcome: '', offset: '' })}>Reset</button></div>` : null}
      </div>
      ${attempts.error ? html`<div class="al-pad"><${ErrorState} error=${attempts.error} retry=${attempts.reload} /></div>`
        : !attempts.data ? html`<${Loading} />`
          : html`<${Table} columns=${ATTEMPT_COLUMNS} rows=${attempts.data.items} caption="Delivery attempts"
              empty=${html`<${EmptyState} icon="send" title=${filtered ? 'No attempt matches these filters' : 'No deliveries yet'} />`} />
            <${Pager} total=${attempts.data.total} limit=${LIMIT} offset=${offset} onChange=${(o) => setQuery({ offset: o || '' }, { replace: false })} />`}
    <//>`;
}

export default function AlertsPage({ query, view = 'alerts' }) {
  return html`<${Page} title="Alerts" subtitle="What was raised, which webhooks were told, and how each delivery went"
    actions=${html`<a class="btn" href="/webhooks"><${Icon} name="webhooks" size=${16} />Webhooks</a>`}>
    <${Tabs} tabs=${TABS} active=${view === 'deliveries' ? '/alerts/deliveries' : '/alerts'} label="Alerts and deliveries" />
    ${view === 'deliveries' ? html`<${DeliveriesView} query=${query} />` : html`<${AlertsView} query=${query} />`}
  <//>`;
}
