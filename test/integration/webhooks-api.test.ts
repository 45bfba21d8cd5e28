// The webhook API through real HTTP against the real service: create/update/delete with validation and
// audit, redaction of URL tokens and secrets, the test endpoint against receivers on loopback that are
// fine, down, slow and failing, and the two dev endpoints. Webhooks with public URLs are created
// disabled and never tested: nothing is ever sent beyond 127.0.0.1.
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { signature } from '../../src/modules/webhooks/providers/generic.js';
import { PROVIDERS, WEBHOOK_TYPES } from '../../src/modules/webhooks/providers/index.js';
import { assertProblem, startTestApp, type TestApp } from '../helpers/harness.js';
import { freePort } from '../helpers/net.js';
import { Receiver } from '../helpers/webhook-receiver.js';

let t: TestApp;
let dir: string;
let key: string;
let rx: Receiver;

const api = (method: string, path: string, body?: unknown, k = key) => t.request(method, path, { key: k, body });

async function create(body: Record<string, unknown>): Promise<any> {
  const r = await api('POST', '/api/webhooks', body);
  assert.equal(r.status, 201, r.text);
  return r.body;
}

before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'netprobe-webhooks-api-'));
  // A 1 s attempt timeout keeps the slow-receiver test short.
  await writeFile(join(dir, 'config.yaml'), 'webhooks:\n  timeout_seconds: 1\n');
  t = await startTestApp({ dataDir: dir });
  key = (await t.admin()).key;
  rx = await Receiver.start();
});
after(async () => {
  await t.close();
  await rx.close();
  await rm(dir, { recursive: true, force: true });
});

test('alert types: every type with a description, only those something raises', async () => {
  const r = await api('GET', '/api/webhooks/alert-types');
  assert.equal(r.status, 200, r.text);
  const types = r.body.items.map((i: any) => i.type);
  assert.deepEqual([...types].sort(), ['certificate_expiring', 'device_changed', 'device_discovered', 'device_missing',
    'interface_down', 'interface_errors', 'interface_errors_normal', 'interface_up', 'interface_utilisation', 'interface_utilisation_normal',
    'monitor_degraded', 'monitor_down', 'monitor_up', 'route_changed', 'scan_completed', 'system_health', 'test_failure', 'update_available']);
  for (const i of r.body.items) assert.ok(i.description.length > 20, `${i.type} has a description`);
  assert.equal(r.body.total, r.body.items.length);
  assert.equal(r.body.items.find((i: any) => i.type === 'monitor_up').recovery, true);
  const later = await api('POST', '/api/webhooks', { name: 'later', url: `${rx.url}/later`, alert_types: ['port_flapping'] });
  assertProblem(later, 400);
});

test('a stored subscription to a type no longer listed: hidden, kept, and the webhook read back saves', async () => {
  const w = await create({ name: 'older', url: `${rx.url}/older`, alert_types: ['monitor_down'] });
  // As an earlier build stored it: subscribed to a type since taken out of the list (it had no producer).
  await t.service.app.store.write((tx) => {
    tx.run('UPDATE webhooks SET alert_types = ? WHERE id = ?', [JSON.stringify(['monitor_down', 'port_flapping']), w.id]);
  }, 'sync');
  const list = await api('GET', '/api/webhooks');
  assert.equal(list.status, 200, list.text);
  const read = list.body.items.find((i: any) => i.id === w.id);
  assert.deepEqual(read.alert_types, ['monitor_down']);
  const saved = await api('PUT', `/api/webhooks/${w.id}`, { name: 'older, renamed' });
  assert.equal(saved.status, 200, saved.text);
  assert.deepEqual(saved.body.alert_types, ['monitor_down']);
  const stored = t.service.app.store.get<{ alert_types: string }>('SELECT alert_types FROM webhooks WHERE id = ?', [w.id]);
  assert.deepEqual(JSON.parse(stored!.alert_types), ['monitor_down', 'port_flapping'], 'kept for when it is raised again');
  const sentBack = await api('PUT', `/api/webhooks/${w.id}`, { alert_types: read.alert_types });
  assert.equal(sentBack.status, 200, sentBack.text);
  await api('DELETE', `/api/webhooks/${w.id}`);
});

