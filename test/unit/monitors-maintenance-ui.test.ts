// The maintenance pages' pure functions (ui/pages/monitors/maintenance-model.js): a one-off window's local
// times read in its zone exactly as the server reads local times (daylight-saving gaps and repeats
// included), the form's values and the body built back from them (taken by the server's schema; an edit
// sends only what changed, and never a schedule that was not touched), the words for schedules and
// occurrences in the window's zone, the list's order, and the window "maintenance for 1 hour" creates.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { instantOf } from '../../src/modules/monitors/maintenance/schedule.js';
import { CreateWindowBody, UpdateWindowBody } from '../../src/modules/monitors/maintenance/schemas.js';
import {
  appliesText, isoToZoned, minutesText, quickLabel, QUICK_MINUTES, quickWindow, scheduleText, sortWindows, spanText, toBody, toForm,
  zonedToIso,
// @ts-expect-error plain browser JavaScript without type declarations
} from '../../ui/pages/monitors/maintenance-model.js';

test('local times in a zone: as the server reads them, across daylight-saving changes, and back', () => {
  const cases: [string, string][] = [
    ['2026-12-07T14:00', 'Europe/Berlin'], ['2026-07-07T14:00', 'Europe/Berlin'], ['2026-12-07T14:00', 'UTC'],
    ['2026-03-29T02:30', 'Europe/Berlin'], // skipped in spring: 03:30 CEST
    ['2026-10-25T02:30', 'Europe/Berlin'], // twice in autumn: the later (CET)
    ['2026-03-08T02:15', 'America/New_York'], ['2026-11-01T01:30', 'America/New_York'], ['2026-06-01T23:59', 'Asia/Kolkata'],
  ];
  for (const [local, tz] of cases) {
    const [d, t] = local.split('T') as [string, string];
    const wall = Date.parse(`${d}T${t}:00Z`);
    assert.equal(zonedToIso(local, tz), new Date(instantOf(tz, wall)).toISOString(), `${local} in ${tz}`);
  }
  assert.equal(zonedToIso('2026-12-07T14:00', 'Europe/Berlin'), '2026-12-07T13:00:00.000Z');
  assert.equal(zonedToIso('2026-03-29T02:30', 'Europe/Berlin'), '2026-03-29T01:30:00.000Z', 'the skipped hour moves forward');
  assert.equal(zonedToIso('2026-10-25T02:30', 'Europe/Berlin'), '2026-10-25T01:30:00.000Z', 'the repeated hour is the later');
  assert.equal(zonedToIso('', 'UTC'), null);
  assert.equal(zonedToIso('tomorrow', 'UTC'), null);
  assert.equal(isoToZoned('2026-12-07T13:00:00.000Z', 'Europe/Berlin'), '2026-12-07T14:00');
  assert.equal(isoToZoned('2026-07-07T12:00:00Z', 'Europe/Berlin'), '2026-07-07T14:00');
  assert.equal(isoToZoned('2026-01-01T00:00:00Z', 'America/New_York'), '2025-12-31T19:00');
  assert.equal(isoToZoned(null, 'UTC'), '');
});

const M1 = '6f1c1d2e-0000-4000-8000-000000000001';

