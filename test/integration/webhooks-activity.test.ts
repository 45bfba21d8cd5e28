// What became of alerts, through the read endpoints the Alerts page uses (GET /api/webhooks/alerts,
// /deliveries, /deliveries/pending), against real receivers on 127.0.0.1 with the app's ManualClock:
// each webhook's decision and where its delivery stands (delivered, waiting with its next attempt,
// failed for good, cancelled), held alerts, filters, paging, scopes, and no webhook token anywhere.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, test } from 'node:test';
import { ManualClock } from '../../src/core/clock.js';
import { raiseAlert } from '../../src/modules/webhooks/index.js';
import { assertProblem, startTestApp, type TestApp } from '../helpers/harness.js';
import { Receiver } from '../helpers/webhook-receiver.js';
import { advanceAndSettle, webhooksQuiet } from '../helpers/webhook-settle.js';

/** A token in the failing webhook's URL path (redacted as ***): it must appear in no answer. */
const TOKEN = 'Zk8pQ2mW7xR4tY9uB3nV';

let t: TestApp;
let clock: ManualClock;
let key: string;
let ok: Receiver;
let bad: Receiver;
const hooks: Record<string, any> = {};

const api = (method: string, path: string, body?: unknown, k = key) => t.request(method, path, { key: k, body });
const get = async (path: string) => {
  const r = await api('GET', path);
  assert.equal(r.status, 200, `${path}: ${r.text}`);
  assert.ok(!r.text.includes(TOKEN), `${path} shows the webhook's token: ${r.text}`);
  return r.body;
};

const quiet = () => webhooksQuiet(t.service.app);
const advance = (ms: number) => advanceAndSettle(t.service.app, clock, ms, 40);

const monitor = (name: string) => ({ id: randomUUID(), name, target: '10.9.8.7', check_type: 'ping', tags: [] });

async function raise(type: string, m: ReturnType<typeof monitor>, title = `${type}: ${m.name}`): Promise<string> {
  const a = await raiseAlert(t.service.app, { type, subject: `monitor/${m.id}`, monitor: m, title, occurred_at: clock.iso(),
    message: `${m.name}: ${type}`, details: {} });
  await quiet();
  return a.id;
}

async function createWebhook(body: Record<string, unknown>): Promise<any> {
  const r = await api('POST', '/api/webhooks', { alert_types: ['monitor_down', 'monitor_up'], ...body });
  assert.equal(r.status, 201, r.text);
  return r.body;
}

before(async () => {
  clock = new ManualClock(Math.floor(Date.now() / 1000) * 1000);
  t = await startTestApp({ clock });
  key = (await t.admin()).key;
  ok = await Receiver.start();
  bad = await Receiver.start();
  // The failing receiver quotes the path it was called on, token included: the log must not keep it.
  bad.fallback = { status: 503, body: `no hook at /hooks/${TOKEN}` };
  hooks.ops = await createWebhook({ name: 'ops', url: `${ok.url}/ops`, cooldown: 120 });
  hooks.pager = await createWebhook({ name: 'pager', url: `${bad.url}/hooks/${TOKEN}` });
});

after(async () => {
  await t?.close();
  await ok?.close();
  await bad?.close();
});

