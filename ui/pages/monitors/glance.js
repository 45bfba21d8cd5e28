// Monitoring at a glance, as pure functions (no DOM, no requests; unit-tested in
// test/unit/monitors-glance-ui.test.ts): the status a person reads ("Failing 1 of 3" as its own status,
// apart from "Degraded" for a slow or lossy answer; "Maintenance" while a window holds its alerts),
// problems-first and column sorting, one uptime format
// for every view, the beat bar's beats and caption (from what it draws), and the 24-hour bar's segments
// from the API's time-weighted hours (GET /api/monitors/timeline). The list, the monitor page, the
// dashboard and the event log all read monitors through these.
import { dateTime, ms } from '../../lib/format.js';
import { STATUS_LABELS, STATUS_TEXT } from '../../lib/vocabulary.js';
import { BEAT_KINDS, DEGRADED_REASONS } from './model.js';

// ---- the status a person reads -------------------------------------------------------------------

/**
 * The statuses the pages tell apart, worst first (the list's filter chips, the dashboard's tiles). The
 * API's `degraded` is two of them: failing (failed checks, fewer in a row than make it down: the target
 * did not answer) and degraded (it answered, slowly or with loss). The API keeps `degraded` for both.
 * Maintenance is the monitor's `maintenance` window: not a problem (its alerts are held on purpose), so
 * after up, before paused.
 */
export const SHOWN_STATUSES = ['down', 'failing', 'degraded', 'up', 'maintenance', 'paused', 'unknown'];

export const SHOWN_LABELS = { ...STATUS_LABELS, failing: 'Failing', maintenance: 'Maintenance' };

/** What each shown status means, for a filter's title and the monitor page. */
export const SHOWN_TEXT = { ...STATUS_TEXT, degraded: 'Answering, but slow or losing packets',
  failing: 'Failing checks, not yet as many in a row as make it down',
  maintenance: 'In a maintenance window: still checked, its alerts held, its time in no uptime' };

/** What its checks say: 'failing' for a monitor degraded by failed checks below its threshold, else its API status. */
export function checkedStatus(m) {
  return m.status === 'degraded' && m.degraded_reason === 'failing' ? 'failing' : m.status;
}

/**
 * The status shown: 'maintenance' while a window holds the monitor's alerts (the API's `maintenance`),
 * else what its checks say. A paused monitor stays paused: it is not checked, so nothing is held.
 */
export function shownStatus(m) {
  return m.maintenance && m.status !== 'paused' ? 'maintenance' : checkedStatus(m);
}

/** "Failing 1 of 3": failed checks in a row of the number that makes it down. */
export const failingText = (streak, threshold) => (threshold ? `Failing ${streak} of ${threshold}` : 'Failing');

/** What its checks say in words, maintenance aside: "Failing 1 of 3", "Degraded", "Down"… */
export function checkedLabel(m) {
  const s = checkedStatus(m);
  return s === 'failing' ? failingText(m.failing_streak, m.failure_threshold) : SHOWN_LABELS[s] ?? SHOWN_LABELS.unknown;
}

/** The status badge's words: "Maintenance", "Failing 1 of 3", "Degraded", "Down"… */
export function statusLabel(m) {
  return shownStatus(m) === 'maintenance' ? SHOWN_LABELS.maintenance : checkedLabel(m);
}

const hm = new Intl.DateTimeFormat(undefined, { hour: '2-digit', minute: '2-digit' });
const dayHm = new Intl.DateTimeFormat(undefined, { day: 'numeric', month: 'short', hour: '2-digit', minute: '2-digit' });

/** "14:00" for a time today (in the browser's zone), else "8 Dec, 14:00". */
function clockText(iso, now) {
  const t = new Date(iso);
  return (t.toDateString() === new Date(now).toDateString() ? hm : dayHm).format(t);
}

/** "until 14:00" beside a monitor's Maintenance badge (null when no window holds it). */
export function maintenanceUntil(m, now = Date.now()) {
  return m.maintenance ? `until ${clockText(m.maintenance.until, now)}` : null;
}

/**
 * The sentence of a monitor in maintenance: its window, when it closes and what the checks say meanwhile.
 * "Router upgrade holds its alerts until 14:00; checks still run: Down".
 */
export function maintenanceHint(m, now = Date.now()) {
  if (!m.maintenance) return null;
  const checks = m.status === 'unknown' ? 'no check has finished yet' : `checks still run: ${checkedLabel(m)}`;
  return `${m.maintenance.name} holds its alerts ${maintenanceUntil(m, now)}; ${checks}`;
}