test('a new window: the form starts on the probe\'s zone, and its body is what the server takes', () => {
  const now = Date.parse('2026-12-07T12:20:00Z');
  const v = toForm(null, 'Europe/Berlin', now);
  assert.equal(v.timezone, 'Europe/Berlin');
  assert.equal(v['schedule.kind'], 'once');
  assert.deepEqual([v['schedule.from'], v['schedule.to']], ['2026-12-07T14:00', '2026-12-07T15:00'], 'the next full hour, for an hour, local');
  assert.equal(v.applies_to, 'monitors');
  const once = toBody({ ...v, name: ' Switch firmware ', monitor_ids: [M1] });
  assert.deepEqual(once, { name: 'Switch firmware', schedule: { kind: 'once', from: '2026-12-07T13:00:00.000Z', to: '2026-12-07T14:00:00.000Z' },
    timezone: 'Europe/Berlin', applies_to: 'monitors', monitor_ids: [M1], tags: [], enabled: true });
  assert.ok(CreateWindowBody.safeParse(once).success);
  const weekly = toBody({ ...v, name: 'Nightly', 'schedule.kind': 'weekly', 'schedule.days': ['mon', 'sun'], 'schedule.start': '22:00',
    'schedule.end': '02:00', applies_to: 'tags', tags: ['lab'], monitor_ids: [M1], description: 'backups' });
  assert.deepEqual(weekly.schedule, { kind: 'weekly', days: ['mon', 'sun'], start: '22:00', end: '02:00' });
  assert.deepEqual([weekly.monitor_ids, weekly.tags, weekly.description], [[], ['lab'], 'backups'], 'only what it applies to');
  assert.ok(CreateWindowBody.safeParse(weekly).success);
  const cron = toBody({ ...v, name: 'Patch Sunday', 'schedule.kind': 'cron', 'schedule.cron': ' 0 6 * * 0#1 ', 'schedule.duration_min': '120',
    applies_to: 'all' });
  assert.deepEqual(cron.schedule, { kind: 'cron', cron: '0 6 * * 0#1', duration_min: 120 });
  assert.ok(CreateWindowBody.safeParse(cron).success);
  // Empty fields are left out, so the server says "Required" beside each; text that is no number goes as it is.
  const empty = toBody({ ...v, 'schedule.kind': 'weekly', 'schedule.days': [] });
  assert.deepEqual(empty.schedule, { kind: 'weekly', days: [], start: undefined, end: undefined });
  const r = CreateWindowBody.safeParse(JSON.parse(JSON.stringify(empty)));
  assert.deepEqual(r.error?.issues.map((i) => i.path.join('.')).sort(), ['monitor_ids', 'name', 'schedule.days', 'schedule.end', 'schedule.start'],
    'every field at fault in one answer');
  assert.deepEqual(toBody({ ...v, 'schedule.kind': 'cron', 'schedule.duration_min': 'an hour' }).schedule.duration_min, 'an hour');
});

test('editing a window sends only what changed, and its schedule only when it was touched', () => {
  // A window started from a monitor's page: its times carry seconds the form does not show.
  const w = { id: 'w1', name: 'core-switch maintenance', description: '', timezone: 'Europe/Berlin', applies_to: 'monitors', monitor_ids: [M1],
    tags: [], enabled: true, state: 'open',
    schedule: { kind: 'once', from: '2026-12-07T12:59:27.123Z', to: '2026-12-07T14:00:27.123Z' } };
  const initial = toForm(w, 'UTC');
  assert.equal(initial.timezone, 'Europe/Berlin', 'its own zone, not the probe\'s');
  assert.deepEqual([initial['schedule.from'], initial['schedule.to']], ['2026-12-07T13:59', '2026-12-07T15:00']);
  assert.deepEqual(toBody(initial, initial), {}, 'nothing changed: nothing sent');
  assert.deepEqual(toBody({ ...initial, name: 'Core switch firmware' }, initial), { name: 'Core switch firmware' },
    'a new name does not resend the schedule (a new schedule would start afresh)');
  assert.deepEqual(toBody({ ...initial, 'schedule.to': '2026-12-07T16:00' }, initial).schedule,
    { kind: 'once', from: '2026-12-07T12:59:00.000Z', to: '2026-12-07T15:00:00.000Z' });
  assert.deepEqual(Object.keys(toBody({ ...initial, timezone: 'UTC' }, initial)).sort(), ['schedule', 'timezone'],
    'a one-off window\'s times are read in its zone: a new zone moves them');
  assert.deepEqual(toBody({ ...initial, applies_to: 'all' }, initial), { applies_to: 'all', monitor_ids: [] });
  const weekly = { ...w, schedule: { kind: 'weekly', days: ['sat'], start: '01:00', end: '04:00' } };
  const wi = toForm(weekly, 'UTC');
  assert.deepEqual(toBody({ ...wi, timezone: 'UTC' }, wi), { timezone: 'UTC' }, 'a weekly window keeps its local hours in the new zone');
  assert.deepEqual(toBody({ ...wi, 'schedule.days': ['sat', 'sun'], enabled: false }, wi),
    { enabled: false, schedule: { kind: 'weekly', days: ['sat', 'sun'], start: '01:00', end: '04:00' } });
  assert.ok(UpdateWindowBody.safeParse(toBody({ ...wi, 'schedule.kind': 'cron', 'schedule.cron': '0 1 * * 6' }, wi)).success);
});

