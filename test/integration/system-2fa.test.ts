// Two-factor sign-in through real HTTP against the real service: enrolment, confirmation, sign-in with a
// code from a real TOTP generator (otpauth), replay, wrong steps, recovery codes, disable and reset, rate
// limits and the audit trail; and no secret anywhere after its one showing.
import assert from 'node:assert/strict';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import * as OTPAuth from 'otpauth';
import { ManualClock } from '../../src/core/clock.js';
import { startTestApp, assertProblem, type TestApp, type TestResponse } from '../helpers/harness.js';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';

async function appWithConfig(yaml: string, clock: ManualClock): Promise<TestApp> {
  const dir = await mkdtemp(join(tmpdir(), 'netprobe-2fa-it-'));
  await writeFile(join(dir, 'config.yaml'), yaml);
  const app = await startTestApp({ dataDir: dir, clock });
  const close = app.close.bind(app);
  app.close = async (o) => { await close(o); await rm(dir, { recursive: true, force: true }); };
  return app;
}

const cookieOf = (r: TestResponse) => (r.headers.get('set-cookie') ?? '').split(';')[0]!;

/** Every file of the data directory, as text, to look for secrets in clear. */
async function dataDirText(dir: string): Promise<string> {
  let out = '';
  for (const f of await readdir(dir, { recursive: true, withFileTypes: true })) {
    if (f.isFile()) out += (await readFile(join(f.parentPath, f.name))).toString('latin1');
  }
  return out;
}