test('create: defaults, the type from the URL host, URL tokens and secrets redacted everywhere', async () => {
  const slackToken = 'xoxbAbCdEf0123456789ghIJ';
  const tgToken = '123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw';
  const discordToken = 'Zx9_aB3cD4eF5gH6iJ7kL8mN9oP0qR1sT2uV3wX4yZ5aB6cD7eF8gH9iJ0kL1mN2oP3q';
  const chatKey = 'AIzaSyDdI0hCZtE6vySjMm-WEfRq3CPzqKqqsHI';
  const chatToken = 'u7tq2Kp9sXfL3mW8vB1nR4cY6hJ0aE5dG-Tz_oQ=';
  const secret = 'hmac-secret-never-shown';
  const cases: [Record<string, unknown>, string, string][] = [
    [{ url: `https://hooks.slack.com/services/T0A1B2C3D/B0A1B2C3D/${slackToken}` }, 'slack', 'https://hooks.slack.com/services/T0A1B2C3D/B0A1B2C3D/***'],
    [{ url: `https://api.telegram.org/bot${tgToken}/sendMessage`, options: { chat_id: '-1001234567890' } }, 'telegram', 'https://api.telegram.org/bot***/sendMessage'],
    [{ url: `https://discord.com/api/webhooks/112233445566778899/${discordToken}` }, 'discord', 'https://discord.com/api/webhooks/112233445566778899/***'],
    [{ url: `https://chat.googleapis.com/v1/spaces/AAAAx1/messages?key=${chatKey}&token=${encodeURIComponent(chatToken)}` }, 'google_chat', 'https://chat.googleapis.com/v1/spaces/AAAAx1/messages?key=***&token=***'],
    [{ url: 'https://events.pagerduty.com/v2/enqueue', secret: 'R0UT1NGKEYR0UT1NGKEYR0UT1NGKEY12' }, 'pagerduty', 'https://events.pagerduty.com/v2/enqueue'],
    [{ url: 'https://ntfy.sh/netprobe-alerts-q8z2' }, 'ntfy', 'https://ntfy.sh/***'],
    [{ url: 'https://alerts.example.net/hooks/x?token=abcdEFGH1234', secret }, 'generic', 'https://alerts.example.net/hooks/x?token=***'],
  ];
  const ids: string[] = [];
  for (const [body, type, shown] of cases) {
    const w = await create({ name: `w-${type}`, enabled: false, ...body });
    ids.push(w.id);
    assert.equal(w.type, type, `type of ${shown}`);
    assert.equal(w.url, shown);
    assert.deepEqual(w.alert_types, ['monitor_down', 'monitor_up']);
    assert.equal(w.cooldown, 300);
    assert.equal(w.enabled, false);
    assert.deepEqual(w.secret, { set: body.secret !== undefined });
    assert.equal(w.pending_deliveries, 0);
    assert.deepEqual(w.options, body.options ?? {});
  }
  const list = await api('GET', '/api/webhooks');
  assert.equal(list.status, 200);
  assert.ok(list.body.total >= cases.length);
  const audit = await api('GET', '/api/audit-log?action=webhooks.*&limit=100');
  assert.equal(audit.status, 200, audit.text);
  assert.ok(audit.body.items.filter((e: any) => e.action === 'webhooks.create').length >= cases.length);
  const everything = list.text + audit.text + t.logs.join('\n');
  for (const s of [slackToken, tgToken, discordToken, chatKey, chatToken, 'netprobe-alerts-q8z2', 'abcdEFGH1234', secret, 'R0UT1NGKEY']) {
    assert.ok(!everything.includes(s), `"${s}" must not appear in responses, the audit log or the log`);
  }
  for (const id of ids) assert.equal((await api('DELETE', `/api/webhooks/${id}`)).status, 204);
});

