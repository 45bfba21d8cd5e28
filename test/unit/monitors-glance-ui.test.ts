// The monitor pages' pure functions (ui/pages/monitors/glance.js, event-view.js's status words): the status
// a person reads ("Failing 1 of 3" its own status, apart from "Degraded" for a slow answer; "Maintenance"
// while a window holds its alerts) and how they are counted and filtered, problems first, column sorts, one
// uptime format, the beat bar's caption from the beats drawn (maintenance ticks counted too), and the
// 24-hour bar's segments: an hour takes the worst state that held more than 2 % of its time (down, degraded,
// maintenance, up), and says each state's share.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  beatList, beatSummary, checkedLabel, describeHour, HOUR_SHARE, HOUR_STATES, hourSegments, maintenanceHint, maintenanceUntil, reasonHint,
  reasonText, resultBeats, severity, SHOWN_STATUSES, shownStatus, sortMonitors, statusCounts, statusLabel, summarizeHours, uptimeText,
// @ts-expect-error plain browser JavaScript without type declarations
} from '../../ui/pages/monitors/glance.js';

type Seg = { status: string; blip: string | null; parts: Record<string, number> };

const m = (name: string, status: string, extra: Record<string, unknown> = {}) => ({ id: name, name, status, degraded_reason: null,
  failing_streak: 0, failure_threshold: 3, response_time: null, last_check: null, stats_24h: { uptime_pct: null }, beats: '', ...extra });
const failing = m('b', 'degraded', { degraded_reason: 'failing', failing_streak: 1 });
const slow = m('c', 'degraded', { degraded_reason: 'slow', response_time: 900 });
const loss = m('e', 'degraded', { degraded_reason: 'loss' });
const down = m('d', 'down');
const up = m('a', 'up', { response_time: 5 });
const paused = m('f', 'paused');

test('failing below the threshold is its own status: "Failing 1 of 3", never "Degraded"; slow and loss stay degraded', () => {
  assert.equal(shownStatus(failing), 'failing');
  assert.equal(statusLabel(failing), 'Failing 1 of 3');
  assert.equal(reasonText(failing), null, 'the count is in the label, not a reason beside "Degraded"');
  assert.equal(reasonHint(failing), '1 failed check in a row; down after 2 more');
  assert.equal(shownStatus(slow), 'degraded');
  assert.equal(statusLabel(slow), 'Degraded');
  assert.equal(reasonText(slow), 'Slow');
  assert.equal(reasonText(loss), 'Packet loss');
  assert.equal(statusLabel(down), 'Down');
  assert.equal(reasonText(down), null);
  assert.deepEqual(statusCounts([failing, slow, loss, down, up, paused]),
    { all: 6, down: 1, failing: 1, degraded: 2, up: 1, maintenance: 0, paused: 1, unknown: 0 });
});

test('problems first, column sorts, one uptime format', () => {
  assert.deepEqual(sortMonitors([up, paused, slow, down, failing, loss]).map((x: { name: string }) => x.name), ['d', 'b', 'c', 'e', 'a', 'f']);
  assert.deepEqual(sortMonitors([up, slow, down], 'name', 'desc').map((x: { name: string }) => x.name), ['d', 'c', 'a']);
  assert.deepEqual(sortMonitors([down, slow, up], 'response').map((x: { name: string }) => x.name), ['a', 'c', 'd'], 'no time sorts last');
  assert.ok(severity(down) < severity(failing) && severity(failing) < severity(slow) && severity(up) < severity(paused));
  assert.equal(uptimeText(99.806), '99.80 %');
  assert.equal(uptimeText(99.999), '99.99 %', 'never rounded up to 100');
  assert.equal(uptimeText(100), '100.00 %');
  assert.equal(uptimeText(null), '—');
});

test('the beat caption counts the beats given: the list\'s letters or the results drawn, with their span', () => {
  assert.equal(beatSummary(beatList('uuufdU')), 'Last 6 checks: 1 down, 1 failing, 4 up');
  assert.deepEqual(beatList('sP').map((b: { tone: string; manual: boolean }) => [b.tone, b.manual]), [['degraded', false], ['paused', true]]);
  assert.equal(beatSummary([]), 'No checks yet');
  // 60 results, newest first: 43 up then 17 down (oldest first); the caption is theirs, not 30 letters'.
  const t0 = Date.parse('2026-03-02T10:00:00Z');
  const items = Array.from({ length: 60 }, (_, i) => ({ at: new Date(t0 + i * 60_000).toISOString(), status: i < 43 ? 'up' : 'down',
    monitor_status: i < 43 ? 'up' : 'down', response_time: 5, message: i < 43 ? 'OK' : 'HTTP 500', manual: false })).reverse();
  const beats = resultBeats(items);
  assert.equal(beats.length, 60);
  assert.equal(beats[0].at, '2026-03-02T10:00:00.000Z', 'oldest first');
  assert.match(beatSummary(beats), /^Last 60 checks \(.+\): 17 down, 43 up$/);
  // A failed check that left the monitor failing, not down; paused; a degraded answer.
  const mixed = resultBeats([
    { at: '2026-03-02T10:03:00Z', status: 'up', monitor_status: 'paused', response_time: 1, message: 'OK', manual: true },
    { at: '2026-03-02T10:02:00Z', status: 'degraded', monitor_status: 'degraded', response_time: 900, message: 'slow', manual: false },
    { at: '2026-03-02T10:01:00Z', status: 'down', monitor_status: 'degraded', response_time: null, message: 'HTTP 500', manual: false },
  ]);
  assert.deepEqual(mixed.map((b: { tone: string }) => b.tone), ['failing', 'degraded', 'paused']);
  assert.match(mixed[0].label, /Failed, not yet down — HTTP 500$/);
  assert.match(beatSummary(mixed.slice(0, 1)), /^Last 1 check \([^–]+\): 1 failing$/, 'one time, not a span from it to itself');
});