describe('two-factor sign-in', () => {
  const clock = new ManualClock(Date.parse('2026-03-01T10:00:05Z'));
  let t: TestApp;
  let admin: Awaited<ReturnType<TestApp['admin']>>;
  let totp: OTPAuth.TOTP;
  let secret = '';
  let recovery: string[] = [];
  const code = (offsetSteps = 0) => totp.generate({ timestamp: clock.now() + offsetSteps * 30_000 });
  const login = (body: Record<string, unknown>) => t.request('POST', '/api/auth/login', { body: { username: admin.username, password: admin.password, ...body } });

  before(async () => {
    t = await appWithConfig('auth:\n  login_max_failures: 1000\ntwo_factor:\n  issuer: lab probe\n', clock);
    admin = await t.admin();
    // Required from now on (the harness's admin made its API key through a session first).
    await writeFile(join(t.dataDir, 'config.yaml'),
      'auth:\n  login_max_failures: 1000\ntwo_factor:\n  required_for_admins: true\n  issuer: lab probe\n');
    await t.service.app.config.reload();
  });
  after(() => t.close());

  test('status before enrolment: off, and required for admins', async () => {
    const r = await t.request('GET', '/api/auth/2fa/status', { cookie: admin.cookie });
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(r.body, { enabled: false, pending: false, enabled_at: null, recovery_codes_left: 0, required_for_admins: true, required: true });
    const v = await t.user('viewer');
    const rv = await t.request('GET', '/api/auth/2fa/status', { cookie: v.cookie });
    assert.equal(rv.body.required, false);
  });

  test('required for admins: a session without a second factor may only enroll; API keys are not affected', async () => {
    const refused = await t.request('GET', '/api/users', { cookie: admin.cookie });
    assertProblem(refused, 403);
    assert.equal(refused.body.code, 'two_factor_enrollment_required');
    assert.match(refused.body.detail, /two_factor\.required_for_admins/);
    assertProblem(await t.request('POST', '/api/api-keys', { cookie: admin.cookie, body: { name: 'x', scopes: ['admin'] } }), 403);
    assert.equal((await t.request('GET', '/api/me', { cookie: admin.cookie })).status, 200);
    assert.equal((await t.request('GET', '/api/users', { key: admin.key })).status, 200);
  });

  test('enroll needs the current password, names the field and counts wrong ones', async () => {
    assertProblem(await t.request('POST', '/api/auth/2fa/enroll', { cookie: admin.cookie, body: {} }), 400, 'current_password');
    const wrong = await t.request('POST', '/api/auth/2fa/enroll', { cookie: admin.cookie, body: { current_password: 'not it at all' } });
    assertProblem(wrong, 400, 'current_password');
  });

  test('enroll returns the otpauth URI, the secret and an SVG QR code; it stays pending', async () => {
    const r = await t.request('POST', '/api/auth/2fa/enroll', { cookie: admin.cookie, body: { current_password: admin.password } });
    assert.equal(r.status, 200, r.text);
    assert.match(r.body.secret, /^[A-Z2-7]{32}$/);
    assert.match(r.body.qr_svg, /^<svg[\s\S]*<\/svg>$/);
    assert.deepEqual([r.body.algorithm, r.body.digits, r.body.period], ['SHA1', 6, 30]);
    totp = OTPAuth.URI.parse(r.body.otpauth_uri) as OTPAuth.TOTP;
    assert.equal(totp.issuer, 'lab probe');
    assert.equal(totp.label, admin.username);
    assert.equal(totp.secret.base32, r.body.secret);
    secret = r.body.secret;
    const s = await t.request('GET', '/api/auth/2fa/status', { cookie: admin.cookie });
    assert.equal(s.body.enabled, false);
    assert.equal(s.body.pending, true);
    // Pending: sign-in still needs the password only.
    assert.equal((await login({})).body.signed_in, true);
  });

  test('confirm refuses a wrong code (400 naming code) and returns ten recovery codes for a right one', async () => {
    assertProblem(await t.request('POST', '/api/auth/2fa/confirm', { cookie: admin.cookie, body: {} }), 400, 'code');
    const bad = await t.request('POST', '/api/auth/2fa/confirm', { cookie: admin.cookie, body: { code: code(-3) } });
    assertProblem(bad, 400, 'code');
    assert.equal(bad.body.code, 'invalid_code');
    const r = await t.request('POST', '/api/auth/2fa/confirm', { cookie: admin.cookie, body: { code: code() } });
    assert.equal(r.status, 200, r.text);
    recovery = r.body.recovery_codes;
    assert.equal(recovery.length, 10);
    assert.equal(new Set(recovery).size, 10);
    for (const c of recovery) assert.match(c, /^[0-9A-HJKMNP-TV-Z]{4}(-[0-9A-HJKMNP-TV-Z]{4}){3}$/);
    const s = await t.request('GET', '/api/auth/2fa/status', { cookie: admin.cookie });
    assert.deepEqual([s.body.enabled, s.body.pending, s.body.recovery_codes_left], [true, false, 10]);
    assertProblem(await t.request('POST', '/api/auth/2fa/confirm', { cookie: admin.cookie, body: { code: code() } }), 409);
    assertProblem(await t.request('POST', '/api/auth/2fa/enroll', { cookie: admin.cookie, body: { current_password: admin.password } }), 409);
    // Confirmed: the same session may do everything again.
    assert.equal((await t.request('GET', '/api/users', { cookie: admin.cookie })).status, 200);
  });

  test('the password step answers the step totp_required (a 200, no cookie); a wrong password still answers invalid_credentials', async () => {
    const r = await login({});
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(r.body, { signed_in: false, step: 'totp_required', detail: 'Enter the code from your authenticator app, or a recovery code' });
    assert.equal(r.headers.get('set-cookie'), null);
    const w = await t.request('POST', '/api/auth/login', { body: { username: admin.username, password: 'wrong password!', totp_code: code() } });
    assert.equal(w.body.code, 'invalid_credentials');
  });

  test('the code confirm used (same step) is refused at sign-in as just used; the next step works once', async () => {
    const replay = await login({ totp_code: code() });
    assertProblem(replay, 401);
    assert.equal(replay.body.code, 'totp_code_used');
    assert.match(replay.body.detail, /wait for the next code/);
    clock.advance(30_000);
    const ok = await login({ totp_code: code() });
    assert.equal(ok.status, 200, ok.text);
    assert.equal(ok.body.signed_in, true);
    assert.ok(cookieOf(ok).startsWith('np_session='));
    const again = await login({ totp_code: code() });
    assert.equal(again.body.code, 'totp_code_used', 'a code is accepted once');
  });

  test('a code from the wrong step is refused; one step either side is accepted', async () => {
    clock.advance(90_000);
    assert.equal((await login({ totp_code: code(-2) })).body.code, 'invalid_totp', 'two steps old');
    assert.equal((await login({ totp_code: code(2) })).body.code, 'invalid_totp', 'two steps ahead');
    assert.equal((await login({ totp_code: code(-1) })).status, 200, 'one step old');
    // After a newer step was used, an older in-window code is refused too.
    clock.advance(30_000);
    assert.equal((await login({ totp_code: code(1) })).status, 200, 'one step ahead');
    assert.equal((await login({ totp_code: code(0) })).body.code, 'totp_code_used', 'older than the last accepted step');
    assert.equal((await login({ totp_code: 'abc' })).body.code, 'invalid_totp');
  });

  test('recovery codes sign in once each, in any spelling', async () => {
    const first = recovery[0]!;
    const ok = await login({ totp_code: first.toLowerCase().replace(/-/g, '') });
    assert.equal(ok.status, 200, ok.text);
    assert.equal((await login({ totp_code: first })).body.code, 'invalid_totp', 'used once');
    assert.equal((await login({ totp_code: recovery[1]! })).status, 200);
    const s = await t.request('GET', '/api/auth/2fa/status', { cookie: admin.cookie });
    assert.equal(s.body.recovery_codes_left, 8);
  });

  test('sign-ins and failures are audited without the code', async () => {
    const r = await t.request('GET', '/api/audit-log?action=auth.*&limit=200', { key: admin.key });
    assert.equal(r.status, 200, r.text);
    const items: any[] = r.body.items;
    assert.ok(items.some((i) => i.action === 'auth.login' && i.details?.method === 'password+totp'));
    assert.ok(items.some((i) => i.action === 'auth.login' && i.details?.method === 'password+recovery_code'));
    assert.ok(items.some((i) => i.action === 'auth.login' && i.outcome === 'failure' && i.details?.reason === 'wrong_totp'));
    assert.ok(items.some((i) => i.action === 'auth.2fa.enable'));
    assert.ok(items.some((i) => i.action === 'auth.2fa.enroll' && i.outcome === 'failure'));
  });

  test('disable needs a current or recovery code (400 naming code), and a used recovery code does not do', async () => {
    assertProblem(await t.request('POST', '/api/auth/2fa/disable', { cookie: admin.cookie, body: {} }), 400, 'code');
    assertProblem(await t.request('POST', '/api/auth/2fa/disable', { cookie: admin.cookie, body: { code: recovery[0] } }), 400, 'code');
    assertProblem(await t.request('POST', '/api/auth/2fa/disable', { cookie: admin.cookie, body: { code: '000000' } }), 400, 'code');
    assertProblem(await t.request('POST', '/api/auth/2fa/disable', { cookie: admin.cookie, body: { user_id: 'nope' } }), 400, 'user_id');
    const r = await t.request('POST', '/api/auth/2fa/disable', { cookie: admin.cookie, body: { code: recovery[2] } });
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(r.body, { enabled: false });
    assert.equal((await login({})).body.signed_in, true, 'password alone again');
  });

  test("an admin resets another user's second factor, audited", async () => {
    // Made by hand: the harness's user() would make a key with the new admin's session, which the
    // requirement refuses until that admin has a second factor.
    const other = { username: 'second-admin', password: 'second admin password 1', id: '', cookie: '' };
    const made = await t.request('POST', '/api/users', { key: admin.key, body: { username: other.username, password: other.password, role: 'admin' } });
    assert.equal(made.status, 201, made.text);
    other.id = made.body.id ?? made.body.user?.id;
    other.cookie = await t.login(other.username, other.password);
    const e = await t.request('POST', '/api/auth/2fa/enroll', { cookie: other.cookie, body: { current_password: other.password } });
    const theirs = OTPAuth.URI.parse(e.body.otpauth_uri) as OTPAuth.TOTP;
    clock.advance(30_000);
    const c = await t.request('POST', '/api/auth/2fa/confirm', { cookie: other.cookie, body: { code: theirs.generate({ timestamp: clock.now() }) } });
    assert.equal(c.status, 200, c.text);
    const needs = await t.request('POST', '/api/auth/login', { body: { username: other.username, password: other.password } });
    assert.equal(needs.body.step, 'totp_required');
    const r = await t.request('POST', '/api/auth/2fa/disable', { key: admin.key, body: { user_id: other.id } });
    assert.equal(r.status, 200, r.text);
    const after = await t.request('POST', '/api/auth/login', { body: { username: other.username, password: other.password } });
    assert.equal(after.body.signed_in, true);
    const a = await t.request('GET', '/api/audit-log?action=auth.2fa.reset', { key: admin.key });
    assert.equal(a.body.items[0].target, other.username);
    assertProblem(await t.request('POST', '/api/auth/2fa/disable', { key: admin.key, body: { user_id: '00000000-0000-4000-8000-000000000000' } }), 404);
  });

  test('no secret or recovery code in clear in any file, the log or the audit log', async () => {
    assert.ok(secret && recovery.length);
    await t.service.app.store.checkpoint();
    const files = await dataDirText(t.dataDir);
    const logs = t.logs.join('\n');
    const audit = JSON.stringify((await t.request('GET', '/api/audit-log?limit=500', { key: admin.key })).body);
    for (const s of [secret, ...recovery, ...recovery.map((c) => c.replace(/-/g, ''))]) {
      assert.ok(!files.includes(s), 'a data file holds a secret in clear');
      assert.ok(!logs.includes(s), 'the log holds a secret');
      assert.ok(!audit.includes(s), 'the audit log holds a secret');
    }
  });
});

