// Monitoring at a glance, through the real service and a local HTTP server on 127.0.0.1 with a ManualClock:
// why a monitor is degraded (failing 1 of 3 apart from slow), the beats of its newest checks, and uptime as
// time: a 7-second outage in an hour is ~99.8 % of that hour (list, detail, timeline and the written rollup
// agree), manual checks add no check and no weight.
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import { ManualClock } from '../../src/core/clock.js';
import { monitorsServiceOf } from '../../src/modules/monitors/index.js';
import { degradedReason } from '../../src/modules/monitors/schemas.js';
import { assertProblem, startTestApp, type TestApp } from '../helpers/harness.js';

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
const T0 = Date.parse('2026-03-02T10:00:00Z');

let t: TestApp;
let clock: ManualClock;
let key: string;
let server: Server;
let url: string;
const web = { status: 200, delayMs: 0 };

const api = <T = any>(method: string, path: string, body?: unknown) => t.request<T>(method, path, { key, body });

async function create(body: Record<string, unknown>): Promise<any> {
  const r = await api('POST', '/api/monitors', { check_type: 'http', target: url, interval: 60, timeout: 2, ...body });
  assert.equal(r.status, 201, r.text);
  clock.advance(0); // checked at once: the timer is on the clock
  return waitChecked(r.body.id, null);
}

/** Waits until the monitor's last check is not `before` any more. */
async function waitChecked(id: string, before: string | null): Promise<any> {
  for (let i = 0; i < 500; i++) {
    const m = (await api('GET', `/api/monitors/${id}`)).body;
    if (m.last_check !== before) return m;
    await sleep(5);
  }
  throw new Error(`monitor ${id} was not checked`);
}

/** Moves the clock by ms and waits for the monitor's next check. */
async function tick(id: string, ms: number): Promise<any> {
  const before = (await api('GET', `/api/monitors/${id}`)).body.last_check;
  clock.advance(ms);
  return waitChecked(id, before);
}

const listItem = async (id: string) => (await api('GET', '/api/monitors')).body.monitors.find((m: any) => m.id === id);

