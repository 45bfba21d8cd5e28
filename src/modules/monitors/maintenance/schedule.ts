// When a maintenance window is open, as pure functions of its schedule and a time: one-off windows (from,
// to), weekly ones (days of the week and a wall-clock range) and cron ones (five fields and a duration).
// Recurring windows are wall-clock times in the window's IANA time zone, so "Sunday 01:00-04:00" stays
// 01:00-04:00 local across a daylight-saving change (that night it lasts 2 or 4 real hours); a cron
// window lasts its duration in real time from its local start. A local time that does not exist (in the
// hour skipped in spring) moves forward by that hour, as calendars do; one that exists twice (autumn) is
// the later. See docs/monitors.md, "Maintenance windows".

export const DAY_NAMES = ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'] as const;
export type DayName = (typeof DAY_NAMES)[number];

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

// ---- time zones -----------------------------------------------------------------------------------------

const formats = new Map<string, Intl.DateTimeFormat>();
function formatOf(tz: string): Intl.DateTimeFormat {
  let f = formats.get(tz);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', { timeZone: tz, hourCycle: 'h23', year: 'numeric', month: 'numeric', day: 'numeric',
      hour: 'numeric', minute: 'numeric', second: 'numeric' });
    formats.set(tz, f);
  }
  return f;
}

/** The wall clock of `tz` at `t`, as if it were UTC (ms): its difference to `t` is the zone's offset then. */
function wallOf(tz: string, t: number): number {
  const p: Record<string, number> = {};
  for (const x of formatOf(tz).formatToParts(new Date(t))) if (x.type !== 'literal') p[x.type] = Number(x.value);
  return Date.UTC(p.year!, p.month! - 1, p.day!, p.hour === 24 ? 0 : p.hour!, p.minute!, p.second!);
}

/** The instant (ms) the wall clock of `tz` shows `wall` (a local time written as UTC ms). */
export function instantOf(tz: string, wall: number): number {
  // Two passes: the offset at the first guess may differ from the offset at the answer near a change.
  const t = wall - (wallOf(tz, wall) - wall);
  return wall - (wallOf(tz, t) - Math.floor(t / 1000) * 1000);
}

/** The local calendar day (as UTC midnight ms) holding `t` in `tz`. */
export function localDay(tz: string, t: number): number {
  const w = wallOf(tz, t);
  return w - (((w % 86_400_000) + 86_400_000) % 86_400_000);
}

// ---- cron -----------------------------------------------------------------------------------------------

interface Field { any: boolean; values: Set<number> }
export interface Cron { minute: Field; hour: Field; dom: Field; month: Field; dow: Field; nth: Map<number, Set<number>> }

const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];

function parseField(text: string, min: number, max: number, names: readonly string[] | null, what: string,
  nth?: Map<number, Set<number>>): Field {
  const values = new Set<number>();
  const num = (s: string): number => {
    const i = names ? names.indexOf(s.toLowerCase()) : -1;
    const n = i >= 0 ? i + (names === MONTHS ? 1 : 0) : /^\d+$/.test(s) ? Number(s) : NaN;
    if (!Number.isInteger(n) || n < min || n > max) throw new Error(`${what}: "${s}" is not between ${min} and ${max}`);
    return n;
  };
  if (text === '*') return { any: true, values };
  for (const part of text.split(',')) {
    const hash = /^([^#]+)#([1-5])$/.exec(part);
    if (hash && nth) {
      const d = num(hash[1]!) % 7;
      if (!nth.has(d)) nth.set(d, new Set());
      nth.get(d)!.add(Number(hash[2]));
      continue;
    }
    const m = /^(\*|[^-/]+)(?:-([^/]+))?(?:\/(\d+))?$/.exec(part);
    if (!m) throw new Error(`${what}: "${part}" is not a value, a range (a-b), a step (*/n) or a list`);
    const step = m[3] ? Number(m[3]) : 1;
    if (step < 1) throw new Error(`${what}: a step must be at least 1`);
    const lo = m[1] === '*' ? min : num(m[1]!);
    const hi = m[2] ? num(m[2]) : m[1] === '*' || m[3] ? max : lo;
    if (hi < lo) throw new Error(`${what}: the range "${part}" runs backwards`);
    for (let v = lo; v <= hi; v += step) values.add(v);
  }
  return { any: false, values };
}

/**
 * Five fields: minute hour day-of-month month day-of-week (0 or 7 Sunday, names too). A day of the week
 * may be `d#n`, its nth in the month ("0#1": the first Sunday). As in cron, when both day fields are
 * restricted a day matching either runs. Throws an Error naming the field for anything else.
 */
export function parseCron(text: string): Cron {
  const f = text.trim().split(/\s+/);
  if (f.length !== 5) throw new Error('a cron needs five fields: minute hour day-of-month month day-of-week');
  const nth = new Map<number, Set<number>>();
  const dow = parseField(f[4]!, 0, 7, DAY_NAMES, 'day of the week', nth);
  if (dow.values.has(7)) { dow.values.delete(7); dow.values.add(0); }
  if (nth.size && dow.any) throw new Error('day of the week: "*" cannot be combined with d#n');
  return {
    minute: parseField(f[0]!, 0, 59, null, 'minute'), hour: parseField(f[1]!, 0, 23, null, 'hour'),
    dom: parseField(f[2]!, 1, 31, null, 'day of the month'), month: parseField(f[3]!, 1, 12, MONTHS, 'month'),
    dow: nth.size ? { any: false, values: dow.values } : dow, nth,
  };
}

function cronDay(c: Cron, day: number): boolean {
  const d = new Date(day);
  if (!c.month.any && !c.month.values.has(d.getUTCMonth() + 1)) return false;
  const dom = d.getUTCDate(), dow = d.getUTCDay();
  const domOk = c.dom.any || c.dom.values.has(dom);
  const dowOk = (c.dow.any && !c.nth.size) || c.dow.values.has(dow) || (c.nth.get(dow)?.has(Math.ceil(dom / 7)) ?? false);
  const dowRestricted = !c.dow.any || c.nth.size > 0;
  return !c.dom.any && dowRestricted ? domOk || dowOk : domOk && dowOk;
}

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