describe('two-factor rate limits', () => {
  const clock = new ManualClock(Date.parse('2026-03-01T10:00:05Z'));
  let t: TestApp;
  before(async () => { t = await appWithConfig('auth:\n  login_max_failures: 3\n', clock); });
  after(() => t.close());

  test('wrong codes at sign-in lock out like wrong passwords', async () => {
    const admin = await t.admin();
    const e = await t.request('POST', '/api/auth/2fa/enroll', { cookie: admin.cookie, body: { current_password: admin.password } });
    const totp = OTPAuth.URI.parse(e.body.otpauth_uri) as OTPAuth.TOTP;
    const c = await t.request('POST', '/api/auth/2fa/confirm', { cookie: admin.cookie, body: { code: totp.generate({ timestamp: clock.now() }) } });
    assert.equal(c.status, 200, c.text);
    for (let i = 0; i < 3; i++) {
      const r = await t.request('POST', '/api/auth/login', { body: { username: admin.username, password: admin.password, totp_code: '000000' } });
      assert.equal(r.body.code, i < 3 ? 'invalid_totp' : 'rate_limited');
    }
    clock.advance(30_000);
    const locked = await t.request('POST', '/api/auth/login',
      { body: { username: admin.username, password: admin.password, totp_code: totp.generate({ timestamp: clock.now() }) } });
    assertProblem(locked, 429);
    assert.ok(locked.headers.get('retry-after'));
  });

  test('a new user reusing the enrolment code is told to wait for the next one, and is not locked out', async () => {
    const u = await t.user('admin');
    const e = await t.request('POST', '/api/auth/2fa/enroll', { cookie: u.cookie, body: { current_password: u.password } });
    const totp = OTPAuth.URI.parse(e.body.otpauth_uri) as OTPAuth.TOTP;
    const used = totp.generate({ timestamp: clock.now() });
    assert.equal((await t.request('POST', '/api/auth/2fa/confirm', { cookie: u.cookie, body: { code: used } })).status, 200);
    const login = (password: string, totp_code?: string) =>
      t.request('POST', '/api/auth/login', { body: { username: u.username, password, ...(totp_code ? { totp_code } : {}) } });
    // Two mistyped passwords (the limit is 3) ...
    for (let i = 0; i < 2; i++) assert.equal((await login('mistyped password')).body.code, 'invalid_credentials');
    // ... then the code just used at enrolment, three times: not a guess, so not counted.
    for (let i = 0; i < 3; i++) {
      const r = await login(u.password, used);
      assertProblem(r, 401);
      assert.equal(r.body.code, 'totp_code_used');
      assert.match(r.body.detail, /just used: wait for the next code/);
    }
    clock.advance(30_000);
    const ok = await login(u.password, totp.generate({ timestamp: clock.now() }));
    assert.equal(ok.status, 200, ok.text);
    const audit = await t.request('GET', `/api/audit-log?action=auth.login&limit=50`, { cookie: (await t.admin()).cookie });
    assert.ok(audit.body.items.some((i: any) => i.target === u.username && i.details?.reason === 'totp_code_used'));
  });
});