/** Why a degraded monitor answered badly: "Slow", "Packet loss"; null otherwise (failing says it in its label). */
export function reasonText(m) {
  if (shownStatus(m) !== 'degraded' || !m.degraded_reason) return null;
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

/** Monitors by shown status, and `all`: the list's filter chips and the dashboard's tiles count the same way. */
export function statusCounts(list) {
  const n = { all: list.length };
  for (const s of SHOWN_STATUSES) n[s] = 0;
  for (const m of list) { const s = shownStatus(m); n[s] = (n[s] ?? 0) + 1; }
  return n;
}

/** Worst first: down, failing, slow or loss, waiting, up, in maintenance (held on purpose), paused. */
export function severity(m) {
  return { down: 0, failing: 1, degraded: 2, unknown: 3, up: 4, maintenance: 5, paused: 6 }[shownStatus(m)] ?? 3;
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

const BEAT_WORDS = { up: 'up', degraded: 'degraded', failing: 'failing', down: 'down', maintenance: 'in maintenance', paused: 'while paused' };
/** The order a beat caption names the kinds in: problems first. */
const BEAT_ORDER = ['down', 'failing', 'degraded', 'up', 'maintenance', 'paused'];
const kindOf = (tone) => BEAT_KINDS.find((b) => b.tone === tone) ?? BEAT_KINDS[0];

/** The list's beats string (GET /api/monitors `beats`) as [{tone, label, manual}] oldest first. */
export function beatList(beats) {
  return [...(beats ?? '')].map((c) => {
    const k = BEAT_KINDS.find((b) => b.value === c.toLowerCase()) ?? BEAT_KINDS[0];
    const manual = c !== c.toLowerCase();
    return { tone: k.tone, label: manual ? `${k.label} (checked by hand)` : k.label, manual };
  });
}

/**
 * Check results (GET /api/monitors/:id/results, newest first) as beats oldest first, each with its time,
 * and a label with its time, response and message. A failed check is failing while the monitor was not
 * yet down (its `monitor_status` after it). A check in a maintenance window (`in_maintenance`) is a
 * maintenance beat, as the list's 'm', its result in its label.
 */
export function resultBeats(items) {
  return [...items].reverse().map((x) => {
    const tone = x.monitor_status === 'paused' ? 'paused' : x.in_maintenance ? 'maintenance' : x.status === 'up' ? 'up'
      : x.status === 'degraded' ? 'degraded' : x.monitor_status === 'down' ? 'down' : 'failing';
    const rt = x.response_time === null || x.response_time === undefined ? '' : `, ${ms(x.response_time)}`;
    const what = tone === 'maintenance' ? `${kindOf(tone).label}, ${String(STATUS_LABELS[x.status] ?? x.status).toLowerCase()}` : kindOf(tone).label;
    return { tone, manual: x.manual, at: x.at,
      label: `${dateTime(x.at)}: ${what}${rt}${x.manual ? ' (checked by hand)' : ''}${x.message ? ` — ${x.message}` : ''}` };
  });
}

/** "10:02–11:01" (with the days when they differ) from the first beat's time to the last one's; null without times. */
export function beatSpan(beats) {
  const a = beats[0]?.at, b = beats[beats.length - 1]?.at;
  if (!a || !b) return null;
  const from = new Date(a), to = new Date(b);
  const f = from.toDateString() === to.toDateString() ? hm : dayHm;
  const [x, y] = [f.format(from), f.format(to)];
  return x === y ? x : `${x}–${y}`;
}

/**
 * "Last 60 checks (10:02–11:01): 17 down, 43 up": the number and mix of exactly the beats given (the ones
 * drawn), worst first, with their time span when they carry times.
 */
export function beatSummary(beats) {
  if (!beats.length) return 'No checks yet';
  const n = {};
  for (const b of beats) n[b.tone] = (n[b.tone] ?? 0) + 1;
  const parts = BEAT_ORDER.filter((k) => n[k]).map((k) => `${n[k]} ${BEAT_WORDS[k]}`);
  const span = beatSpan(beats);
  return `Last ${beats.length} ${beats.length === 1 ? 'check' : 'checks'}${span ? ` (${span})` : ''}: ${parts.join(', ')}`;
}

// ---- the 24-hour bar from the API's hours -----------------------------------------------------------

const span = (s) => {
  const sec = Math.round(s);
  if (sec < 1 && s > 0) return '< 1 s';
  if (sec < 60) return `${sec} s`;
  const m = Math.floor(sec / 60), rest = sec % 60;
  if (m < 60) return rest ? `${m} min ${rest} s` : `${m} min`;
  const h = Math.floor(m / 60);
  return m % 60 ? `${h} h ${m % 60} min` : `${h} h`;
};

/**
 * The share of an hour's known time a state must hold, more than, to colour the hour: 2 % (72 s of a
 * full hour). Worse states below it are a notch. Why 2 %: a single failed check of a monitor checked every
 * minute holds at most 60 s (1.7 %), a blip the notch shows without painting the hour; two in a row, or
 * any outage of a fifth or a third of the hour, colour it, so the hour never looks better than it was.
 */
export const HOUR_SHARE = 0.02;

/**
 * The states of an hour from worst to best, the order the colour rule tries them in. Maintenance is not a
 * problem, so it never hides one: an outage or slowness outside the window that held more than
 * HOUR_SHARE colours the hour. It ranks above up: an hour with more than HOUR_SHARE of it in a window
 * (so any hour mostly in one) shows maintenance, and less is a notch on an up hour.
 */
export const HOUR_STATES = ['down', 'degraded', 'maintenance', 'up'];

/** The seconds of an hour the colour rule weighs: known (up, degraded, down) and in maintenance. */
const hourTotal = (p) => (p.up ?? 0) + (p.degraded ?? 0) + (p.down ?? 0) + (p.maintenance ?? 0);

/**
 * Status-bar segments from GET /api/monitors/timeline hours. A segment takes the colour of the worst
 * state (HOUR_STATES) that held more than HOUR_SHARE of its time, known or in maintenance (down, then
 * degraded, then maintenance, else up); a worse state that held less still marks it (`blip`, a notch) and
 * is in its description.
 * @param {{up: number, degraded: number, down: number, maintenance?: number, checks: number, uptime_pct: number|null}[]} hours seconds
 * @param {string} from ISO start of the first hour
 * @param {number} [step] seconds per segment
 */
export function hourSegments(hours, from, step = 3600) {
  const t0 = Date.parse(from);
  return hours.map((h, i) => {
    const parts = { up: h.up, degraded: h.degraded, down: h.down, maintenance: h.maintenance ?? 0 };
    const total = hourTotal(parts);
    let status = 'none';
    if (total > 0) status = HOUR_STATES.slice(0, -1).find((k) => parts[k] / total > HOUR_SHARE) ?? 'up';
    const blip = status === 'none' ? null : HOUR_STATES.slice(0, HOUR_STATES.indexOf(status)).find((k) => parts[k] > 0) ?? null;
    return { from: t0 + i * step * 1000, to: t0 + (i + 1) * step * 1000, status, blip, parts, uptime: h.uptime_pct, checks: h.checks };
  });
}

/** "28 %"; a tenth below 1 % and above 99 % ("0.2 %", "99.8 %"), so some is never "0 %" and not all never "100 %". */
function share(x) {
  const p = x * 100;
  if (p >= 1 && p <= 99) return `${Math.round(p)} %`;
  if (p === 100) return '100 %';
  if (p < 0.1) return '< 0.1 %';
  if (p > 99.9) return '> 99.9 %';
  return `${p.toFixed(1)} %`;
}

/**
 * "72 % up (43 min), 28 % down (17 min)", "25 % up (15 min), 75 % maintenance (45 min)": each state's
 * share of the hour's time, known or in maintenance, and how long.
 */
export function describeHour(parts) {
  const total = hourTotal(parts);
  if (!total) return 'No data';
  return ['up', 'degraded', 'down', 'maintenance'].filter((k) => parts[k] > 0).map((k) => `${share(parts[k] / total)} ${k} (${span(parts[k])})`).join(', ');
}

/** "Last 24 hours: down 7 s", "…: no downtime, maintenance 45 min" for screen readers and the note under the bar. */
export function summarizeHours(segments, hours = 24) {
  const t = { up: 0, degraded: 0, down: 0, maintenance: 0 };
  for (const s of segments) for (const k of Object.keys(t)) t[k] += s.parts[k] ?? 0;
  const said = ['down', 'degraded', 'maintenance'].filter((k) => t[k] > 0).map((k) => `${k} ${span(t[k])}`);
  if (t.down || t.degraded) return `Last ${hours} hours: ${said.join(', ')}`;
  if (t.up) return `Last ${hours} hours: ${['no downtime', ...said].join(', ')}`;
  if (t.maintenance) return `Last ${hours} hours: ${said.join(', ')}`;
  return `Last ${hours} hours: no data yet`;
}
