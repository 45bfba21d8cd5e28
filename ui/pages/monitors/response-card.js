// The response-time card of a monitor's page: a range (1, 6 or 24 hours; raw results are kept for
// 24 hours), the checks of that range as a chart, and a one-line summary. When the monitor has been
// checked again, only the newer results are fetched.
import { api } from '../../lib/api.js';
import { ms } from '../../lib/format.js';
import { html, useEffect, useMemo, useRef, useState } from '../../lib/html.js';
import { setQuery } from '../../lib/router.js';
import { ResponseChart } from '../../components/chart.js';
import { ButtonGroup } from '../../components/controls.js';
import { EmptyState, ErrorState, Loading } from '../../components/empty.js';
import { Card } from '../../components/page.js';

const HOUR = 3_600_000;

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

export function ResponseCard({ monitor, query }) {
  const range = RANGES.find((r) => r.value === query.range) ?? RANGES.find((r) => r.value === defaultRange(monitor.interval));
  const { items, error } = useResults(monitor.id, range.ms, monitor.last_check);
  // The axis spans the range up to now, but starts no earlier than the monitor did (so a new
  // monitor's first checks are not squeezed against the right edge).
  const span = useMemo(() => {
    const to = Math.max(Date.now(), items?.length ? Date.parse(items[items.length - 1].at) : 0) / 1000;
    const from = Math.max(to - range.ms / 1000, Date.parse(monitor.created_at) / 1000 - 60);
    return [Math.floor(from), Math.ceil(to)];
  }, [items, range.ms, monitor.created_at]);
  const data = useMemo(() => items && {
    t: items.map((x) => Date.parse(x.at) / 1000),
    rt: items.map((x) => (x.status === 'down' ? null : x.response_time)),
    status: items.map((x) => x.status),
  }, [items]);
  const timed = items?.filter((x) => x.response_time !== null && x.status !== 'down') ?? [];
  const avg = timed.length ? timed.reduce((a, x) => a + x.response_time, 0) / timed.length : null;
  const max = timed.length ? Math.max(...timed.map((x) => x.response_time)) : null;
  const min = timed.length ? Math.min(...timed.map((x) => x.response_time)) : null;
  const failed = items?.filter((x) => x.status === 'down').length ?? 0;
  const label = `Response time over the last ${range.label}: ${timed.length ? `average ${ms(avg)}, fastest ${ms(min)}, slowest ${ms(max)}` : 'no timed checks'}${failed ? `, ${failed} failed checks` : ''}`;

  const picker = html`<${ButtonGroup} label="Time range" options=${RANGES} value=${range.value} onChange=${(v) => setQuery({ range: v })} />`;

  return html`<${Card} title="Response time" actions=${picker} class="chart-card">
    ${error ? html`<${ErrorState} error=${error} />`
      : !items ? html`<${Loading} />`
        : !items.length ? html`<${EmptyState} icon="clock" title="No checks in this period yet" />`
          : html`<div class="chart-stats">
              <span><span class="muted">Average</span> <strong>${ms(avg)}</strong></span>
              <span><span class="muted">Fastest</span> <strong>${ms(min)}</strong></span>
              <span><span class="muted">Slowest</span> <strong>${ms(max)}</strong></span>
              <span><span class="muted">Checks</span> <strong>${items.length}</strong></span>
              ${failed ? html`<span class="chart-failed"><span class="muted">Failed</span> <strong>${failed}</strong></span>` : null}
            </div>
            <${ResponseChart} data=${data} span=${span} label=${label} height=${220} />`}
  <//>`;
}
