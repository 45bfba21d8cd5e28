// The topology canvas's badges: GET /api/v1sion/monitor/status and /by-ip answer without sign-in (SPEC.md)
// and so give away nothing but ids and statuses; per address the worst status of the monitors watching
// it, and apart from it whether the host answers and how many services on it fail; at most a second old, with an ETag; behind sign-in when discovery.status_requires_auth is set.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { assertProblem, startTestApp, type TestApp } from '../helpers/harness.js';

let t: TestApp;
let key: string;
const ids: Record<string, string> = {};

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

before(async () => {
  t = await startTestApp();
  key = (await t.admin()).key;
  const make = async (name: string, body: Record<string, unknown>) => {
    const r = await t.request('POST', '/api/monitors', { key, body: { name, interval: 3600, failure_threshold: 1, ...body } });
    assert.equal(r.status, 201, r.text);
    ids[name] = r.body.id;
  };
  // Port 9 on loopback refuses: these go down at their first check.
  await make('secret-name-tcp', { check_type: 'tcp', target: '127.0.0.1:9' });
  await make('secret-name-http', { check_type: 'http', target: 'http://[::1]:9/health', tags: ['secret-tag'] });
  await make('paused-ping', { check_type: 'ping', target: '127.0.0.1', settings: { count: 1, per_packet_timeout_ms: 200 } });
  await make('dns-resolver', { check_type: 'dns', target: 'example.test', settings: { resolver: '127.0.0.53', port: 9 } });
  await make('by-name', { check_type: 'tcp', target: 'localhost:9' });
  assert.equal((await t.request('POST', `/api/monitors/${ids['paused-ping']}/pause`, { key })).status, 200);
  for (let i = 0; i < 100; i++) {
    const list = (await t.request('GET', '/api/monitors', { key })).body.monitors as { name: string; status: string }[];
    if (list.find((m) => m.name === 'secret-name-tcp')?.status === 'down' && list.find((m) => m.name === 'secret-name-http')?.status === 'down') break;
    await sleep(50);
  }
  await sleep(1100); // past the badges' one-second cache
});
after(() => t?.close());

test('status: ids and statuses only, without sign-in', async () => {
  const r = await t.request('GET', '/api/v1sion/monitor/status');
  assert.equal(r.status, 200, r.text);
  const byId = new Map((r.body.monitors as { id: string; status: string }[]).map((m) => [m.id, m]));
  assert.equal(byId.size, 5);
  assert.equal(byId.get(ids['secret-name-tcp']!)?.status, 'down');
  assert.equal(byId.get(ids['paused-ping']!)?.status, 'paused');
  for (const m of r.body.monitors) assert.deepEqual(Object.keys(m).sort(), ['id', 'status']);
  assert.doesNotMatch(r.text, /secret-name|secret-tag|127\.0\.0\.1|::1|health/);
});

test('status: an ETag, 304 when unchanged; at most a second old', async () => {
  const a = await t.request('GET', '/api/v1sion/monitor/status');
  const etag = a.headers.get('etag');
  assert.ok(etag);
  const same = await t.request('GET', '/api/v1sion/monitor/status', { headers: { 'If-None-Match': etag } });
  assert.equal(same.status, 304);
  const gz = await fetch(`${t.url}/api/v1sion/monitor/status`, { headers: { 'Accept-Encoding': 'gzip' } });
  assert.equal(gz.headers.get('content-encoding'), 'gzip');
  assert.deepEqual(await gz.json(), a.body);

  const made = await t.request('POST', '/api/monitors', { key, body: { name: 'new', check_type: 'tcp', target: '127.0.0.1:9', interval: 3600 } });
  assert.equal(made.status, 201);
  let seen = false;
  for (let i = 0; i < 30 && !seen; i++) {
    const r = await t.request('GET', '/api/v1sion/monitor/status', { headers: { 'If-None-Match': etag } });
    seen = r.status === 200 && r.body.monitors.some((m: { id: string }) => m.id === made.body.id);
    if (!seen) await sleep(100);
  }
  assert.ok(seen, 'a new monitor shows within about a second');
  assert.equal((await t.request('DELETE', `/api/monitors/${made.body.id}`, { key })).status, 204);
});

