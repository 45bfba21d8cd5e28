// Monitoring at a glance, as pure functions (no DOM, no requests; unit-tested in
// test/unit/monitors-glance-ui.test.ts): the words for a degraded monitor ("Failing 1 of 3" apart from
// "Slow"), problems-first and column sorting, one uptime format for every view, the beat bar's beats and
// the 24-hour bar's segments from the API's time-weighted hours (GET /api/monitors/timeline).
import { BEAT_KINDS, DEGRADED_REASONS } from './model.js';

/** "Failing 1 of 3", "Slow", "Packet loss"; null when the status says it all. */
export function reasonText(m) {
  if (m.status !== 'degraded' || !m.degraded_reason) return null;
  if (m.degraded_reason === 'failing') return `Failing ${m.failing_streak} of ${m.failure_threshold}`;
  return DEGRADED_REASONS.find((r) => r.value === m.degraded_reason)?.label ?? null;
}

/** The longer sentence for a title or the detail page. */
export function reasonHint(m) {
  if (m.status !== 'degraded' || !m.degraded_reason) return null;
  if (m.degraded_reason === 'failing') {
    const left = m.failure_threshold - m.failing_streak;
    return `${m.failing_streak} failed ${m.failing_streak === 1 ? 'check' : 'checks'} in a row; down after ${left} more`;
  }
  return DEGRADED_REASONS.find((r) => r.value === m.degraded_reason)?.hint ?? null;
}

/** Worst first: down, failing, slow or loss, waiting, up, paused. */
export function severity(m) {
  if (m.status === 'down') return 0;
  if (m.status === 'degraded') return m.degraded_reason === 'failing' ? 1 : 2;
  return { unknown: 3, up: 4, paused: 5 }[m.status] ?? 3;
}

const byName = (a, b) => a.name.localeCompare(b.name, undefined, { sensitivity: 'base' }) || (a.id < b.id ? -1 : 1);
const nullsLast = (v) => (v === null || v === undefined || Number.isNaN(v) ? null : v);

/** The list's sortable columns: key -> value (null sorts last whatever the direction). */
export const SORTS = {
  problems: { label: 'Problems first', value: (m) => severity(m) },
  name: { label: 'Name', value: (m) => m.name.toLowerCase() },
  status: { label: 'Status', value: (m) => severity(m) },
  uptime: { label: 'Uptime', value: (m) => nullsLast(m.stats_24h?.uptime_pct) },
  response: { label: 'Response', value: (m) => nullsLast(m.response_time) },
  last: { label: 'Last check', value: (m) => (m.last_check ? Date.parse(m.last_check) : null) },
};

/** Sorted copy: by `key` ('problems' by default), 'asc' or 'desc', then by name. */
export function sortMonitors(list, key = 'problems', dir = 'asc') {
  const s = SORTS[key] ?? SORTS.problems;
  const sign = dir === 'desc' ? -1 : 1;
  return [...list].sort((a, b) => {
    const va = s.value(a), vb = s.value(b);
    if (va !== vb) {
      if (va === null) return 1;
      if (vb === null) return -1;
      return (va < vb ? -1 : 1) * sign;
    }
    return byName(a, b);
  });
}

/**
 * Uptime as every view shows it: two decimals, cut (never rounded up: 99.996 is not "100.00 %").
 * @param {number|null|undefined} n percent, as the API gives it (three decimals)
 */
export function uptimeText(n) {
  if (n === null || n === undefined || !Number.isFinite(n)) return '—';
  return `${(Math.floor(n * 100 + 1e-6) / 100).toFixed(2)} %`;
}

// ---- beats ---------------------------------------------------------------------------------------

/** The beats string as [{kind, tone, label, manual}] oldest first. */
export function beatList(beats) {
  return [...(beats ?? '')].map((c) => {
    const k = BEAT_KINDS.find((b) => b.value === c.toLowerCase()) ?? BEAT_KINDS[0];
    const manual = c !== c.toLowerCase();
    return { kind: k.value, tone: k.tone, label: manual ? `${k.label} (checked by hand)` : k.label, manual };
  });
}

/** "Last 30 checks: 28 up, 1 failing, 1 down". */
export function beatSummary(beats) {
  const list = beatList(beats);
  if (!list.length) return 'No checks yet';
  const n = {};
  for (const b of list) n[b.tone] = (n[b.tone] ?? 0) + 1;
  const words = { up: 'up', degraded: 'degraded', failing: 'failing', down: 'down', paused: 'while paused' };
  const parts = ['down', 'failing', 'degraded', 'up', 'paused'].filter((k) => n[k]).map((k) => `${n[k]} ${words[k]}`);
  return `Last ${list.length} ${list.length === 1 ? 'check' : 'checks'}: ${parts.join(', ')}`;
}

// ---- the 24-hour bar from the API's hours -----------------------------------------------------------

const span = (s) => {
  const sec = Math.round(s);
  if (sec < 60) return `${sec} s`;
  const m = Math.floor(sec / 60), rest = sec % 60;
  if (m < 60) return rest ? `${m} min ${rest} s` : `${m} min`;
  const h = Math.floor(m / 60);
  return m % 60 ? `${h} h ${m % 60} min` : `${h} h`;
};

/**
 * Status-bar segments from GET /api/monitors/timeline hours. A segment takes the colour of the status
 * that held most of its time (a 7-second outage does not paint an hour red); any downtime or
 * degradation that did not win still marks the segment (`blip`) and is in its tooltip.
 * @param {{up: number, degraded: number, down: number, checks: number, uptime_pct: number|null}[]} hours seconds
 * @param {string} from ISO start of the first hour
 * @param {number} [step] seconds per segment
 */
export function hourSegments(hours, from, step = 3600) {
  const t0 = Date.parse(from);
  return hours.map((h, i) => {
    const known = h.up + h.degraded + h.down;
    const parts = { up: h.up, degraded: h.degraded, down: h.down };
    let status = 'none';
    if (known > 0) status = ['down', 'degraded', 'up'].reduce((best, k) => (parts[k] > parts[best] ? k : best), 'up');
    const blip = status !== 'none' && status !== 'down' && (h.down > 0 ? 'down' : status === 'up' && h.degraded > 0 ? 'degraded' : null);
    return { from: t0 + i * step * 1000, to: t0 + (i + 1) * step * 1000, status, blip: blip || null, parts, uptime: h.uptime_pct, checks: h.checks };
  });
}

/** "Up 59 min 53 s, down 7 s" for a segment, worst first. */
export function describeHour(parts) {
  const list = ['down', 'degraded', 'up'].filter((k) => parts[k] > 0).map((k) => `${k} ${span(parts[k])}`);
  return list.length ? list.join(', ').replace(/^./, (c) => c.toUpperCase()) : 'No data';
}

/** "Last 24 hours: down 7 s" for screen readers and the note under the bar. */
export function summarizeHours(segments, hours = 24) {
  const t = { up: 0, degraded: 0, down: 0 };
  for (const s of segments) for (const k of Object.keys(t)) t[k] += s.parts[k] ?? 0;
  const bad = ['down', 'degraded'].filter((k) => t[k] > 0).map((k) => `${k} ${span(t[k])}`);
  if (bad.length) return `Last ${hours} hours: ${bad.join(', ')}`;
  if (t.up) return `Last ${hours} hours: no downtime`;
  return `Last ${hours} hours: no data yet`;
}
