// The chart card of a monitor's page: what it draws (the response time, or a measurement the check type
// declares: a ping's loss, the days left on a certificate; `measure` in the query), a range (1, 6 or 24
// hours; raw results are kept for 24 hours), the checks of that range as a chart, and a one-line
// summary. When the monitor has been checked again, only the newer results are fetched.
import { api } from '../../lib/api.js';
import { ms } from '../../lib/format.js';
import { html, useEffect, useMemo, useRef, useState } from '../../lib/html.js';
import { setQuery } from '../../lib/router.js';
import { ResponseChart } from '../../components/chart.js';
import { ButtonGroup } from '../../components/controls.js';
import { EmptyState, ErrorState, Loading } from '../../components/empty.js';
import { Card } from '../../components/page.js';

const HOUR = 3_600_000;

/** What a chart of the response time shows (the chart's default). */
const RESPONSE = { name: '', label: 'Response time', format: ms, missing: 'no answer' };

/** A measurement's value with its unit: "12.5 %", "29 days". */
export function measureText(v, unit) {
  if (v === null || v === undefined) return '—';
  const n = Math.abs(v) >= 100 ? Math.round(v) : Math.round(v * 100) / 100;
  return `${n.toLocaleString()} ${unit}`;
}

const RANGES = [{ value: '1h', label: '1 h', ms: HOUR }, { value: '6h', label: '6 h', ms: 6 * HOUR }, { value: '24h', label: '24 h', ms: 24 * HOUR }];
const PAGE = 1000;
const MAX_PAGES = 20;

/** The longest range that holds no more than about 3,000 checks at this interval. */
export const defaultRange = (interval) => (interval >= 30 ? '24h' : interval >= 8 ? '6h' : '1h');

async function fetchResults(id, since, signal) {
  const byAt = new Map();
  for (let page = 0; page < MAX_PAGES; page++) {
    const r = await api.get(`/api/monitors/${id}/results`, { since, limit: PAGE, offset: page * PAGE }, { signal });
    for (const x of r.items) byAt.set(x.at, x);
    if (r.items.length < PAGE || byAt.size >= r.total) break;
  }
  return [...byAt.values()];
}

/** Results of the range, oldest first, refreshed when `lastCheck` moves. */
function useResults(id, rangeMs, lastCheck) {
  const [state, setState] = useState({ items: null, error: null, range: rangeMs });
  const held = useRef(state);
  held.current = state;
  useEffect(() => {
    const ctl = new AbortController();
    const from = Date.now() - rangeMs;
    const cur = held.current;
    const keep = cur.range === rangeMs && cur.items?.length ? cur.items : null;
    const since = new Date(keep ? Date.parse(keep[keep.length - 1].at) : from).toISOString();
    fetchResults(id, since, ctl.signal).then((fresh) => {
      const byAt = new Map((keep ?? []).map((x) => [x.at, x]));
      for (const x of fresh) byAt.set(x.at, x);
      const items = [...byAt.values()].filter((x) => Date.parse(x.at) >= from).sort((a, b) => Date.parse(a.at) - Date.parse(b.at));
      setState({ items, error: null, range: rangeMs });
    }, (error) => { if (error?.name !== 'AbortError') setState((s) => ({ ...s, error })); });
    return () => ctl.abort();
  }, [id, rangeMs, lastCheck]);
  return state.range === rangeMs ? state : { items: null, error: null };
}

/** The measurements the monitor's check type declares (the monitor's 24-hour figures list each one). */
const declaredOf = (monitor) => monitor.stats?.measurements_24h ?? [];

