// Interface polling, the words and figures of its pages (polling.js, poll-device.js, poll-interface.js),
// without browser imports so they are unit-tested in Node: a polled device's status in words, why an
// interface has no rates, the device page's sort, and an interface's history as chart series.
import { bps } from './units.js';

/** A polled device's status (GET /api/snmp/polling state.status) in words and a badge tone. */
export const POLL_STATUS = {
  waiting: { label: 'Waiting', tone: 'neutral', text: 'Waiting for its first poll' },
  ok: { label: 'OK', tone: 'ok', text: 'Answering' },
  failing: { label: 'Failing', tone: 'failing', text: 'Polls are failing' },
  backed_off: { label: 'Backed off', tone: 'bad', text: 'Not answering: polled less often until it does' },
  refused: { label: 'Refused', tone: 'bad', text: 'The probe may not poll it (credential, allowed ranges or scope)' },
  paused: { label: 'Paused', tone: 'neutral', text: 'Paused: its history is kept' },
};

/** The history ranges (GET .../history?range=), with what each step is. */
export const HISTORY_RANGES = [
  { value: 'hour', label: 'Hour', span: 3600 },
  { value: 'day', label: 'Day', span: 86_400 },
  { value: 'week', label: 'Week', span: 7 * 86_400 },
  { value: 'month', label: 'Month', span: 31 * 86_400 },
  { value: 'year', label: 'Year', span: 365 * 86_400 },
];

/** The busiest-ports orders (GET /api/snmp/polling/busiest?by=). */
export const BUSIEST_BY = [
  { value: 'util', label: 'Utilisation' }, { value: 'bps', label: 'Bits per second' }, { value: 'errors', label: 'Errors' },
];

/** Why an interface's rates are missing (`now.why`), in words; an unknown reason is shown as the API says it. */
const WHY = {
  first: 'First poll: rates come with the next one',
  reset: 'The counters were reset (the device restarted): rates resume with the next poll',
  discontinuity: 'The counters jumped (ifCounterDiscontinuityTime changed): rates resume with the next poll',
  gap: 'Polls were missed: no rate is made up over the gap',
  over_speed: 'The counters moved faster than the link can carry: the reading was dropped',
  missing: 'The agent does not report these counters',
};

export function whyText(why) {
  if (!why) return null;
  return WHY[why] ?? String(why).replace(/_/g, ' ');
}

/** A percentage of utilisation: "12.3 %", "0.04 %", "—". */
export function utilText(n) {
  if (n === null || n === undefined || !Number.isFinite(n)) return '—';
  return `${n >= 10 ? n.toFixed(0) : n >= 0.1 ? n.toFixed(1) : n === 0 ? '0' : n.toFixed(2)} %`;
}

/** Errors (or discards) per second: "0", "0.02/s", "15/s". */
export function perSecond(n) {
  if (n === null || n === undefined || !Number.isFinite(n)) return '—';
  if (n === 0) return '0/s';
  return `${n >= 100 ? Math.round(n).toLocaleString('en-US') : n >= 1 ? n.toFixed(1).replace(/\.0$/, '') : Number(n.toPrecision(2))}/s`;
}

/** An interface's shown name: its ifName, else ifDescr, else "ifIndex N". */
export const ifLabel = (i) => i.name || i.descr || `ifIndex ${i.if_index}`;

const higher = (a, b) => (a === null && b === null ? null : Math.max(a ?? -Infinity, b ?? -Infinity));

/** The device page's sorts: each a value of an interface (null sorts last either way). */
export const IF_SORTS = {
  name: { label: 'Name', value: (i) => ifLabel(i).toLowerCase(), natural: true },
  status: { label: 'Status', value: (i) => (i.gone_at ? 9 : i.oper_status === 'up' ? 0 : i.oper_status === 'down' ? 2 : 1) },
  speed: { label: 'Speed', value: (i) => i.speed_bps },
  in: { label: 'In', value: (i) => i.now?.in_bps ?? null },
  out: { label: 'Out', value: (i) => i.now?.out_bps ?? null },
  util: { label: 'Utilisation', value: (i) => higher(i.now?.in_util_pct ?? null, i.now?.out_util_pct ?? null) },
  errors: { label: 'Errors', value: (i) => (i.now ? (i.now.in_errors_ps ?? 0) + (i.now.out_errors_ps ?? 0) : null) },
};

const collator = new Intl.Collator('en', { numeric: true, sensitivity: 'base' });

/** Interfaces sorted by `key` ('name' by ifIndex-aware natural order: Gi1/0/2 before Gi1/0/10), `dir` asc or desc. */
export function sortInterfaces(items, key, dir) {
  const s = IF_SORTS[key] ?? IF_SORTS.name;
  const sign = dir === 'desc' ? -1 : 1;
  return [...items].sort((a, b) => {
    const va = s.value(a), vb = s.value(b);
    if (va === null && vb === null) return a.if_index - b.if_index;
    if (va === null) return 1;
    if (vb === null) return -1;
    const c = typeof va === 'string' ? collator.compare(va, vb) : va - vb;
    return c ? c * sign : a.if_index - b.if_index;
  });
}

/**
 * An interface's history (InterfaceHistory.points) as columns for the charts: epoch seconds, and per chart
 * its series, nulls kept (a gap). A step the API left wholly empty stays a gap in every chart.
 */
export function historySeries(points) {
  const col = (k, f = (v) => v) => points.map((p) => (p[k] === null || p[k] === undefined ? null : f(p[k])));
  const sum = (a, b) => points.map((p) => (p[a] === null && p[b] === null ? null : (p[a] ?? 0) + (p[b] ?? 0)));
  return {
    t: points.map((p) => Date.parse(p.t) / 1000),
    bps: { in_avg: col('in_avg'), in_max: col('in_max'), out_avg: col('out_avg'), out_max: col('out_max') },
    util: { in_avg: col('in_util_avg'), in_max: col('in_util_max'), out_avg: col('out_util_avg'), out_max: col('out_util_max') },
    errors: { in: col('in_errors'), out: col('out_errors'), discards: sum('in_discards', 'out_discards') },
    up: col('up_share', (v) => v * 100),
  };
}

/** The figures above a chart: the average of the averages and the highest maximum, over the points that have them. */
export function summary(avg, max) {
  const a = avg.filter((v) => v !== null);
  const m = max.filter((v) => v !== null);
  return { avg: a.length ? a.reduce((s, v) => s + v, 0) / a.length : null, max: m.length ? Math.max(...m) : null, points: a.length };
}

/** "Gi1/0/1 in 12 Mbps, out 3 Mbps (5 %)": one interface's rates now, for a label. */
export function nowText(i) {
  if (!i.now) return 'not polled yet';
  if (i.now.in_bps === null && i.now.out_bps === null) return whyText(i.now.why) ?? 'no rates';
  return `in ${bps(i.now.in_bps)}, out ${bps(i.now.out_bps)}`;
}
