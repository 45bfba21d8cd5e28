// Maintenance windows through the real HTTP API against the real service, with a real target on
// loopback and a ManualClock: while a window is open, a monitor's alerts are held by the alert gate
// (the events carry alert.send false, held by the window) though its checks run and are recorded; an
// outage still going on when the window closes alerts then, once, released; its time in the window counts
// as maintenance, in no uptime. A weekly window in
// Europe/Berlin keeps its wall-clock hours across the spring daylight-saving change. Every field error of
// a bad window comes in one 400; every change is audited.
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import { ManualClock } from '../../src/core/clock.js';
import type { MonitorBusEvent } from '../../src/modules/monitors/contracts.js';
import { startTestApp, type TestApp } from '../helpers/harness.js';

let t: TestApp;
let clock: ManualClock;
let key: string;
let web: Server;
let status = 200;
let url = '';
const bus: { name: string; p: MonitorBusEvent; at: number }[] = [];

const api = <T = any>(method: string, path: string, body?: unknown) => t.request<T>(method, path, { key, body });
const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

async function until(what: string, ok: () => Promise<boolean> | boolean): Promise<void> {
  for (let i = 0; i < 500; i++) { if (await ok()) return; await sleep(10); }
  throw new Error(`timed out waiting for ${what}`);
}

/** Moves the clock and waits for the monitor's check at the new time to land. */
async function tick(id: string, ms: number): Promise<any> {
  const before = (await api('GET', `/api/monitors/${id}`)).body.last_check;
  clock.advance(ms);
  let m: any;
  await until(`a check of ${id}`, async () => (m = (await api('GET', `/api/monitors/${id}`)).body).last_check !== before);
  await sleep(50); // its bus events go out after the write
  return m;
}

/** The event log's lines of one maintenance window, oldest first. */
async function windowEvents(id: string): Promise<any[]> {
  const items = [
    ...(await api('GET', '/api/monitors/events?kind=maintenance_started&limit=200')).body.items,
    ...(await api('GET', '/api/monitors/events?kind=maintenance_ended&limit=200')).body.items,
  ];
  return items.filter((e: any) => e.details?.window_id === id).sort((a: any, b: any) => a.at.localeCompare(b.at) || a.id - b.id);
}

before(async () => {
  clock = new ManualClock(Date.parse('2026-03-28T22:00:00Z'));
  t = await startTestApp({ clock });
  key = (await t.admin()).key;
  web = createServer((_req, res) => { res.statusCode = status; res.end(status < 400 ? 'ok' : 'broken'); });
  await new Promise<void>((r) => web.listen(0, '127.0.0.1', r));
  url = `http://127.0.0.1:${(web.address() as AddressInfo).port}/`;
  for (const name of ['monitor.down', 'monitor.up', 'monitor.degraded', 'monitor.check_failed'] as const) {
    t.service.app.bus.on(name, (p) => { bus.push({ name, p, at: clock.now() }); });
  }
});
after(async () => {
  await t.close();
  web.close();
});

