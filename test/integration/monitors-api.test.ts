// The monitors API through real HTTP against the real service, with real targets on loopback: local
// HTTP servers and closed local ports. Time is a ManualClock, so a check happens when a test moves it.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { ManualClock } from '../../src/core/clock.js';
import { GRACE_MS, OFF_GRID_MS } from '../../src/modules/monitors/storage/hour-close.js';
import { monitorsRetentionOf, monitorsServiceOf } from '../../src/modules/monitors/index.js';
import { START_GRID_MS } from '../../src/modules/monitors/scheduler.js';
import type { MonitorBusEvent } from '../../src/modules/monitors/contracts.js';
import { startTestApp, type TestApp, assertProblem } from '../helpers/harness.js';
import { hoursWritten } from '../helpers/monitors-life.js';
import { freePort } from '../helpers/net.js';

// ---- peers ---------------------------------------------------------------------------------------

interface Web {
  server: Server;
  url: string;
  state: { status: number; delayMs: number; authorizations: (string | undefined)[] };
}

async function webServer(): Promise<Web> {
  const state: Web['state'] = { status: 200, delayMs: 0, authorizations: [] };
  const server = createServer((req, res) => {
    state.authorizations.push(req.headers.authorization);
    const answer = () => { res.statusCode = state.status; res.end(state.status < 400 ? 'all good' : 'broken'); };
    if (state.delayMs) setTimeout(answer, state.delayMs); else answer();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/health`, state };
}

// ---- helpers -------------------------------------------------------------------------------------


const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

let t: TestApp;
let clock: ManualClock;
let key: string;
let web: Web;
const bus: { name: string; p: MonitorBusEvent }[] = [];

const api = <T = any>(method: string, path: string, body?: unknown, k = key) => t.request<T>(method, path, { key: k, body });

async function create(body: Record<string, unknown>): Promise<any> {
  const r = await api('POST', '/api/monitors', { interval: 10, timeout: 2, ...body });
  assert.equal(r.status, 201, r.text);
  return r.body;
}

/** Moves the clock by ms and waits until the monitor's last_check moved past where it was. */
async function tick(id: string, ms: number): Promise<any> {
  const before = (await api('GET', `/api/monitors/${id}`)).body.last_check;
  clock.advance(ms);
  for (let i = 0; i < 500; i++) {
    const m = (await api('GET', `/api/monitors/${id}`)).body;
    if (m.last_check !== before) return m;
    await sleep(10);
  }
  throw new Error(`monitor ${id} was not checked after advancing ${ms} ms`);
}

/** Lets the service settle (in-flight checks land) without moving the clock. */
async function settle(): Promise<void> { await sleep(150); }

before(async () => {
  clock = new ManualClock(Date.parse('2026-01-01T00:00:00Z'));
  t = await startTestApp({ clock });
  key = (await t.admin()).key;
  web = await webServer();
  for (const name of ['monitor.down', 'monitor.up', 'monitor.degraded', 'monitor.check_failed'] as const) {
    t.service.app.bus.on(name, (p) => { bus.push({ name, p }); });
  }
});
after(async () => {
  await t.close();
  web.server.close();
});

// ---- validation ----------------------------------------------------------------------------------

describe('create and update validation', () => {
  test('each check type validates its target and names the field', async () => {
    const port = await freePort();
    const cases: [Record<string, unknown>, string][] = [
      [{ check_type: 'http', target: 'ftp://127.0.0.1/x' }, 'target'],
      [{ check_type: 'http', target: 'not a url' }, 'target'],
      [{ check_type: 'tcp', target: '127.0.0.1' }, 'target'],
      [{ check_type: 'tcp', target: '127.0.0.1:70000' }, 'target'],
      [{ check_type: 'ping', target: 'bad host!' }, 'target'],
      [{ check_type: 'ping', target: '999.1.1.1' }, 'target'],
      [{ check_type: 'dns', target: 'bad..name' }, 'target'],
      [{ check_type: 'smtp', target: '127.0.0.1' }, 'check_type'],
      [{ check_type: 'tcp', target: '' }, 'target'],
    ];
    for (const [body, field] of cases) {
      assertProblem(await api('POST', '/api/monitors', { name: 'x', ...body }), 400, field);
    }
    // And the valid forms pass.
    for (const body of [
      { check_type: 'http', target: web.url },
      { check_type: 'tcp', target: `127.0.0.1:${port}` },
      { check_type: 'ping', target: '127.0.0.1', timeout: 5 },
      // Always a loopback resolver: the system's would send the query off this machine.
      { check_type: 'dns', target: 'localhost', settings: { resolver: '127.0.0.1', port } },
    ]) {
      const r = await api('POST', '/api/monitors', { name: `ok-${body.check_type}`, interval: 3600, timeout: 1, ...body });
      assert.equal(r.status, 201, r.text);
      assert.equal(r.body.status, 'unknown');
      assert.equal((await api('DELETE', `/api/monitors/${r.body.id}`)).status, 204);
    }
  });

  test('settings are validated by the check type\'s schema', async () => {
    const base = { name: 's', interval: 60 };
    const post = (body: Record<string, unknown>) => api('POST', '/api/monitors', { ...base, ...body });
    assertProblem(await post({ check_type: 'http', target: web.url, settings: { method: 'FETCH' } }), 400, 'settings.method');
    assertProblem(await post({ check_type: 'http', target: web.url, settings: { accepted_status: ['99'] } }), 400,
      'settings.accepted_status.0');
    assertProblem(await post({ check_type: 'tcp', target: '127.0.0.1:80', settings: { tls: 'yes' } }), 400, 'settings.tls');
    assertProblem(await post({ check_type: 'ping', target: '127.0.0.1', settings: { count: 0 } }), 400, 'settings.count');
    // 10 packets x 2 s each cannot finish within a 10 s timeout.
    const slowPing = { count: 10, per_packet_timeout_ms: 2000 };
    assertProblem(await post({ check_type: 'ping', target: '127.0.0.1', timeout: 10, settings: slowPing }), 400, 'timeout');
    const unknown = await api('POST', '/api/monitors', { ...base, check_type: 'tcp', target: '127.0.0.1:80', settings: { nonsense: 1 } });
    assertProblem(unknown, 400);
    assert.ok(unknown.body.errors.some((e: { path: string }) => e.path.startsWith('settings')), unknown.text);
  });

  test('interval, timeout, threshold and the other fields have bounds', async () => {
    const base = { name: 'b', check_type: 'tcp', target: '127.0.0.1:80' };
    assertProblem(await api('POST', '/api/monitors', { ...base, interval: 60, timeout: 60 }), 400, 'timeout');
    assertProblem(await api('POST', '/api/monitors', { ...base, interval: 10, timeout: 30 }), 400, 'timeout');
    assertProblem(await api('POST', '/api/monitors', { ...base, interval: 4 }), 400, 'interval');
    assertProblem(await api('POST', '/api/monitors', { ...base, interval: 10.5 }), 400, 'interval');
    assertProblem(await api('POST', '/api/monitors', { ...base, failure_threshold: 0 }), 400, 'failure_threshold');
    assertProblem(await api('POST', '/api/monitors', { ...base, failure_threshold: 21 }), 400, 'failure_threshold');
    assertProblem(await api('POST', '/api/monitors', { ...base, max_loss_pct: 10 }), 400, 'max_loss_pct');
    assertProblem(await api('POST', '/api/monitors', { ...base, degraded_ms: 0 }), 400, 'degraded_ms');
    assertProblem(await api('POST', '/api/monitors', { ...base, tags: ['x'.repeat(51)] }), 400, 'tags.0');
    assertProblem(await api('POST', '/api/monitors', { ...base, name: '' }), 400, 'name');
    assertProblem(await api('POST', '/api/monitors', { check_type: 'tcp', target: '127.0.0.1:80' }), 400, 'name');
    assertProblem(await api('POST', '/api/monitors', { ...base, colour: 'red' }), 400);
    assertProblem(await t.request('POST', '/api/monitors', { key, raw: '{"name":', headers: { 'content-type': 'application/json' } }), 400);

    // Defaults: 60 s, 10 s, 3; with interval 5 the default timeout drops below it.
    const d = await create({ ...base, interval: undefined, timeout: undefined, tags: [' a ', 'a', 'b'] });
    assert.equal(d.interval, 60);
    assert.equal(d.timeout, 10);
    assert.equal(d.failure_threshold, 3);
    assert.deepEqual(d.tags, ['a', 'b']);
    const five = await create({ ...base, interval: 5, timeout: undefined });
    assert.equal(five.timeout, 4);

    // Update: only given fields change; the same rules apply to the merged monitor.
    assertProblem(await api('PUT', `/api/monitors/${d.id}`, { timeout: 60 }), 400, 'timeout');
    assertProblem(await api('PUT', `/api/monitors/${d.id}`, { interval: 10 }), 400, 'interval');
    assertProblem(await api('PUT', `/api/monitors/${d.id}`, { check_type: 'http' }), 400, 'target');
    assertProblem(await api('PUT', `/api/monitors/${d.id}`, { failure_threshold: 99 }), 400, 'failure_threshold');
    const u = await api('PUT', `/api/monitors/${d.id}`, { name: 'renamed', failure_threshold: 5 });
    assert.equal(u.status, 200, u.text);
    assert.equal(u.body.name, 'renamed');
    assert.equal(u.body.failure_threshold, 5);
    assert.equal(u.body.target, base.target);
    const typeChange = await api('PUT', `/api/monitors/${d.id}`, { check_type: 'ping', target: '127.0.0.1', max_loss_pct: 20 });
    assert.equal(typeChange.status, 200, typeChange.text);
    assert.equal(typeChange.body.max_loss_pct, 20);
    assert.equal(typeChange.body.settings.count, 3, 'settings reset to the new type\'s defaults');
    for (const id of [d.id, five.id]) assert.equal((await api('DELETE', `/api/monitors/${id}`)).status, 204);
  });
});

// ---- the state machine through the API ---------------------------------------------------------------

describe('status, incidents and events', () => {
  test('unknown -> up -> degraded -> down -> up, with an incident opened and closed', async () => {
    web.state.status = 200;
    bus.length = 0;
    const m = await create({ name: 'web-sm', check_type: 'http', target: web.url, interval: 10, timeout: 2, failure_threshold: 2,
      tags: ['sm'] });
    assert.equal(m.status, 'unknown');
    assert.equal(m.last_check, null);
    const t0 = clock.now();

    let s = await tick(m.id, 0); // checked at once
    assert.equal(s.status, 'up');
    assert.equal(s.last_check, new Date(t0).toISOString());
    assert.equal(typeof s.response_time, 'number');

    web.state.status = 503;
    s = await tick(m.id, 10_000);
    assert.equal(s.status, 'degraded', 'one failure below the threshold');
    assert.match(s.last_message, /HTTP 503/);
    s = await tick(m.id, 10_000);
    assert.equal(s.status, 'down', 'threshold reached');
    assert.equal(s.stats.current_incident.closed_at, null);
    assert.equal(s.stats.current_incident.opened_at, new Date(t0 + 20_000).toISOString());
    assert.match(s.stats.current_incident.message, /HTTP 503/);
    s = await tick(m.id, 10_000);
    assert.equal(s.status, 'down');
    assert.equal(s.stats.current_incident.failures, 3);

    web.state.status = 200;
    s = await tick(m.id, 10_000);
    assert.equal(s.status, 'up');
    assert.equal(s.stats.current_incident, null);

    const inc = await api('GET', `/api/monitors/${m.id}/incidents`);
    assert.equal(inc.status, 200);
    assert.equal(inc.body.total, 1);
    const i = inc.body.items[0];
    assert.equal(i.opened_at, new Date(t0 + 20_000).toISOString());
    assert.equal(i.closed_at, new Date(t0 + 40_000).toISOString());
    assert.equal(i.duration, 20);
    assert.match(i.message, /HTTP 503/);
    assert.match(i.close_message, /HTTP 200/);
    assert.equal(i.monitor_id, m.id);

    const ev = await api('GET', `/api/monitors/events?monitor_id=${m.id}&limit=200`);
    const kinds = ev.body.items.map((e: any) => `${e.kind}${e.to_status ? `:${e.from_status ?? ''}>${e.to_status}` : ''}`).reverse();
    assert.deepEqual(kinds, [
      'created:>unknown', 'status_change:unknown>up', 'status_change:up>degraded', 'status_change:degraded>down',
      'incident_opened', 'status_change:down>up', 'incident_closed',
    ]);
    const closed = ev.body.items.find((e: any) => e.kind === 'incident_closed');
    assert.equal(closed.details.duration, 20);

    const results = await api('GET', `/api/monitors/${m.id}/results`);
    assert.deepEqual(results.body.items.map((r: any) => r.status), ['up', 'down', 'down', 'down', 'up']);
    assert.equal(results.body.total, 5);
    assert.ok(results.body.items[1].details, 'failures keep their details');
    assert.equal(results.body.items[1].details.status_code, 503);

    // Bus events for the webhook module.
    const names = bus.filter((b) => b.p.monitor.id === m.id).map((b) => `${b.name}:${b.p.previous_status}>${b.p.status}`);
    assert.deepEqual(names, [
      'monitor.up:unknown>up', 'monitor.degraded:up>degraded', 'monitor.check_failed:up>degraded',
      'monitor.down:degraded>down', 'monitor.check_failed:degraded>down', 'monitor.check_failed:down>down', 'monitor.up:down>up',
    ]);
    const down = bus.find((b) => b.name === 'monitor.down')!.p;
    assert.deepEqual(down.monitor, { id: m.id, name: 'web-sm', target: web.url, check_type: 'http', tags: ['sm'] });
    assert.equal(down.incident?.closed_at, null);
    assert.equal(down.result.status, 'down');
    assert.equal(down.occurred_at, new Date(t0 + 20_000).toISOString());
    const up = bus.filter((b) => b.name === 'monitor.up').at(-1)!.p;
    assert.equal(up.incident?.duration, 20, 'the recovery carries the closed incident');

    // Stats of the single view.
    const one = (await api('GET', `/api/monitors/${m.id}`)).body;
    assert.equal(one.stats.checks_24h, 5);
    // Uptime is time: up 10 s, then failing 10 s (below the threshold: down time all the same) and down 20 s
    // up to the last check.
    assert.equal(one.stats.uptime_24h, 25);
    assert.equal(one.stats.uptime_7d, 25);
    assert.equal(one.stats.uptime_30d, 25);
    assert.ok(one.stats.p95_response_ms_24h > 0);
    assert.equal(one.stats.last_result.status, 'up');
    assert.equal(one.stats.cert_days_left, null);
    assert.equal((await api('DELETE', `/api/monitors/${m.id}`)).status, 204);
  });

  test('a monitor whose checks all failed reads 0 % uptime, below its failure threshold too', async () => {
    web.state.status = 500;
    const m = await create({ name: 'broken-api', check_type: 'http', target: web.url, failure_threshold: 5 });
    let s = await tick(m.id, 0);
    for (let i = 0; i < 3; i++) s = await tick(m.id, 10_000);
    web.state.status = 200;
    assert.equal(s.status, 'degraded', 'four failures below a threshold of five: failing, not yet down');
    assert.equal(s.failing_streak, 4);
    const one = (await api('GET', `/api/monitors/${m.id}`)).body;
    assert.deepEqual([one.stats.uptime_24h, one.stats.uptime_7d, one.stats.uptime_30d], [0, 0, 0]);
    const listed = (await api('GET', '/api/monitors')).body.monitors.find((x: { id: string }) => x.id === m.id);
    assert.equal(listed.stats_24h.uptime_pct, 0);
    const timeline = (await api('GET', `/api/monitors/timeline?hours=1&ids=${m.id}`)).body;
    assert.deepEqual(timeline.monitors[0].segments.map((h: any) => [h.up, h.degraded, h.down, h.uptime_pct]), [[0, 0, 30, 0]],
      'failing time is down time in the hour, not degraded');
    await api('DELETE', `/api/monitors/${m.id}`);
  });

  test('a successful check slower than degraded_ms is degraded; a closed port is down at threshold 1', async () => {
    web.state.delayMs = 80;
    const slow = await create({ name: 'slow', check_type: 'http', target: web.url, degraded_ms: 20 });
    const s = await tick(slow.id, 0);
    web.state.delayMs = 0;
    assert.equal(s.status, 'degraded');
    assert.match(s.last_message, /slow/);

    const port = await freePort();
    const tcp = await create({ name: 'closed', check_type: 'tcp', target: `127.0.0.1:${port}`, failure_threshold: 1 });
    const c = await tick(tcp.id, 0);
    assert.equal(c.status, 'down');
    assert.match(c.last_message, /refused/);
    assert.ok(c.stats.current_incident);
    for (const id of [slow.id, tcp.id]) await api('DELETE', `/api/monitors/${id}`);
  });

  test('ping monitors created together are checked together and come up', async () => {
    const settings = { count: 1, per_packet_timeout_ms: 500 };
    const a = await create({ name: 'ping-a', check_type: 'ping', target: '127.0.0.1', settings, max_loss_pct: 50 });
    const b = await create({ name: 'ping-b', check_type: 'ping', target: '127.0.0.1', settings });
    const sa = await tick(a.id, 0);
    let sb = (await api('GET', `/api/monitors/${b.id}`)).body;
    for (let i = 0; i < 300 && !sb.last_check; i++) { await sleep(10); sb = (await api('GET', `/api/monitors/${b.id}`)).body; }
    assert.equal(sa.status, 'up', sa.last_message);
    assert.equal(sa.max_loss_pct, 50);
    assert.equal(sa.last_check, sb.last_check, 'started in the same turn');
    for (const m of [a, b]) await api('DELETE', `/api/monitors/${m.id}`);
  });

  test('pause stops checks and closes the incident; resume makes it unknown and checks at once', async () => {
    const port = await freePort();
    const m = await create({ name: 'pausable', check_type: 'tcp', target: `127.0.0.1:${port}`, failure_threshold: 1 });
    let s = await tick(m.id, 0);
    assert.equal(s.status, 'down');
    const p = await api('POST', `/api/monitors/${m.id}/pause`);
    assert.equal(p.status, 200, p.text);
    assert.equal(p.body.status, 'paused');
    assert.equal(p.body.stats.current_incident, null, 'pausing closes the open incident');
    const inc = (await api('GET', `/api/monitors/${m.id}/incidents`)).body.items[0];
    assert.equal(inc.close_message, 'monitor paused');

    const before = (await api('GET', `/api/monitors/${m.id}/results`)).body.total;
    clock.advance(60_000);
    await settle();
    assert.equal((await api('GET', `/api/monitors/${m.id}/results`)).body.total, before, 'no checks while paused');
    assert.equal((await api('GET', `/api/monitors/${m.id}`)).body.status, 'paused');

    const r = await api('POST', `/api/monitors/${m.id}/pause`);
    assert.equal(r.body.status, 'unknown');
    s = await tick(m.id, 0);
    assert.equal(s.status, 'down');
    const kinds = (await api('GET', `/api/monitors/events?monitor_id=${m.id}`)).body.items.map((e: any) => e.kind);
    assert.ok(kinds.includes('paused') && kinds.includes('resumed'), kinds.join(','));
    const audit = await api('GET', '/api/audit-log?action=monitors.*&limit=100');
    const actions = audit.body.items.filter((e: any) => e.details?.id === m.id).map((e: any) => e.action);
    assert.deepEqual(actions.sort(), ['monitors.create', 'monitors.pause', 'monitors.resume']);
    await api('DELETE', `/api/monitors/${m.id}`);
  });

  test('POST check runs at once, applies the result and records a manual_check event', async () => {
    web.state.status = 200;
    const m = await create({ name: 'manual', check_type: 'http', target: web.url, interval: 3600, timeout: 5 });
    const r = await api('POST', `/api/monitors/${m.id}/check`);
    assert.equal(r.status, 200, r.text);
    assert.equal(r.body.result.status, 'up');
    assert.match(r.body.result.message, /HTTP 200/);
    assert.equal(r.body.result.details.status_code, 200);
    assert.equal(r.body.monitor.status, 'up');
    assert.equal(r.body.monitor.last_check, r.body.result.at);
    const ev = (await api('GET', `/api/monitors/events?monitor_id=${m.id}&kind=manual_check`)).body.items;
    assert.equal(ev.length, 1);
    assert.match(ev[0].actor, /root-admin/);
    assert.equal(ev[0].details.result, 'up');

    // On a paused monitor the check runs and is recorded, and the monitor stays paused.
    await api('POST', `/api/monitors/${m.id}/pause`);
    const p = await api('POST', `/api/monitors/${m.id}/check`);
    assert.equal(p.status, 200, p.text);
    assert.equal(p.body.monitor.status, 'paused');
    assert.equal((await api('GET', `/api/monitors/${m.id}/results`)).body.total, 2);
    await api('DELETE', `/api/monitors/${m.id}`);
  });

  test('an hour\'s rollups are written from its raw results once it has closed; until then its figures come from memory', async () => {
    web.state.status = 200;
    const m = await create({ name: 'minutely', check_type: 'http', target: web.url, interval: 60 });
    await tick(m.id, 0);
    await tick(m.id, 60_000);
    await api('POST', `/api/monitors/${m.id}/pause`);
    const rows = () => t.service.app.store.all<{ k: number; checks: number }>(
      'SELECT r.k, sum(r.checks) AS checks FROM monitor_rollups r JOIN monitors mo ON mo.pk = r.m ' +
      'WHERE mo.id = ? GROUP BY r.k ORDER BY r.k', [m.id]);
    assert.deepEqual(rows(), [], 'nothing written while the hour is open');
    const open = (await api('GET', `/api/monitors/${m.id}`)).body.stats;
    assert.equal(open.checks_24h, 2);
    assert.equal(open.uptime_30d, 100);
    // The hour closes 6 minutes (and 525 ms, off the checks' grids) after it ends: checks that started
    // in it have finished by then. The clock goes on to the next point of the grid, where the later tests
    // create monitors whose next checks they expect exactly an interval later.
    const closes = (Math.floor(clock.now() / 3600_000) + 1) * 3600_000 + GRACE_MS + OFF_GRID_MS;
    clock.advance(Math.ceil(closes / START_GRID_MS) * START_GRID_MS - clock.now());
    for (let i = 0; i < 200 && rows().length < 2; i++) await sleep(10);
    // No minute rollups: a minute of a monitor checked every 60 s is its raw result.
    assert.deepEqual(rows(), [{ k: 1, checks: 2 }, { k: 2, checks: 2 }]);
    const closed = (await api('GET', `/api/monitors/${m.id}`)).body.stats;
    assert.deepEqual({ ...closed, current_incident: null, last_result: null }, { ...open, current_incident: null, last_result: null },
      'the same figures, now from the written rows');
    assert.equal((await api('GET', `/api/monitors/${m.id}/results`)).body.total, 2);
    await api('DELETE', `/api/monitors/${m.id}`);
  });
});

// ---- lists, paging, filters ----------------------------------------------------------------------

describe('results, incidents and events', () => {
  test('results and incidents page with limit, offset, since and until', async () => {
    const port = await freePort();
    const m = await create({ name: 'pager', check_type: 'tcp', target: `127.0.0.1:${port}`, failure_threshold: 1 });
    const t0 = clock.now();
    await tick(m.id, 0);
    for (let i = 0; i < 5; i++) await tick(m.id, 10_000);
    const all = await api('GET', `/api/monitors/${m.id}/results`);
    assert.equal(all.body.total, 6);
    const page = await api('GET', `/api/monitors/${m.id}/results?limit=2&offset=1`);
    assert.equal(page.body.items.length, 2);
    assert.equal(page.body.total, 6);
    assert.deepEqual(page.body.items.map((r: any) => r.at), all.body.items.slice(1, 3).map((r: any) => r.at));
    const since = new Date(t0 + 20_000).toISOString(), until = new Date(t0 + 40_000).toISOString();
    const win = await api('GET', `/api/monitors/${m.id}/results?since=${since}&until=${until}`);
    assert.deepEqual(win.body.items.map((r: any) => r.at), [t0 + 40_000, t0 + 30_000, t0 + 20_000].map((x) => new Date(x).toISOString()));
    assert.equal(win.body.total, 3);
    assert.equal((await api('GET', `/api/monitors/${m.id}/results?status=up`)).body.total, 0);
    for (const q of ['limit=0', 'limit=1001', 'offset=-1', 'limit=abc', 'since=yesterday', 'status=sideways']) {
      assertProblem(await api('GET', `/api/monitors/${m.id}/results?${q}`), 400);
    }

    // Incidents: one open since t0; the window filter keeps those overlapping it.
    const inc = await api('GET', `/api/monitors/${m.id}/incidents?limit=1&offset=0`);
    assert.equal(inc.body.total, 1);
    assert.equal(inc.body.items[0].closed_at, null);
    assert.equal(inc.body.items[0].duration, 50);
    const none = await api('GET', `/api/monitors/${m.id}/incidents?until=${new Date(t0 - 1000).toISOString()}`);
    assert.equal(none.body.total, 0);
    const some = await api('GET', `/api/monitors/${m.id}/incidents?since=${since}`);
    assert.equal(some.body.total, 1);
    assertProblem(await api('GET', `/api/monitors/${m.id}/incidents?limit=501`), 400, 'query.limit');
    await api('DELETE', `/api/monitors/${m.id}`);
  });

  test('the event log: limit default 50 and at most 200, filters by monitor, kind and time', async () => {
    const t0 = clock.now();
    const ids: string[] = [];
    for (let i = 0; i < 27; i++) ids.push((await create({ name: `ev-${i}`, check_type: 'tcp', target: '127.0.0.1:9', interval: 3600 })).id);
    clock.advance(1000);
    for (const id of ids) assert.equal((await api('DELETE', `/api/monitors/${id}`)).status, 204);
    await settle();
    const d = await api('GET', '/api/monitors/events');
    assert.equal(d.status, 200);
    assert.equal(d.body.items.length, 50);
    assert.ok(d.body.total >= 54);
    assert.ok(d.body.items.every((e: any, i: number, a: any[]) => i === 0 || e.at <= a[i - 1].at), 'newest first');
    assert.equal((await api('GET', '/api/monitors/events?limit=200')).status, 200);
    assertProblem(await api('GET', '/api/monitors/events?limit=201'), 400, 'query.limit');
    assertProblem(await api('GET', '/api/monitors/events?limit=0'), 400, 'query.limit');
    assertProblem(await api('GET', '/api/monitors/events?monitor_id=nope'), 400, 'query.monitor_id');
    assertProblem(await api('GET', '/api/monitors/events?kind=exploded'), 400, 'query.kind');

    const one = await api('GET', `/api/monitors/events?monitor_id=${ids[3]}`);
    // Each was checked once when the clock moved (a status change from unknown).
    assert.deepEqual(one.body.items.map((e: any) => e.kind).filter((k: string) => k !== 'status_change'), ['deleted', 'created']);
    assert.equal(one.body.items[0].monitor_name, 'ev-3', 'the log outlives the monitor');
    const deleted = await api('GET', `/api/monitors/events?kind=deleted&since=${new Date(t0 + 1000).toISOString()}&limit=100`);
    assert.equal(deleted.body.total, 27);
    const window = `since=${new Date(t0).toISOString()}&until=${new Date(t0 + 999).toISOString()}`;
    const created = await api('GET', `/api/monitors/events?kind=created&${window}&limit=100`);
    assert.equal(created.body.total, 27);
    const paged = await api('GET', `/api/monitors/events?kind=created&since=${new Date(t0).toISOString()}&limit=10&offset=20`);
    assert.equal(paged.body.items.length, 7);
  });

  test('CSV export: header row, filename, RFC 4180 quoting and neutralised formula cells', async () => {
    const evil = await create({ name: '=HYPERLINK("http://evil.example","x")', check_type: 'tcp', target: '127.0.0.1:9', interval: 3600,
      tags: ['csv'] });
    const comma = await create({ name: 'a, "quoted" name', check_type: 'tcp', target: '127.0.0.1:9', interval: 3600 });
    const plus = await create({ name: '+SUM(1)', check_type: 'tcp', target: '127.0.0.1:9', interval: 3600 });
    const at = await create({ name: '@cmd', check_type: 'tcp', target: '127.0.0.1:9', interval: 3600 });
    const minus = await create({ name: '-2+3', check_type: 'tcp', target: '127.0.0.1:9', interval: 3600 });
    const tab = await create({ name: '  =1', check_type: 'tcp', target: '127.0.0.1:9', interval: 3600 });
    // Names are one line: a line break or tab is refused before it can reach a CSV cell.
    const twoLines = { name: 'two\nlines', check_type: 'tcp', target: '127.0.0.1:9' };
    assertProblem(await t.request('POST', '/api/monitors', { key, body: twoLines }), 400, 'name');
    const r = await t.request('GET', '/api/monitors/events/export?kind=created', { key });
    assert.equal(r.status, 200);
    assert.match(r.headers.get('content-type') ?? '', /^text\/csv; charset=utf-8/);
    assert.match(r.headers.get('content-disposition') ?? '', /^attachment; filename="monitor-events-\d{8}-\d{6}\.csv"$/);
    const lines = r.text.split('\r\n');
    assert.equal(lines[0], 'id,time,kind,monitor_id,monitor_name,from_status,to_status,message,actor,details');
    assert.equal(lines.at(-1), '', 'every record ends with CRLF');
    assert.ok(r.text.includes(`,${evil.id},"'=HYPERLINK(""http://evil.example"",""x"")",`), 'formula neutralised and quoted');
    assert.ok(r.text.includes(`,${comma.id},"a, ""quoted"" name",`), 'comma and quote quoted');
    assert.ok(r.text.includes(`,${plus.id},'+SUM(1),`));
    assert.ok(r.text.includes(`,${at.id},'@cmd,`));
    assert.ok(r.text.includes(`,${minus.id},'-2+3,`));
    assert.ok(r.text.includes(`,${tab.id},'=1,`), 'names are trimmed; the tab/CR rule of cells is in the unit tests');
    assert.ok(!/(^|,)[=+@]/m.test(r.text.split('\r\n').map((l) => l.replace(/"[^"]*"/g, '')).join('\n')), 'no bare formula cell');
    // The filter applies; an unfiltered export has every kind.
    const filtered = await t.request('GET', `/api/monitors/events/export?monitor_id=${evil.id}`, { key });
    assert.equal(filtered.text.split('\r\n').length, 3, 'header, one event, trailing empty');
    assertProblem(await t.request('GET', '/api/monitors/events/export?since=garbage', { key }), 400);
    for (const m of [evil, comma, plus, at, minus, tab]) await api('DELETE', `/api/monitors/${m.id}`);
  });
});

// ---- list, stats, tags, delete, clear ----------------------------------------------------------------

describe('list, stats and tags', () => {
  test('tags are unique and sorted; stats count by status; the list carries 24 h stats from rollups', async () => {
    web.state.status = 200;
    const a = await create({ name: 'b-web', check_type: 'http', target: web.url, tags: ['zeta', 'alpha'] });
    const port = await freePort();
    const b = await create({ name: 'a-closed', check_type: 'tcp', target: `127.0.0.1:${port}`, failure_threshold: 1,
      tags: ['alpha', 'mid'] });
    const c = await create({ name: 'c-paused', check_type: 'tcp', target: '127.0.0.1:9', interval: 3600, tags: [] });
    await api('POST', `/api/monitors/${c.id}/pause`);
    await tick(a.id, 0);
    await settle();
    for (let i = 0; i < 3; i++) { await tick(a.id, 10_000); await settle(); }

    const tags = await api('GET', '/api/monitors/tags');
    assert.equal(tags.status, 200);
    assert.deepEqual(tags.body, ['alpha', 'mid', 'zeta']);

    const stats = await api('GET', '/api/monitors/stats');
    assert.deepEqual(stats.body, { up: 1, down: 1, degraded: 0, paused: 1, unknown: 0, total: 3 });

    const list = await api('GET', '/api/monitors');
    assert.equal(list.status, 200);
    assert.deepEqual(list.body.monitors.map((m: any) => m.name), ['a-closed', 'b-web', 'c-paused'], 'sorted by name');
    const wa = list.body.monitors.find((m: any) => m.id === a.id);
    for (const k of ['id', 'name', 'target', 'check_type', 'interval', 'status', 'last_check', 'response_time']) assert.ok(k in wa, k);
    assert.deepEqual(Object.keys(wa.stats_24h).sort(), ['avg_response_ms', 'checks', 'incidents', 'uptime_pct']);
    assert.equal(wa.stats_24h.checks, 4);
    assert.equal(wa.stats_24h.uptime_pct, 100);
    assert.ok(wa.stats_24h.avg_response_ms > 0);
    const wb = list.body.monitors.find((m: any) => m.id === b.id);
    assert.equal(wb.stats_24h.uptime_pct, 0);
    assert.equal(wb.stats_24h.incidents, 1);
    assert.equal(wb.stats_24h.avg_response_ms, null);
    const wc = list.body.monitors.find((m: any) => m.id === c.id);
    assert.deepEqual(wc.stats_24h, { uptime_pct: null, avg_response_ms: null, checks: 0, incidents: 0 });

    // Filters.
    assert.deepEqual((await api('GET', '/api/monitors?tag=mid')).body.monitors.map((m: any) => m.id), [b.id]);
    assert.deepEqual((await api('GET', '/api/monitors?status=paused')).body.monitors.map((m: any) => m.id), [c.id]);
    assert.deepEqual((await api('GET', '/api/monitors?check_type=http')).body.monitors.map((m: any) => m.id), [a.id]);
    assertProblem(await api('GET', '/api/monitors?status=sleepy'), 400, 'query.status');

    // The list's figures are hourly counts kept in memory, not a scan of raw results: without them, the same.
    const svc = monitorsServiceOf(t.service.app)!;
    svc.storage['history'].drop(svc.registry.byId(a.id)!.row.pk);
    assert.equal((await api('GET', `/api/monitors/${a.id}/results`)).body.total, 0);
    const again = (await api('GET', '/api/monitors')).body.monitors.find((m: any) => m.id === a.id);
    assert.deepEqual(again.stats_24h, wa.stats_24h);
    const single = (await api('GET', `/api/monitors/${a.id}`)).body;
    assert.equal(single.stats.checks_24h, 4);
    assert.equal(single.stats.uptime_24h, 100);
    for (const m of [a, b, c]) await api('DELETE', `/api/monitors/${m.id}`);
    assert.deepEqual((await api('GET', '/api/monitors/stats')).body, { up: 0, down: 0, degraded: 0, paused: 0, unknown: 0, total: 0 });
    assert.deepEqual((await api('GET', '/api/monitors/tags')).body, []);
  });

  test('the list follows every change: a check, pause and resume, a rename, parents', async () => {
    web.state.status = 200;
    const a = await create({ name: 'follow-a', check_type: 'http', target: web.url });
    const b = await create({ name: 'follow-b', check_type: 'http', target: web.url });
    const item = async (id: string) => (await api('GET', '/api/monitors')).body.monitors.find((m: any) => m.id === id);
    const checked = await tick(a.id, 0);
    let got = await item(a.id);
    assert.deepEqual(got, { ...got, status: 'up', last_check: checked.last_check, response_time: checked.response_time });
    assert.equal(got.stats_24h.checks, 1);
    clock.advance(1000);
    const paused = (await api('POST', `/api/monitors/${a.id}/pause`)).body;
    got = await item(a.id);
    assert.equal(got.status, 'paused');
    assert.equal(got.updated_at, paused.updated_at);
    assert.equal((await api('POST', `/api/monitors/${a.id}/pause`)).body.status, 'unknown');
    assert.equal((await item(a.id)).status, 'unknown');
    await api('PUT', `/api/monitors/${a.id}`, { name: 'follow-z', parents: [b.id] });
    got = await item(a.id);
    assert.equal(got.name, 'follow-z');
    assert.deepEqual(got.parents, [b.id]);
    const names = (await api('GET', '/api/monitors')).body.monitors.map((m: any) => m.name);
    assert.ok(names.indexOf('follow-b') < names.indexOf('follow-z'), 'sorted by the new name');
    await api('DELETE', `/api/monitors/${b.id}`);
    assert.deepEqual((await item(a.id)).parents, [], 'a deleted parent is gone from the list');
    await api('DELETE', `/api/monitors/${a.id}`);
  });

  test('delete removes the monitor and its history; unknown ids are 404', async () => {
    const m = await create({ name: 'doomed', check_type: 'http', target: web.url });
    await tick(m.id, 0);
    const d = await api('DELETE', `/api/monitors/${m.id}`);
    assert.equal(d.status, 204);
    assert.equal(d.text, '');
    const calls = [['GET', ''], ['PUT', ''], ['DELETE', ''], ['POST', '/pause'], ['POST', '/check'], ['GET', '/results'],
      ['GET', '/incidents']];
    for (const [method, suffix] of calls) {
      for (const id of [m.id, randomUUID(), 'not-a-uuid']) {
        const r = await api(method!, `/api/monitors/${id}${suffix}`, method === 'PUT' ? { name: 'x' } : undefined);
        assertProblem(r, 404);
        assert.equal(r.body.code, 'not_found', `${method} ${suffix} ${id}`);
      }
    }
    const ev = (await api('GET', `/api/monitors/events?monitor_id=${m.id}`)).body.items;
    assert.equal(ev[0].kind, 'deleted');
    const store = t.service.app.store;
    for (const table of ['monitor_results', 'monitor_rollups', 'monitor_incidents']) {
      const orphans = store.get<{ n: number }>(`SELECT count(*) AS n FROM ${table} WHERE m NOT IN (SELECT pk FROM monitors)`);
      assert.equal(orphans!.n, 0, `${table} rows of the deleted monitor are gone`);
    }
    const svc = monitorsServiceOf(t.service.app)!;
    assert.deepEqual([...svc.storage['history'].monitors()].filter((pk) => !svc.registry.get(pk)), [],
      'its raw results are gone from memory');
  });

  test('clear history deletes results, rollups, closed incidents and events; keeps an open incident; is audited', async () => {
    const port = await freePort();
    const downer = await create({ name: 'still-down', check_type: 'tcp', target: `127.0.0.1:${port}`, failure_threshold: 1 });
    await tick(downer.id, 0);
    web.state.status = 500;
    const flapper = await create({ name: 'flapper', check_type: 'http', target: web.url, failure_threshold: 1 });
    await tick(flapper.id, 0);
    web.state.status = 200;
    await tick(flapper.id, 10_000);
    await settle();
    assert.equal((await api('GET', `/api/monitors/${flapper.id}/incidents`)).body.items[0].closed_at !== null, true);

    const r = await api('DELETE', '/api/monitors/events');
    assert.equal(r.status, 200, r.text);
    assert.ok(r.body.deleted.results >= 3);
    assert.ok(r.body.deleted.events >= 4);
    assert.equal(r.body.kept_open_incidents, 1);

    const ev = await api('GET', '/api/monitors/events');
    assert.deepEqual(ev.body.items.map((e: any) => e.kind), ['history_cleared']);
    assert.match(ev.body.items[0].actor, /root-admin/);
    assert.equal((await api('GET', `/api/monitors/${flapper.id}/results`)).body.total, 0);
    assert.equal((await api('GET', `/api/monitors/${flapper.id}/incidents`)).body.total, 0);
    const open = await api('GET', `/api/monitors/${downer.id}/incidents`);
    assert.equal(open.body.total, 1);
    assert.equal(open.body.items[0].closed_at, null);
    const f = (await api('GET', `/api/monitors/${flapper.id}`)).body;
    assert.equal(f.status, 'up', 'current status is not history');
    assert.equal(f.stats.checks_24h, 0);
    const listed = (await api('GET', '/api/monitors')).body.monitors.find((m: any) => m.id === flapper.id);
    assert.deepEqual([listed.status, listed.stats_24h.checks], ['up', 0], 'the list too');
    const audit = await api('GET', '/api/audit-log?action=monitors.history_cleared');
    assert.equal(audit.body.total, 1);
    assert.equal(audit.body.items[0].details.kept_open_incidents, 1);

    // History starts again afterwards.
    await tick(flapper.id, 10_000);
    assert.equal((await api('GET', `/api/monitors/${flapper.id}/results`)).body.total, 1);
    for (const m of [downer, flapper]) await api('DELETE', `/api/monitors/${m.id}`);
  });
});

// ---- secrets and scopes --------------------------------------------------------------------------

describe('secrets and scopes', () => {
  test('http secrets are used by the check but never returned, logged or audited', async () => {
    const secret = 'hunter2-very-secret';
    const m = await create({ name: 'with-auth', check_type: 'http', target: web.url,
      settings: { auth: { type: 'basic', username: 'probe', password: secret }, headers: { 'X-Api-Key': 'key-secret-123' } } });
    assert.deepEqual(m.settings.auth, { type: 'basic', username: 'probe', password: { set: true } });
    assert.deepEqual(m.settings.headers, { 'X-Api-Key': { set: true } });
    web.state.authorizations = [];
    await tick(m.id, 0);
    const expected = `Basic ${Buffer.from(`probe:${secret}`).toString('base64')}`;
    assert.equal(web.state.authorizations.at(-1), expected, 'the check sent the stored password');

    // Sending the marker back (a GET -> PUT round trip) keeps the secret.
    const got = (await api('GET', `/api/monitors/${m.id}`)).body;
    const put = await api('PUT', `/api/monitors/${m.id}`, { settings: { ...got.settings, keyword: 'good' } });
    assert.equal(put.status, 200, put.text);
    assert.deepEqual(put.body.settings.auth.password, { set: true });
    web.state.authorizations = [];
    const chk = await api('POST', `/api/monitors/${m.id}/check`);
    assert.equal(chk.body.result.status, 'up', chk.text);
    assert.equal(web.state.authorizations.at(-1), expected);

    const everything = [
      (await api('GET', '/api/monitors')).text,
      (await api('GET', `/api/monitors/${m.id}`)).text,
      (await api('GET', `/api/monitors/events?monitor_id=${m.id}`)).text,
      (await t.request('GET', `/api/monitors/events/export?monitor_id=${m.id}`, { key })).text,
      (await api('GET', '/api/audit-log?action=monitors.*&limit=200')).text,
      (await api('GET', `/api/monitors/${m.id}/results`)).text,
      put.text, chk.text,
    ].join('\n');
    assert.ok(!everything.includes(secret), 'password never returned');
    assert.ok(!everything.includes('key-secret-123'), 'secret header never returned');
    await api('DELETE', `/api/monitors/${m.id}`);
  });

  test('read scope reads, write scope writes', async () => {
    const m = await create({ name: 'scoped', check_type: 'tcp', target: '127.0.0.1:9', interval: 3600 });
    const viewer = await t.user('viewer', ['monitors:read']);
    const other = await t.user('operator', ['system:read']);
    for (const path of ['/api/monitors', `/api/monitors/${m.id}`, '/api/monitors/stats', '/api/monitors/tags', '/api/monitors/events',
      `/api/monitors/${m.id}/results`, `/api/monitors/${m.id}/incidents`, '/api/monitors/events/export']) {
      assert.equal((await t.request('GET', path, { key: viewer.key })).status, 200, path);
      assertProblem(await t.request('GET', path, { key: other.key }), 403);
    }
    for (const [method, path] of [['POST', '/api/monitors'], ['PUT', `/api/monitors/${m.id}`], ['DELETE', `/api/monitors/${m.id}`],
      ['POST', `/api/monitors/${m.id}/pause`], ['POST', `/api/monitors/${m.id}/check`], ['DELETE', '/api/monitors/events']]) {
      assertProblem(await t.request(method!, path!, { key: viewer.key, body: {} }), 403);
    }
    const op = await t.user('operator', ['monitors:write']);
    const r = await t.request('POST', `/api/monitors/${m.id}/pause`, { key: op.key });
    assert.equal(r.status, 200);
    assert.equal((await t.request('DELETE', `/api/monitors/${m.id}`, { key: op.key })).status, 204);
  });
});

// ---- retention -----------------------------------------------------------------------------------

describe('retention', () => {
  test('raw results go after 24 h; hour and day rollups stay', async () => {
    web.state.status = 200;
    const m = await create({ name: 'aging', check_type: 'http', target: web.url });
    await tick(m.id, 0);
    for (let i = 0; i < 2; i++) await tick(m.id, 10_000);
    await api('POST', `/api/monitors/${m.id}/pause`);
    const count = async (k: number) => (await t.service.app.store.all<{ n: number }>(
      'SELECT count(*) AS n FROM monitor_rollups r JOIN monitors mo ON mo.pk = r.m WHERE mo.id = ? AND r.k = ?', [m.id, k]))[0]!.n;
    // The job's own timer must not run a pass while the clock moves (it would race the hour closer for
    // these results): its next pass is put beyond the day this test moves the clock by.
    const retention = monitorsRetentionOf(t.service.app)!;
    await retention.stop();
    retention.start(7 * 24 * 3600_000);
    clock.advance(25 * 3600_000);
    await hoursWritten(t.service.app);
    const stats = await retention.runOnce();
    assert.ok(stats.results >= 3, JSON.stringify(stats));
    assert.equal((await api('GET', `/api/monitors/${m.id}/results`)).body.total, 0);
    assert.equal((await api('GET', `/api/monitors/${m.id}`)).body.stats.last_result, null);
    assert.equal(await count(0), 0);
    assert.equal(await count(1), 1);
    assert.equal(await count(2), 1);
    const s = (await api('GET', `/api/monitors/${m.id}`)).body.stats;
    assert.equal(s.uptime_24h, null, 'nothing in the last 24 hours');
    assert.equal(s.uptime_7d, 100);
    assert.equal(s.uptime_30d, 100);
    await api('DELETE', `/api/monitors/${m.id}`);
  });
});