test('schedules and occurrences in words, in the window\'s zone; what a window applies to; the list\'s order', () => {
  const w = (schedule: object, extra: object = {}) => ({ name: 'x', timezone: 'Europe/Berlin', schedule, ...extra });
  assert.equal(scheduleText(w({ kind: 'once', from: '2026-12-06T05:00:00Z', to: '2026-12-06T07:00:00Z' }), 'en-GB'), 'Once: Sun 6 Dec, 06:00–08:00');
  assert.equal(scheduleText(w({ kind: 'once', from: '2026-12-05T21:00:00Z', to: '2026-12-06T01:00:00Z' }), 'en-GB'),
    'Once: Sat 5 Dec, 22:00 – Sun 6 Dec, 02:00');
  assert.equal(scheduleText(w({ kind: 'weekly', days: ['sun', 'mon'], start: '22:00', end: '02:00' })), 'Weekly: Mon, Sun, 22:00–02:00 (next day)');
  assert.equal(scheduleText(w({ kind: 'weekly', days: ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'], start: '00:00', end: '00:00' })), 'Every day, all day');
  assert.equal(scheduleText(w({ kind: 'cron', cron: '0 6 * * 0#1', duration_min: 90 })), 'Cron 0 6 * * 0#1, for 1 h 30 min');
  assert.equal(spanText({ from: '2026-12-06T05:00:00Z', to: '2026-12-06T07:00:00Z' }, 'America/New_York', 'en-GB'), 'Sun 6 Dec, 00:00–02:00');
  assert.equal(spanText(null, 'UTC'), '—');
  assert.deepEqual([minutesText(45), minutesText(120)], ['45 min', '2 h']);
  const names: Record<string, string> = { a: 'core-switch', b: 'edge-router' };
  assert.equal(appliesText({ applies_to: 'monitors', monitor_ids: ['a', 'b'] }, (id: string) => names[id]), 'core-switch, edge-router');
  assert.equal(appliesText({ applies_to: 'tags', tags: ['lab', 'core'] }), 'Tags: lab, core');
  assert.equal(appliesText({ applies_to: 'all' }), 'All monitors');
  const list = [
    { name: 'over', state: 'over', schedule: { kind: 'once', to: '2026-01-01T00:00:00Z' } },
    { name: 'later', state: 'scheduled', next: { from: '2026-12-09T00:00:00Z' }, schedule: { kind: 'weekly' } },
    { name: 'off', state: 'disabled', schedule: { kind: 'cron' } },
    { name: 'soon', state: 'scheduled', next: { from: '2026-12-08T00:00:00Z' }, schedule: { kind: 'weekly' } },
    { name: 'now', state: 'open', current: { to: '2026-12-07T15:00:00Z' }, schedule: { kind: 'once' } },
  ];
  assert.deepEqual(sortWindows(list).map((x: { name: string }) => x.name), ['now', 'soon', 'later', 'off', 'over']);
});

test('"maintenance for 1 hour": a one-off window for that monitor alone, from the minute before now', () => {
  const now = Date.parse('2026-12-07T12:20:42.500Z');
  const body = quickWindow({ id: M1, name: 'core-switch' }, 60, now);
  assert.deepEqual(body, { name: 'core-switch maintenance', applies_to: 'monitors', monitor_ids: [M1],
    schedule: { kind: 'once', from: '2026-12-07T12:19:00.000Z', to: '2026-12-07T13:20:00.000Z' } });
  assert.ok(CreateWindowBody.safeParse(body).success);
  assert.ok(CreateWindowBody.safeParse(quickWindow({ id: M1, name: 'x'.repeat(100) }, 30, now)).success, 'a long name still fits');
  assert.deepEqual(QUICK_MINUTES.map(quickLabel), ['30 min', '1 hour', '2 hours', '4 hours']);
});