test('a window that opens and closes while a monitor is down: no alert inside, one alert when it closes', async () => {
  status = 200;
  const m = (await api('POST', '/api/monitors', { name: 'core-switch', check_type: 'http', target: url, interval: 10, timeout: 2,
    failure_threshold: 1 })).body;
  assert.equal((await tick(m.id, 0)).status, 'up');
  const t0 = clock.now();
  const w = await api('POST', '/api/monitors/maintenance', { name: 'Firmware upgrade', applies_to: 'monitors', monitor_ids: [m.id],
    schedule: { kind: 'once', from: new Date(t0 + 5_000).toISOString(), to: new Date(t0 + 45_000).toISOString() } });
  assert.equal(w.status, 201, w.text);
  assert.equal(w.body.state, 'scheduled');
  assert.equal(w.body.timezone, 'UTC', "the probe's time zone");

  status = 500;
  let s = await tick(m.id, 10_000);
  assert.equal(s.status, 'down', 'checks still run and are recorded in the window');
  assert.deepEqual(s.maintenance, { id: w.body.id, name: 'Firmware upgrade', until: new Date(t0 + 45_000).toISOString() });
  s = await tick(m.id, 10_000);
  s = await tick(m.id, 10_000);
  const inside = bus.filter((b) => b.p.monitor.id === m.id && b.at < t0 + 45_000 && b.at > t0);
  assert.ok(inside.some((b) => b.name === 'monitor.down'), 'the down happened inside the window');
  for (const b of inside) {
    assert.equal(b.p.alert.send, false, `${b.name} inside the window alerts nobody`);
    assert.equal((b.p.alert as any).held_by.rule, 'maintenance');
    assert.match((b.p.alert as any).held_by.reason, /Firmware upgrade \(maintenance until/);
  }

  // The window closes at t0 + 45 s, between two checks: the monitor is checked then, and its outage told once.
  const closeAt = t0 + 45_000;
  clock.advance(closeAt - clock.now());
  await until('the check when the window closed', () => bus.some((b) => b.p.monitor.id === m.id && b.at === closeAt));
  await sleep(50);
  const atClose = bus.filter((b) => b.p.monitor.id === m.id && b.at === closeAt);
  const sent = atClose.filter((b) => b.p.alert.send);
  assert.equal(sent.length, 1, `one alert when the window closes: ${JSON.stringify(atClose.map((b) => [b.name, b.p.alert]))}`);
  assert.equal((sent[0]!.p.alert as any).released.rule, 'maintenance', 'it is the held down, released');
  s = (await api('GET', `/api/monitors/${m.id}`)).body;
  assert.equal(s.maintenance, null);
  assert.equal((await api('GET', `/api/monitors/maintenance/${w.body.id}`)).body.state, 'over');
  // Its time in the window counts as maintenance: neither up nor down, so in no uptime. (Time is credited
  // at each result: one more check brings the window's last seconds in.)
  s = await tick(m.id, 10_000);
  const hour = (await api('GET', `/api/monitors/timeline?hours=1&ids=${m.id}`)).body.monitors[0].segments[0];
  assert.deepEqual([hour.up, hour.maintenance], [5, 40], JSON.stringify(hour));
  assert.ok(hour.down > 0 && hour.down <= 15, `down from the window's end to the last check: ${JSON.stringify(hour)}`);
  const expected = Math.round((5 / (5 + hour.down)) * 100_000) / 1000;
  assert.equal(hour.uptime_pct, expected, 'the 40 s in the window count in no uptime');
  assert.equal(s.stats.uptime_24h, expected);
  // The checks in the window are marked so: 'm' beats, in_maintenance results.
  const listed = (await api('GET', '/api/monitors')).body.monitors.find((x: any) => x.id === m.id);
  const results = (await api('GET', `/api/monitors/${m.id}/results?limit=20`)).body.items.reverse();
  assert.deepEqual(results.map((r: any) => r.in_maintenance), results.map((r: any) => Date.parse(r.at) > t0 + 5_000
    && Date.parse(r.at) < t0 + 45_000));
  assert.equal(listed.beats, results.map((r: any) => (r.in_maintenance ? 'm' : r.status === 'up' ? 'u' : 'd')).join(''));
  assert.match(listed.beats, /^um+d+$/);
  const events = (await api('GET', `/api/monitors/events?monitor_id=${m.id}&kind=status_change`)).body.items;
  assert.equal(events.find((e: any) => e.to_status === 'down').details.alert_held_by.rule, 'maintenance', 'the event log says why');
  // The log says when the window opened and closed: one line each, whoever it held.
  const marks = await windowEvents(w.body.id);
  assert.deepEqual(marks.map((e: any) => [e.kind, e.at, e.details.reason ?? null]), [
    ['maintenance_started', new Date(t0 + 5_000).toISOString(), null],
    ['maintenance_ended', new Date(t0 + 45_000).toISOString(), 'scheduled'],
  ]);
  assert.match(marks[0].message, /^Firmware upgrade: alerts held until (\w+day \d+ \w{3} )?\d\d:\d\d \(UTC\)$/);
  assert.deepEqual(marks[0].details.monitor_ids, [m.id]);
  assert.equal(marks[0].monitor_id, null);
  status = 200;
  await api('DELETE', `/api/monitors/${m.id}`);
});

test('ending a window early and starting one for an hour are one call each; an outage it held alerts at once', async () => {
  status = 500;
  const m = (await api('POST', '/api/monitors', { name: 'edge-router', check_type: 'http', target: url, interval: 60, timeout: 2,
    failure_threshold: 1, tags: ['wan'] })).body;
  const now = clock.now();
  const w = await api('POST', '/api/monitors/maintenance', { name: 'ISP work', applies_to: 'tags', tags: ['wan'],
    schedule: { kind: 'once', from: new Date(now).toISOString(), to: new Date(now + 3_600_000).toISOString() } });
  assert.equal(w.status, 201, w.text);
  assert.equal(w.body.state, 'open');
  assert.equal((await tick(m.id, 0)).status, 'down');
  assert.ok(bus.filter((b) => b.p.monitor.id === m.id).every((b) => !b.p.alert.send), 'held by the tag window');
  const seen = bus.length;
  const ended = await api('POST', `/api/monitors/maintenance/${w.body.id}/end`);
  assert.equal(ended.status, 200, ended.text);
  assert.equal(ended.body.state, 'over');
  clock.advance(1);
  await until('the check at the early end', () => bus.slice(seen).some((b) => b.p.monitor.id === m.id));
  await sleep(50);
  const after = bus.slice(seen).filter((b) => b.p.monitor.id === m.id && b.p.alert.send);
  assert.equal(after.length, 1);
  assert.equal((after[0]!.p.alert as any).released.rule, 'maintenance');
  const again = await api('POST', `/api/monitors/maintenance/${w.body.id}/end`);
  assert.equal(again.status, 400);
  assert.equal(again.body.code, 'not_open');
  const audit = (await api('GET', '/api/audit-log?action=monitors.maintenance.*&limit=50')).body.items
    .filter((e: any) => e.details?.id === w.body.id).map((e: any) => e.action);
  assert.deepEqual(audit.sort(), ['monitors.maintenance.create', 'monitors.maintenance.end']);
  const marks = await windowEvents(w.body.id);
  assert.deepEqual(marks.map((e: any) => [e.kind, e.details.reason ?? null]), [['maintenance_started', null], ['maintenance_ended', 'ended_early']]);
  assert.deepEqual(marks[0].details.tags, ['wan']);
  assert.equal(marks[1].at, new Date(now).toISOString());
  assert.notEqual(marks[1].actor, 'system (maintenance window)', 'ended early by the caller');
  status = 200;
  await api('DELETE', `/api/monitors/${m.id}`);
  assert.equal((await api('DELETE', `/api/monitors/maintenance/${w.body.id}`)).status, 204);
});

test('a weekly window in Europe/Berlin keeps 01:00-04:00 local across the spring change (2 real hours that night)', async () => {
  clock.advance(Date.parse('2026-03-28T23:30:00Z') - clock.now());
  const w = (await api('POST', '/api/monitors/maintenance', { name: 'Sunday night', applies_to: 'all', timezone: 'Europe/Berlin',
    schedule: { kind: 'weekly', days: ['sun'], start: '01:00', end: '04:00' } })).body;
  assert.deepEqual(w.next, { from: '2026-03-29T00:00:00.000Z', to: '2026-03-29T02:00:00.000Z' }, '01:00 CET to 04:00 CEST');
  clock.advance(Date.parse('2026-03-29T01:59:00Z') - clock.now());
  const open = (await api('GET', `/api/monitors/maintenance/${w.id}`)).body;
  assert.equal(open.state, 'open');
  clock.advance(2 * 60_000);
  const later = (await api('GET', `/api/monitors/maintenance/${w.id}`)).body;
  assert.equal(later.state, 'scheduled');
  assert.deepEqual(later.next, { from: '2026-04-04T23:00:00.000Z', to: '2026-04-05T02:00:00.000Z' }, 'a week on: 01:00-04:00 CEST');
  await api('DELETE', `/api/monitors/maintenance/${w.id}`);
});

test('a bad window: every field error in one 400; unknown ids are 404; read scope cannot write', async () => {
  const r = await api('POST', '/api/monitors/maintenance', { name: '', applies_to: 'monitors', monitor_ids: [],
    schedule: { kind: 'cron', cron: '0 6 * * 9', duration_min: 0 }, timezone: 'Mars/Olympus' });
  assert.equal(r.status, 400, r.text);
  const paths = (r.body.errors as { path: string }[]).map((e) => e.path).sort();
  assert.deepEqual(paths, ['monitor_ids', 'name', 'schedule.cron', 'schedule.duration_min', 'timezone']);
  // A missing field does not hide the rules across fields: the form learns every error from its first submit.
  const missing = await api('POST', '/api/monitors/maintenance', { name: 'x', applies_to: 'tags', tags: [],
    schedule: { kind: 'weekly', days: [], end: '02:00' } });
  assert.equal(missing.status, 400, missing.text);
  assert.deepEqual((missing.body.errors as { path: string }[]).map((e) => e.path).sort(), ['schedule.days', 'schedule.start', 'tags']);
  const once = await api('POST', '/api/monitors/maintenance', { name: 'x', applies_to: 'all',
    schedule: { kind: 'once', from: '2026-05-01T10:00:00Z', to: '2026-05-01T09:00:00Z' } });
  assert.deepEqual(once.body.errors.map((e: any) => [e.path, e.message]), [['schedule.to', 'Must be after the start']]);
  const unknown = await api('POST', '/api/monitors/maintenance', { name: 'x', applies_to: 'monitors',
    monitor_ids: ['6f1c1d2e-0000-4000-8000-000000000000'], schedule: { kind: 'weekly', days: ['mon'], start: '22:00', end: '02:00' } });
  assert.equal(unknown.status, 400);
  assert.equal(unknown.body.errors[0].path, 'monitor_ids.0');
  assert.equal((await api('GET', '/api/monitors/maintenance/6f1c1d2e-0000-4000-8000-000000000000')).status, 404);
  assert.equal((await api('GET', '/api/monitors/maintenance/not-a-uuid')).status, 404);
  const rk = (await t.user('viewer', ['monitors:read'])).key;
  assert.equal((await t.request('GET', '/api/monitors/maintenance', { key: rk })).status, 200);
  assert.equal((await t.request('POST', '/api/monitors/maintenance', { key: rk, body: { name: 'x', applies_to: 'all',
    schedule: { kind: 'weekly', days: ['mon'], start: '01:00', end: '02:00' } } })).status, 403);
});

test('after a restart, the window and its occurrence are as they were: same beats, same maintenance time, still holding', async () => {
  const dataDir = t.service.app.config.dataDir;
  status = 500;
  const m = (await api('POST', '/api/monitors', { name: 'restart-me', check_type: 'http', target: url, interval: 10, timeout: 2,
    failure_threshold: 1 })).body;
  const from = clock.now();
  const w = (await api('POST', '/api/monitors/maintenance', { name: 'Long job', applies_to: 'monitors', monitor_ids: [m.id],
    schedule: { kind: 'once', from: new Date(from).toISOString(), to: new Date(from + 600_000).toISOString() } })).body;
  await tick(m.id, 0);
  await tick(m.id, 10_000);
  await tick(m.id, 10_000);
  const seen = async () => {
    const listed = (await api('GET', '/api/monitors')).body.monitors.find((x: any) => x.id === m.id);
    const hour = (await api('GET', `/api/monitors/timeline?hours=2&ids=${m.id}`)).body.monitors[0].segments;
    return { beats: listed.beats, maintenance: listed.maintenance, hours: hour };
  };
  const before = await seen();
  assert.equal(before.beats, 'mmm');
  await t.close({ keepData: true });
  t = await startTestApp({ dataDir, clock }); // the same data: the API key still works
  assert.deepEqual(await seen(), before);
  const got = (await api('GET', `/api/monitors/maintenance/${w.id}`)).body;
  assert.equal(got.state, 'open');
  assert.deepEqual((await windowEvents(w.id)).map((e: any) => e.kind), ['maintenance_started'], 'a restart does not log the opening again');
  // The window closes while the probe is off: the next start logs its end, at its time, once.
  await t.close({ keepData: true });
  clock.advance(from + 600_000 - clock.now() + 60_000);
  t = await startTestApp({ dataDir, clock });
  await until('the end logged', async () => (await windowEvents(w.id)).length === 2);
  await t.close({ keepData: true });
  t = await startTestApp({ dataDir, clock });
  const marks = await windowEvents(w.id);
  assert.deepEqual(marks.map((e: any) => [e.kind, e.at, e.details.reason ?? null]), [
    ['maintenance_started', new Date(from).toISOString(), null],
    ['maintenance_ended', new Date(from + 600_000).toISOString(), 'scheduled'],
  ]);
  status = 200;
  await api('DELETE', `/api/monitors/${m.id}`);
  await api('DELETE', `/api/monitors/maintenance/${w.id}`);
});

test('the list names the probe\'s time zone, the one a window created without a zone takes (the form\'s default)', async () => {
  const zone = t.service.app.config.get().probe.timezone;
  const list = await api('GET', '/api/monitors/maintenance');
  assert.equal(list.status, 200, list.text);
  assert.equal(list.body.timezone, zone);
  const w = (await api('POST', '/api/monitors/maintenance', { name: 'zone default', applies_to: 'all',
    schedule: { kind: 'weekly', days: ['sun'], start: '01:00', end: '02:00' } })).body;
  assert.equal(w.timezone, zone);
  await api('DELETE', `/api/monitors/maintenance/${w.id}`);
});