test('providers: each with its label, reference, secret and options as JSON Schema', async () => {
  const r = await api('GET', '/api/webhooks/providers');
  assert.equal(r.status, 200, r.text);
  assert.equal(r.body.total, r.body.items.length);
  const byType = Object.fromEntries(r.body.items.map((p: any) => [p.type, p]));
  assert.deepEqual(Object.keys(byType).sort(), [...WEBHOOK_TYPES].sort());
  assert.equal(byType.telegram.label, 'Telegram');
  assert.match(byType.telegram.reference, /^https:\/\/core\.telegram\.org\//);
  assert.equal(byType.telegram.secret, null);
  assert.deepEqual(byType.telegram.options.required, ['chat_id']);
  assert.equal(byType.telegram.options.properties.chat_id.type, 'string');
  assert.equal(byType.telegram.options.properties.chat_id.title, 'Chat');
  assert.equal(byType.telegram.options.additionalProperties, false);
  assert.deepEqual(byType.pagerduty.secret, { required: true, role: PROVIDERS.pagerduty.secret!.role });
  assert.deepEqual(byType.slack.options.properties, {});
});

test('options: URL-packed ones are taken out of the URL; kept on update while the type stays, dropped with it', async () => {
  const token = '123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw';
  const w = await create({ name: 'tg', enabled: false, url: `https://api.telegram.org/bot${token}/sendMessage?chat_id=-100123&message_thread_id=7` });
  assert.equal(w.url, 'https://api.telegram.org/bot***/sendMessage');
  assert.deepEqual(w.options, { chat_id: '-100123', message_thread_id: '7' });
  const renamed = await api('PUT', `/api/webhooks/${w.id}`, { name: 'tg2', url: w.url });
  assert.equal(renamed.status, 200, renamed.text);
  assert.deepEqual(renamed.body.options, w.options);
  const moved = await api('PUT', `/api/webhooks/${w.id}`, { options: { chat_id: '@netprobe_ops' } });
  assert.equal(moved.status, 200, moved.text);
  assert.deepEqual(moved.body.options, { chat_id: '@netprobe_ops' });
  const generic = await api('PUT', `/api/webhooks/${w.id}`, { type: 'generic', url: `${rx.url}/hook` });
  assert.equal(generic.status, 200, generic.text);
  assert.deepEqual(generic.body.options, {});
  assert.equal((await api('DELETE', `/api/webhooks/${w.id}`)).status, 204);
});

test('validation errors name the field', async () => {
  const base = { name: 'v', url: `${rx.url}/hook` };
  const bad: [Record<string, unknown>, string][] = [
    [{ url: base.url }, 'name'],
    [{ ...base, url: 'ftp://example.net/x' }, 'url'],
    [{ ...base, url: 'not a url' }, 'url'],
    [{ ...base, url: 'javascript:alert(1)' }, 'url'],
    [{ ...base, alert_types: ['monitor_down', 'nope'] }, 'alert_types.1'],
    [{ ...base, alert_types: [] }, 'alert_types'],
    [{ ...base, cooldown: -1 }, 'cooldown'],
    [{ ...base, cooldown: 1.5 }, 'cooldown'],
    [{ ...base, type: 'carrier_pigeon' }, 'type'],
    [{ ...base, enabled: 'yes' }, 'enabled'],
    [{ ...base, secret: '' }, 'secret'],
    [{ ...base, surprise: 1 }, 'surprise'],
    [{ ...base, type: 'pagerduty', url: `${rx.url}/v2/enqueue` }, 'secret'],
    [{ ...base, type: 'opsgenie', url: `${rx.url}/wrong`, secret: 'k' }, 'url'],
    [{ ...base, type: 'telegram', url: `${rx.url}/bot1:abc/sendMessage` }, 'options.chat_id'],
    [{ ...base, type: 'telegram', url: `${rx.url}/bot1:abc/sendMessage`, options: { chat_id: 'my chat' } }, 'options.chat_id'],
    [{ ...base, type: 'telegram', url: `${rx.url}/bot1:abc/sendMessage`, options: { chat_id: '5', message_thread_id: 'x' } }, 'options.message_thread_id'],
    [{ ...base, type: 'telegram', url: `${rx.url}/bot1:abc/sendMessage`, options: { chat_id: '5', surprise: 1 } }, 'options.surprise'],
    [{ ...base, type: 'telegram', url: `${rx.url}/sendMessage`, options: { chat_id: '5' } }, 'url'],
    [{ ...base, options: { chat_id: '5' } }, 'options.chat_id'],
    [{ ...base, options: [] }, 'options'],
    [{ ...base, type: 'gotify', url: `${rx.url}/message` }, 'secret'],
  ];
  for (const [body, field] of bad) assertProblem(await api('POST', '/api/webhooks', body), 400, field);
  const w = await create(base);
  assertProblem(await api('PUT', `/api/webhooks/${w.id}`, { url: 'gopher://x' }), 400, 'url');
  assertProblem(await api('PUT', `/api/webhooks/${w.id}`, { type: 'pagerduty' }), 400, 'secret');
  assertProblem(await api('PUT', '/api/webhooks/00000000-0000-4000-8000-000000000000', { name: 'x' }), 404);
  assertProblem(await api('PUT', '/api/webhooks/not-a-uuid', { name: 'x' }), 404);
  assertProblem(await api('POST', '/api/webhooks/00000000-0000-4000-8000-000000000000/test'), 404);
  assert.equal((await api('DELETE', `/api/webhooks/${w.id}`)).status, 204);
  assertProblem(await api('DELETE', `/api/webhooks/${w.id}`), 404);
});

test('update: the redacted URL sent back keeps the stored one; secrets are kept, replaced or removed', async () => {
  const w = await create({ name: 'signed', url: `${rx.url}/in?token=abcd1234efgh`, secret: 's3cret-one' });
  assert.equal(w.url, `${rx.url}/in?token=***`);
  // A form sends everything back as it got it.
  const { id: _id, pending_deliveries: _p, last_delivery: _l, created_at: _c, updated_at: _u, ...form } = w;
  const u1 = await api('PUT', `/api/webhooks/${w.id}`, { ...form, name: 'signed-2' });
  assert.equal(u1.status, 200, u1.text);
  assert.equal(u1.body.name, 'signed-2');
  assert.deepEqual(u1.body.secret, { set: true });

  const n = rx.requests.length;
  const test1 = await api('POST', `/api/webhooks/${w.id}/test`);
  assert.equal(test1.status, 200, test1.text);
  assert.equal(test1.body.ok, true);
  const got = (await rx.waitFor(n + 1))[n]!;
  assert.equal(got.path, '/in?token=abcd1234efgh', 'the stored URL, token and all');
  assert.equal(got.headers['x-netprobe-signature'], signature('s3cret-one', got.body));

  assert.equal((await api('PUT', `/api/webhooks/${w.id}`, { secret: 'another-one' })).body.secret.set, true);
  await api('POST', `/api/webhooks/${w.id}/test`);
  assert.equal(rx.requests[n + 1]!.headers['x-netprobe-signature'], signature('another-one', rx.requests[n + 1]!.body));

  const removed = await api('PUT', `/api/webhooks/${w.id}`, { secret: null });
  assert.deepEqual(removed.body.secret, { set: false });
  await api('POST', `/api/webhooks/${w.id}/test`);
  assert.equal(rx.requests[n + 2]!.headers['x-netprobe-signature'], undefined);

  const audit = await api('GET', '/api/audit-log?action=webhooks.update&limit=10');
  assert.ok(audit.body.items.some((e: any) => e.details?.fields?.includes('secret')));
  assert.ok(!audit.text.includes('another-one') && !audit.text.includes('s3cret-one'));
  await api('DELETE', `/api/webhooks/${w.id}`);
});

test('test endpoint: a receiver that is fine, failing, down and slow; each attempt logged and audited', async () => {
  const fine = await create({ name: 'fine', url: `${rx.url}/fine` });
  rx.plan.push({ status: 200, body: 'thanks, got it' });
  const r1 = await api('POST', `/api/webhooks/${fine.id}/test`);
  assert.equal(r1.status, 200, r1.text);
  assert.equal(r1.body.ok, true);
  assert.equal(r1.body.status_code, 200);
  assert.equal(typeof r1.body.latency_ms, 'number');
  assert.equal(r1.body.response_excerpt, 'thanks, got it');
  assert.equal(r1.body.error, undefined);
  const sent = rx.requests.at(-1)!;
  assert.equal(sent.json.alert.type, 'test');
  assert.equal(sent.headers['x-netprobe-event'], 'test');

  rx.plan.push({ status: 500, body: 'database on fire '.repeat(40) });
  const r2 = await api('POST', `/api/webhooks/${fine.id}/test`);
  assert.equal(r2.body.ok, false);
  assert.equal(r2.body.status_code, 500);
  assert.match(r2.body.error, /HTTP 500/);
  assert.ok(r2.body.response_excerpt.startsWith('database on fire'));
  assert.ok(r2.body.response_excerpt.length <= 200, 'a short excerpt');

  const down = await create({ name: 'down', url: `http://127.0.0.1:${await freePort()}/hook` });
  const r3 = await api('POST', `/api/webhooks/${down.id}/test`);
  assert.equal(r3.status, 200);
  assert.equal(r3.body.ok, false);
  assert.equal(r3.body.status_code, null);
  assert.match(r3.body.error, /ECONNREFUSED/);

  rx.plan.push({ status: 200, delayMs: 3000 });
  const r4 = await api('POST', `/api/webhooks/${fine.id}/test`);
  assert.equal(r4.body.ok, false);
  assert.match(r4.body.error, /no response within 1 s/);

  const log = await api('GET', `/api/dev/webhooks/recent?webhook_id=${fine.id}`);
  assert.equal(log.status, 200, log.text);
  assert.deepEqual(log.body.items.map((a: any) => [a.outcome, a.ok, a.status_code]).slice(0, 3),
    [['test', false, null], ['test', false, 500], ['test', true, 200]]);
  assert.equal(log.body.items[2].response_excerpt, 'thanks, got it');
  const audit = await api('GET', '/api/audit-log?action=webhooks.test&limit=10');
  assert.deepEqual(audit.body.items.slice(0, 4).map((e: any) => e.outcome), ['failure', 'failure', 'failure', 'success']);
  await api('DELETE', `/api/webhooks/${fine.id}`);
  await api('DELETE', `/api/webhooks/${down.id}`);
});

test('tokens echoed back by a receiver are scrubbed from the excerpt, the attempt log and the log', async () => {
  const token = 'tok3n-in-the-query-9f8e7d';
  const w = await create({ name: 'echo', url: `${rx.url}/echo?token=${token}` });
  rx.plan.push({ status: 401, body: `invalid token ${token}` });
  const r = await api('POST', `/api/webhooks/${w.id}/test`);
  assert.equal(r.body.ok, false);
  assert.equal(r.body.response_excerpt, 'invalid token ***');
  const log = await api('GET', '/api/dev/webhooks/recent');
  assert.ok(!log.text.includes(token));
  assert.ok(!t.logs.join('\n').includes(token));
  await api('DELETE', `/api/webhooks/${w.id}`);
});

test('the dev endpoints are for admins only', async () => {
  const op = await t.user('operator', ['webhooks:write']);
  assertProblem(await api('GET', '/api/dev/webhooks/recent', undefined, op.key), 403);
  assertProblem(await api('GET', '/api/dev/alerts/recent', undefined, op.key), 403);
  assert.equal((await api('GET', '/api/webhooks', undefined, op.key)).status, 200);
  const viewer = await t.user('viewer', ['webhooks:read']);
  assertProblem(await api('POST', '/api/webhooks', { name: 'x', url: `${rx.url}/x` }, viewer.key), 403);
});
