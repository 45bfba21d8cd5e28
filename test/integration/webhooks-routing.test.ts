// Alerts routed to the people who care (issue 34 §3), with real monitors against a web server on 127.0.0.1
// and real receivers on loopback, time moved by the app's ManualClock: each channel gets only the alerts
// of the monitors it chose (by tag or by id) and the alert log says of the others why not; a channel with
// reminders is told again while a monitor stays down, saying for how long, until it recovers (also across
// a restart, and not while a maintenance window holds it); an alert the alert gate held is logged with
// every channel it would have told and the reason; the new fields are validated, naming the field.
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { ManualClock } from '../../src/core/clock.js';
import { assertProblem, startTestApp, type TestApp } from '../helpers/harness.js';
import { Receiver, type Received } from '../helpers/webhook-receiver.js';
import { advanceAndSettle, webhooksQuiet } from '../helpers/webhook-settle.js';

let t: TestApp;
let clock: ManualClock;
let key: string;
let rx: Receiver;
let web: { server: Server; url: string; status: Map<string, number> };

const api = (method: string, path: string, body?: unknown) => t.request(method, path, { key, body });
const quiet = () => webhooksQuiet(t.service.app);
const advance = (ms: number) => advanceAndSettle(t.service.app, clock, ms);

async function ok(method: string, path: string, body?: unknown, status = method === 'POST' ? 201 : 200): Promise<any> {
  const r = await api(method, path, body);
  assert.equal(r.status, status, `${method} ${path}: ${r.text}`);
  return r.body;
}

const hook = (name: string, body: Record<string, unknown> = {}) =>
  ok('POST', '/api/webhooks', { name, url: `${rx.url}/${name}`, type: 'generic', cooldown: 0, ...body });
const monitor = (name: string, body: Record<string, unknown> = {}) =>
  ok('POST', '/api/monitors', { name, check_type: 'http', target: `${web.url}/${name}`, interval: 60, timeout: 2, failure_threshold: 1, ...body });

/** "<receiver path>: <alert type> <monitor name>" of the requests since `from`. */
const told = (from: number, reqs: Received[] = rx.requests) =>
  reqs.slice(from).map((r) => `${r.path.slice(1)}: ${r.json.alert.type} ${r.json.alert.monitor?.name}`).sort();

/** The alert log's entries about a monitor, oldest first. */
const logOf = async (id: string) => (await ok('GET', `/api/webhooks/alerts?monitor_id=${id}&limit=100`)).items.reverse();
const decisions = (a: any) => Object.fromEntries(a.decisions.map((d: any) => [d.webhook_name, d.decision]));

async function clean(): Promise<void> {
  for (const m of (await ok('GET', '/api/monitors')).monitors) await api('DELETE', `/api/monitors/${m.id}`);
  for (const w of (await ok('GET', '/api/webhooks')).items) await api('DELETE', `/api/webhooks/${w.id}`);
  for (const w of (await ok('GET', '/api/monitors/maintenance')).items) await api('DELETE', `/api/monitors/maintenance/${w.id}`);
  await quiet();
}

before(async () => {
  clock = new ManualClock(Date.parse('2026-04-01T08:00:00Z'));
  t = await startTestApp({ clock });
  key = (await t.admin()).key;
  rx = await Receiver.start();
  const status = new Map<string, number>();
  const server = createServer((req, res) => { res.statusCode = status.get(req.url ?? '') ?? 200; res.end('x'); });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  web = { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, status };
});

after(async () => {
  await t?.close();
  await rx?.close();
  web?.server.closeAllConnections();
  web?.server.close();
});

