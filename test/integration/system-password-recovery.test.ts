// Password recovery by e-mail against real SMTP servers on loopback (the smtp-server package as a sink):
// the same answer for known and unknown accounts, the temporary password that works once within 30
// minutes and forces a new password, the old password and sessions valid until then, refused logins and
// a server that is down recorded as outcomes, the answer without SMTP, rate limits, and no secret in any
// response, log line, audit entry or file.
import assert from 'node:assert/strict';
import { createServer as createTcpServer, type AddressInfo } from 'node:net';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { ManualClock } from '../../src/core/clock.js';
import { selfSigned } from '../helpers/certs.js';
import { assertProblem, startTestApp, type TestApp, type TestResponse } from '../helpers/harness.js';
import { sink, until, type Received, type Sink } from '../helpers/smtp-sink.js';

/** A loopback port nothing listens on. */
async function deadPort(): Promise<number> {
  const s = createTcpServer();
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
  const port = (s.address() as AddressInfo).port;
  await new Promise<void>((resolve) => s.close(() => resolve()));
  return port;
}

async function appWithConfig(yaml: string, clock?: ManualClock): Promise<TestApp> {
  const dir = await mkdtemp(join(tmpdir(), 'netprobe-recovery-it-'));
  await writeFile(join(dir, 'config.yaml'), yaml);
  const app = await startTestApp({ dataDir: dir, clock });
  const close = app.close.bind(app);
  app.close = async (o) => { await close(o); await rm(dir, { recursive: true, force: true }); };
  return app;
}

async function dataDirText(dir: string): Promise<string> {
  let out = '';
  for (const f of await readdir(dir, { recursive: true, withFileTypes: true })) {
    if (f.isFile()) out += (await readFile(join(f.parentPath, f.name))).toString('latin1');
  }
  return out;
}

const cookieOf = (r: TestResponse) => (r.headers.get('set-cookie') ?? '').split(';')[0]!;
const tempOf = (m: Received) => {
  const hit = /Temporary password: (\S+)/.exec(m.raw);
  assert.ok(hit, `no temporary password in the message:\n${m.raw}`);
  return hit[1]!;
};

const SMTP_SECRET = 'smtp-Secret-Pa55word-x9';