test('each webhook\'s decision and where its delivery stands: delivered, waiting with its next attempt, failed for good', async () => {
  const core = monitor('core switch');
  const edge = monitor('edge router');
  const downId = await raise('monitor_down', core);

  let [down] = (await get('/api/webhooks/alerts?limit=1')).items;
  assert.equal(down.id, downId);
  assert.equal(down.outcome, 'routed');
  assert.equal(down.alert.title, 'monitor_down: core switch');
  const byName = (a: any) => Object.fromEntries(a.decisions.map((d: any) => [d.webhook_name, d]));
  let d = byName(down);
  assert.equal(d.ops.decision, 'queued');
  assert.deepEqual({ ...d.ops.delivery, last_attempt_at: undefined },
    { state: 'delivered', attempts: 1, last_attempt_at: undefined, status_code: 200, error: null, next_attempt_at: null });
  assert.equal(d.pager.decision, 'queued');
  assert.equal(d.pager.delivery.state, 'pending');
  assert.equal(d.pager.delivery.attempts, 1);
  assert.equal(d.pager.delivery.status_code, 503);
  assert.match(d.pager.delivery.error, /503/);
  assert.equal(d.pager.delivery.next_attempt_at, clock.iso(clock.now() + 10_000), 'the first retry 10 s later');

  // A second alert for the pager waits behind the first; the same alert again is within ops' cooldown.
  await raise('monitor_down', edge);
  await advance(1000);
  await raise('monitor_down', core, 'again');
  const again = (await get('/api/webhooks/alerts?limit=1')).items[0];
  assert.deepEqual(again.decisions.map((x: any) => `${x.webhook_name}:${x.decision}`).sort(), ['ops:cooldown', 'pager:cooldown']);
  assert.equal(again.decisions.some((x: any) => x.delivery), false, 'no delivery for an alert not queued');

  const pending = await get('/api/webhooks/deliveries/pending');
  assert.equal(pending.total, 2);
  assert.deepEqual(pending.items.map((p: any) => [p.webhook_name, p.alert_title, p.attempts, p.waiting_for]),
    [['pager', 'monitor_down: core switch', 1, 0], ['pager', 'monitor_down: edge router', 0, 1]]);
  assert.match(pending.items[0].last_error, /503/);
  assert.equal(pending.items[1].last_error, null);
  assert.equal((await get(`/api/webhooks/deliveries/pending?webhook_id=${hooks.ops.id}`)).total, 0);

  // A webhook that joins after the down is not told of the recovery: it never heard of the problem.
  hooks.late = await createWebhook({ name: 'late', url: `${ok.url}/late` });
  await raise('monitor_up', core);
  const up = (await get('/api/webhooks/alerts?limit=1')).items[0];
  assert.deepEqual(up.decisions.map((x: any) => `${x.webhook_name}:${x.decision}`).sort(), ['late:no_problem_sent', 'ops:queued', 'pager:queued']);

  // Time passes: the pager's deliveries use their five attempts each and fail for good.
  for (let i = 0; i < 30 && (await get('/api/webhooks/deliveries/pending')).total > 0; i++) await advance(300_000);
  assert.equal((await get('/api/webhooks/deliveries/pending')).total, 0);
  [down] = (await get('/api/webhooks/alerts?type=monitor_down&limit=50')).items.filter((a: any) => a.id === downId);
  d = byName(down);
  assert.equal(d.pager.delivery.state, 'failed');
  assert.equal(d.pager.delivery.attempts, 5);
  assert.equal(d.pager.delivery.next_attempt_at, null);

  // The attempt log: every attempt with the alert's title, the answer's excerpt with the token scrubbed out.
  const attempts = await get(`/api/webhooks/deliveries?webhook_id=${hooks.pager.id}&alert_id=${downId}`);
  assert.deepEqual(attempts.items.map((a: any) => a.outcome), ['failed', 'retry', 'retry', 'retry', 'retry']);
  for (const a of attempts.items) {
    assert.equal(a.alert_title, 'monitor_down: core switch');
    assert.equal(a.status_code, 503);
    assert.equal(a.ok, false);
    assert.equal(a.response_excerpt, 'no hook at /hooks/***');
  }
  const failed = await get('/api/webhooks/deliveries?outcome=failed');
  assert.ok(failed.items.length >= 3 && failed.items.every((a: any) => a.outcome === 'failed'), 'outcome=failed lists the failed ones');
  // The administrators' debug endpoints answer the same.
  assert.deepEqual((await get('/api/dev/alerts/recent?limit=5')).items, (await get('/api/webhooks/alerts?limit=5')).items);
  assert.deepEqual((await get('/api/dev/webhooks/recent?limit=5')).items, (await get('/api/webhooks/deliveries?limit=5')).items);
});

test('a webhook deleted with deliveries waiting: they read cancelled, saying why', async () => {
  const gone = await createWebhook({ name: 'gone', url: `${bad.url}/hooks/${TOKEN}`, alert_types: ['monitor_degraded'] });
  const id = await raise('monitor_degraded', monitor('slow disk'));
  assert.equal((await get(`/api/webhooks/deliveries/pending?webhook_id=${gone.id}`)).total, 1);
  assert.equal((await api('DELETE', `/api/webhooks/${gone.id}`)).status, 204);
  const [alert] = (await get('/api/webhooks/alerts?type=monitor_degraded')).items.filter((a: any) => a.id === id);
  assert.equal(alert.decisions[0].delivery.state, 'cancelled');
  assert.equal(alert.decisions[0].delivery.error, 'the webhook was deleted');
  const cancelled = (await get('/api/webhooks/deliveries?outcome=cancelled')).items.filter((a: any) => a.alert_id === id);
  assert.equal(cancelled.length, 1);
  assert.equal(cancelled[0].webhook_name, 'gone');
});

