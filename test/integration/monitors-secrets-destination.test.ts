// A monitor's stored secrets (bearer token, basic password, credential headers) stay with its
// destination: the check type and the target's origin. An operator who points an administrator's HTTP
// monitor at another server must not receive them. Two HTTP servers on loopback (two ports, two
// origins) record what each request carried: `admin` is the administrator's target, `other` the operator's.
import assert from 'node:assert/strict';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import { assertProblem, startTestApp, type TestApp } from '../helpers/harness.js';

interface Recorder { server: Server; url: string; got: { path: string; headers: IncomingHttpHeaders }[] }

async function recorder(): Promise<Recorder> {
  const got: Recorder['got'] = [];
  const server = createServer((req, res) => { got.push({ path: req.url ?? '', headers: req.headers }); res.end('ok'); });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, got };
}

let t: TestApp;
let adminKey: string;
let opKey: string;
let admin: Recorder;
let other: Recorder;

before(async () => {
  t = await startTestApp();
  adminKey = (await t.admin()).key;
  opKey = (await t.user('operator', ['monitors:write'])).key;
  [admin, other] = await Promise.all([recorder(), recorder()]);
});
after(async () => {
  await t.close();
  for (const r of [admin, other]) { r.server.closeAllConnections(); r.server.close(); }
});

const api = (method: string, path: string, body: unknown, key: string) => t.request(method, path, { key, body });

async function adminCreates(settings: Record<string, unknown>): Promise<any> {
  const r = await api('POST', '/api/monitors', { name: `m-${Math.random()}`, check_type: 'http', target: `${admin.url}/health`,
    interval: 3600, timeout: 2, settings }, adminKey);
  assert.equal(r.status, 201, r.text);
  return r.body;
}

/** Runs the check now as the operator (and lets the one an update starts land too). */
async function checkNow(id: string): Promise<void> {
  const r = await api('POST', `/api/monitors/${id}/check`, undefined, opKey);
  assert.equal(r.status, 200, r.text);
}

const carries = (got: Recorder['got'], secret: string) => got.some((g) => JSON.stringify(g.headers).includes(secret));

test('a new target origin with the token or password left out or sent back as {set: true} is refused; nothing reaches it', async () => {
  const cases = [
    { auth: { type: 'bearer', token: 'tok-admin-5f4e3d2c' }, resent: { type: 'bearer', token: 'tok-new-1' }, path: 'settings.auth.token',
      sent: 'Bearer tok-new-1' },
    { auth: { type: 'basic', username: 'probe', password: 'pw-admin-9a8b7c' }, resent: { type: 'basic', username: 'probe', password: 'pw-2' },
      path: 'settings.auth.password', sent: `Basic ${Buffer.from('probe:pw-2').toString('base64')}` },
  ];
  for (const c of cases) {
    const m = await adminCreates({ auth: c.auth });
    for (const settings of [undefined, m.settings]) {
      const r = await api('PUT', `/api/monitors/${m.id}`, { target: `${other.url}/health`, ...(settings ? { settings } : {}) }, opKey);
      assertProblem(r, 400, c.path);
      assert.match(r.body.errors.find((e: any) => e.path === c.path).message, /not sent to a new destination.*send it again/);
    }
    await checkNow(m.id);
    assert.equal(other.got.length, 0, 'the operator\'s server got nothing');

    // Sent again in the same request, the secret goes to the new target.
    const again = await api('PUT', `/api/monitors/${m.id}`, { target: `${other.url}/health`, settings: { auth: c.resent } }, opKey);
    assert.equal(again.status, 200, again.text);
    assert.equal(again.body.secrets_dropped, undefined);
    await checkNow(m.id);
    assert.equal(other.got.at(-1)!.headers.authorization, c.sent, 'the secret sent with the new target is used');
    other.got.length = 0;
    await api('DELETE', `/api/monitors/${m.id}`, undefined, adminKey);
  }
});

test('a credential header is dropped on a new origin; the answer and the audit say so; other headers stay', async () => {
  const apiKey = 'key-admin-0a1b2c3d4e';
  const m = await adminCreates({ headers: { 'X-API-Key': apiKey, 'X-Tenant': 'blue' } });
  const r = await api('PUT', `/api/monitors/${m.id}`, { target: `${other.url}/health` }, opKey);
  assert.equal(r.status, 200, r.text);
  assert.deepEqual(r.body.secrets_dropped, ['settings.headers.X-API-Key']);
  assert.deepEqual(r.body.settings.headers, { 'X-Tenant': 'blue' });
  await checkNow(m.id);
  assert.ok(other.got.length > 0, 'checked at the new target');
  assert.ok(!carries(other.got, apiKey), 'without the stored key');
  assert.ok(other.got.every((g) => g.headers['x-tenant'] === 'blue'));
  const audit = await api('GET', '/api/audit-log?action=monitors.update&limit=1', undefined, adminKey);
  assert.deepEqual(audit.body.items[0].details.secrets_dropped, ['settings.headers.X-API-Key']);
  other.got.length = 0;

  // Sent back as {set: true} with a new origin: dropped as well.
  const m2 = await adminCreates({ headers: { 'X-API-Key': apiKey } });
  const r2 = await api('PUT', `/api/monitors/${m2.id}`, { target: `${other.url}/`, settings: m2.settings }, opKey);
  assert.equal(r2.status, 200, r2.text);
  assert.deepEqual(r2.body.secrets_dropped, ['settings.headers.X-API-Key']);
  await checkNow(m2.id);
  assert.ok(!carries(other.got, apiKey));
  other.got.length = 0;
  for (const id of [m.id, m2.id]) await api('DELETE', `/api/monitors/${id}`, undefined, adminKey);
});

test('the same origin keeps the secrets (a new path); a new check type drops them', async () => {
  const token = 'tok-same-origin-77aa';
  const m = await adminCreates({ auth: { type: 'bearer', token }, headers: { 'X-API-Key': 'k-same-origin-88bb' } });
  const r = await api('PUT', `/api/monitors/${m.id}`, { target: `${admin.url}/other?x=1`, settings: m.settings }, opKey);
  assert.equal(r.status, 200, r.text);
  assert.equal(r.body.secrets_dropped, undefined);
  admin.got.length = 0;
  await checkNow(m.id);
  const last = admin.got.at(-1)!;
  assert.equal(last.path, '/other?x=1');
  assert.equal(last.headers.authorization, `Bearer ${token}`);
  assert.equal(last.headers['x-api-key'], 'k-same-origin-88bb');

  const tcp = await api('PUT', `/api/monitors/${m.id}`, { check_type: 'tcp', target: new URL(admin.url).host }, opKey);
  assert.equal(tcp.status, 200, tcp.text);
  assert.deepEqual(tcp.body.secrets_dropped, ['settings.auth.token', 'settings.headers.X-API-Key']);
  await api('DELETE', `/api/monitors/${m.id}`, undefined, adminKey);
});
