// The monitor event log: status changes, incidents, pauses, edits and manual checks of every monitor
// (deleted ones included), filtered by monitor, kind and time, paged, and exported as CSV with the same
// filters; a status change that raised an alert shows which webhooks were told and which were not, and
// why (the alert log of the same monitor and time, for those who may read webhooks). Those allowed to
// change monitors can also clear all check history here.
import { api, qs } from '../../lib/api.js';
import { confirm } from '../../lib/confirm.js';
import { dateTime, relTime } from '../../lib/format.js';
import { html } from '../../lib/html.js';
import { useApi } from '../../lib/hooks.js';
import { setQuery } from '../../lib/router.js';
import { can, useSession } from '../../lib/session.js';
import { toast } from '../../lib/toast.js';
import { EmptyState, ErrorState, Loading } from '../../components/empty.js';
import { XIcon } from '../../components/extra-icons.js';
import { Icon } from '../../components/icons.js';
import { Card, Page } from '../../components/page.js';
import { Pager, Table } from '../../components/table.js';
import { ToldBadges } from '../alert-told.js';
import { EVENT_KINDS, eventDetail, eventMark, eventSubject, kindLabel } from './event-view.js';
import { MonitorTabs } from './section.js';

const LIMIT = 50;

/** A datetime-local value ("2026-01-02T10:30") as an ISO time, or undefined. */
const isoOf = (local) => {
  const t = local ? new Date(local).getTime() : NaN;
  return Number.isFinite(t) ? new Date(t).toISOString() : undefined;
};

/** Alerts are logged a moment after their event: the window of the alert log read for a page of events reaches this far past it. */
const ALERT_LAG_MS = 5 * 60_000;

/**
 * The alerts a page of events raised, by "monitor id|time": an alert carries its event's time (occurred_at),
 * so a status change finds its down, recovery or degraded alert (reminders have no event of their own).
 */
function useEventAlerts(events, allowed) {
  const times = (events ?? []).filter((e) => e.kind === 'status_change').map((e) => Date.parse(e.at));
  const query = allowed && times.length ? { since: new Date(Math.min(...times)).toISOString(),
    until: new Date(Math.max(...times) + ALERT_LAG_MS).toISOString(), limit: 500 } : null;
  const r = useApi(query ? '/api/webhooks/alerts' : null, { query: query ?? undefined, every: 30 });
  const by = new Map();
  for (const a of r.data?.items ?? []) {
    const m = a.alert.monitor;
    if (!m || a.outcome === 'reminder') continue;
    const k = `${m.id}|${a.alert.occurred_at}`;
    by.set(k, [...(by.get(k) ?? []), a]);
  }
  return by;
}

function columns(alerts) {
  return [
    { key: 'at', label: 'Time', class: 'nowrap', render: (e) => html`<div class="cell-title">${dateTime(e.at)}</div><div class="cell-sub">${relTime(e.at)}</div>` },
    { key: 'monitor', label: 'Monitor', render: (e) => (e.monitor_id && e.kind !== 'deleted'
      ? html`<a href=${`/monitors/${e.monitor_id}`}>${e.monitor_name}</a>` : html`<span>${eventSubject(e)}</span>`) },
    { key: 'kind', label: 'Event', render: (e) => html`<span class="ev-kind"><span class=${`event-mark status-${eventMark(e)}`} aria-hidden="true"></span>${kindLabel(e.kind)}</span>` },
    { key: 'text', label: 'Details', render: (e) => {
      const raised = e.kind === 'status_change' ? alerts.get(`${e.monitor_id}|${e.at}`) ?? [] : [];
      // One block: on a phone a cell's children would otherwise sit side by side (components/table.js).
      return html`<div><span class="ev-text">${eventDetail(e)}</span>
        ${raised.map((a) => html`<div key=${a.id} class="told-line small"><span class="muted">${a.alert.title}:</span> <${ToldBadges} a=${a} /></div>`)}</div>`;
    } },
  ];
}