test('an hour takes the worst status that held more than 2 % of its known time, and says the shares', () => {
  assert.equal(HOUR_SHARE, 0.02);
  const segs: Seg[] = hourSegments([
    { up: 3593, degraded: 0, down: 7, checks: 60, uptime_pct: 99.806 }, // a 7-second outage: a notch
    { up: 2580, degraded: 0, down: 1020, checks: 60, uptime_pct: 71.667 }, // 28 % down: a down hour
    { up: 3540, degraded: 0, down: 60, checks: 60, uptime_pct: 98.333 }, // one failed check a minute: 1.7 %, a notch
    { up: 3480, degraded: 0, down: 120, checks: 60, uptime_pct: 96.667 }, // two: 3.3 %, down
    { up: 3000, degraded: 580, down: 20, checks: 60, uptime_pct: 99.444 }, // slow a sixth of it, 20 s down: degraded, notched
    { up: 0, degraded: 0, down: 0, checks: 0, uptime_pct: null },
  ], '2026-03-02T10:00:00.000Z');
  assert.deepEqual(segs.map((s) => [s.status, s.blip]),
    [['up', 'down'], ['down', null], ['up', 'down'], ['down', null], ['degraded', 'down'], ['none', null]]);
  assert.equal(describeHour(segs[0]!.parts), '99.8 % up (59 min 53 s), 0.2 % down (7 s)');
  assert.equal(describeHour(segs[1]!.parts), '72 % up (43 min), 28 % down (17 min)');
  assert.equal(describeHour(segs[4]!.parts), '83 % up (50 min), 16 % degraded (9 min 40 s), 0.6 % down (20 s)');
  assert.equal(describeHour(segs[5]!.parts), 'No data');
  assert.equal(describeHour({ up: 0, degraded: 0, down: 3600 }), '100 % down (1 h)');
  assert.equal(describeHour({ up: 3599.9, degraded: 0, down: 0.1 }), '> 99.9 % up (1 h), < 0.1 % down (< 1 s)');
  assert.equal(summarizeHours(segs), 'Last 24 hours: down 20 min 27 s, degraded 9 min 40 s');
});

test('a monitor in a maintenance window reads "Maintenance until …", counted and sorted as held on purpose, not as a problem', () => {
  const until = '2026-03-02T14:00:00.000Z';
  const now = Date.parse('2026-03-02T12:30:00.000Z');
  const held = m('g', 'down', { maintenance: { id: 'w1', name: 'Switch firmware', until }, last_message: 'connection refused' });
  const heldFailing = m('h', 'degraded', { degraded_reason: 'failing', failing_streak: 2, maintenance: { id: 'w1', name: 'Switch firmware', until } });
  const pausedHeld = m('i', 'paused', { maintenance: { id: 'w1', name: 'Switch firmware', until } });
  assert.equal(shownStatus(held), 'maintenance');
  assert.equal(statusLabel(held), 'Maintenance');
  assert.equal(checkedLabel(held), 'Down', 'what the checks say meanwhile');
  assert.equal(checkedLabel(heldFailing), 'Failing 2 of 3');
  assert.equal(reasonText(heldFailing), null, 'no "Failing" reason beside "Maintenance"');
  assert.equal(shownStatus(pausedHeld), 'paused', 'a paused monitor is not checked: it stays paused');
  // The time in the browser's zone, as every time on the page: "until 14:00" today, with the day otherwise.
  const hm = new Intl.DateTimeFormat(undefined, { hour: '2-digit', minute: '2-digit' }).format(new Date(until));
  assert.equal(maintenanceUntil(held, now), `until ${hm}`);
  assert.match(maintenanceUntil(held, now + 86_400_000) ?? '', new RegExp(`^until .*\\d.*${hm}$`), 'another day: with its date');
  assert.equal(maintenanceUntil(up, now), null);
  assert.equal(maintenanceHint(held, now), `Switch firmware holds its alerts until ${hm}; checks still run: Down`);
  assert.equal(maintenanceHint(m('j', 'unknown', { maintenance: { id: 'w1', name: 'W', until } }), now),
    `W holds its alerts until ${hm}; no check has finished yet`);
  // Its own filter chip and tile, after up and before paused; problems first, then it.
  assert.deepEqual(SHOWN_STATUSES, ['down', 'failing', 'degraded', 'up', 'maintenance', 'paused', 'unknown']);
  assert.deepEqual(statusCounts([held, heldFailing, pausedHeld, up, down]),
    { all: 5, down: 1, failing: 0, degraded: 0, up: 1, maintenance: 2, paused: 1, unknown: 0 });
  assert.deepEqual(sortMonitors([pausedHeld, held, up, down]).map((x: { name: string }) => x.name), ['d', 'a', 'g', 'i']);
  assert.ok(severity(up) < severity(held) && severity(held) < severity(pausedHeld));
});