test('held alerts and the filters: outcome, type, webhook', async () => {
  // A paused monitor checked by hand alerts nobody: its alert is logged as held, saying by what.
  const m = (await api('POST', '/api/monitors', { name: 'paused web', check_type: 'http', target: `${bad.url}/health`, interval: 60,
    timeout: 2, failure_threshold: 1 })).body;
  assert.equal((await api('POST', `/api/monitors/${m.id}/pause`)).status, 200);
  assert.equal((await api('POST', `/api/monitors/${m.id}/check`)).status, 200);
  await quiet();
  const held = await get('/api/webhooks/alerts?outcome=held');
  assert.ok(held.total >= 1, 'a held alert');
  assert.ok(held.items.every((a: any) => a.outcome === 'held' && a.decisions.length === 0), 'outcome=held: held ones, offered to nobody');
  const mine = held.items.find((a: any) => a.subject === `monitor/${m.id}`);
  assert.equal(mine.alert.details.held_by.rule, 'paused');
  assert.ok(!(await get('/api/webhooks/alerts?outcome=routed&limit=500')).items.some((a: any) => a.outcome !== 'routed'), 'outcome=routed: routed ones');

  const ups = await get('/api/webhooks/alerts?type=monitor_up');
  assert.ok(ups.total >= 1 && ups.items.every((a: any) => a.type === 'monitor_up'), 'type=monitor_up: recoveries');
  // Offered to "late": only the recovery it joined before.
  const late = await get(`/api/webhooks/alerts?webhook_id=${hooks.late.id}`);
  assert.deepEqual(late.items.map((a: any) => a.type), ['monitor_up']);
  await api('DELETE', `/api/monitors/${m.id}`);
});

test('paging: newest first, pages that do not overlap, the total of the filtered list', async () => {
  for (let i = 0; i < 7; i++) {
    await raiseAlert(t.service.app, { type: 'system_health', subject: 'system/tls', title: `health ${i}`, occurred_at: clock.iso(),
      message: 'certificate renewal failed' });
  }
  await quiet();
  const titles: string[] = [];
  for (const offset of [0, 3, 6]) {
    const page = await get(`/api/webhooks/alerts?type=system_health&limit=3&offset=${offset}`);
    assert.equal(page.total, 7);
    titles.push(...page.items.map((a: any) => a.alert.title));
  }
  assert.deepEqual(titles, [6, 5, 4, 3, 2, 1, 0].map((i) => `health ${i}`));

  const all = await get(`/api/webhooks/deliveries?webhook_id=${hooks.pager.id}&limit=500`);
  assert.ok(all.total > 4, `${all.total} attempts of the pager`);
  const paged: number[] = [];
  for (let offset = 0; offset < all.total; offset += 4) {
    const page = await get(`/api/webhooks/deliveries?webhook_id=${hooks.pager.id}&limit=4&offset=${offset}`);
    assert.equal(page.total, all.total);
    paged.push(...page.items.map((a: any) => a.id));
  }
  assert.deepEqual(paged, all.items.map((a: any) => a.id));

  for (const q of ['limit=0', 'limit=501', 'offset=-1', 'outcome=lost', 'webhook_id=nope']) {
    assertProblem(await api('GET', `/api/webhooks/alerts?${q}`), 400);
    assertProblem(await api('GET', `/api/webhooks/deliveries?${q}`), 400);
  }
  assertProblem(await api('GET', '/api/webhooks/deliveries/pending?limit=0'), 400);
});

test('scopes: webhooks:read reads them; a key without it is refused, and the debug endpoints stay for administrators', async () => {
  const reader = await t.user('viewer', ['webhooks:read']);
  const other = await t.user('operator', ['monitors:read', 'monitors:write', 'brain:read', 'system:read']);
  for (const path of ['/api/webhooks/alerts', '/api/webhooks/deliveries', '/api/webhooks/deliveries/pending']) {
    const r = await api('GET', path, undefined, reader.key);
    assert.equal(r.status, 200, `${path}: ${r.text}`);
    assert.ok(!r.text.includes(TOKEN), `${path} shows the webhook's token`);
    assertProblem(await api('GET', path, undefined, other.key), 403);
  }
  assertProblem(await api('GET', '/api/dev/alerts/recent', undefined, reader.key), 403);
  assertProblem(await api('GET', '/api/dev/webhooks/recent', undefined, reader.key), 403);
});
