// The monitor list: each monitor's status ("Failing 1 of 3" its own, apart from "Degraded · Slow";
// "Maintenance until 14:00" with its window while one holds its alerts), its
// newest checks as a beat bar and its last 24 hours as a time-weighted status bar with the uptime, its
// response time and last check; problems first unless a column header says otherwise; filters by the
// statuses shown (failing apart from degraded, with counts), tag and check type, and a search over names,
// targets and tags, all kept in the URL. Check now, pause and delete from the row. Updates without a
// reload when monitor state changes.
import { dateTime, ms, relTime } from '../../lib/format.js';
import { html, useMemo, useState } from '../../lib/html.js';
import { useApi, useReloadOn } from '../../lib/hooks.js';
import { setQuery } from '../../lib/router.js';
import { can, useSession } from '../../lib/session.js';
import { toast } from '../../lib/toast.js';
import { Badge, StatusBadge } from '../../components/badge.js';
import { SearchBox } from '../../components/controls.js';
import { EmptyState, ErrorState, Loading } from '../../components/empty.js';
import { XIcon } from '../../components/extra-icons.js';
import { Icon } from '../../components/icons.js';
import { Card, Page } from '../../components/page.js';
import { BeatBar, StatusBar } from '../../components/status-bar.js';
import { Pager, Table } from '../../components/table.js';
import { checkNow, deleteMonitor, togglePause } from './actions.js';
import { typeLabel, useCheckTypes } from './check-types.js';
import { MonitorTabs } from './section.js';
import { beatList, beatSummary, checkedLabel, describeHour, hourSegments, maintenanceHint, maintenanceUntil, reasonHint, reasonText, SHOWN_LABELS,
  SHOWN_STATUSES, SHOWN_TEXT, shownStatus, SORTS, sortMonitors, statusCounts, statusLabel, summarizeHours, uptimeText } from './glance.js';

const PAGE_SIZE = 50;

/** "a, b or c". */
const listed = (xs) => (xs.length > 1 ? `${xs.slice(0, -1).join(', ')} or ${xs[xs.length - 1]}` : xs.join(''));
// The statuses a person tells apart: ?status=failing finds the monitors failing below the threshold, ?status=degraded the slow or lossy.
const STATUSES = [{ value: '', label: 'All' }, ...SHOWN_STATUSES.map((s) => ({ value: s, label: SHOWN_LABELS[s], title: SHOWN_TEXT[s] }))];

function matches(m, words) {
  const hay = `${m.name} ${m.target} ${m.tags.join(' ')}`.toLowerCase();
  return words.every((w) => hay.includes(w));
}

function Filters({ query, counts, tags, types, sortKey, sortDir }) {
  return html`<div class="mon-toolbar">
    <div class="mon-toolbar-top">
      <${SearchBox} value=${query.q ?? ''} label="Search monitors" placeholder="Search name, target or tag"
        onInput=${(v) => setQuery({ q: v, offset: '' })} />
      <div class="mon-selects">
        <select aria-label="Tag" value=${query.tag ?? ''} onChange=${(e) => setQuery({ tag: e.currentTarget.value, offset: '' })}>
          <option value="">All tags</option>
          ${tags.map((t) => html`<option key=${t} value=${t}>${t}</option>`)}
        </select>
        <select aria-label="Check type" value=${query.type ?? ''} onChange=${(e) => setQuery({ type: e.currentTarget.value, offset: '' })}>
          <option value="">All types</option>
          ${(types ?? []).map((t) => html`<option key=${t.type} value=${t.type}>${t.label}</option>`)}
        </select>
        <select aria-label="Sort by" value=${sortKey} onChange=${(e) => setQuery({ sort: e.currentTarget.value === 'problems' ? '' : e.currentTarget.value, dir: '', offset: '' })}>
          ${SORT_OPTIONS.map((o) => html`<option key=${o.value} value=${o.value}>Sort: ${o.label}</option>`)}
        </select>
        <button type="button" class="btn btn-sm" aria-label=${sortDir === 'desc' ? 'Sorted descending: sort ascending' : 'Sorted ascending: sort descending'}
          title="Reverse the order" onClick=${() => setQuery({ dir: sortDir === 'desc' ? '' : 'desc', offset: '' })}>${sortDir === 'desc' ? '▼' : '▲'}</button>
      </div>
    </div>
    <div class="filter-chips" role="group" aria-label="Status">
      ${STATUSES.map((s) => html`<button key=${s.value} type="button" class=${`fchip${s.value ? ` fchip-${s.value}` : ''}`} title=${s.title}
        aria-pressed=${(query.status ?? '') === s.value ? 'true' : 'false'} onClick=${() => setQuery({ status: s.value, offset: '' })}>
        ${s.value ? html`<span class="dot" aria-hidden="true"></span>` : null}${s.label}<span class="fchip-n">${counts[s.value || 'all'] ?? 0}</span>
      </button>`)}
    </div>
  </div>`;
}