test('maintenance beats: the list\'s m and M, and results checked in a window, counted in the caption like the others', () => {
  assert.equal(beatSummary(beatList('uummMd')), 'Last 6 checks: 1 down, 2 up, 3 in maintenance');
  assert.deepEqual(beatList('mM').map((b: { tone: string; manual: boolean; label: string }) => [b.tone, b.manual, b.label]),
    [['maintenance', false, 'Checked in a maintenance window'], ['maintenance', true, 'Checked in a maintenance window (checked by hand)']]);
  const beats = resultBeats([
    { at: '2026-03-02T10:02:00Z', status: 'up', monitor_status: 'paused', response_time: 1, message: 'OK', manual: false, in_maintenance: false },
    { at: '2026-03-02T10:01:00Z', status: 'down', monitor_status: 'down', response_time: null, message: 'HTTP 500', manual: false, in_maintenance: true },
    { at: '2026-03-02T10:00:00Z', status: 'up', monitor_status: 'up', response_time: 4, message: 'OK', manual: false, in_maintenance: true },
  ]);
  assert.deepEqual(beats.map((b: { tone: string }) => b.tone), ['maintenance', 'maintenance', 'paused']);
  assert.match(beats[1].label, /: Checked in a maintenance window, down — HTTP 500$/, 'what the check found, in its label');
  assert.match(beats[0].label, /: Checked in a maintenance window, up, 4 ms — OK$/);
  assert.match(beatSummary(beats), /^Last 3 checks \(.+\): 2 in maintenance, 1 while paused$/);
});

test('an hour\'s colour with maintenance: it ranks below down and degraded and above up, by its share of the hour', () => {
  assert.deepEqual(HOUR_STATES, ['down', 'degraded', 'maintenance', 'up']);
  const segs: Seg[] = hourSegments([
    { up: 900, degraded: 0, down: 0, maintenance: 2700, checks: 60, uptime_pct: 100 }, // mostly in a window
    { up: 2520, degraded: 0, down: 0, maintenance: 1080, checks: 60, uptime_pct: 100 }, // 30 % in a window: maintenance too
    { up: 3540, degraded: 0, down: 0, maintenance: 60, checks: 60, uptime_pct: 100 }, // a minute: a notch on an up hour
    { up: 1200, degraded: 0, down: 600, maintenance: 1800, checks: 60, uptime_pct: 66.667 }, // an outage outside it is not hidden
    { up: 3000, degraded: 0, down: 20, maintenance: 580, checks: 60, uptime_pct: 99.338 }, // a short one is a notch on maintenance
    { up: 0, degraded: 0, down: 0, maintenance: 3600, checks: 60, uptime_pct: null }, // all of it: no uptime, maintenance
    { up: 3600, degraded: 0, down: 0, checks: 60, uptime_pct: 100 }, // a timeline without the field (an older probe)
  ], '2026-03-02T10:00:00.000Z');
  assert.deepEqual(segs.map((x) => [x.status, x.blip]), [['maintenance', null], ['maintenance', null], ['up', 'maintenance'],
    ['down', null], ['maintenance', 'down'], ['maintenance', null], ['up', null]]);
  assert.equal(describeHour(segs[0]!.parts), '25 % up (15 min), 75 % maintenance (45 min)');
  assert.equal(describeHour(segs[1]!.parts), '70 % up (42 min), 30 % maintenance (18 min)');
  assert.equal(describeHour(segs[3]!.parts), '33 % up (20 min), 17 % down (10 min), 50 % maintenance (30 min)');
  assert.equal(describeHour(segs[5]!.parts), '100 % maintenance (1 h)');
  assert.equal(summarizeHours(segs.slice(0, 3)), 'Last 24 hours: no downtime, maintenance 1 h 4 min');
  assert.equal(summarizeHours(segs), 'Last 24 hours: down 10 min 20 s, maintenance 2 h 43 min');
  assert.equal(summarizeHours(segs.slice(5, 6)), 'Last 24 hours: maintenance 1 h');
});
