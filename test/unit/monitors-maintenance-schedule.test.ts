// When a maintenance window is open (maintenance/schedule.ts), against the time zone data of Node's ICU:
// wall-clock windows across both daylight-saving changes, cron with the nth weekday, windows across
// midnight, an occurrence ended early, and cron errors that name their field.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { occurrencesAround, parseCron, type Schedule } from '../../src/modules/monitors/maintenance/schedule.js';

const at = (s: string) => Date.parse(s);
const span = (o: { from: number; to: number } | null) => (o ? [new Date(o.from).toISOString(), new Date(o.to).toISOString()] : null);
const BERLIN = 'Europe/Berlin';

test('weekly 01:00-04:00 on Sundays in Berlin: 2 real hours the night clocks go forward, 4 the night they go back', () => {
  const s: Schedule = { kind: 'weekly', days: ['sun'], start: '01:00', end: '04:00', timezone: BERLIN };
  assert.deepEqual(span(occurrencesAround(s, at('2026-03-28T12:00:00Z')).next), ['2026-03-29T00:00:00.000Z', '2026-03-29T02:00:00.000Z']);
  // 01:00 is still summer time (UTC+2), 04:00 winter time (UTC+1).
  assert.deepEqual(span(occurrencesAround(s, at('2026-10-24T12:00:00Z')).next), ['2026-10-24T23:00:00.000Z', '2026-10-25T03:00:00.000Z']);
  const inside = occurrencesAround(s, at('2026-10-25T02:30:00Z'));
  assert.deepEqual(span(inside.current), ['2026-10-24T23:00:00.000Z', '2026-10-25T03:00:00.000Z']);
  assert.deepEqual(span(inside.next), ['2026-11-01T00:00:00.000Z', '2026-11-01T03:00:00.000Z'], 'winter time: UTC+1');
});

test('a weekly window across midnight belongs to the day it starts on; the end at or before the start is the next day', () => {
  const s: Schedule = { kind: 'weekly', days: ['fri'], start: '22:00', end: '02:00', timezone: 'UTC' };
  const sat = occurrencesAround(s, at('2026-05-02T01:00:00Z')); // Saturday 01:00
  assert.deepEqual(span(sat.current), ['2026-05-01T22:00:00.000Z', '2026-05-02T02:00:00.000Z']);
  const full: Schedule = { kind: 'weekly', days: ['mon'], start: '00:00', end: '00:00', timezone: 'UTC' };
  assert.deepEqual(span(occurrencesAround(full, at('2026-05-04T12:00:00Z')).current), ['2026-05-04T00:00:00.000Z', '2026-05-05T00:00:00.000Z']);
});

test('cron: the first Sunday of the month at 06:00 local for two hours; day fields combine as in cron', () => {
  const s: Schedule = { kind: 'cron', cron: '0 6 * * 0#1', duration_min: 120, timezone: BERLIN };
  assert.deepEqual(span(occurrencesAround(s, at('2026-03-02T00:00:00Z')).next), ['2026-04-05T04:00:00.000Z', '2026-04-05T06:00:00.000Z']);
  assert.deepEqual(span(occurrencesAround(s, at('2026-11-02T00:00:00Z')).next), ['2026-12-06T05:00:00.000Z', '2026-12-06T07:00:00.000Z']);
  // Both day fields restricted: the 13th or any Friday.
  const either: Schedule = { kind: 'cron', cron: '30 2 13 * fri', duration_min: 30, timezone: 'UTC' };
  assert.deepEqual(span(occurrencesAround(either, at('2026-05-09T00:00:00Z')).next), ['2026-05-13T02:30:00.000Z', '2026-05-13T03:00:00.000Z']);
  assert.deepEqual(span(occurrencesAround(either, at('2026-05-13T04:00:00Z')).next), ['2026-05-15T02:30:00.000Z', '2026-05-15T03:00:00.000Z']);
  const steps: Schedule = { kind: 'cron', cron: '*/20 9-10 * jan-mar mon-fri', duration_min: 5, timezone: 'UTC' };
  assert.deepEqual(span(occurrencesAround(steps, at('2026-03-31T10:41:00Z')).next), ['2027-01-01T09:00:00.000Z', '2027-01-01T09:05:00.000Z']);
});

test('an occurrence ended early closes then; a one-off window is open from its start until its end', () => {
  const once: Schedule = { kind: 'once', from: at('2026-05-01T10:00:00Z'), to: at('2026-05-01T12:00:00Z') };
  assert.deepEqual(span(occurrencesAround(once, at('2026-05-01T11:00:00Z')).current), ['2026-05-01T10:00:00.000Z', '2026-05-01T12:00:00.000Z']);
  assert.equal(occurrencesAround(once, at('2026-05-01T11:00:00Z'), at('2026-05-01T10:30:00Z')).current, null);
  assert.deepEqual(occurrencesAround(once, at('2026-05-01T12:00:00Z')), { current: null, next: null }, 'the end is not inside');
  const weekly: Schedule = { kind: 'weekly', days: ['fri'], start: '10:00', end: '12:00', timezone: 'UTC' };
  const cut = occurrencesAround(weekly, at('2026-05-01T11:00:00Z'), at('2026-05-01T10:30:00Z'));
  assert.equal(cut.current, null);
  assert.deepEqual(span(cut.next), ['2026-05-08T10:00:00.000Z', '2026-05-08T12:00:00.000Z'], 'the next one is whole');
});

test('cron errors name the field', () => {
  for (const [text, message] of [
    ['0 6 * *', /five fields/], ['60 6 * * *', /minute: "60"/], ['0 24 * * *', /hour/], ['0 6 0 * *', /day of the month/],
    ['0 6 * 13 *', /month: /], ['0 6 * * 8', /day of the week: "8"/], ['0 6 * * *#1', /day of the week/], ['0 10-6 * * *', /backwards/],
  ] as const) assert.throws(() => parseCron(text), message, text);
  assert.deepEqual([...parseCron('0 6 * * 7').dow.values], [0], '7 is Sunday');
});