test('two channels with different tags get only their monitors\' alerts; the log says why the others were not told', async () => {
  const core = await hook('core-team', { monitors: { mode: 'tags', tags: ['core'] } });
  await hook('edge-team', { monitors: { mode: 'tags', tags: ['edge', 'wan'] } });
  await hook('everyone');
  assert.deepEqual(core.monitors, { mode: 'tags', tags: ['core'] });
  assert.equal(core.reminder_minutes, null, 'no reminders unless asked for');
  const sw = await monitor('switch', { tags: ['core', 'site-a'] });
  const router = await monitor('router', { tags: ['wan'] });
  const printer = await monitor('printer');
  await advance(0); // the first checks: up, nothing to tell
  const n = rx.requests.length;

  for (const m of [sw, router, printer]) web.status.set(`/${m.name}`, 503);
  await advance(60_000);
  assert.deepEqual(told(n), [
    'core-team: monitor_down switch', 'edge-team: monitor_down router',
    'everyone: monitor_down printer', 'everyone: monitor_down router', 'everyone: monitor_down switch',
  ]);
  for (const m of [sw, router, printer]) web.status.set(`/${m.name}`, 200);
  await advance(60_000);
  assert.deepEqual(told(n).filter((x) => x.includes('monitor_up')), [
    'core-team: monitor_up switch', 'edge-team: monitor_up router',
    'everyone: monitor_up printer', 'everyone: monitor_up router', 'everyone: monitor_up switch',
  ]);

  const [down] = await logOf(printer.id);
  assert.equal(down.type, 'monitor_down');
  assert.deepEqual(decisions(down), { 'core-team': 'not_routed', 'edge-team': 'not_routed', everyone: 'queued' });
  const reasons = Object.fromEntries(down.decisions.map((d: any) => [d.webhook_name, d.reason]));
  assert.equal(reasons['core-team'], 'it gets alerts only for monitors tagged core; this one has no tag');
  assert.equal(reasons['edge-team'], 'it gets alerts only for monitors tagged edge, wan; this one has no tag');
  assert.equal(reasons.everyone, undefined);
  const [swDown] = await logOf(sw.id);
  assert.deepEqual(decisions(swDown), { 'core-team': 'queued', 'edge-team': 'not_routed', everyone: 'queued' });
  assert.match(swDown.decisions.find((d: any) => d.webhook_name === 'edge-team').reason, /tagged edge, wan; this one is tagged core, site-a$/);
  // The filter by monitor lists only that monitor's alerts.
  assert.ok((await logOf(router.id)).every((a: any) => a.alert.monitor.id === router.id));

  // A system alert has no monitor: alert_types alone choose it, whatever the routing.
  await ok('PUT', `/api/webhooks/${core.id}`, { alert_types: ['monitor_down', 'monitor_up', 'system_health'] });
  const { raiseAlert } = await import('../../src/modules/webhooks/index.js');
  const m = rx.requests.length;
  await raiseAlert(t.service.app, { type: 'system_health', subject: 'system/disk', title: 'disk full', message: 'disk full',
    occurred_at: clock.iso() });
  await quiet();
  assert.deepEqual(rx.requests.slice(m).map((r) => r.path), ['/core-team']);
  await clean();
});

test('a channel for chosen monitors; a deleted monitor leaves its list; unknown ids and bad fields are refused naming them', async () => {
  const a = await monitor('a');
  const b = await monitor('b');
  const only = await hook('only-b', { monitors: { mode: 'monitors', ids: [b.id, b.id] } });
  assert.deepEqual(only.monitors, { mode: 'monitors', ids: [b.id] }, 'a monitor named twice is kept once');
  await advance(0);
  const n = rx.requests.length;
  web.status.set('/a', 503);
  web.status.set('/b', 503);
  await advance(60_000);
  assert.deepEqual(told(n), ['only-b: monitor_down b']);
  const [aDown] = await logOf(a.id);
  assert.equal(aDown.decisions[0].reason, 'it gets alerts only for 1 chosen monitor, not this one');

  const unknown = '00000000-0000-4000-8000-000000000000';
  let r = await api('PUT', `/api/webhooks/${only.id}`, { monitors: { mode: 'monitors', ids: [a.id, unknown] } });
  assertProblem(r, 400);
  assert.deepEqual(r.body.errors, [{ path: 'monitors.ids.1', message: `No monitor with id ${unknown}` }]);
  r = await api('POST', '/api/webhooks', { name: 'x', url: `${rx.url}/x`, monitors: { mode: 'tags', tags: [] }, reminder_minutes: 2 });
  assertProblem(r, 400);
  assert.deepEqual(r.body.errors.map((e: any) => e.path).sort(), ['monitors.tags', 'reminder_minutes']);
  for (const bad of [{ mode: 'some' }, { mode: 'all', tags: ['x'] }, { mode: 'monitors', ids: ['nope'] }, 'all']) {
    assertProblem(await api('POST', '/api/webhooks', { name: 'x', url: `${rx.url}/x`, monitors: bad }), 400);
  }
  assert.equal((await ok('GET', '/api/webhooks')).items.length, 1, 'nothing half made');

  // The form sends the routing back as it is: nothing changes, nothing is audited.
  const same = await ok('PUT', `/api/webhooks/${only.id}`, { monitors: { mode: 'monitors', ids: [b.id] } });
  assert.equal(same.updated_at, only.updated_at);
  await ok('PUT', `/api/webhooks/${only.id}`, { monitors: { mode: 'monitors', ids: [a.id, b.id] }, reminder_minutes: 30 });
  const audit = (await ok('GET', '/api/audit-log?action=webhooks.update&limit=1')).items[0];
  assert.deepEqual(audit.details.fields.sort(), ['monitors', 'reminder_minutes']);

  assert.equal((await api('DELETE', `/api/monitors/${b.id}`)).status, 204);
  await quiet();
  const now = (await ok('GET', '/api/webhooks')).items[0];
  assert.deepEqual(now.monitors, { mode: 'monitors', ids: [a.id] }, 'the deleted monitor left the list');
  await clean();
});

