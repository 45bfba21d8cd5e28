// Maintenance windows for the pages, as pure functions (no DOM, no requests; unit-tested in
// test/unit/monitors-maintenance-ui.test.ts): wall-clock times in a window's time zone and back (a
// one-off window's from and to are typed as local times of its zone, as the weekly and cron ones are),
// the form's values of a window and the request body built back from them, the words for a schedule,
// an occurrence and what a window applies to, the list's order, and the one-off window a monitor's page
// starts ("maintenance for 1 hour").
import { MAINTENANCE_APPLIES, WEEK_DAYS } from '../../lib/vocabulary.js';

// ---- time zones ----------------------------------------------------------------------------------------

const wallFormats = new Map();
function wallFormat(tz) {
  let f = wallFormats.get(tz);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', { timeZone: tz, hourCycle: 'h23', year: 'numeric', month: 'numeric', day: 'numeric',
      hour: 'numeric', minute: 'numeric', second: 'numeric' });
    wallFormats.set(tz, f);
  }
  return f;
}

/** The wall clock of `tz` at instant `t` (ms), written as if it were UTC (ms). */
function wallOf(tz, t) {
  const p = {};
  for (const x of wallFormat(tz).formatToParts(new Date(t))) if (x.type !== 'literal') p[x.type] = Number(x.value);
  return Date.UTC(p.year, p.month - 1, p.day, p.hour === 24 ? 0 : p.hour, p.minute, p.second);
}

/**
 * The instant the wall clock of `tz` shows `wall` (a local time written as UTC ms), as the server reads
 * local times (maintenance/schedule.ts instantOf): a time in the hour skipped in spring moves forward by
 * that hour, one that happens twice in autumn is the later.
 */
function instantOf(tz, wall) {
  const t = wall - (wallOf(tz, wall) - wall);
  return wall - (wallOf(tz, t) - Math.floor(t / 1000) * 1000);
}

const LOCAL = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})$/;
const pad = (n) => String(n).padStart(2, '0');

/** A datetime-local value ("2026-12-07T14:00") read in time zone `tz`, as an ISO instant; null when it is not one. */
export function zonedToIso(local, tz) {
  const m = LOCAL.exec(String(local ?? '').trim());
  if (!m) return null;
  const wall = Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]), Number(m[4]), Number(m[5]));
  try { return new Date(instantOf(tz, wall)).toISOString(); } catch { return null; }
}

/** An ISO instant as a datetime-local value in time zone `tz` ("2026-12-07T14:00"); '' for none. */
export function isoToZoned(iso, tz) {
  const t = Date.parse(iso ?? '');
  if (!Number.isFinite(t)) return '';
  const w = new Date(wallOf(tz, t));
  return `${w.getUTCFullYear()}-${pad(w.getUTCMonth() + 1)}-${pad(w.getUTCDate())}T${pad(w.getUTCHours())}:${pad(w.getUTCMinutes())}`;
}

// ---- words ---------------------------------------------------------------------------------------------

const dayFormats = new Map();
/** "Sun 7 Dec, 06:00" in `tz` (`part` 'day' and 'time' give either half). */
function zoned(t, tz, locale, part) {
  const key = `${tz}|${locale ?? ''}|${part}`;
  let f = dayFormats.get(key);
  if (!f) {
    const day = { weekday: 'short', day: 'numeric', month: 'short' }, time = { hour: '2-digit', minute: '2-digit', hourCycle: 'h23' };
    f = new Intl.DateTimeFormat(locale, { timeZone: tz, ...(part === 'time' ? time : part === 'day' ? day : { ...day, ...time }) });
    dayFormats.set(key, f);
  }
  return f.format(new Date(t));
}

/**
 * An occurrence {from, to} in the window's zone: "Sun, 7 Dec, 06:00–08:00" on one day, "Sat, 6 Dec, 22:00 –
 * Sun, 7 Dec, 02:00" across days (the locale's words and order).
 */
export function spanText(span, tz, locale) {
  if (!span) return '—';
  const a = Date.parse(span.from), b = Date.parse(span.to);
  if (zoned(a, tz, locale, 'day') === zoned(b, tz, locale, 'day')) {
    return `${zoned(a, tz, locale, 'day')}, ${zoned(a, tz, locale, 'time')}–${zoned(b, tz, locale, 'time')}`;
  }
  return `${zoned(a, tz, locale, 'all')} – ${zoned(b, tz, locale, 'all')}`;
}

