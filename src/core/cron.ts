// Cron expressions and wall-clock time in an IANA time zone, as pure functions: the maintenance windows
// (monitors/maintenance/schedule.ts) and scheduled discovery (v1sion/profiles) both read them. A cron has
// five fields (minute hour day-of-month month day-of-week); its times are wall-clock times of a zone, so
// "0 3 * * *" stays 03:00 local across a daylight-saving change. A local time that does not exist (the
// hour skipped in spring) moves forward by that hour, as calendars do; one that exists twice is the later.

export const DAY_NAMES = ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'] as const;
export type DayName = (typeof DAY_NAMES)[number];

const MINUTE = 60_000;

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

export function cronDay(c: Cron, day: number): boolean {
  const d = new Date(day);
  if (!c.month.any && !c.month.values.has(d.getUTCMonth() + 1)) return false;
  const dom = d.getUTCDate(), dow = d.getUTCDay();
  const domOk = c.dom.any || c.dom.values.has(dom);
  const dowOk = (c.dow.any && !c.nth.size) || c.dow.values.has(dow) || (c.nth.get(dow)?.has(Math.ceil(dom / 7)) ?? false);
  const dowRestricted = !c.dow.any || c.nth.size > 0;
  return !c.dom.any && dowRestricted ? domOk || dowOk : domOk && dowOk;
}

/** How far ahead the next run of a cron is looked for (29 February can wait four years: not further). */
const CRON_LOOKAHEAD_DAYS = 366 * 4 + 1;

/** The first time (ms, whole minute) strictly after `after` that the cron names in `tz`; null when none within four years. */
export function nextCronTime(cron: Cron, tz: string, after: number): number | null {
  const today = localDay(tz, after);
  for (let i = -1; i <= CRON_LOOKAHEAD_DAYS; i++) {
    const day = today + i * 86_400_000;
    if (!cronDay(cron, day)) continue;
    for (let h = 0; h < 24; h++) {
      if (!cron.hour.any && !cron.hour.values.has(h)) continue;
      for (let m = 0; m < 60; m++) {
        if (!cron.minute.any && !cron.minute.values.has(m)) continue;
        const t = instantOf(tz, day + (h * 60 + m) * MINUTE);
        if (t > after) return t;
      }
    }
  }
  return null;
}