describe('password recovery by e-mail', () => {
  const clock = new ManualClock(Date.parse('2026-03-01T10:00:00Z'));
  let t: TestApp;
  let admin: Awaited<ReturnType<TestApp['admin']>>;
  let plain: Sink, tls: Sink, refusing: Sink;
  let alice: { id: string; username: string; password: string; cookie: string };
  const temps: string[] = [];
  const seen: string[] = []; // every response body, searched for secrets at the end
  const req = async (method: string, path: string, o: Parameters<TestApp['request']>[2] = {}) => {
    const r = await t.request(method, path, o);
    seen.push(r.text);
    return r;
  };
  const setSmtp = (smtp: Record<string, unknown>) =>
    t.service.app.config.update({ smtp: { host: null, port: null, security: null, user: null, password: null, verify_certificate: null, ...smtp } });
  const recent = async () => (await req('GET', '/api/dev/emails/recent', { key: admin.key })).body.items as any[];
  const forgot = (body: unknown, headers?: Record<string, string>) => req('POST', '/api/auth/forgot-password', { body, headers });
  const login = (body: Record<string, unknown>) => req('POST', '/api/auth/login', { body });

  before(async () => {
    const cert = await selfSigned();
    plain = await sink();
    tls = await sink({
      key: cert.key, cert: cert.cert, disabledCommands: [], allowInsecureAuth: false, authOptional: false,
      onAuth(auth, _s, cb) {
        if (auth.username === 'probe' && auth.password === SMTP_SECRET) cb(null, { user: 'probe' });
        else cb(new Error('Invalid username or password'));
      },
    });
    refusing = await sink({ authOptional: false, onAuth: (_a, _s, cb) => cb(new Error('Authentication refused')) });
    t = await appWithConfig(`auth:\n  login_max_failures: 1000\nsmtp:\n  host: 127.0.0.1\n  port: ${plain.port}\n  security: none\n`, clock);
    admin = await t.admin();
    const u = await t.user('operator');
    await req('PUT', `/api/users/${u.id}`, { cookie: admin.cookie, body: { email: 'Alice@Example.test', current_password: admin.password } });
    alice = u;
  });
  after(async () => {
    await t.close();
    await Promise.all([plain.close(), tls.close(), refusing.close()]);
  });

  test('the status says recovery by e-mail is on', async () => {
    const r = await req('GET', '/api/auth/forgot-password');
    assert.equal(r.status, 200, r.text);
    assert.equal(r.body.email_enabled, true);
    assert.equal(r.body.temporary_password_minutes, 30);
  });

  test('invalid input is a 400 naming the field', async () => {
    assertProblem(await forgot({}), 400, 'username');
    assertProblem(await forgot({ username: 'a', email: 'a@b.test' }), 400, 'email');
    assertProblem(await forgot({ username: 5 }), 400, 'username');
    assertProblem(await forgot({ username: 'a', extra: 1 }), 400, 'extra');
    assertProblem(await login({ username: alice.username, password: alice.password, new_password: 'another long password' }), 400, 'new_password');
  });

  test('the same answer, in about the same time, whether or not the account exists', async () => {
    const noMail = await t.user('viewer');
    const cases = [{ username: alice.username }, { username: 'nobody-here' }, { email: 'alice@example.test' },
      { email: 'nobody@example.test' }, { username: noMail.username }];
    const times: number[][] = cases.map(() => []);
    const bodies = new Set<string>();
    for (let round = 0; round < 3; round++) {
      for (const [i, c] of cases.entries()) {
        const t0 = performance.now();
        const r = await forgot(c);
        times[i]!.push(performance.now() - t0);
        assert.equal(r.status, 202, r.text);
        assert.equal(r.headers.get('set-cookie'), null);
        bodies.add(r.text);
      }
    }
    assert.equal(bodies.size, 1, 'one body for every case');
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[1]!;
    const [known, ...others] = times.map(median);
    for (const m of others) {
      // Each does one scrypt hash (tens of ms) and no write before answering.
      assert.ok(m > known! * 0.4 && m < known! * 2.5, `times differ too much: ${times.map(median).join(', ')}`);
    }
    // Six messages: alice by name and by address, three rounds each; the others got none.
    await until('six messages', () => (plain.mails.length >= 6 ? true : undefined));
    await new Promise((r) => setTimeout(r, 100));
    assert.equal(plain.mails.length, 6);
    for (const m of plain.mails) assert.deepEqual(m.to.map((a) => a.toLowerCase()), ['alice@example.test']);
    const items = await recent();
    assert.equal(items.length, 6);
    for (const i of items) assert.deepEqual([i.kind, i.outcome, i.to, i.error], ['password_reset', 'sent', 'Alice@Example.test', null]);
    const audit = await req('GET', '/api/audit-log?action=auth.password_reset&limit=100', { key: admin.key });
    const reasons = new Set(audit.body.items.map((i: any) => i.details?.reason ?? 'sent'));
    assert.deepEqual([...reasons].sort(), ['no_email', 'sent', 'unknown_email', 'unknown_user']);
    for (const m of plain.mails) temps.push(tempOf(m));
  });

  test('only the latest temporary password works; old password and sessions stay valid until it is used', async () => {
    const latest = temps[temps.length - 1]!;
    assert.match(latest, /^[A-Za-z0-9]{20}$/);
    assert.equal((await login({ username: alice.username, password: temps[0]! })).body.code, 'invalid_credentials', 'replaced');
    // The real password still signs in; the existing session still works.
    assert.equal((await login({ username: alice.username, password: alice.password })).body.signed_in, true);
    assert.equal((await req('GET', '/api/me', { cookie: alice.cookie })).status, 200);

    // The right temporary password is a step, not an error: 200, no cookie, what to send next.
    const r = await login({ username: alice.username, password: latest });
    assert.equal(r.status, 200, r.text);
    assert.equal(r.body.signed_in, false);
    assert.equal(r.body.step, 'password_change_required');
    assert.match(r.body.detail, /new_password/);
    assert.equal(r.headers.get('set-cookie'), null);
    assertProblem(await login({ username: alice.username, password: latest, new_password: 'short' }), 400, 'new_password');
    assertProblem(await login({ username: alice.username, password: latest, new_password: latest }), 400, 'new_password');
    assert.equal((await req('GET', '/api/me', { cookie: alice.cookie })).status, 200, 'still signed in');

    const fresh = 'a brand new password for alice';
    const ok = await login({ username: alice.username, password: latest, new_password: fresh });
    assert.equal(ok.status, 200, ok.text);
    assert.equal(ok.body.signed_in, true);
    assert.ok(cookieOf(ok).startsWith('np_session='));
    assert.equal((await req('GET', '/api/me', { cookie: cookieOf(ok) })).status, 200);
    assert.equal((await req('GET', '/api/me', { cookie: alice.cookie })).status, 401, 'other sessions end with the change');
    assert.equal((await login({ username: alice.username, password: alice.password })).body.code, 'invalid_credentials', 'old password replaced');
    assert.equal((await login({ username: alice.username, password: latest })).body.code, 'invalid_credentials', 'used once');
    assert.equal((await login({ username: alice.username, password: fresh })).body.signed_in, true);
    alice.password = fresh;
    const a = await req('GET', '/api/audit-log?action=auth.login&limit=50', { key: admin.key });
    assert.ok(a.body.items.some((i: any) => i.details?.method === 'temporary_password' && i.target === alice.username));
  });

  test('a temporary password expires after 30 minutes', async () => {
    const before = plain.mails.length;
    assert.equal((await forgot({ username: alice.username })).status, 202);
    const m = await until('the message', () => plain.mails[before]);
    const temp = tempOf(m);
    temps.push(temp);
    clock.advance(29 * 60_000);
    assert.equal((await login({ username: alice.username, password: temp })).body.step, 'password_change_required');
    clock.advance(2 * 60_000);
    assert.equal((await login({ username: alice.username, password: temp })).body.code, 'invalid_credentials');
    assert.equal((await login({ username: alice.username, password: alice.password })).body.signed_in, true);
  });

  test('the SMTP password is write-only and sealed', async () => {
    await setSmtp({ host: '127.0.0.1', port: tls.port, security: 'starttls', user: 'probe', password: SMTP_SECRET, verify_certificate: false });
    const cfg = await req('GET', '/api/config/json', { key: admin.key });
    assert.equal(cfg.status, 200, cfg.text);
    assert.deepEqual(cfg.body.config?.smtp?.password ?? cfg.body.smtp?.password, { set: true });
  });

  test('a test message through STARTTLS with authentication', async () => {
    assertProblem(await req('POST', '/api/dev/emails/test', { key: admin.key, body: { to: 'not an address' } }), 400, 'to');
    assertProblem(await req('POST', '/api/dev/emails/test', { key: admin.key, body: {} }), 400, 'to');
    const r = await req('POST', '/api/dev/emails/test', { key: admin.key, body: { to: 'ops@example.test' } });
    assert.equal(r.status, 200, r.text);
    assert.equal(r.body.outcome, 'sent');
    await until('the test message', () => tls.mails[0]);
    assert.equal(tls.mails[0]!.user, 'probe');
    assert.equal(tls.mails[0]!.secure, true);
    assert.match(tls.mails[0]!.raw, /Subject: Test message from/);
    // The same self-signed server, with the certificate checked: refused, and said so.
    await setSmtp({ host: '127.0.0.1', port: tls.port, security: 'starttls', user: 'probe', password: SMTP_SECRET, verify_certificate: true });
    const v = await req('POST', '/api/dev/emails/test', { key: admin.key, body: { to: 'ops@example.test' } });
    assertProblem(v, 502);
    assert.equal(v.body.code, 'smtp_unreachable');
    assert.equal(v.body.email.error.code, 'ESOCKET');
  });

  test('a server that refuses the login is recorded as EAUTH, for the test and for a reset', async () => {
    await setSmtp({ host: '127.0.0.1', port: refusing.port, security: 'none', user: 'probe', password: SMTP_SECRET });
    const r = await req('POST', '/api/dev/emails/test', { key: admin.key, body: { to: 'ops@example.test' } });
    assertProblem(r, 422);
    assert.equal(r.body.code, 'smtp_auth_failed');
    assert.equal(r.body.email.error.code, 'EAUTH');
    assert.equal((await forgot({ username: alice.username })).status, 202);
    const item = await until('the failed reset', async () => (await recent()).find((i) => i.kind === 'password_reset' && i.outcome === 'failed'));
    assert.equal(item.error.code, 'EAUTH');
    assert.equal(refusing.mails.length, 0);
    const a = await until('the audit entry', async () => (await req('GET', '/api/audit-log?action=auth.password_reset&limit=5', { key: admin.key }))
      .body.items.find((i: any) => i.details?.error_code === 'EAUTH'));
    assert.equal(a.outcome, 'failure');
    assert.equal((await login({ username: alice.username, password: alice.password })).status, 200, 'old password unaffected');
  });

  test('a server that is down is recorded as a connection error', async () => {
    await setSmtp({ host: '127.0.0.1', port: await deadPort(), security: 'none' });
    const r = await req('POST', '/api/dev/emails/test', { key: admin.key, body: { to: 'ops@example.test' } });
    assertProblem(r, 502);
    assert.equal(r.body.code, 'smtp_unreachable');
    assert.match(r.body.email.error.code, /^(ESOCKET|ECONNECTION)$/);
    assert.equal((await forgot({ email: 'alice@example.test' })).status, 202, 'the same answer while the server is down');
    await until('the failed reset', async () => ((await recent()).filter((i) => i.kind === 'password_reset' && i.outcome === 'failed').length >= 2 ? true : undefined));
    const items = await recent();
    assert.ok(items.every((i) => Object.keys(i).sort().join() === 'at,duration_ms,error,id,kind,outcome,subject,to'), 'no body');
  });

  test('no temporary password or SMTP password in any response, log line, audit entry or file', async () => {
    const audit = await req('GET', '/api/audit-log?limit=500', { key: admin.key });
    const logs = t.logs.join('\n');
    const files = await dataDirText(t.dataDir);
    const responses = seen.join('\n');
    assert.ok(temps.length >= 7);
    for (const s of [...temps, SMTP_SECRET]) {
      assert.ok(!responses.includes(s), 'a response holds a secret');
      assert.ok(!logs.includes(s), 'the log holds a secret');
      assert.ok(!audit.text.includes(s), 'the audit log holds a secret');
      assert.ok(!files.includes(s), 'a file holds a secret in clear');
    }
  });
});