test('by-ip: the worst status per address; names do not match; canonical forms', async () => {
  const r = await t.request('GET', '/api/v1sion/monitor/status/by-ip?ips=127.0.0.1,[0:0::1],10.0.0.1,127.0.0.53,::ffff:127.0.0.1');
  assert.equal(r.status, 200, r.text);
  const none = { total: 0, down: 0, failing: 0, degraded: 0, maintenance: 0 };
  assert.deepEqual(r.body.addresses, [
    // the down tcp monitor and the paused ping monitor: down is worse; the paused ping says nothing of reachability
    { ip: '127.0.0.1', status: 'down', monitors: 2, reachability: null, services: { total: 1, down: 1, failing: 0, degraded: 0, maintenance: 0 } },
    { ip: '::1', status: 'down', monitors: 1, reachability: null, services: { total: 1, down: 1, failing: 0, degraded: 0, maintenance: 0 } },
    { ip: '10.0.0.1', status: null, monitors: 0, reachability: null, services: none },
    // a dns monitor watches its resolver, not the name it asks for
    { ip: '127.0.0.53', status: r.body.addresses[3].status, monitors: 1, reachability: r.body.addresses[3].reachability,
      services: r.body.addresses[3].services },
  ], 'the IPv4-mapped spelling is the same address, asked once');
  assert.notEqual(r.body.addresses[3].status, null);
  assert.equal(r.body.addresses[3].services.total, 1);
});

test('by-ip: a host that answers ping is reachable while a service on it is down', async () => {
  // The pause route toggles: this resumes the ping monitor, and the last line of the test pauses it again.
  assert.equal((await t.request('POST', `/api/monitors/${ids['paused-ping']}/pause`, { key })).status, 200);
  let hit: { status: string; reachability: string | null; services: unknown } | undefined;
  for (let i = 0; i < 100 && hit?.reachability !== 'reachable'; i++) {
    await sleep(100);
    hit = (await t.request('GET', '/api/v1sion/monitor/status/by-ip?ips=127.0.0.1')).body.addresses[0];
  }
  // The worst status stays down (the tcp monitor), and apart from it: the host answers, one service of one is down.
  assert.deepEqual(hit, { ip: '127.0.0.1', status: 'down', monitors: 2, reachability: 'reachable', services: { total: 1, down: 1, failing: 0, degraded: 0, maintenance: 0 } });
  assert.equal((await t.request('POST', `/api/monitors/${ids['paused-ping']}/pause`, { key })).status, 200);
});

test('by-ip: bad input is a 400 naming query.ips', async () => {
  assertProblem(await t.request('GET', '/api/v1sion/monitor/status/by-ip'), 400, 'query.ips');
  assertProblem(await t.request('GET', '/api/v1sion/monitor/status/by-ip?ips=localhost'), 400, 'query.ips');
  assertProblem(await t.request('GET', '/api/v1sion/monitor/status/by-ip?ips=,,'), 400, 'query.ips');
  assertProblem(await t.request('GET', '/api/v1sion/monitor/status/by-ip?ips=010.0.0.1'), 400, 'query.ips');
  const many = Array.from({ length: 257 }, (_, i) => `10.0.${i >> 8}.${i & 255}`).join(',');
  assertProblem(await t.request('GET', `/api/v1sion/monitor/status/by-ip?ips=${many}`), 400, 'query.ips');
});

test('discovery.status_requires_auth: sign-in and v1sion:read then needed', async () => {
  await t.service.app.config.update({ discovery: { status_requires_auth: true } });
  try {
    for (const path of ['/api/v1sion/monitor/status', '/api/v1sion/monitor/status/by-ip?ips=127.0.0.1']) {
      assertProblem(await t.request('GET', path), 401);
      const viewer = await t.user('viewer', ['v1sion:read']);
      assert.equal((await t.request('GET', path, { key: viewer.key })).status, 200, path);
      const other = await t.user('viewer', ['monitors:read']);
      assertProblem(await t.request('GET', path, { key: other.key }), 403);
    }
  } finally {
    await t.service.app.config.update({ discovery: { status_requires_auth: false } });
  }
  assert.equal((await t.request('GET', '/api/v1sion/monitor/status')).status, 200);
});
