// Alerts on their way out, against a real HTTP receiver on 127.0.0.1: each provider's request against
// its documented format, the signature, cooldown and recoveries, enabled: false, retries with backoff
// (the app's ManualClock moves time), per-webhook order, alert dependencies with real monitors (one
// dead parent -> one alert naming its dependents), and certificate expiry from a real TLS server.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import tls from 'node:tls';
import { after, before, describe, test } from 'node:test';
import { ManualClock } from '../../src/core/clock.js';
import { raiseAlert } from '../../src/modules/webhooks/index.js';
import { signature } from '../../src/modules/webhooks/providers/generic.js';
import { selfSigned } from '../helpers/certs.js';
import { startTestApp, type TestApp } from '../helpers/harness.js';
import { Receiver, type Received } from '../helpers/webhook-receiver.js';
import { advanceAndSettle, webhooksQuiet } from '../helpers/webhook-settle.js';

let t: TestApp;
let clock: ManualClock;
let key: string;
let rx: Receiver;

const api = (method: string, path: string, body?: unknown) => t.request(method, path, { key, body });

async function createWebhook(body: Record<string, unknown>): Promise<any> {
  const r = await api('POST', '/api/webhooks', { cooldown: 0, ...body });
  assert.equal(r.status, 201, r.text);
  return r.body;
}

const quiet = () => webhooksQuiet(t.service.app);
const advance = (ms: number) => advanceAndSettle(t.service.app, clock, ms);

const fakeMonitor = (name = 'Core <switch> & "uplink" @everyone') =>
  ({ id: randomUUID(), name, target: '10.9.8.7', check_type: 'ping', tags: ['site-a', 'core'] });

async function raiseDownUp(monitor: ReturnType<typeof fakeMonitor>): Promise<void> {
  const app = t.service.app;
  const subject = `monitor/${monitor.id}`;
  await raiseAlert(app, { type: 'monitor_down', subject, monitor, title: `DOWN: ${monitor.name}`, occurred_at: clock.iso(),
    message: `${monitor.name} is down: 3/3 lost, 100% loss`, incident: { id: randomUUID(), opened_at: clock.iso() },
    details: { previous_status: 'up', status: 'down' } });
  await raiseAlert(app, { type: 'monitor_up', subject, monitor, title: `UP: ${monitor.name}`, occurred_at: clock.iso(),
    message: `${monitor.name} is up again`, details: { previous_status: 'down', status: 'up' } });
  await quiet();
}

before(async () => {
  clock = new ManualClock(Math.floor(Date.now() / 1000) * 1000);
  t = await startTestApp({ clock });
  key = (await t.admin()).key;
  rx = await Receiver.start();
});
after(async () => {
  await t.close();
  await rx.close();
});

// ---- providers -------------------------------------------------------------------------------------------

const isIso = (s: unknown) => typeof s === 'string' && !Number.isNaN(Date.parse(s)) && s.endsWith('Z');
const len = (s: unknown) => [...String(s)].length;
const json = (r: Received) => { assert.match(String(r.headers['content-type']), /^application\/json/); return r.json; };

interface ProviderCase {
  type: string;
  path: string;
  secret?: string;
  options?: Record<string, string>;
  check(down: Received, up: Received, m: ReturnType<typeof fakeMonitor>): void;
}