export function ResponseCard({ monitor, query }) {
  const range = RANGES.find((r) => r.value === query.range) ?? RANGES.find((r) => r.value === defaultRange(monitor.interval));
  const { items, error } = useResults(monitor.id, range.ms, monitor.last_check);
  const declared = declaredOf(monitor);
  const measure = declared.find((d) => d.name === query.measure) ?? null;
  const series = useMemo(() => (measure
    ? { name: measure.name, label: measure.label, format: (v) => measureText(v, measure.unit), missing: 'not measured' }
    : RESPONSE), [measure?.name, measure?.unit, measure?.label]);
  // The axis spans the range up to now, but starts no earlier than the monitor did (so a new
  // monitor's first checks are not squeezed against the right edge).
  const span = useMemo(() => {
    const to = Math.max(Date.now(), items?.length ? Date.parse(items[items.length - 1].at) : 0) / 1000;
    const from = Math.max(to - range.ms / 1000, Date.parse(monitor.created_at) / 1000 - 60);
    return [Math.floor(from), Math.ceil(to)];
  }, [items, range.ms, monitor.created_at]);
  // The response time of a failed check is not drawn; a measurement is, whatever the status (a ping that got
  // no reply measured 100 % loss).
  const valueOf = (x) => (series.name ? (x.measurements?.[series.name] ?? null) : x.status === 'down' ? null : x.response_time);
  const data = useMemo(() => items && {
    t: items.map((x) => Date.parse(x.at) / 1000),
    rt: items.map(valueOf),
    status: items.map((x) => x.status),
  }, [items, series]);
  const values = items?.map(valueOf).filter((v) => v !== null) ?? [];
  const avg = values.length ? values.reduce((a, v) => a + v, 0) / values.length : null;
  const max = values.length ? Math.max(...values) : null;
  const min = values.length ? Math.min(...values) : null;
  const failed = items?.filter((x) => x.status === 'down').length ?? 0;
  const f = series.format;
  const [low, high] = series.name ? ['Lowest', 'Highest'] : ['Fastest', 'Slowest'];
  const label = `${series.label} over the last ${range.label}: ${values.length
    ? `average ${f(avg)}, ${low.toLowerCase()} ${f(min)}, ${high.toLowerCase()} ${f(max)}`
    : series.name ? 'not measured' : 'no timed checks'}${failed ? `, ${failed} failed checks` : ''}${!series.name && monitor.degraded_ms
    ? `; degraded above ${f(monitor.degraded_ms)}` : ''}`;

  // The response time a check counts as slow above, drawn across the response chart.
  const threshold = useMemo(() => (!series.name && monitor.degraded_ms ? { value: monitor.degraded_ms, label: 'Degraded above' } : null),
    [series.name, monitor.degraded_ms]);
  const choices = [{ value: '', label: RESPONSE.label }, ...declared.map((d) => ({ value: d.name, label: d.label }))];
  const actions = html`
    ${declared.length ? html`<select class="select-sm" aria-label="What the chart shows" value=${series.name}
        onChange=${(e) => setQuery({ measure: e.currentTarget.value })}>
        ${choices.map((c) => html`<option key=${c.value} value=${c.value}>${c.label}</option>`)}</select>` : null}
    <${ButtonGroup} label="Time range" options=${RANGES} value=${range.value} onChange=${(v) => setQuery({ range: v })} />`;

  return html`<${Card} title=${series.label} actions=${actions} class="chart-card">
    ${error ? html`<${ErrorState} error=${error} />`
      : !items ? html`<${Loading} />`
        : !items.length ? html`<${EmptyState} icon="clock" title="No checks in this period yet" />`
          : html`<div class="chart-stats">
              <span><span class="muted">Average</span> <strong>${f(avg)}</strong></span>
              <span><span class="muted">${low}</span> <strong>${f(min)}</strong></span>
              <span><span class="muted">${high}</span> <strong>${f(max)}</strong></span>
              <span><span class="muted">Checks</span> <strong>${items.length}</strong></span>
              ${failed ? html`<span class="chart-failed"><span class="muted">Failed</span> <strong>${failed}</strong></span>` : null}
            </div>
            <${ResponseChart} data=${data} span=${span} label=${label} height=${220} series=${series} threshold=${threshold} />`}
  <//>`;
}