export default function MonitorEventsPage({ query }) {
  const s = useSession();
  const offset = Number(query.offset) || 0;
  // Manual checks ("check now") do not crowd the log unless asked for (or chosen as the kind).
  const filters = { monitor_id: query.monitor_id, kind: query.kind, since: isoOf(query.since), until: isoOf(query.until),
    exclude_kind: !query.kind && query.manual !== '1' ? 'manual_check' : undefined };
  const events = useApi('/api/monitors/events', { query: { ...filters, limit: LIMIT, offset }, live: true });
  const monitors = useApi('/api/monitors');
  const alerts = useEventAlerts(events.data?.items, can(s, 'webhooks:read'));

  const clear = async () => {
    const ok = await confirm({
      title: 'Clear all monitor check history?',
      message: html`<p>Every check result, statistic, closed incident and event of every monitor is deleted. Open incidents are kept,
        and monitors keep their current status. This cannot be undone.</p>`,
      confirmLabel: 'Clear history', danger: true,
    });
    if (!ok) return;
    try {
      const r = await api.del('/api/monitors/events');
      toast.ok(`Cleared ${r.deleted.results} results and ${r.deleted.events} events`);
      events.reload();
    } catch (e) { toast.error(e); }
  };

  const exportHref = `/api/monitors/events/export${qs(filters)}`;
  const actions = html`
    <a class="btn" href=${exportHref} download><${XIcon} name="download" size=${16} />Export CSV</a>
    ${can(s, 'monitors:write') ? html`<button type="button" class="btn btn-danger-ghost" onClick=${clear}><${Icon} name="trash" size=${16} />Clear history</button>` : null}`;
  const monitorOptions = (monitors.data?.monitors ?? []).map((m) => ({ value: m.id, label: m.name }));
  // A filter on a deleted monitor still works: its events keep the name.
  if (query.monitor_id && !monitorOptions.some((o) => o.value === query.monitor_id)) {
    monitorOptions.push({ value: query.monitor_id, label: events.data?.items[0]?.monitor_name ?? 'Deleted monitor' });
  }
  const filtered = query.monitor_id || query.kind || query.since || query.until || query.manual;

  return html`<${Page} title="Monitors" subtitle="Every status change, incident and edit, newest first" actions=${actions}>
    <${MonitorTabs} active="/monitors/events" />
    <${Card} pad=${false}>
      <div class="ev-filters">
        <div class="field"><label for="ev-monitor">Monitor</label>
          <select id="ev-monitor" value=${query.monitor_id ?? ''} onChange=${(e) => setQuery({ monitor_id: e.currentTarget.value, offset: '' })}>
            <option value="">All monitors</option>
            ${monitorOptions.map((o) => html`<option key=${o.value} value=${o.value}>${o.label}</option>`)}
          </select></div>
        <div class="field"><label for="ev-kind">Event</label>
          <select id="ev-kind" value=${query.kind ?? ''} onChange=${(e) => setQuery({ kind: e.currentTarget.value, offset: '' })}>
            <option value="">All events</option>
            ${EVENT_KINDS.map((k) => html`<option key=${k} value=${k}>${kindLabel(k)}</option>`)}
          </select></div>
        <div class="field ev-manual"><label class="check-inline"><input type="checkbox" checked=${query.manual === '1' || query.kind === 'manual_check'}
          disabled=${!!query.kind} onChange=${(e) => setQuery({ manual: e.currentTarget.checked ? '1' : '', offset: '' })} /> Show manual checks</label></div>
        <div class="field"><label for="ev-since">From</label>
          <input id="ev-since" type="datetime-local" value=${query.since ?? ''} onChange=${(e) => setQuery({ since: e.currentTarget.value, offset: '' })} /></div>
        <div class="field"><label for="ev-until">Until</label>
          <input id="ev-until" type="datetime-local" value=${query.until ?? ''} onChange=${(e) => setQuery({ until: e.currentTarget.value, offset: '' })} /></div>
        ${filtered ? html`<div class="field ev-reset"><button type="button" class="btn" onClick=${() => setQuery({ monitor_id: '', kind: '', since: '', until: '', manual: '', offset: '' })}>Reset</button></div>` : null}
      </div>
      ${events.error ? html`<div class="mon-note"><${ErrorState} error=${events.error} retry=${events.reload} /></div>`
        : !events.data ? html`<${Loading} />`
          : html`<${Table} columns=${columns(alerts)} rows=${events.data.items} caption="Monitor events"
              empty=${html`<${EmptyState} icon="log" title=${filtered ? 'No event matches these filters' : 'No events yet'} />`} />
            <${Pager} total=${events.data.total} limit=${LIMIT} offset=${offset} onChange=${(o) => setQuery({ offset: o || '' }, { replace: false })} />`}
    <//>
  <//>`;
}