test('a reminder repeats every N minutes while the monitor stays down, says for how long, and stops at recovery', async () => {
  const nag = await hook('nag', { reminder_minutes: 5 });
  await hook('quiet');
  const m = await monitor('nas');
  await advance(0);
  const n = rx.requests.length;
  web.status.set('/nas', 503);
  await advance(60_000); // down at 08:01
  assert.deepEqual(told(n), ['nag: monitor_down nas', 'quiet: monitor_down nas']);
  await advance(4 * 60_000); // 4 minutes down: nothing yet
  assert.equal(rx.requests.length, n + 2);
  await advance(60_000); // 5 minutes
  const first = rx.requests.slice(n + 2);
  assert.deepEqual(first.map((r) => r.path), ['/nag'], 'only the channel that asked for reminders');
  const a = first[0]!.json.alert;
  assert.equal(a.type, 'monitor_down');
  assert.equal(a.title, 'STILL DOWN for 5 min: nas');
  assert.match(a.message, /^nas \(http:\/\/127\.0\.0\.1:\d+\/nas\) is still down, for 5 min now: /);
  assert.equal(a.details.reminder.down_seconds, 300);
  await advance(4 * 60_000);
  assert.equal(rx.requests.length, n + 3, 'not before another five minutes');
  await advance(60_000);
  assert.equal(rx.requests.at(-1)!.json.alert.title, 'STILL DOWN for 10 min: nas');
  // A longer gap: one reminder for it, not one per missed interval.
  await ok('PUT', `/api/webhooks/${nag.id}`, { reminder_minutes: 65 });
  for (let i = 0; i < 64; i++) await advance(60_000);
  assert.equal(rx.requests.length, n + 4);
  await advance(60_000);
  assert.equal(rx.requests.length, n + 5);
  assert.equal(rx.requests.at(-1)!.json.alert.title, 'STILL DOWN for 1 h 15 min: nas', JSON.stringify((await logOf(m.id)).map((x: any) => [x.at, x.alert.occurred_at, x.alert.title])));

  const log = (await logOf(m.id)).map((x: any) => `${x.outcome}:${x.alert.title}:${x.decisions.map((d: any) => `${d.webhook_name}=${d.decision}`).sort().join(',')}`);
  assert.deepEqual(log, [
    'routed:DOWN: nas:nag=queued,quiet=queued',
    'reminder:STILL DOWN for 5 min: nas:nag=queued',
    'reminder:STILL DOWN for 10 min: nas:nag=queued',
    'reminder:STILL DOWN for 1 h 15 min: nas:nag=queued',
  ]);

  web.status.set('/nas', 200);
  await advance(60_000);
  assert.deepEqual(told(n + 5), ['nag: monitor_up nas', 'quiet: monitor_up nas']);
  for (let i = 0; i < 90; i++) await advance(60_000);
  assert.equal(rx.requests.length, n + 7, 'no reminder after the recovery');
  await clean();
});

