// The service's own secrets at rest (src/core/secretbox.ts): HTTP monitor credentials and webhook signing
// secrets and URL tokens are sealed with the machine key, so netprobe.db and netprobe.journal never hold
// them in clear; after a restart checks still authenticate against a real server and the webhook still
// signs; clear values written by an earlier build are sealed at start; and a database restored onto a
// probe without its machine key keeps working as far as it can, with clear errors where a secret is needed.
import assert from 'node:assert/strict';
import { createHmac, randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { copyFile, mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { isSealed, MACHINE_KEY_FILE, openSecretBox } from '../../src/core/secretbox.js';
import { JOURNAL_FILE, openStore, SNAPSHOT_FILE } from '../../src/core/store/index.js';
import { MIGRATIONS } from '../../src/main.js';
import { raiseAlert } from '../../src/modules/webhooks/index.js';
import { startTestApp, type TestApp, type TestResponse } from '../helpers/harness.js';
import { Receiver } from '../helpers/webhook-receiver.js';

const S = {
  password: 'Basic-Pass-Wren-4471',
  token: 'Bearer-Token-Heron-8823',
  apiKey: 'Api-Key-Finch-3391',
  signing: 'Signing-Secret-Owl-5562',
  urlToken: 'UrlToken-Kite-7719',
};
/** Each secret as it could leak: as is, base64, hex, JSON-escaped. */
const NEEDLES = Object.values(S).flatMap((v) => [v, Buffer.from(v).toString('base64'), Buffer.from(v).toString('hex')]);

function assertNoSecrets(name: string, bytes: Buffer | string): void {
  const b = Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes);
  for (const n of NEEDLES) assert.equal(b.indexOf(n), -1, `${name} holds a secret in clear (${n.slice(0, 10)}…)`);
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
async function until(what: string, ok: () => boolean | Promise<boolean>, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await ok())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(20);
  }
}