describe('password recovery without SMTP', () => {
  let t: TestApp;
  before(async () => { t = await startTestApp(); });
  after(() => t.close());

  test('the status and the answer say e-mail is off and how to recover locally; nothing is sent', async () => {
    const s = await t.request('GET', '/api/auth/forgot-password');
    assert.equal(s.body.email_enabled, false);
    assert.match(s.body.local_recovery, /initial-admin-password/);
    // The only administrator is told what they can do: set smtp.host as root and restart, else a factory reset.
    assert.match(s.body.local_recovery, /only administrator.*smtp\.host.*restart.*factory reset/s);
    const r = await t.request('POST', '/api/auth/forgot-password', { body: { username: 'admin' } });
    assertProblem(r, 409);
    assert.equal(r.body.code, 'smtp_not_configured');
    assert.equal(r.body.email_enabled, false);
    assert.match(r.body.detail, /off/);
    assert.match(r.body.local_recovery, /initial-admin-password/);
    const admin = await t.admin();
    assertProblem(await t.request('POST', '/api/dev/emails/test', { key: admin.key, body: { to: 'ops@example.test' } }), 409);
    const recent = await t.request('GET', '/api/dev/emails/recent', { key: admin.key });
    assert.deepEqual(recent.body, { items: [], total: 0 });
  });
});

