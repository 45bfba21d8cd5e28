// When a maintenance window is open, as pure functions of its schedule and a time: one-off windows (from,
// to), weekly ones (days of the week and a wall-clock range) and cron ones (five fields and a duration).
// Recurring windows are wall-clock times in the window's IANA time zone, so "Sunday 01:00-04:00" stays
// 01:00-04:00 local across a daylight-saving change (that night it lasts 2 or 4 real hours); a cron
// window lasts its duration in real time from its local start. A local time that does not exist (in the
// hour skipped in spring) moves forward by that hour, as calendars do; one that exists twice (autumn) is
// the later. See docs/monitors.md, "Maintenance windows".

import { cronDay, DAY_NAMES, instantOf, localDay, parseCron, type Cron, type DayName } from '../../../core/cron.js';

// The cron parser and the time-zone arithmetic live in core/cron.ts (scheduled discovery reads them too).
export { DAY_NAMES, instantOf, localDay, parseCron, type Cron, type DayName } from '../../../core/cron.js';

export type Schedule =
  | { kind: 'once'; from: number; to: number }
  | { kind: 'weekly'; days: readonly DayName[]; start: string; end: string; timezone: string }
  | { kind: 'cron'; cron: string; duration_min: number; timezone: string };

export interface Occurrence { from: number; to: number }

const MINUTE = 60_000;
/** How far back an occurrence can start and still be open (the longest cron duration, a week, and a day). */
const LOOKBACK_DAYS = 8;
/** How far ahead the next occurrence is looked for (a cron of 29 February can wait four years: not further). */
const LOOKAHEAD_DAYS = 366 * 4 + 1;

// ---- occurrences ----------------------------------------------------------------------------------------

const hm = (s: string): number => Number(s.slice(0, 2)) * 60 + Number(s.slice(3, 5));

/** The occurrences starting on one local day (UTC midnight ms of the wall calendar), in order. */
function startingOn(s: Exclude<Schedule, { kind: 'once' }>, day: number, cron: Cron | null): Occurrence[] {
  if (s.kind === 'weekly') {
    if (!s.days.includes(DAY_NAMES[new Date(day).getUTCDay()]!)) return [];
    const a = hm(s.start), b = hm(s.end);
    const from = instantOf(s.timezone, day + a * MINUTE);
    const to = instantOf(s.timezone, day + (b > a ? b : b + 1440) * MINUTE);
    return [{ from, to }];
  }
  if (!cron || !cronDay(cron, day)) return [];
  const out: Occurrence[] = [];
  for (let h = 0; h < 24; h++) {
    if (!cron.hour.any && !cron.hour.values.has(h)) continue;
    for (let m = 0; m < 60; m++) {
      if (!cron.minute.any && !cron.minute.values.has(m)) continue;
      const from = instantOf(s.timezone, day + (h * 60 + m) * MINUTE);
      out.push({ from, to: from + s.duration_min * MINUTE });
    }
  }
  return out;
}

/**
 * The occurrence open at `t` (from <= t < to), else the next one to start after `t`, each with `ended`
 * (an occurrence the user ended early: it closes at that time). Null when there is none.
 */
export function occurrencesAround(s: Schedule, t: number, ended: number | null = null):
  { current: Occurrence | null; next: Occurrence | null } {
  const cut = (o: Occurrence): Occurrence => (ended !== null && ended >= o.from && ended < o.to ? { from: o.from, to: ended } : o);
  if (s.kind === 'once') {
    const o = cut({ from: s.from, to: s.to });
    if (o.from <= t && t < o.to) return { current: o, next: null };
    return { current: null, next: o.from > t ? o : null };
  }
  const cron = s.kind === 'cron' ? parseCron(s.cron) : null;
  const today = localDay(s.timezone, t);
  let current: Occurrence | null = null;
  for (let i = -LOOKBACK_DAYS; i <= LOOKAHEAD_DAYS; i++) {
    for (const raw of startingOn(s, today + i * 86_400_000, cron)) {
      const o = cut(raw);
      if (o.to <= o.from) continue;
      if (o.from <= t && t < o.to) { if (!current || o.to > current.to) current = o; continue; }
      if (o.from > t) return { current, next: o };
    }
  }
  return { current, next: null };
}