/** "the next day" after a weekly window's range when it runs past midnight; "all day" for 00:00-00:00. */
function rangeText(start, end) {
  if (start === end && start === '00:00') return 'all day';
  return `${start}–${end}${end <= start ? ' (next day)' : ''}`;
}

/**
 * A schedule in words: "Once: Sun, 7 Dec, 06:00–08:00", "Weekly: Mon, Wed, 22:00–02:00 (next day)",
 * "Every day, 01:00–04:00", "Cron 0 6 * * 0#1, for 2 h".
 */
export function scheduleText(w, locale) {
  const s = w.schedule;
  if (s.kind === 'once') return `Once: ${spanText(s, w.timezone, locale)}`;
  if (s.kind === 'weekly') {
    const days = WEEK_DAYS.filter((d) => s.days.includes(d.value)).map((d) => d.label);
    return `${days.length === 7 ? 'Every day' : `Weekly: ${days.join(', ')}`}, ${rangeText(s.start, s.end)}`;
  }
  return `Cron ${s.cron}, for ${minutesText(s.duration_min)}`;
}

/** 90 as "1 h 30 min". */
export function minutesText(n) {
  const h = Math.floor(n / 60), m = n % 60;
  return h ? (m ? `${h} h ${m} min` : `${h} h`) : `${m} min`;
}

/** What a window applies to: "All monitors", the monitors' names (by `nameOf(id)`), "Tags: lab, core". */
export function appliesText(w, nameOf = (id) => id) {
  if (w.applies_to === 'monitors') return w.monitor_ids.map(nameOf).join(', ');
  if (w.applies_to === 'tags') return `Tags: ${w.tags.join(', ')}`;
  return MAINTENANCE_APPLIES.find((a) => a.value === w.applies_to)?.label ?? w.applies_to;
}

/** Open first (closing first), then scheduled (opening first), disabled, over (newest first); then by name. */
export function sortWindows(list) {
  const rank = { open: 0, scheduled: 1, disabled: 2, over: 3 };
  const at = (w) => (w.state === 'open' ? Date.parse(w.current?.to ?? '') : w.state === 'scheduled' ? Date.parse(w.next?.from ?? '')
    : w.state === 'over' && w.schedule.kind === 'once' ? -Date.parse(w.schedule.to) : 0);
  return [...list].sort((a, b) => (rank[a.state] ?? 9) - (rank[b.state] ?? 9) || (at(a) || 0) - (at(b) || 0)
    || a.name.localeCompare(b.name));
}

// ---- the form --------------------------------------------------------------------------------------------

const S = 'schedule.';
/** The form's fields of each kind of schedule (named by their API paths). */
const KIND_FIELDS = { once: ['from', 'to'], weekly: ['days', 'start', 'end'], cron: ['cron', 'duration_min'] };

/**
 * Form values for a window (null: a new one, in `zone`, the probe's; a one-off from the next full hour for
 * an hour, by the clock `now`). A one-off window's times are shown in the window's zone.
 */
export function toForm(w, zone, now = Date.now()) {
  const s = w?.schedule;
  const tz = w?.timezone ?? zone;
  const hour = Math.ceil(now / 3_600_000) * 3_600_000;
  return {
    name: w?.name ?? '',
    description: w?.description ?? '',
    [`${S}kind`]: s?.kind ?? 'once',
    [`${S}from`]: isoToZoned(s?.kind === 'once' ? s.from : new Date(hour).toISOString(), tz),
    [`${S}to`]: isoToZoned(s?.kind === 'once' ? s.to : new Date(hour + 3_600_000).toISOString(), tz),
    [`${S}days`]: s?.kind === 'weekly' ? [...s.days] : [],
    [`${S}start`]: s?.kind === 'weekly' ? s.start : '',
    [`${S}end`]: s?.kind === 'weekly' ? s.end : '',
    [`${S}cron`]: s?.kind === 'cron' ? s.cron : '',
    [`${S}duration_min`]: s?.kind === 'cron' ? String(s.duration_min) : '60',
    timezone: tz,
    applies_to: w?.applies_to ?? 'monitors',
    monitor_ids: w?.monitor_ids ?? [],
    tags: w?.tags ?? [],
    enabled: w?.enabled ?? true,
  };
}