describe('password recovery rate limits', () => {
  let t: TestApp;
  let mail: Sink;
  before(async () => {
    mail = await sink();
    t = await appWithConfig(`server:\n  trust_proxy: true\nauth:\n  login_max_failures: 3\nsmtp:\n  host: 127.0.0.1\n  port: ${mail.port}\n  security: none\n`);
  });
  after(async () => { await t.close(); await mail.close(); });

  test('per address: 429 with Retry-After after auth.login_max_failures requests', async () => {
    const from = { 'x-forwarded-for': '192.0.2.10' };
    for (let i = 0; i < 3; i++) assert.equal((await t.request('POST', '/api/auth/forgot-password', { body: { username: `u${i}` }, headers: from })).status, 202);
    const r = await t.request('POST', '/api/auth/forgot-password', { body: { username: 'u9' }, headers: from });
    assertProblem(r, 429);
    assert.ok(Number(r.headers.get('retry-after')) > 0);
  });

  test('per name given, from any address: 429', async () => {
    for (let i = 0; i < 3; i++) {
      assert.equal((await t.request('POST', '/api/auth/forgot-password', { body: { username: 'target' }, headers: { 'x-forwarded-for': `192.0.2.${20 + i}` } })).status, 202);
    }
    assertProblem(await t.request('POST', '/api/auth/forgot-password', { body: { username: 'target' }, headers: { 'x-forwarded-for': '192.0.2.30' } }), 429);
  });

  test('per account: more messages than the limit are dropped silently and audited', async () => {
    const admin = await t.admin();
    const u = await t.user('viewer');
    await t.request('PUT', `/api/users/${u.id}`, { cookie: admin.cookie, body: { email: 'v@example.test', current_password: admin.password } });
    const bodies = [{ username: u.username }, { email: 'v@example.test' }, { username: u.username }, { email: 'v@example.test' }];
    for (const [i, body] of bodies.entries()) {
      const r = await t.request('POST', '/api/auth/forgot-password', { body, headers: { 'x-forwarded-for': `198.51.100.${i + 1}` } });
      assert.equal(r.status, 202, r.text);
    }
    const a = await until('the dropped request', async () => (await t.request('GET', '/api/audit-log?action=auth.password_reset&limit=20', { key: admin.key }))
      .body.items.find((i: any) => i.details?.reason === 'rate_limited'));
    assert.equal(a.target, u.username);
    await new Promise((r) => setTimeout(r, 200));
    assert.equal(mail.mails.filter((m) => m.to.includes('v@example.test')).length, 3);
  });
});