function Uptime({ m, timeline }) {
  const hours = timeline?.monitors.find((x) => x.id === m.id);
  const segments = hours ? hourSegments(hours.segments, timeline.from, timeline.step) : null;
  return html`<div class="bar-cell">
    ${segments ? html`<${StatusBar} compact segments=${segments} describe=${describeHour} label=${summarizeHours(segments)} />`
      : html`<span class="muted small">…</span>`}
    <span class="bar-pct" title="Time up in the last 24 hours">${uptimeText(m.stats_24h.uptime_pct)}</span>
  </div>`;
}

/**
 * Status with its reason: "Failing 1 of 3", "Degraded · Slow"; "Maintenance until 14:00" with the window's
 * name, and what the checks say meanwhile before the last message ("Down: connection refused").
 */
export function StatusCell({ m }) {
  const reason = reasonText(m);
  const shown = shownStatus(m);
  const held = shown === 'maintenance';
  return html`<div>
    <${StatusBadge} status=${shown} label=${statusLabel(m)} title=${shown === 'failing' ? reasonHint(m) : held ? maintenanceHint(m) : undefined} />
    ${reason ? html` <span class=${`mon-reason reason-${m.degraded_reason}`} title=${reasonHint(m)}>${reason}</span>` : null}
    ${held ? html` <span class="mon-until" title=${maintenanceHint(m)}>${maintenanceUntil(m)}</span>
      <div class="cell-sub clip mon-window"><a href="/monitors/maintenance" title=${`Maintenance window: ${m.maintenance.name}`}>${m.maintenance.name}</a></div>` : null}
    ${m.last_message && m.status !== 'up' ? html`<div class="cell-sub clip mon-msg" title=${m.last_message}>${held ? `${checkedLabel(m)}: ` : ''}${m.last_message}</div>` : null}</div>`;
}

const SORT_OPTIONS = Object.entries(SORTS).map(([value, s]) => ({ value, label: s.label }));