test('an alert held by a maintenance window or a down parent is logged with each channel it would have told and why; no reminders meanwhile', async () => {
  await hook('ops', { reminder_minutes: 5 });
  await hook('core-only', { monitors: { mode: 'tags', tags: ['core'] } });
  const off = await hook('off', { enabled: false });
  const sw = await monitor('core-sw', { tags: ['core'] });
  const host = await monitor('host', { parents: [sw.id] });
  await advance(0);
  const n = rx.requests.length;
  const window = await ok('POST', '/api/monitors/maintenance', { name: 'firmware', applies_to: 'monitors', monitor_ids: [sw.id],
    schedule: { kind: 'once', from: clock.iso(clock.now() - 60_000), to: clock.iso(clock.now() + 3600_000) } });
  web.status.set('/core-sw', 503);
  await advance(60_000);
  for (let i = 0; i < 10; i++) await advance(60_000); // ten minutes down in the window: no alert, no reminder
  assert.equal(rx.requests.length, n, `nothing sent during the window: ${told(n).join(' | ')} ${JSON.stringify(rx.requests.slice(n).map((r) => [r.json.alert.occurred_at, r.json.alert.title, r.json.alert.monitor]))} ${JSON.stringify((await ok('GET', '/api/monitors')).monitors.map((x: any) => [x.name, x.status]))}`);
  const [held] = await logOf(sw.id);
  assert.equal(held.outcome, 'held');
  assert.equal(held.alert.details.held_by.rule, 'maintenance');
  // Webhooks made in the same millisecond (the clock stands still) come in id order: compared by name.
  const byName = (a: any) => a.decisions.map((d: any) => [d.webhook_name, d.decision, d.reason]).sort((x: any, y: any) => x[0].localeCompare(y[0]));
  assert.deepEqual(byName(held), [
    ['core-only', 'held', held.alert.details.held_by.reason],
    ['off', 'disabled', undefined],
    ['ops', 'held', held.alert.details.held_by.reason],
  ]);
  assert.match(held.alert.details.held_by.reason, /^firmware \(maintenance until /);
  // The event log says the same of the status change.
  const change = (await ok('GET', `/api/monitors/events?monitor_id=${sw.id}&kind=status_change`)).items[0];
  assert.equal(change.details.alert_held_by.rule, 'maintenance');
  assert.equal(change.at, held.alert.occurred_at, 'the alert log names the event\'s time: the pages join them by it');

  // The host behind the switch goes down: held by its parent, and explained per channel.
  web.status.set('/host', 503);
  await advance(60_000);
  const [hostHeld] = await logOf(host.id);
  assert.deepEqual(byName(hostHeld).map((d: any) => d.slice(0, 2)), [['core-only', 'not_routed'], ['off', 'disabled'], ['ops', 'held']]);
  assert.equal(byName(hostHeld)[2][2], 'core-sw is down');

  // The window ends early: the switch's outage is told now, and its reminders start from then.
  await ok('POST', `/api/monitors/maintenance/${window.id}/end`, undefined, 200);
  await advance(60_000);
  assert.deepEqual(told(n), ['core-only: monitor_down core-sw', 'ops: monitor_down core-sw']);
  await advance(4 * 60_000);
  assert.equal(rx.requests.length, n + 2, 'the first reminder five minutes after the released down');
  await advance(60_000);
  assert.deepEqual(told(n + 2), ['ops: monitor_down core-sw']);
  assert.match(rx.requests.at(-1)!.json.alert.title, /^STILL DOWN for 1[67] min: core-sw$/);
  assert.equal((await ok('GET', '/api/webhooks')).items.find((w: any) => w.id === off.id).pending_deliveries, 0, 'nothing for the disabled one');
  await clean();
});

test('reminders follow the stored state across a restart', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'netprobe-reminders-'));
  const clock1 = new ManualClock(Date.parse('2026-05-01T10:00:00Z'));
  let app: TestApp | undefined = await startTestApp({ dataDir: dir, clock: clock1 });
  try {
    const admin = await app.admin();
    const call = async (a: TestApp, method: string, path: string, body?: unknown) => {
      const r = await a.request(method, path, { key: admin.key, body });
      assert.ok(r.status < 300, `${method} ${path}: ${r.text}`);
      return r.body;
    };
    await call(app, 'POST', '/api/webhooks', { name: 'nag', url: `${rx.url}/restart-nag`, type: 'generic', reminder_minutes: 10 });
    web.status.set('/restarted', 503);
    await call(app, 'POST', '/api/monitors', { name: 'restarted', check_type: 'http', target: `${web.url}/restarted`, interval: 60,
      timeout: 2, failure_threshold: 1 });
    await advanceAndSettle(app.service.app, clock1, 0);
    const paths = () => rx.requests.filter((r) => r.path === '/restart-nag').map((r) => r.json.alert.title);
    assert.deepEqual(paths(), ['DOWN: restarted']);
    await advanceAndSettle(app.service.app, clock1, 4 * 60_000);
    await app.close({ keepData: true });
    app = undefined;

    // Seven minutes later (eleven after the down) the probe is back: the next check is the reminder's.
    const clock2 = new ManualClock(Date.parse('2026-05-01T10:11:00Z'));
    app = await startTestApp({ dataDir: dir, clock: clock2 });
    for (let i = 0; i < 3 && paths().length < 2; i++) await advanceAndSettle(app.service.app, clock2, 60_000);
    assert.equal(paths().length, 2, paths().join(' | '));
    assert.match(paths()[1]!, /^STILL DOWN for 1[12] min: restarted$/);
  } finally {
    await app?.close();
    await rm(dir, { recursive: true, force: true });
  }
});