before(async () => {
  clock = new ManualClock(T0);
  t = await startTestApp({ clock });
  key = (await t.admin()).key;
  server = createServer((_req, res) => {
    const answer = () => { res.statusCode = web.status; res.end(web.status < 400 ? 'ok' : 'broken'); };
    if (web.delayMs) setTimeout(answer, web.delayMs); else answer();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/health`;
});
after(async () => {
  await t.close();
  server.close();
});

test('failing below the threshold and slow are different reasons, in the list and the detail; beats follow the checks', async () => {
  web.status = 500;
  const failing = await create({ name: 'glance-failing', failure_threshold: 3 });
  assert.equal(failing.status, 'degraded');
  assert.equal(failing.degraded_reason, 'failing');
  assert.equal(failing.failing_streak, 1);
  assert.equal(failing.failure_threshold, 3);
  assert.equal(failing.beats, 'f');
  web.status = 200;
  web.delayMs = 30;
  const slow = await create({ name: 'glance-slow', degraded_ms: 1 });
  web.delayMs = 0;
  assert.equal(slow.status, 'degraded');
  assert.equal(slow.degraded_reason, 'slow');
  assert.equal(slow.failing_streak, 0);
  assert.equal(slow.beats, 's');

  const lf = await listItem(failing.id), ls = await listItem(slow.id);
  assert.deepEqual([lf.degraded_reason, lf.failing_streak, lf.beats], ['failing', 1, 'f']);
  assert.deepEqual([ls.degraded_reason, ls.failing_streak, ls.beats], ['slow', 0, 's']);

  // Second failure: 2 of 3, then the third makes it down; a manual check is an upper-case beat.
  web.status = 500;
  let m = await tick(failing.id, 60_000);
  assert.deepEqual([m.status, m.degraded_reason, m.failing_streak], ['degraded', 'failing', 2]);
  m = await tick(failing.id, 60_000);
  assert.deepEqual([m.status, m.degraded_reason, m.failing_streak], ['down', null, 3]);
  web.status = 200;
  const now = await api('POST', `/api/monitors/${failing.id}/check`);
  assert.equal(now.status, 200, now.text);
  assert.equal(now.body.result.manual, true);
  assert.equal(now.body.result.monitor_status, 'up');
  assert.deepEqual([now.body.monitor.status, now.body.monitor.degraded_reason, now.body.monitor.failing_streak], ['up', null, 0]);
  assert.equal(now.body.monitor.beats, 'ffdU');
  assert.equal((await listItem(failing.id)).beats, 'ffdU');
  const results = (await api('GET', `/api/monitors/${failing.id}/results`)).body.items;
  assert.deepEqual(results.map((r: any) => [r.status, r.monitor_status, r.manual]),
    [['up', 'up', true], ['down', 'down', false], ['down', 'degraded', false], ['down', 'degraded', false]]);

  // Loss is ping's own reason (its message says "loss above").
  assert.equal(degradedReason({ status: 'degraded', fail_streak: 0, last_message: '3/4 replies, 25% loss (loss above 0%)' }), 'loss');
  assert.equal(degradedReason({ status: 'degraded', fail_streak: 0, last_message: 'HTTP 200 OK; slower than 1 ms' }), 'slow');
  assert.equal(degradedReason({ status: 'up', fail_streak: 0, last_message: 'HTTP 200 OK' }), null);
  for (const id of [failing.id, slow.id]) assert.equal((await api('DELETE', `/api/monitors/${id}`)).status, 204);
});

test('uptime is time: a 7-second outage in an hour is ~99.8 %, not a red hour; manual checks add no check', async () => {
  // The clock at the start of the next hour.
  clock.advance(Math.ceil(clock.now() / 3_600_000) * 3_600_000 - clock.now());
  const hour0 = clock.now();
  web.status = 200;
  const m0 = await create({ name: 'glance-outage', failure_threshold: 1 });
  assert.equal(m0.stats.uptime_24h, 100, 'one check: the share of checks that answered');
  for (let i = 1; i < 30; i++) await tick(m0.id, 60_000);
  // hh:30:00 the scheduled check fails (down at threshold 1), hh:30:07 someone checks by hand: up again.
  web.status = 500;
  const down = await tick(m0.id, 60_000);
  assert.equal(down.status, 'down');
  web.status = 200;
  clock.advance(7_000);
  const manual = await api('POST', `/api/monitors/${m0.id}/check`);
  assert.equal(manual.body.monitor.status, 'up');
  // A burst of manual checks adds nothing: no check counted, no time.
  for (let i = 0; i < 5; i++) assert.equal((await api('POST', `/api/monitors/${m0.id}/check`)).status, 200);
  let m = (await api('GET', `/api/monitors/${m0.id}`)).body;
  assert.equal(m.stats.checks_24h, 31, 'scheduled checks only');
  // To the check at the top of the next hour (the last one of this hour's status).
  m = await tick(m0.id, 60_000 - 7_000);
  for (let i = 0; i < 28; i++) m = await tick(m0.id, 60_000);
  assert.equal(new Date(m.last_check).getTime(), hour0 + 59 * 60_000);
  m = await tick(m0.id, 60_000);
  assert.equal(new Date(m.last_check).getTime(), hour0 + 3_600_000);

  const expected = Math.round(((3600 - 7) / 3600) * 100 * 1000) / 1000; // 99.806
  assert.equal(m.stats.uptime_24h, expected);
  assert.equal(m.stats.uptime_7d, expected);
  assert.equal(m.stats.uptime_30d, expected);
  assert.equal(m.stats.checks_24h, 61);
  const item = await listItem(m0.id);
  assert.equal(item.stats_24h.uptime_pct, expected, 'the list says the same, to the same precision');
  assert.equal(item.stats_24h.checks, 61);

  const tl = await api('GET', `/api/monitors/timeline?hours=2&ids=${m0.id}`);
  assert.equal(tl.status, 200, tl.text);
  assert.equal(tl.body.from, new Date(hour0).toISOString());
  const [first, current] = tl.body.monitors[0].segments;
  assert.deepEqual(first, { up: 3593, degraded: 0, down: 7, maintenance: 0, checks: 60, uptime_pct: expected });
  assert.deepEqual(current, { up: 0, degraded: 0, down: 0, maintenance: 0, checks: 1, uptime_pct: 100 });

  // The hour closes (6 minutes after it ends): its rollup row holds the same time, and the figures stay.
  for (let i = 0; i < 7; i++) m = await tick(m0.id, 60_000);
  const svc = monitorsServiceOf(t.service.app);
  for (let i = 0; i < 200 && svc.storage.closer.watermark * 3_600_000 <= hour0; i++) await sleep(10);
  const row = t.service.app.store.get<{ checks: number; ms_up: number; ms_down: number }>(
    'SELECT checks, ms_up, ms_down FROM monitor_rollups WHERE m = (SELECT pk FROM monitors WHERE id = ?) AND k = 1 AND b = ?',
    [m0.id, hour0 / 1000]);
  assert.deepEqual(row, { checks: 60, ms_up: 3_593_000, ms_down: 7_000 });
  m = (await api('GET', `/api/monitors/${m0.id}`)).body;
  const after = (await listItem(m0.id)).stats_24h.uptime_pct;
  assert.equal(m.stats.uptime_24h, after);
  assert.equal(m.stats.uptime_7d, after);
  assert.ok(after > expected && after < 100, `${after}`);

  // Paused time does not count.
  await api('POST', `/api/monitors/${m0.id}/pause`);
  clock.advance(20 * 60_000);
  await api('POST', `/api/monitors/${m0.id}/pause`);
  clock.advance(0);
  m = await waitChecked(m0.id, m.last_check);
  assert.equal(m.stats.uptime_24h, after);
  assert.equal((await api('DELETE', `/api/monitors/${m0.id}`)).status, 204);
});

test('the timeline refuses ids that are not monitor ids, naming query.ids', async () => {
  assertProblem(await api('GET', '/api/monitors/timeline?ids=nope'), 400, 'query.ids');
  assertProblem(await api('GET', '/api/monitors/timeline?hours=25'), 400, 'query.hours');
  const r = await api('GET', '/api/monitors/timeline?ids=00000000-0000-4000-8000-000000000000');
  assert.equal(r.status, 200);
  assert.deepEqual(r.body.monitors, []);
});