export default function MonitorListPage({ query }) {
  const s = useSession();
  const writable = can(s, 'monitors:write');
  const monitors = useApi('/api/monitors', { live: true, every: 30 });
  const tags = useApi('/api/monitors/tags', { live: true });
  const types = useCheckTypes().data;
  const [busy, setBusy] = useState(null);
  const sortKey = SORTS[query.sort] ? query.sort : 'problems';
  const sortDir = query.dir === 'desc' ? 'desc' : 'asc';
  const onSort = (key) => setQuery({ sort: key === 'problems' ? '' : key,
    dir: key === sortKey && sortDir === 'asc' ? 'desc' : '', offset: '' });

  const all = monitors.data?.monitors ?? [];
  const words = (query.q ?? '').toLowerCase().split(/\s+/).filter(Boolean);
  const base = useMemo(() => all.filter((m) => (!query.tag || m.tags.includes(query.tag)) && (!query.type || m.check_type === query.type)
    && matches(m, words)), [all, query.tag, query.type, query.q]);
  const counts = statusCounts(base);
  const shown = useMemo(() => sortMonitors(query.status ? base.filter((m) => shownStatus(m) === query.status) : base, sortKey, sortDir),
    [base, query.status, sortKey, sortDir]);
  const offset = Math.min(Number(query.offset) || 0, Math.max(0, shown.length - 1));
  const page = shown.slice(offset, offset + PAGE_SIZE);
  // The time-weighted hours of the monitors on this page (at most 50 ids).
  const ids = page.map((m) => m.id).join(',');
  const timeline = useApi(ids ? '/api/monitors/timeline' : null, { query: { ids }, live: true, every: 60 });
  // Time is credited check by check: the bars follow the checks the list sees.
  useReloadOn(page.map((m) => m.last_check).join(), timeline.reload);

  const act = (m, what, fn) => async () => {
    setBusy(`${m.id}:${what}`);
    try {
      await fn(m);
      monitors.reload();
    } catch (e) { toast.error(e); } finally { setBusy(null); }
  };

  const columns = [
    { key: 'name', label: 'Monitor', sort: 'name', render: (m) => html`
      <a href=${`/monitors/${m.id}`} class="cell-title">${m.name}</a>
      <div class="cell-sub mono clip" title=${m.target}>${m.target}</div>
      <div class="chips mon-tags"><${Badge} tone="accent">${typeLabel(types, m.check_type)}<//>${m.tags.map((t) => html`<${Badge} key=${t}>${t}<//>`)}</div>` },
    { key: 'status', label: 'Status', sort: 'status', render: (m) => html`<${StatusCell} m=${m} />` },
    { key: 'beats', label: 'Recent checks', class: 'beats-col', render: (m) => {
      const beats = beatList(m.beats);
      return html`<${BeatBar} compact slots=${30} beats=${beats} label=${beatSummary(beats)} />`;
    } },
    { key: 'bar', label: 'Last 24 hours', sort: 'uptime', class: 'bar-col', render: (m) => html`<${Uptime} m=${m} timeline=${timeline.data} />` },
    { key: 'rt', label: 'Response', sort: 'response', class: 'num', render: (m) => html`<div><div>${ms(m.response_time)}</div>
      <div class="cell-sub" title="Average over 24 hours">${m.stats_24h.avg_response_ms === null ? '' : `avg ${ms(m.stats_24h.avg_response_ms)}`}</div></div>` },
    { key: 'last', label: 'Last check', sort: 'last', class: 'nowrap', render: (m) => html`<span title=${dateTime(m.last_check)}>${m.last_check ? relTime(m.last_check) : 'Not yet'}</span>` },
    ...(writable ? [{ key: 'actions', label: 'Actions', class: 'actions-col', hideLabel: true, render: (m) => html`<div class="actions">
      <button type="button" class="btn btn-sm btn-icon" onClick=${act(m, 'check', checkNow)} disabled=${!!busy}
        aria-label=${`Check ${m.name} now`} title="Check now"><${Icon} name="refresh" size=${15} class=${busy === `${m.id}:check` ? 'spin' : ''} /></button>
      <button type="button" class="btn btn-sm btn-icon" onClick=${act(m, 'pause', togglePause)} disabled=${!!busy}
        aria-label=${`${m.status === 'paused' ? 'Resume' : 'Pause'} ${m.name}`} title=${m.status === 'paused' ? 'Resume' : 'Pause'}>
        <${XIcon} name=${m.status === 'paused' ? 'play' : 'pause'} size=${15} /></button>
      <a class="btn btn-sm btn-icon" href=${`/monitors/${m.id}/edit`} aria-label=${`Edit ${m.name}`} title="Edit"><${Icon} name="edit" size=${15} /></a>
      <button type="button" class="btn btn-sm btn-icon" onClick=${act(m, 'delete', deleteMonitor)} disabled=${!!busy}
        aria-label=${`Delete ${m.name}`} title="Delete"><${Icon} name="trash" size=${15} /></button>
    </div>` }] : []),
  ];

  const newButton = writable ? html`<a class="btn btn-primary" href="/monitors/new"><${Icon} name="plus" />New monitor</a>` : null;
  const filtered = query.q || query.tag || query.type || query.status;
  const subtitle = monitors.data ? `${all.length} ${all.length === 1 ? 'monitor' : 'monitors'} · checked from this probe` : 'Checked from this probe';

  return html`<${Page} title="Monitors" subtitle=${subtitle} actions=${newButton}>
    <${MonitorTabs} active="/monitors" />
    ${monitors.error ? html`<${ErrorState} error=${monitors.error} retry=${monitors.reload} />`
      : !monitors.data ? html`<${Card}><${Loading} /><//>`
        : !all.length ? html`<${Card}><${EmptyState} icon="monitors" title="No monitors yet" action=${newButton}>
            <p>A monitor checks a target on a schedule${types ? ` (${listed(types.map((t) => t.label))})` : ''}, keeps its history and alerts through webhooks when it goes down.</p>
          <//><//>`
          : html`<${Card} pad=${false} class="mon-card">
            <${Filters} query=${query} counts=${counts} tags=${tags.data ?? []} types=${types} sortKey=${sortKey} sortDir=${sortDir} />
            ${timeline.error ? html`<div class="mon-note"><${ErrorState} error=${timeline.error} /></div>` : null}
            <${Table} columns=${columns} rows=${page} caption="Monitors" rowClass=${(m) => `mon-row mon-${shownStatus(m)}`}
              sort=${{ key: sortKey, dir: sortDir, onChange: onSort }}
              empty=${html`<${EmptyState} icon="search" title="No monitor matches"
                action=${filtered ? html`<button type="button" class="btn" onClick=${() => setQuery({ q: '', tag: '', type: '', status: '', offset: '' })}>Clear filters</button>` : null} />`} />
            <${Pager} total=${shown.length} limit=${PAGE_SIZE} offset=${offset} onChange=${(o) => setQuery({ offset: o || '' }, { replace: false })} />
          <//>`}
  <//>`;
}
