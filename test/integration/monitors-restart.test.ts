// Monitors across a restart of the real service on the same data directory: status, history, rollups,
// incidents and the event log survive, and the scheduler resumes each monitor from its last check
// (overdue ones spread out) instead of checking everything at once.
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { ManualClock } from '../../src/core/clock.js';
import { monitorsServiceOf } from '../../src/modules/monitors/index.js';
import { startTestApp, type TestApp } from '../helpers/harness.js';
import { freePort } from '../helpers/net.js';

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

test('history and status survive a restart; monitors resume from their last check, spread out', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'netprobe-monitors-restart-'));
  const hits: number[] = [];
  const web = createServer((_req, res) => { hits.push(Date.now()); res.end('ok'); });
  await new Promise<void>((r) => web.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(web.address() as AddressInfo).port}/`;
  const port = await freePort();
  let t: TestApp | undefined;
  try {
    // ---- first life -------------------------------------------------------------------------------
    const clock1 = new ManualClock(Date.parse('2026-02-01T10:00:00Z'));
    t = await startTestApp({ dataDir: dir, clock: clock1 });
    const admin = await t.admin();
    const api = (app: TestApp, k: string) => (method: string, path: string, body?: unknown) => app.request(method, path, { key: k, body });
    let call = api(t, admin.key);
    const mk = async (body: Record<string, unknown>) => {
      const r = await call('POST', '/api/monitors', { timeout: 2, ...body });
      assert.equal(r.status, 201, r.text);
      return r.body.id as string;
    };
    const webs: string[] = [];
    for (let i = 0; i < 12; i++) webs.push(await mk({ name: `web-${i}`, check_type: 'http', target: url, interval: 30 }));
    const slow = await mk({ name: 'hourly', check_type: 'http', target: url, interval: 3600 });
    const down = await mk({ name: 'closed', check_type: 'tcp', target: `127.0.0.1:${port}`, interval: 30, failure_threshold: 1 });
    const paused = await mk({ name: 'paused', check_type: 'http', target: url, interval: 30 });
    assert.equal((await call('POST', `/api/monitors/${paused}/pause`)).status, 200);
    const all = [...webs, slow, down];

    const waitChecked = async (app: TestApp, c: (m: string, p: string) => Promise<any>, ids: string[], count: number) => {
      for (let i = 0; i < 500; i++) {
        const list = (await c('GET', '/api/monitors')).body.monitors as any[];
        const totals = await Promise.all(ids.map(async (id) => (await c('GET', `/api/monitors/${id}/results?limit=1`)).body.total));
        if (totals.every((n) => n >= count)) return list;
        await sleep(10);
      }
      throw new Error('checks did not land');
    };
    clock1.advance(0); // every new monitor is checked at once
    await waitChecked(t, call, all, 1);
    clock1.advance(30_000);
    await waitChecked(t, call, [...webs, down], 2);
    const before = (await call('GET', '/api/monitors')).body.monitors as any[];
    const byName = new Map(before.map((m) => [m.name, m]));
    assert.equal(byName.get('closed').status, 'down');
    assert.equal(byName.get('web-0').status, 'up');
    assert.equal(byName.get('paused').status, 'paused');
    const lastChecks = new Map(before.map((m) => [m.id, m.last_check]));
    const eventsBefore = (await call('GET', '/api/monitors/events?limit=200')).body.total;
    const incidentBefore = (await call('GET', `/api/monitors/${down}/incidents`)).body.items[0];
    assert.equal(incidentBefore.closed_at, null);
    await t.close({ keepData: true });
    t = undefined;

    // ---- second life, 5 minutes later --------------------------------------------------------------
    const restartAt = Date.parse('2026-02-01T10:05:00Z');
    const clock2 = new ManualClock(restartAt);
    t = await startTestApp({ dataDir: dir, clock: clock2 });
    const cookie = await t.login(admin.username, admin.password);
    const body = { name: 'after-restart', scopes: ['monitors:write'] };
    const key = (await t.request('POST', '/api/api-keys', { cookie, body })).body.key;
    call = api(t, key);

    // Start-up makes the list's lines and its image between other work, before anyone lists.
    const svc = monitorsServiceOf(t.service.app)!;
    for (let i = 0; i < 200 && svc.listImage.rebuilds.full === 0; i++) await sleep(10);
    assert.deepEqual(svc.listImage.rebuilds, { full: 1, partial: 0 }, 'the image is made at start-up');
    // So are the checks' settings, validated once each: the first check after a restart starts without it.
    assert.deepEqual([...svc.registry.all()].filter((m) => !m.prepared).map((m) => m.row.name), []);
    const after = (await call('GET', '/api/monitors')).body.monitors as any[];
    assert.deepEqual(svc.listImage.rebuilds, { full: 1, partial: 0 }, 'the first list found it made');
    for (const m of after) {
      const old = before.find((b) => b.id === m.id);
      assert.equal(m.status, old.status, `${m.name} keeps its status`);
      assert.equal(m.last_check, lastChecks.get(m.id), `${m.name} keeps its last check`);
      assert.deepEqual(m.stats_24h, old.stats_24h, `${m.name} keeps its 24 h stats (rollups)`);
    }
    assert.equal((await call('GET', `/api/monitors/${webs[0]}/results`)).body.total, 2);
    assert.equal((await call('GET', '/api/monitors/events?limit=200')).body.total, eventsBefore);
    assert.deepEqual((await call('GET', `/api/monitors/${down}/incidents`)).body.items[0],
      { ...incidentBefore, duration: (restartAt - Date.parse(incidentBefore.opened_at)) / 1000 });

    // The plan: the hourly monitor at its last check + 1 h; the 30 s ones, all overdue, spread over 30 s
    // in the order they fell due; the paused one not at all.
    const plan = new Map(svc.scheduler.plan().map((p) => [p.id, p.due]));
    assert.equal(plan.get(slow), Date.parse(lastChecks.get(slow)) + 3600_000);
    assert.equal(plan.get(paused), null);
    const overdue = [...webs, down].map((id) => plan.get(id)!);
    assert.ok(overdue.every((d) => d >= restartAt && d < restartAt + 30_000), JSON.stringify(overdue.map((d) => d - restartAt)));
    assert.equal(new Set(overdue).size, overdue.length, 'not all at once');

    // Moving the clock step by step: at most a couple start together, and each overdue one once.
    const resultsOf = async () =>
      Promise.all([...webs, down].map(async (id) => (await call('GET', `/api/monitors/${id}/results?limit=1`)).body.total as number));
    const start = await resultsOf();
    clock2.advance(0);
    await sleep(200);
    const first = (await resultsOf()).reduce((a, n, i) => a + (n - start[i]!), 0);
    assert.ok(first <= 2, `only the first overdue monitor(s) at once, got ${first}`);
    for (let s = 0; s < 29; s++) { clock2.advance(1000); await sleep(20); } // up to +29 s: the first slot after the spread is at +30 s
    await waitChecked(t, call, [...webs, down], 3);
    const end = await resultsOf();
    assert.deepEqual(end.map((n, i) => n - start[i]!), end.map(() => 1), 'each overdue monitor checked once in the spread window');
    const times = await Promise.all([...webs, down].map(async (id) =>
      (await call('GET', `/api/monitors/${id}`)).body.last_check as string));
    assert.ok(new Set(times).size >= 10, `checks at different times: ${new Set(times).size}`);
    assert.equal((await call('GET', `/api/monitors/${slow}/results`)).body.total, 1, 'the hourly monitor is not due yet');
    assert.equal((await call('GET', `/api/monitors/${down}`)).body.status, 'down');
  } finally {
    await t?.close();
    web.close();
    await rm(dir, { recursive: true, force: true });
  }
});