const PROVIDERS: ProviderCase[] = [
  {
    type: 'generic', path: '/generic/hook', secret: 'generic-hmac-key',
    check(down, up, m) {
      for (const [r, type] of [[down, 'monitor_down'], [up, 'monitor_up']] as const) {
        const b = json(r);
        assert.equal(r.method, 'POST');
        assert.equal(r.path, '/generic/hook');
        assert.equal(r.headers['x-netprobe-event'], type);
        assert.equal(r.headers['x-netprobe-delivery'], b.delivery_id);
        assert.equal(r.headers['x-netprobe-signature'], signature('generic-hmac-key', r.body));
        assert.match(String(r.headers['user-agent']), /^netprobe\//);
        assert.equal(b.version, 1);
        assert.ok(isIso(b.sent_at));
        assert.equal(b.probe.name, 'netprobe');
        assert.deepEqual(Object.keys(b.alert).sort(),
          ['details', 'id', 'incident', 'message', 'monitor', 'occurred_at', 'resolved', 'severity', 'subject', 'title', 'type'].filter((k) => k !== 'incident' || type === 'monitor_down'));
        assert.equal(b.alert.type, type);
        assert.deepEqual(b.alert.monitor, m);
        assert.equal(b.alert.subject, `monitor/${m.id}`);
      }
      assert.equal(down.json.alert.severity, 'critical');
      assert.equal(down.json.alert.resolved, false);
      assert.equal(up.json.alert.resolved, true);
    },
  },
  {
    type: 'slack', path: '/services/T0001/B0002/abcdefghijklmnopqrstuvwx',
    check(down) {
      const b = json(down);
      assert.equal(down.path, '/services/T0001/B0002/abcdefghijklmnopqrstuvwx');
      assert.ok(typeof b.text === 'string' && len(b.text) <= 3000);
      assert.ok(b.text.includes('Core &lt;switch&gt; &amp;'), 'mrkdwn control characters escaped');
      assert.equal(b.blocks[0].type, 'header');
      assert.equal(b.blocks[0].text.type, 'plain_text');
      assert.ok(len(b.blocks[0].text.text) <= 150);
      assert.equal(b.blocks[1].text.type, 'mrkdwn');
      const fields = b.blocks[2].fields as any[];
      assert.ok(fields.length >= 1 && fields.length <= 10);
      for (const f of fields) assert.ok(f.type === 'mrkdwn' && len(f.text) <= 2000);
      assert.equal(b.blocks[3].type, 'context');
    },
  },
  {
    type: 'discord', path: '/api/webhooks/112233445566778899/tokenTOKENtoken0123456789',
    check(down, up) {
      for (const r of [down, up]) {
        const b = json(r);
        assert.deepEqual(b.allowed_mentions, { parse: [] }, 'no @everyone pings');
        assert.equal(b.embeds.length, 1);
        const e = b.embeds[0];
        assert.ok(len(e.title) <= 256 && len(e.description) <= 4096);
        assert.ok(Number.isInteger(e.color) && e.color >= 0 && e.color <= 0xffffff);
        assert.ok(isIso(e.timestamp));
        assert.ok(e.fields.length <= 25);
        for (const f of e.fields) assert.ok(len(f.name) <= 256 && len(f.value) <= 1024 && len(f.value) > 0 && f.inline === true);
        assert.ok(len(b.username) <= 80);
      }
      assert.notEqual(down.json.embeds[0].color, up.json.embeds[0].color);
    },
  },
  {
    type: 'teams', path: '/webhookb2/abc@def/IncomingWebhook/0123456789abcdef/owner',
    check(down) {
      const b = json(down);
      assert.equal(b.type, 'message');
      assert.equal(b.attachments.length, 1);
      const a = b.attachments[0];
      assert.equal(a.contentType, 'application/vnd.microsoft.card.adaptive');
      assert.equal(a.content.type, 'AdaptiveCard');
      assert.equal(a.content.$schema, 'http://adaptivecards.io/schemas/adaptive-card.json');
      assert.equal(a.content.version, '1.4');
      assert.deepEqual(a.content.body.map((x: any) => x.type), ['TextBlock', 'TextBlock', 'FactSet', 'TextBlock']);
      for (const f of a.content.body[2].facts) assert.ok(typeof f.title === 'string' && typeof f.value === 'string');
      assert.equal(a.content.body[0].color, 'Attention');
    },
  },
  {
    type: 'google_chat', path: '/v1/spaces/AAAA/messages?key=k3y&token=t0ken',
    check(down) {
      const b = json(down);
      assert.equal(down.path, '/v1/spaces/AAAA/messages?key=k3y&token=t0ken');
      assert.match(String(down.headers['content-type']), /charset=UTF-8/);
      assert.deepEqual(Object.keys(b), ['text']);
      assert.ok(b.text.includes('*DOWN: Core <switch>') && len(b.text) <= 4000);
    },
  },
  {
    type: 'mattermost', path: '/hooks/abcdefghijklmnopqrstuvwxyz',
    check(down) {
      const a = json(down).attachments[0];
      assert.ok(a.fallback && a.title && a.text);
      assert.match(a.color, /^#[0-9a-f]{6}$/);
      for (const f of a.fields) assert.ok(typeof f.short === 'boolean' && typeof f.title === 'string' && typeof f.value === 'string');
    },
  },
  {
    type: 'pagerduty', path: '/v2/enqueue', secret: 'R0UT1NGKEYR0UT1NGKEYR0UT1NGKEY12',
    check(down, up, m) {
      const d = json(down), u = json(up);
      assert.equal(down.path, '/v2/enqueue');
      assert.equal(d.routing_key, 'R0UT1NGKEYR0UT1NGKEYR0UT1NGKEY12');
      assert.equal(d.event_action, 'trigger');
      assert.equal(d.dedup_key, `netprobe/monitor/${m.id}`);
      assert.ok(len(d.payload.summary) >= 1 && len(d.payload.summary) <= 1024);
      assert.ok(d.payload.source);
      assert.ok(['critical', 'error', 'warning', 'info'].includes(d.payload.severity));
      assert.ok(isIso(d.payload.timestamp));
      assert.equal(d.payload.class, 'monitor_down');
      assert.deepEqual(u, { routing_key: 'R0UT1NGKEYR0UT1NGKEYR0UT1NGKEY12', event_action: 'resolve', dedup_key: `netprobe/monitor/${m.id}` });
    },
  },
  {
    type: 'opsgenie', path: '/v2/alerts', secret: 'og-api-key-1234',
    check(down, up, m) {
      const alias = `netprobe/monitor/${m.id}`;
      const d = json(down);
      assert.equal(down.path, '/v2/alerts');
      assert.equal(down.headers.authorization, 'GenieKey og-api-key-1234');
      assert.ok(len(d.message) <= 130);
      assert.equal(d.alias, alias);
      assert.equal(d.priority, 'P1');
      assert.ok(Array.isArray(d.tags) && d.tags.includes('site-a'));
      for (const v of Object.values(d.details)) assert.equal(typeof v, 'string');
      assert.equal(up.path, `/v2/alerts/${encodeURIComponent(alias)}/close?identifierType=alias`);
      assert.equal(up.headers.authorization, 'GenieKey og-api-key-1234');
      assert.ok(json(up).source && json(up).note);
    },
  },
  {
    type: 'ntfy', path: '/ntfy/alerts-topic', secret: 'tk_accesstoken',
    check(down, up) {
      assert.equal(down.path, '/ntfy/');
      assert.equal(down.headers.authorization, 'Bearer tk_accesstoken');
      const d = json(down);
      assert.equal(d.topic, 'alerts-topic');
      assert.ok(d.title.startsWith('DOWN: '));
      assert.equal(d.priority, 5);
      assert.ok(d.tags.includes('rotating_light'));
      assert.equal(json(up).priority, 3);
      assert.ok(json(up).tags.includes('white_check_mark'));
    },
  },
  {
    type: 'gotify', path: '/message?token=AppT0ken',
    check(down) {
      assert.equal(down.path, '/message?token=AppT0ken');
      const d = json(down);
      assert.ok(d.title && d.message);
      assert.ok(Number.isInteger(d.priority) && d.priority >= 0 && d.priority <= 10);
      assert.equal(d.extras['client::display'].contentType, 'text/plain');
    },
  },
  {
    type: 'telegram', path: '/bot123456:AAbbCCdd/sendMessage', options: { chat_id: '-1001234567890', message_thread_id: '42' },
    check(down) {
      assert.equal(down.path, '/bot123456:AAbbCCdd/sendMessage', 'the chat goes into the body, not the query');
      const d = json(down);
      assert.equal(d.chat_id, -1001234567890);
      assert.equal(d.message_thread_id, 42);
      assert.equal(d.parse_mode, 'HTML');
      assert.ok(len(d.text) <= 4096);
      assert.ok(d.text.includes('<b>DOWN: Core &lt;switch&gt; &amp; "uplink"'), 'HTML escaped, with bold markup');
      assert.deepEqual(d.link_preview_options, { is_disabled: true });
    },
  },
];

describe('providers: one request per alert in each service\'s documented format', () => {
  for (const p of PROVIDERS) {
    test(p.type, async () => {
      const w = await createWebhook({ name: `p-${p.type}`, type: p.type, url: rx.url + p.path, ...(p.secret ? { secret: p.secret } : {}),
        ...(p.options ? { options: p.options } : {}) });
      assert.equal(w.type, p.type);
      const n = rx.requests.length;
      const m = fakeMonitor();
      await raiseDownUp(m);
      const got = (await rx.waitFor(n + 2)).slice(n);
      assert.equal(got.length, 2);
      p.check(got[0]!, got[1]!, m);
      assert.equal((await api('DELETE', `/api/webhooks/${w.id}`)).status, 204);
    });
  }
});

// ---- real monitors ---------------------------------------------------------------------------------------

interface Web { server: Server; url: string; status: Map<string, number> }

async function webServer(): Promise<Web> {
  const status = new Map<string, number>();
  const server = createServer((req, res) => { res.statusCode = status.get(req.url ?? '') ?? 200; res.end('x'); });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, status };
}

async function createMonitor(body: Record<string, unknown>): Promise<any> {
  const r = await api('POST', '/api/monitors', { interval: 10, timeout: 2, failure_threshold: 1, check_type: 'http', ...body });
  assert.equal(r.status, 201, r.text);
  return r.body;
}

const alertsFor = (reqs: Received[], monitorId: string) =>
  reqs.filter((r) => r.json?.alert?.monitor?.id === monitorId).map((r) => r.json.alert.type as string);

describe('with real monitors', () => {
  let web: Web;
  before(async () => { web = await webServer(); });
  after(async () => {
    for (const m of (await api('GET', '/api/monitors')).body.monitors) await api('DELETE', `/api/monitors/${m.id}`);
    for (const w of (await api('GET', '/api/webhooks')).body.items) await api('DELETE', `/api/webhooks/${w.id}`);
    web.server.closeAllConnections();
    web.server.close();
  });

  test('cooldown holds back repeats; a recovery whose down was sent is never held back; enabled: false sends nothing', async () => {
    const hook = await createWebhook({ name: 'cooldown', url: `${rx.url}/cool`, cooldown: 120 });
    const off = await createWebhook({ name: 'off', url: `${rx.url}/off`, enabled: false });
    const m = await createMonitor({ name: 'flappy', target: `${web.url}/flappy` });
    const n = rx.requests.length;
    const flip = async (code: number) => { web.status.set('/flappy', code); await advance(10_000); };
    await advance(0); // the first check: unknown -> up, no alert
    await flip(500); // t=10: down, sent
    await advance(80_000); // still down at t=90
    await flip(200); // t=100: up, sent
    await flip(500); // t=110: down again within 120 s of the first: cooldown
    await flip(200); // t=120: up, but the webhook never heard of that down: not sent
    await flip(500); // t=130: down, 120 s after the first: sent
    await flip(200); // t=140: up 40 s after the last up (cooldown 120 s), but its down was sent: sent
    const got = rx.requests.slice(n);
    assert.deepEqual(alertsFor(got, m.id), ['monitor_down', 'monitor_up', 'monitor_down', 'monitor_up']);
    assert.ok(got.every((r) => r.path === '/cool'), 'nothing for the disabled webhook');

    const log = await api('GET', '/api/dev/alerts/recent?limit=50');
    const mine = log.body.items.filter((a: any) => a.alert.monitor?.id === m.id).reverse();
    const of = (id: string) => mine.map((a: any) => `${a.type}:${a.decisions.filter((d: any) => d.webhook_id === id).map((d: any) => d.decision).join(',')}`);
    assert.deepEqual(of(hook.id),
      ['monitor_down:queued', 'monitor_up:queued', 'monitor_down:cooldown', 'monitor_up:no_problem_sent', 'monitor_down:queued', 'monitor_up:queued']);
    assert.ok(mine.every((a: any) => a.decisions.some((d: any) => d.webhook_id === off.id && d.decision === 'disabled')),
      'a disabled webhook is listed as disabled, and told nothing');
    await api('DELETE', `/api/monitors/${m.id}`);
    await api('DELETE', `/api/webhooks/${hook.id}`);
    await api('DELETE', `/api/webhooks/${off.id}`);
  });

  test('one dead parent: one alert naming its dependents; recoveries of held monitors stay quiet; one still down after the parent recovers is sent', async () => {
    const hook = await createWebhook({ name: 'deps', url: `${rx.url}/deps` });
    const parent = await createMonitor({ name: 'switch', target: `${web.url}/switch`, failure_threshold: 2 });
    const children = [];
    for (let i = 0; i < 5; i++) {
      children.push(await createMonitor({ name: `host-${i}`, target: `${web.url}/host-${i}`, failure_threshold: 2, parents: [parent.id] }));
    }
    const grandchild = await createMonitor({ name: 'service-on-host-0', target: `${web.url}/svc`, failure_threshold: 2, parents: [children[0].id] });
    assert.deepEqual(children[0].parents, [parent.id]);
    const all = [parent, ...children, grandchild];
    const n = rx.requests.length;
    await advance(0);

    for (const m of all) web.status.set(new URL(m.target).pathname, 503); // the switch dies: everything behind it goes
    await advance(10_000);
    await advance(10_000);
    const statuses = await Promise.all(all.map(async (m) => (await api('GET', `/api/monitors/${m.id}`)).body.status));
    assert.deepEqual(statuses, all.map(() => 'down'));
    let got = rx.requests.slice(n);
    assert.equal(got.length, 1, `one alert, not ${got.length}: ${got.map((r) => r.json.alert.title).join(' | ')}`);
    const alert = got[0]!.json.alert;
    assert.equal(alert.type, 'monitor_down');
    assert.equal(alert.monitor.id, parent.id);
    assert.match(alert.message, /6 dependent monitors are affected/);
    assert.equal(alert.details.dependents.total, 6);
    const held = (await api('GET', '/api/dev/alerts/recent?type=monitor_down&limit=20')).body.items
      .filter((a: any) => a.outcome === 'held');
    assert.equal(held.length, 6);
    // Each lists the webhook it would have told, held, and why.
    for (const h of held) assert.deepEqual(h.decisions.map((d: any) => [d.webhook_id, d.decision, d.reason]), [[hook.id, 'held', h.alert.details.held_by.reason]]);

    // The switch comes back, one host behind it does not.
    for (const m of all) web.status.set(new URL(m.target).pathname, 200);
    web.status.set('/host-3', 503);
    await advance(10_000);
    await advance(10_000);
    got = rx.requests.slice(n);
    const types = got.map((r) => `${r.json.alert.type}:${r.json.alert.monitor.name}`);
    assert.deepEqual(types.slice(0, 1), ['monitor_down:switch']);
    assert.deepEqual(types.slice(1).sort(), ['monitor_down:host-3', 'monitor_up:switch'], types.join(', '));
    const released = got.find((r) => r.json.alert.monitor.name === 'host-3')!.json.alert;
    assert.match(released.message, /held back from .* \(switch is down\)/);
    assert.equal(released.details.released.held_by.name, 'switch');
    // The event log reads the same decision: the held downs, and the release.
    const log = (await api('GET', `/api/monitors/events?monitor_id=${children[3]!.id}&limit=50`)).body.items;
    const heldDown = log.find((e: any) => e.kind === 'status_change' && e.to_status === 'down');
    assert.equal(heldDown.details.alert_held_by.rule, 'dependency');
    assert.equal(heldDown.details.alert_held_by.by.name, 'switch');
    assert.ok(log.some((e: any) => e.kind === 'alert_released'), 'the release is in the event log');
    const up = got.find((r) => r.json.alert.type === 'monitor_up')!.json.alert;
    assert.equal(up.details.dependents.total, 6);

    for (const m of all) await api('DELETE', `/api/monitors/${m.id}`);
    await api('DELETE', `/api/webhooks/${hook.id}`);
  });

  test('a paused monitor alerts nobody: a failing check run by hand is logged as held', async () => {
    const hook = await createWebhook({ name: 'paused', url: `${rx.url}/paused`, alert_types: ['monitor_down', 'test_failure'] });
    const m = await createMonitor({ name: 'paused-one', target: `${web.url}/paused-one`, failure_threshold: 1 });
    await advance(0);
    assert.equal((await api('POST', `/api/monitors/${m.id}/pause`)).status, 200);
    web.status.set('/paused-one', 503);
    const n = rx.requests.length;
    const r = await api('POST', `/api/monitors/${m.id}/check`);
    assert.equal(r.body.result.status, 'down');
    await advance(0);
    assert.equal(rx.requests.length, n, 'nothing sent');
    const held = (await api('GET', '/api/dev/alerts/recent?type=test_failure&limit=20')).body.items
      .filter((a: any) => a.subject === `monitor/${m.id}`);
    assert.equal(held.length, 1);
    assert.equal(held[0].outcome, 'held');
    assert.equal(held[0].alert.details.held_by.rule, 'paused');
    await api('DELETE', `/api/monitors/${m.id}`);
    await api('DELETE', `/api/webhooks/${hook.id}`);
  });

  test('parents are validated: unknown, self and cycles are refused naming parents.<i>', async () => {
    const a = await createMonitor({ name: 'a', target: `${web.url}/a` });
    const b = await createMonitor({ name: 'b', target: `${web.url}/b`, parents: [a.id] });
    const bad = await api('POST', '/api/monitors', { name: 'c', check_type: 'http', target: `${web.url}/c`, parents: [a.id, randomUUID()] });
    assert.equal(bad.status, 400);
    assert.equal(bad.body.errors[0].path, 'parents.1');
    const self = await api('PUT', `/api/monitors/${a.id}`, { parents: [a.id] });
    assert.equal(self.status, 400);
    assert.equal(self.body.errors[0].path, 'parents.0');
    const cycle = await api('PUT', `/api/monitors/${a.id}`, { parents: [b.id] });
    assert.equal(cycle.status, 400, cycle.text);
    assert.match(cycle.body.errors[0].message, /cycle/);
    const events = (await api('GET', `/api/monitors/events?monitor_id=${b.id}&kind=created`)).body.items;
    assert.deepEqual(events[0].details.parents, [a.id]);
    await api('DELETE', `/api/monitors/${a.id}`);
    assert.deepEqual((await api('GET', `/api/monitors/${b.id}`)).body.parents, [], 'a deleted parent leaves its children');
    await api('DELETE', `/api/monitors/${b.id}`);
  });

  test('certificate_expiring at 7 days left (first seen at 5), then at 1 day, once each per certificate', async () => {
    const hook = await createWebhook({ name: 'certs', url: `${rx.url}/certs`, alert_types: ['certificate_expiring'] });
    const c = await selfSigned(6); // five whole days left
    const server = tls.createServer({ key: c.key, cert: c.cert }, (s) => s.end());
    server.on('tlsClientError', () => {});
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const port = (server.address() as AddressInfo).port;
    try {
      const n = rx.requests.length;
      const m = await createMonitor({ name: 'tls', check_type: 'tcp', target: `127.0.0.1:${port}`, interval: 3600, settings: { tls: true, verify_tls: false } });
      await advance(0);
      await advance(3600_000);
      let got = rx.requests.slice(n);
      assert.equal(got.length, 1, 'one alert for the certificate, not one per check');
      const a = got[0]!.json.alert;
      assert.equal(a.type, 'certificate_expiring');
      assert.equal(a.details.threshold_days, 7);
      assert.equal(a.details.days_left, 5);
      assert.equal(a.severity, 'warning');
      assert.equal(a.subject, `monitor/${m.id}/certificate`);

      await advance(4.5 * 86_400_000); // the hourly checks go on; one look a day at the certificate
      const check = await api('POST', `/api/monitors/${m.id}/check`);
      assert.equal(check.status, 200, check.text);
      await quiet();
      got = rx.requests.slice(n);
      assert.deepEqual(got.map((r) => r.json.alert.details.threshold_days), [7, 1]);
      assert.equal(got[1]!.json.alert.severity, 'critical');
      await api('DELETE', `/api/monitors/${m.id}`);
    } finally {
      server.close();
      await api('DELETE', `/api/webhooks/${hook.id}`);
    }
  });
});

// ---- retries ---------------------------------------------------------------------------------------------

describe('retries', () => {
  test('a receiver that fails, then succeeds: the same delivery again after 10 s and 30 s, each attempt logged', async () => {
    const w = await createWebhook({ name: 'flaky', url: `${rx.url}/flaky` });
    const n = rx.requests.length;
    rx.plan.push({ status: 503, body: 'busy' }, { status: 500, body: 'oops' });
    const m = fakeMonitor('flaky target');
    await raiseAlert(t.service.app, { type: 'monitor_down', subject: `monitor/${m.id}`, monitor: m, title: 'DOWN', message: 'down', occurred_at: clock.iso() });
    await quiet();
    assert.equal(rx.requests.length, n + 1);
    await advance(9_000);
    assert.equal(rx.requests.length, n + 1, 'not before the backoff');
    await advance(1_000);
    assert.equal(rx.requests.length, n + 2);
    await advance(29_000);
    assert.equal(rx.requests.length, n + 2);
    await advance(1_000);
    assert.equal(rx.requests.length, n + 3);
    const ids = rx.requests.slice(n).map((r) => r.headers['x-netprobe-delivery']);
    assert.equal(new Set(ids).size, 1, 'one delivery, three attempts');
    const log = (await api('GET', `/api/dev/webhooks/recent?webhook_id=${w.id}`)).body.items.reverse();
    assert.deepEqual(log.map((a: any) => [a.attempt, a.outcome, a.status_code, a.response_excerpt]),
      [[1, 'retry', 503, 'busy'], [2, 'retry', 500, 'oops'], [3, 'delivered', 200, 'ok']]);
    for (const a of log) assert.equal(typeof a.latency_ms, 'number');
    assert.equal((await api('GET', '/api/webhooks')).body.items.find((x: any) => x.id === w.id).pending_deliveries, 0);
    await api('DELETE', `/api/webhooks/${w.id}`);
  });

  test('gives up after max_attempts; a 4xx is not retried; Retry-After is honoured; one webhook\'s deliveries stay in order', async () => {
    const w = await createWebhook({ name: 'broken', url: `${rx.url}/broken` });
    const n = rx.requests.length;
    const raise = (name: string) => {
      const m = fakeMonitor(name);
      return raiseAlert(t.service.app, { type: 'monitor_down', subject: `monitor/${m.id}`, monitor: m, title: `DOWN: ${name}`, message: 'down', occurred_at: clock.iso() });
    };
    rx.plan.push(...Array.from({ length: 5 }, () => ({ status: 502 })));
    await raise('first');
    await raise('second'); // waits behind the first
    await quiet();
    for (const wait of [10_000, 30_000, 90_000, 270_000]) await advance(wait);
    let titles = rx.requests.slice(n).map((r) => r.json.alert.title);
    assert.deepEqual(titles, [...Array(5).fill('DOWN: first'), 'DOWN: second'], 'five attempts of the first, then the second');
    const first = (await api('GET', `/api/dev/webhooks/recent?webhook_id=${w.id}`)).body.items.reverse();
    assert.deepEqual(first.map((a: any) => a.outcome), ['retry', 'retry', 'retry', 'retry', 'failed', 'delivered']);

    rx.plan.push({ status: 404, body: 'no such hook' });
    await raise('third');
    await quiet();
    await advance(60_000);
    titles = rx.requests.slice(n).map((r) => r.json.alert.title);
    assert.equal(titles.filter((x) => x === 'DOWN: third').length, 1, 'a 404 is not retried');

    rx.plan.push({ status: 429, headers: { 'retry-after': '120' } });
    await raise('fourth');
    await quiet();
    await advance(10_000);
    await advance(100_000);
    assert.equal(rx.requests.slice(n).filter((r) => r.json.alert.title === 'DOWN: fourth').length, 1, 'waits the 120 s asked for');
    await advance(10_000);
    assert.equal(rx.requests.slice(n).filter((r) => r.json.alert.title === 'DOWN: fourth').length, 2);
    await api('DELETE', `/api/webhooks/${w.id}`);
  });

  test('disabling a webhook cancels its waiting deliveries', async () => {
    const w = await createWebhook({ name: 'to-disable', url: `${rx.url}/disable` });
    rx.plan.push({ status: 500 });
    const m = fakeMonitor('x');
    await raiseAlert(t.service.app, { type: 'monitor_down', subject: `monitor/${m.id}`, monitor: m, title: 'DOWN: x', message: 'down', occurred_at: clock.iso() });
    await quiet();
    const n = rx.requests.length;
    const r = await api('PUT', `/api/webhooks/${w.id}`, { enabled: false });
    assert.equal(r.body.pending_deliveries, 0);
    await advance(60_000);
    assert.equal(rx.requests.length, n, 'nothing more is sent');
    const log = (await api('GET', `/api/dev/webhooks/recent?webhook_id=${w.id}`)).body.items;
    assert.equal(log[0].outcome, 'cancelled');
    await api('DELETE', `/api/webhooks/${w.id}`);
  });
});
