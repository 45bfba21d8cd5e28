// A webhook's stored secrets stay with its destination (the URL's scheme, host and port, and the type):
// an operator who points an administrator's webhook at another receiver and presses Test must not
// receive the key, token or routing key the administrator stored. Two receivers on loopback (two ports,
// two origins): `admin` is where the administrator pointed the webhook, `other` the operator's host.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { signature } from '../../src/modules/webhooks/providers/generic.js';
import { assertProblem, startTestApp, type TestApp } from '../helpers/harness.js';
import { Receiver, type Received } from '../helpers/webhook-receiver.js';

let t: TestApp;
let adminKey: string;
let opKey: string;
let admin: Receiver;
let other: Receiver;

before(async () => {
  t = await startTestApp();
  adminKey = (await t.admin()).key;
  opKey = (await t.user('operator', ['webhooks:write'])).key;
  [admin, other] = await Promise.all([Receiver.start(), Receiver.start()]);
});
after(async () => {
  await t.close();
  await Promise.all([admin.close(), other.close()]);
});

const api = (method: string, path: string, body: unknown, key: string) => t.request(method, path, { key, body });

async function adminCreates(body: Record<string, unknown>): Promise<string> {
  const r = await api('POST', '/api/webhooks', { name: `w-${String(body.type)}-${Math.random()}`, ...body }, adminKey);
  assert.equal(r.status, 201, r.text);
  return r.body.id;
}

/** Presses Test as the operator; returns what each receiver got from it. */
async function pressTest(id: string): Promise<{ admin: Received[]; other: Received[] }> {
  const [a, o] = [admin.requests.length, other.requests.length];
  const r = await api('POST', `/api/webhooks/${id}/test`, undefined, opKey);
  assert.equal(r.status, 200, r.text);
  return { admin: admin.requests.slice(a), other: other.requests.slice(o) };
}

const leaks = (got: Received[], secret: string) => got.some((g) => JSON.stringify(g.headers).includes(secret) || g.body.includes(secret));

test('Opsgenie and PagerDuty: a new address with the key left out or {set: true} is refused, and Test sends the key nowhere new', async () => {
  const cases = [
    { type: 'opsgenie', path: '/v2/alerts', secret: 'genie-key-0f9e8d7c6b5a' },
    { type: 'pagerduty', path: '/v2/enqueue', secret: 'R0UT1NGKEYR0UT1NGKEYR0UT1NGKEY12' },
  ];
  for (const c of cases) {
    const id = await adminCreates({ url: `${admin.url}${c.path}`, type: c.type, secret: c.secret });
    for (const secret of [undefined, { set: true }]) {
      const r = await api('PUT', `/api/webhooks/${id}`, { url: `${other.url}${c.path}`, type: c.type, secret }, opKey);
      assertProblem(r, 400, 'secret');
      assert.match(r.body.errors.find((e: any) => e.path === 'secret').message, /not sent to a new destination.*send them again/);
      const got = await pressTest(id);
      assert.equal(got.other.length, 0, `${c.type}: nothing reached the operator's host`);
      assert.ok(leaks(got.admin, c.secret), `${c.type}: the webhook still goes where the administrator pointed it`);
    }
    // Sent again in the same request, the key goes to the new address.
    const again = await api('PUT', `/api/webhooks/${id}`, { url: `${other.url}${c.path}`, type: c.type, secret: `${c.secret}-new` }, opKey);
    assert.equal(again.status, 200, again.text);
    assert.equal(again.body.secrets_dropped, undefined);
    const got = await pressTest(id);
    assert.ok(leaks(got.other, `${c.secret}-new`), `${c.type}: the key sent with the new address is used`);
  }
});

test('Gotify and ntfy: the token is dropped on a new address, the answer and the audit say so, Test sends none', async () => {
  const gotifyToken = 'AgotifyAppToken42';
  const ntfyToken = 'tk_ntfyaccesstoken0123456789';
  const cases = [
    { type: 'gotify', from: `${admin.url}/message`, to: `${other.url}/message?token=mine`, secret: gotifyToken },
    { type: 'ntfy', from: `${admin.url}/alerts-a1b2`, to: `${other.url}/mine`, secret: ntfyToken },
  ];
  for (const c of cases) {
    for (const secret of [undefined, { set: true }]) {
      const id = await adminCreates({ url: c.from, type: c.type, secret: c.secret });
      const r = await api('PUT', `/api/webhooks/${id}`, { url: c.to, type: c.type, ...(secret ? { secret } : {}) }, opKey);
      assert.equal(r.status, 200, r.text);
      assert.deepEqual(r.body.secrets_dropped, ['secret']);
      assert.deepEqual(r.body.secret, { set: false });
      const got = await pressTest(id);
      assert.equal(got.other.length, 1, `${c.type}: the test went to the new address`);
      assert.ok(!leaks(got.other, c.secret), `${c.type}: without the stored token`);
      const audit = await api('GET', '/api/audit-log?action=webhooks.update&limit=1', undefined, adminKey);
      assert.deepEqual(audit.body.items[0].details.secrets_dropped, ['secret']);
      assert.ok(audit.body.items[0].details.fields.includes('secret'));
    }
  }
});

test('a new type is a new destination: the secret is dropped; a URL with tokens must be sent whole', async () => {
  const id = await adminCreates({ url: `${admin.url}/message`, type: 'gotify', secret: 'AgotifyAppToken43' });
  const r = await api('PUT', `/api/webhooks/${id}`, { type: 'generic' }, opKey);
  assert.equal(r.status, 200, r.text);
  assert.deepEqual(r.body.secrets_dropped, ['secret']);
  const got = await pressTest(id);
  assert.equal(got.admin[0]!.headers['x-netprobe-signature'], undefined, 'not signed with the old token');

  // The ntfy topic is a token: under another type it would be shown (and sent as a plain path).
  const topic = 'secret-topic-7x9y';
  const n = await adminCreates({ url: `${admin.url}/${topic}`, type: 'ntfy' });
  const shown = (await api('GET', '/api/webhooks', undefined, opKey)).body.items.find((w: any) => w.id === n).url;
  assert.equal(shown, `${admin.url}/***`);
  assertProblem(await api('PUT', `/api/webhooks/${n}`, { type: 'generic' }, opKey), 400, 'url');
  assertProblem(await api('PUT', `/api/webhooks/${n}`, { type: 'generic', url: shown }, opKey), 400, 'url');
  const whole = await api('PUT', `/api/webhooks/${n}`, { type: 'generic', url: `${admin.url}/${topic}` }, opKey);
  assert.equal(whole.status, 200, whole.text);
  assert.equal(whole.body.secrets_dropped, undefined);
});

test('the same origin keeps the secret: a new name, path or query', async () => {
  const secret = 'hmac-same-origin-1234';
  const id = await adminCreates({ url: `${admin.url}/hooks/a`, type: 'generic', secret });
  const r = await api('PUT', `/api/webhooks/${id}`, { name: 'renamed', url: `${admin.url}/hooks/b?x=1`,
    secret: { set: true } }, opKey);
  assert.equal(r.status, 200, r.text);
  assert.equal(r.body.secrets_dropped, undefined);
  assert.deepEqual(r.body.secret, { set: true });
  const got = (await pressTest(id)).admin[0]!;
  assert.equal(got.path, '/hooks/b?x=1');
  assert.equal(got.headers['x-netprobe-signature'], signature(secret, got.body));
});