/** A number from a text field; text that is not one goes as it is, so that the API names the field. */
const num = (v) => {
  const t = String(v ?? '').trim();
  return t !== '' && Number.isFinite(Number(t)) ? Number(t) : t;
};
/** An empty field is left out: the API then says it is required, beside it. */
const given = (v) => (String(v ?? '').trim() === '' ? undefined : String(v).trim());

/** The schedule the form describes, its kind's fields only; a local time is read in the form's zone. */
export function scheduleOf(v) {
  const kind = v[`${S}kind`];
  if (kind === 'once') {
    const at = (k) => (given(v[`${S}${k}`]) === undefined ? undefined : zonedToIso(v[`${S}${k}`], v.timezone) ?? v[`${S}${k}`]);
    return { kind, from: at('from'), to: at('to') };
  }
  if (kind === 'weekly') return { kind, days: v[`${S}days`], start: given(v[`${S}start`]), end: given(v[`${S}end`]) };
  return { kind, cron: given(v[`${S}cron`]), duration_min: given(v[`${S}duration_min`]) === undefined ? undefined : num(v[`${S}duration_min`]) };
}

const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);

/**
 * The request body: everything for a new window; for one being edited (`initial`: the form values it was
 * opened with) only what changed. The schedule is compared as typed, not as sent: a window whose times
 * carry seconds (one started from a monitor's page) is not given a new schedule when only its name
 * changes (a new schedule starts afresh, reopening one ended early). A one-off window's times are read
 * in its zone, so a new zone is a new schedule.
 */
export function toBody(v, initial) {
  const applies = v.applies_to;
  const full = {
    name: v.name.trim(),
    description: v.description.trim(),
    schedule: scheduleOf(v),
    timezone: v.timezone,
    applies_to: applies,
    monitor_ids: applies === 'monitors' ? v.monitor_ids : [],
    tags: applies === 'tags' ? v.tags : [],
    enabled: v.enabled,
  };
  if (!initial) {
    if (!full.description) delete full.description;
    return full;
  }
  const kind = v[`${S}kind`];
  const scheduleChanged = kind !== initial[`${S}kind`] || KIND_FIELDS[kind].some((k) => !same(v[`${S}${k}`], initial[`${S}${k}`]))
    || (kind === 'once' && v.timezone !== initial.timezone);
  const before = { ...initial, name: initial.name.trim(), description: initial.description.trim() };
  const body = {};
  for (const k of ['name', 'description', 'timezone', 'applies_to', 'enabled']) if (!same(full[k], before[k])) body[k] = full[k];
  if (scheduleChanged) body.schedule = full.schedule;
  if (!same(full.monitor_ids, initial.applies_to === 'monitors' ? initial.monitor_ids : [])) body.monitor_ids = full.monitor_ids;
  if (!same(full.tags, initial.applies_to === 'tags' ? initial.tags : [])) body.tags = full.tags;
  return body;
}

// ---- from a monitor's page -------------------------------------------------------------------------------

/** The choices of "Maintenance for …" on a monitor's page, in minutes. */
export const QUICK_MINUTES = [30, 60, 120, 240];

/** "30 min", "1 hour", "2 hours". */
export const quickLabel = (min) => (min < 60 ? `${min} min` : min === 60 ? '1 hour' : `${min / 60} hours`);

/**
 * The body of a one-off window for monitor `m` from now for `minutes` (by the browser's clock `now`): named
 * "<monitor> maintenance", from the minute before (a browser clock a little ahead of the probe's would
 * otherwise leave it not yet open; time before its creation is not counted as maintenance anyway) to
 * `minutes` after the current minute.
 */
export function quickWindow(m, minutes, now = Date.now()) {
  const base = Math.floor(now / 60_000) * 60_000;
  return {
    name: `${m.name.slice(0, 88)} maintenance`,
    schedule: { kind: 'once', from: new Date(base - 60_000).toISOString(), to: new Date(base + minutes * 60_000).toISOString() },
    applies_to: 'monitors',
    monitor_ids: [m.id],
  };
}