/** A server on 127.0.0.1 that answers 200 only with the right credentials: /basic and /bearer, both with X-API-Key. */
async function protectedServer(): Promise<{ server: Server; base: string }> {
  const server = createServer((req, res) => {
    const auth = req.headers.authorization ?? '';
    const basic = req.url === '/basic' && auth === `Basic ${Buffer.from(`probe:${S.password}`).toString('base64')}`;
    const bearer = req.url === '/bearer' && auth === `Bearer ${S.token}`;
    const ok = (basic || bearer) && req.headers['x-api-key'] === S.apiKey;
    res.writeHead(ok ? 200 : 401, { 'content-type': 'text/plain' }).end(ok ? 'welcome' : 'who are you');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { server, base: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

interface Setup { basic: string; bearer: string; hook: string }
const hookUrl = (rx: Receiver) => `${rx.url}/hook?token=${S.urlToken}`;
const BASIC = { type: 'basic', username: 'probe', password: S.password };
const BEARER = { type: 'bearer', token: S.token };
const HEADERS = { 'X-API-Key': S.apiKey, Accept: 'text/plain' };
/** Every stored secret as the tables hold it, in a fixed order. */
const storedRows = (t: TestApp) => t.service.app.store.all('SELECT id, settings FROM monitors ORDER BY id')
  .concat(t.service.app.store.all('SELECT id, url, secret FROM webhooks ORDER BY id'));
type Call = (method: string, path: string, body?: unknown) => Promise<TestResponse>;
const caller = (t: TestApp, key: string): Call => (method, path, body) => t.request(method, path, { key, body });

async function createAll(call: Call, base: string, rx: Receiver): Promise<Setup> {
  const mk = async (name: string, path: string, auth: Record<string, string>) => {
    const r = await call('POST', '/api/monitors', {
      name, check_type: 'http', target: `${base}${path}`, interval: 3600, timeout: 5,
      settings: { auth, headers: HEADERS },
    });
    assert.equal(r.status, 201, r.text);
    assert.deepEqual(r.body.settings.auth, { ...auth, ...('password' in auth ? { password: { set: true } } : { token: { set: true } }) });
    assert.deepEqual(r.body.settings.headers, { 'X-API-Key': { set: true }, Accept: 'text/plain' });
    return r.body.id as string;
  };
  const basic = await mk('basic', '/basic', BASIC);
  const bearer = await mk('bearer', '/bearer', BEARER);
  const w = await call('POST', '/api/webhooks', { name: 'ops', url: hookUrl(rx), secret: S.signing, type: 'generic' });
  assert.equal(w.status, 201, w.text);
  assert.equal(w.body.url, `${rx.url}/hook?token=***`);
  assert.deepEqual(w.body.secret, { set: true });
  return { basic, bearer, hook: w.body.id };
}

/** Both monitors authenticate; the webhook's test request carries the URL token and a valid signature. */
async function assertWorking(call: Call, s: Setup, rx: Receiver): Promise<void> {
  for (const id of [s.basic, s.bearer]) {
    const r = await call('POST', `/api/monitors/${id}/check`);
    assert.equal(r.status, 200, r.text);
    assert.equal(r.body.result.status, 'up', r.body.result.message);
  }
  const n = rx.requests.length;
  const r = await call('POST', `/api/webhooks/${s.hook}/test`);
  assert.equal(r.status, 200, r.text);
  assert.equal(r.body.ok, true, r.text);
  const [got] = (await rx.waitFor(n + 1)).slice(n);
  assert.equal(got!.path, `/hook?token=${S.urlToken}`);
  const expected = `sha256=${createHmac('sha256', S.signing).update(got!.body).digest('hex')}`;
  assert.equal(got!.headers['x-netprobe-signature'], expected);
}

/** Stored values straight from the tables: every secret is an envelope. */
function assertSealedRows(t: TestApp): void {
  const store = t.service.app.store;
  for (const m of store.all<{ settings: string }>('SELECT settings FROM monitors')) {
    const s = JSON.parse(m.settings);
    assert.ok(isSealed(s.auth.password ?? s.auth.token), m.settings);
    assert.ok(isSealed(s.headers['X-API-Key']), m.settings);
    assert.equal(s.headers.Accept, 'text/plain', 'settings that are not secret stay readable');
  }
  for (const w of store.all<{ url: string; secret: string }>('SELECT url, secret FROM webhooks')) {
    assert.ok(isSealed(w.url) && isSealed(w.secret), JSON.stringify(w));
  }
}

const dirFiles = async (dir: string) => ({
  db: await readFile(join(dir, SNAPSHOT_FILE)),
  journal: await readFile(join(dir, JOURNAL_FILE)),
});

describe('secrets at rest', () => {
  let srv: { server: Server; base: string };
  let rx: Receiver;
  const dirs: string[] = [];
  const newDir = async () => { const d = await mkdtemp(join(tmpdir(), 'netprobe-secrets-')); dirs.push(d); return d; };
  before(async () => { srv = await protectedServer(); rx = await Receiver.start(); });
  after(async () => {
    srv.server.closeAllConnections();
    await new Promise<void>((r) => srv.server.close(() => r()));
    await rx.close();
    for (const d of dirs) await rm(d, { recursive: true, force: true });
  });

  test('netprobe.db and the journal never hold them in clear; after a restart checks authenticate and the webhook signs', async () => {
    const dir = await newDir();
    let t: TestApp | undefined = await startTestApp({ dataDir: dir });
    const logs: string[] = [];
    try {
      const admin = await t.admin();
      let call = caller(t, admin.key);
      const s = await createAll(call, srv.base, rx);
      await assertWorking(call, s, rx);
      assertSealedRows(t);
      assertNoSecrets('netprobe.journal before any checkpoint', await readFile(join(dir, JOURNAL_FILE)));

      // Update semantics: markers sent back (GET -> PUT) keep the stored envelopes as they are.
      const before = storedRows(t);
      const m = (await call('GET', `/api/monitors/${s.basic}`)).body;
      const pm = await call('PUT', `/api/monitors/${s.basic}`, { settings: m.settings, target: m.target });
      assert.equal(pm.status, 200, pm.text);
      const w = (await call('GET', '/api/webhooks')).body.items[0];
      const pw = await call('PUT', `/api/webhooks/${s.hook}`, { url: w.url, secret: w.secret, name: 'ops renamed' });
      assert.equal(pw.status, 200, pw.text);
      assert.deepEqual(pw.body.secret, { set: true });
      assert.deepEqual(storedRows(t), before, 'nothing changed, not even the envelopes');
      await assertWorking(call, s, rx);

      await t.close({ keepData: true });
      logs.push(...t.logs);
      t = undefined;
      const files = await dirFiles(dir);
      assertNoSecrets(SNAPSHOT_FILE, files.db);
      assertNoSecrets(JOURNAL_FILE, files.journal);
      assert.ok(files.db.includes('enc1:'), 'the snapshot holds the envelopes');
      assert.equal((await stat(join(dir, MACHINE_KEY_FILE))).mode & 0o777, 0o600);

      t = await startTestApp({ dataDir: dir });
      const cookie = await t.login(admin.username, admin.password);
      const k = await t.request('POST', '/api/api-keys', { cookie, body: { name: 'after-restart', scopes: ['admin'] } });
      call = caller(t, k.body.key);
      await assertWorking(call, s, rx);
      logs.push(...t.logs);
      assertNoSecrets('the log', logs.join('\n'));
    } finally {
      await t?.close({ keepData: true });
    }
  });

  test('an earlier build\'s clear values are sealed at start (once), scrubbed from netprobe.db, and keep working', async () => {
    const dir = await newDir();
    let t: TestApp | undefined = await startTestApp({ dataDir: dir });
    try {
      const admin = await t.admin();
      const s = await createAll(caller(t, admin.key), srv.base, rx);
      await t.close({ keepData: true });
      t = undefined;

      // Write the rows as a build without sealing stored them: every secret in clear.
      const box = await openSecretBox(dir);
      const old = await openStore({ dir, migrations: MIGRATIONS });
      await old.write((tx) => {
        for (const m of tx.all<{ pk: number; settings: string }>('SELECT pk, settings FROM monitors')) {
          const clear = m.settings.replace(/"(enc1:[^"]+)"/g, (_, env: string) => JSON.stringify(box.open(env)));
          tx.run('UPDATE monitors SET settings = ? WHERE pk = ?', [clear, m.pk]);
        }
        tx.run('UPDATE webhooks SET url = ?, secret = ?', [hookUrl(rx), S.signing]);
      }, 'sync');
      await old.close();
      const patched = (await dirFiles(dir)).db;
      for (const v of [S.password, S.signing, S.urlToken]) assert.ok(patched.includes(v), 'the patch wrote clear values');

      t = await startTestApp({ dataDir: dir });
      assertSealedRows(t);
      assertNoSecrets(`${SNAPSHOT_FILE} after the start`, (await dirFiles(dir)).db);
      assert.ok(t.logs.some((l) => l.includes('sealed monitor secrets stored in clear')), 'monitors sealed at start');
      assert.ok(t.logs.some((l) => l.includes('sealed webhook secrets stored in clear')), 'webhooks sealed at start');
      const cookie = await t.login(admin.username, admin.password);
      const k = await t.request('POST', '/api/api-keys', { cookie, body: { name: 'upgraded', scopes: ['admin'] } });
      await assertWorking(caller(t, k.body.key), s, rx);
      const sealed = storedRows(t);
      await t.close({ keepData: true });

      // Idempotent: the next start finds nothing in clear and changes nothing.
      t = await startTestApp({ dataDir: dir });
      assert.ok(!t.logs.some((l) => l.includes('stored in clear')), 'nothing sealed the second time');
      assert.deepEqual(storedRows(t), sealed);
      await t.close({ keepData: true });
      t = undefined;
      const files = await dirFiles(dir);
      assertNoSecrets(SNAPSHOT_FILE, files.db);
      assertNoSecrets(JOURNAL_FILE, files.journal);
    } finally {
      await t?.close({ keepData: true });
    }
  });

  test('restored onto a probe without the machine key: lists work, checks and deliveries fail clearly until re-entered', async () => {
    const dir = await newDir();
    let t: TestApp | undefined = await startTestApp({ dataDir: dir });
    try {
      const admin = await t.admin();
      const s = await createAll(caller(t, admin.key), srv.base, rx);
      await t.close({ keepData: true });
      t = undefined;

      // Another probe: the database and journal copied, not machine.key (a new one is made).
      const other = await newDir();
      for (const f of [SNAPSHOT_FILE, JOURNAL_FILE]) await copyFile(join(dir, f), join(other, f));
      t = await startTestApp({ dataDir: other });
      assert.ok(t.logs.some((l) => l.includes('monitor secrets cannot be decrypted')), 'warned about monitors');
      assert.ok(t.logs.some((l) => l.includes('webhook secrets cannot be decrypted')), 'warned about webhooks');
      const cookie = await t.login(admin.username, admin.password);
      const k = await t.request('POST', '/api/api-keys', { cookie, body: { name: 'restored', scopes: ['admin'] } });
      const call = caller(t, k.body.key);

      const list = await call('GET', '/api/monitors');
      assert.equal(list.status, 200, list.text);
      for (const m of list.body.monitors) assert.deepEqual(m.settings.headers['X-API-Key'], { set: true });
      assert.equal((await call('GET', `/api/monitors/${s.basic}`)).status, 200);
      const hooks = await call('GET', '/api/webhooks');
      assert.equal(hooks.status, 200, hooks.text);
      assert.equal(hooks.body.items[0].url, '***');
      assert.deepEqual(hooks.body.items[0].secret, { set: true });

      const c = await call('POST', `/api/monitors/${s.basic}/check`);
      assert.equal(c.status, 200, c.text);
      assert.equal(c.body.result.status, 'down');
      assert.equal(c.body.result.message,
        'stored secret cannot be decrypted: re-enter it (settings.auth.password, settings.headers.X-API-Key)');

      const n = rx.requests.length;
      const test1 = await call('POST', `/api/webhooks/${s.hook}/test`);
      assert.equal(test1.status, 200, test1.text);
      assert.equal(test1.body.ok, false);
      assert.equal(test1.body.error, 'stored secret cannot be decrypted: re-enter it (url, secret)');
      await raiseAlert(t.service.app, {
        type: 'monitor_down', subject: `monitor/${s.basic}`, title: 'DOWN: basic', message: 'basic is down',
        occurred_at: new Date().toISOString(),
        monitor: { id: s.basic, name: 'basic', target: `${srv.base}/basic`, check_type: 'http', tags: [] },
      });
      await until('the delivery to fail', async () =>
        (await call('GET', '/api/dev/webhooks/recent')).body.items.some((a: any) => a.outcome === 'failed'));
      const failed = (await call('GET', '/api/dev/webhooks/recent')).body.items.find((a: any) => a.outcome === 'failed');
      assert.equal(failed.error, 'stored secret cannot be decrypted: re-enter it (url, secret)');
      assert.equal(rx.requests.length, n, 'nothing was sent');

      // Changes that do not touch the secrets keep the stored envelopes; re-entering them makes it work.
      const settingsOf = (id: string) =>
        t!.service.app.store.get<{ settings: string }>('SELECT settings FROM monitors WHERE id = ?', [id])!.settings;
      const before = settingsOf(s.basic);
      const rename = await call('PUT', `/api/monitors/${s.basic}`, { name: 'basic renamed' });
      assert.equal(rename.status, 200, rename.text);
      const withMarkers = await call('PUT', `/api/monitors/${s.basic}`, { settings: rename.body.settings });
      assert.equal(withMarkers.status, 200, withMarkers.text);
      assert.equal(settingsOf(s.basic), before);
      assert.equal((await call('PUT', `/api/webhooks/${s.hook}`, { name: 'ops renamed' })).status, 200);

      for (const [id, auth] of [[s.basic, BASIC], [s.bearer, BEARER]] as const) {
        const r = await call('PUT', `/api/monitors/${id}`, { settings: { auth, headers: HEADERS } });
        assert.equal(r.status, 200, r.text);
      }
      const w = await call('PUT', `/api/webhooks/${s.hook}`, { url: hookUrl(rx), secret: S.signing });
      assert.equal(w.status, 200, w.text);
      await assertWorking(call, s, rx);
      assertSealedRows(t);
      assertNoSecrets('the log', t.logs.join('\n'));
    } finally {
      await t?.close({ keepData: true });
    }
  });

  test('a value that looks like an envelope is still sealed as a new secret', async () => {
    const dir = await newDir();
    const t = await startTestApp({ dataDir: dir });
    try {
      const admin = await t.admin();
      const call = caller(t, admin.key);
      const lookalike = `enc1:${Buffer.from(randomUUID().repeat(2)).toString('base64')}`;
      const r = await call('POST', '/api/webhooks', { name: 'lookalike', url: `${rx.url}/hook`, secret: lookalike });
      assert.equal(r.status, 201, r.text);
      const stored = t.service.app.store.get<{ url: string; secret: string }>('SELECT url, secret FROM webhooks WHERE id = ?',
        [r.body.id])!;
      assert.equal(stored.url, `${rx.url}/hook`, 'a URL without a token stays readable');
      assert.notEqual(stored.secret, lookalike);
      assert.equal(t.service.app.secretbox.open(stored.secret), lookalike);
    } finally {
      await t.close({ keepData: true });
    }
  });
});
