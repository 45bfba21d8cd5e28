// Sign-in, sessions, API keys, users, first-run bootstrap, the setup wizard and the audit trail, through
// real HTTP against the real service.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { ManualClock } from '../../src/core/clock.js';
import { startTestApp, type TestApp, type TestResponse, assertProblem } from '../helpers/harness.js';

/** A data directory with a config.yaml written before the first start; removed when the test ends. */
async function appWithConfig(yaml: string, opts: { clock?: ManualClock } = {}): Promise<TestApp> {
  const dir = await mkdtemp(join(tmpdir(), 'netprobe-auth-it-'));
  await writeFile(join(dir, 'config.yaml'), yaml);
  const app = await startTestApp({ dataDir: dir, clock: opts.clock });
  const close = app.close.bind(app);
  app.close = async (o) => { await close(o); await rm(dir, { recursive: true, force: true }); };
  return app;
}

function cookieOf(r: TestResponse): string {
  const set = r.headers.get('set-cookie');
  assert.ok(set, 'Set-Cookie expected');
  return set.split(';')[0]!;
}

function attrs(setCookie: string): Record<string, string | true> {
  const out: Record<string, string | true> = {};
  for (const part of setCookie.split(';').slice(1)) {
    const [k, v] = part.trim().split('=');
    out[k!.toLowerCase()] = v ?? true;
  }
  return out;
}


async function auditOf(t: TestApp, key: string, query: string): Promise<any[]> {
  const r = await t.request('GET', `/api/audit-log?${query}`, { key });
  assert.equal(r.status, 200, r.text);
  return r.body.items;
}

// ---- the main app: bootstrapped through the harness; many logins from 127.0.0.1, so a high limit ----

describe('with a bootstrapped probe', () => {
  let t: TestApp;
  let admin: Awaited<ReturnType<TestApp['admin']>>;
  before(async () => {
    t = await appWithConfig('auth:\n  login_max_failures: 1000\n');
    admin = await t.admin();
  });
  after(() => t.close());

  test('login sets an HttpOnly, SameSite=Strict session cookie and returns the user', async () => {
    const r = await t.request('POST', '/api/auth/login', { body: { username: admin.username, password: admin.password } });
    assert.equal(r.status, 200, r.text);
    assert.equal(r.body.user.username, admin.username);
    assert.equal(r.body.user.role, 'admin');
    assert.equal(r.body.bootstrap_needed, false);
    assert.ok(!('password_hash' in r.body.user));
    assert.ok(Date.parse(r.body.expires_at) > Date.now());
    const set = r.headers.get('set-cookie')!;
    assert.match(set, /^np_session=[A-Za-z0-9_-]{43};/);
    const a = attrs(set);
    assert.equal(a.httponly, true);
    assert.equal(a.samesite, 'Strict');
    assert.equal(a.path, '/');
    assert.equal(a['max-age'], String(12 * 3600));
    assert.equal(a.secure, undefined, 'no Secure over plain HTTP');
    // X-Forwarded-Proto is not believed without server.trust_proxy.
    const fwd = await t.request('POST', '/api/auth/login', { body: { username: admin.username, password: admin.password }, headers: { 'x-forwarded-proto': 'https' } });
    assert.equal(attrs(fwd.headers.get('set-cookie')!).secure, undefined);
    // The username is case-insensitive.
    const upper = await t.request('POST', '/api/auth/login', { body: { username: admin.username.toUpperCase(), password: admin.password } });
    assert.equal(upper.status, 200);
  });

  test('wrong password, unknown user and disabled user all get the same 401, and are audited', async () => {
    const u = await t.user('viewer');
    const wrong = await t.request('POST', '/api/auth/login', { body: { username: u.username, password: 'not the password' } });
    const unknown = await t.request('POST', '/api/auth/login', { body: { username: 'nobody-here', password: 'not the password' } });
    await t.request('PUT', `/api/users/${u.id}`, { key: admin.key, body: { disabled: true } });
    const disabled = await t.request('POST', '/api/auth/login', { body: { username: u.username, password: u.password } });
    for (const r of [wrong, unknown, disabled]) {
      assertProblem(r, 401);
      assert.equal(r.body.code, 'invalid_credentials');
      assert.equal(r.body.detail, wrong.body.detail);
      assert.equal(r.headers.get('set-cookie'), null);
    }
    const entries = await auditOf(t, admin.key, 'action=auth.login&limit=20');
    const failures = entries.filter((e) => e.outcome === 'failure');
    const reasons = failures.map((e) => e.details.reason);
    assert.ok(reasons.includes('wrong_password') && reasons.includes('unknown_user') && reasons.includes('disabled'), JSON.stringify(reasons));
    for (const f of failures) {
      assert.equal(f.source_ip, '127.0.0.1');
      assert.ok(!JSON.stringify(f).includes('not the password'), 'no password in the audit log');
    }
    const ok = entries.find((e) => e.outcome === 'success' && e.target === u.username);
    assert.equal(ok.actor, u.username);
    assert.equal(ok.source_ip, '127.0.0.1');
    await t.request('PUT', `/api/users/${u.id}`, { key: admin.key, body: { disabled: false } });
  });

  test('logout ends the session, clears the cookie and is audited; with an API key it is a no-op', async () => {
    const cookie = await t.login(admin.username, admin.password);
    assert.equal((await t.request('GET', '/api/me', { cookie })).status, 200);
    const r = await t.request('POST', '/api/auth/logout', { cookie });
    assert.equal(r.status, 204);
    const a = attrs(r.headers.get('set-cookie')!);
    assert.match(r.headers.get('set-cookie')!, /^np_session=;/);
    assert.equal(a['max-age'], '0');
    const after = await t.request('GET', '/api/me', { cookie });
    assertProblem(after, 401);
    assert.equal(after.body.code, 'session_expired');
    const viaKey = await t.request('POST', '/api/auth/logout', { key: admin.key });
    assert.equal(viaKey.status, 204);
    assert.equal(viaKey.headers.get('set-cookie'), null);
    assert.equal((await t.request('GET', '/api/me', { key: admin.key })).status, 200);
    const entries = await auditOf(t, admin.key, 'action=auth.logout');
    assert.equal(entries[0].actor, admin.username);
    assert.equal(entries[0].source_ip, '127.0.0.1');
    assertProblem(await t.request('POST', '/api/auth/logout', {}), 401);
  });

  test('unsafe requests with a session cookie need a matching Origin', async () => {
    const cookie = await t.login(admin.username, admin.password);
    const noOrigin = await fetch(`${t.url}/api/auth/logout`, { method: 'POST', headers: { cookie } });
    assert.equal(noOrigin.status, 403);
    const evil = await t.request('POST', '/api/auth/logout', { cookie, headers: { origin: 'http://evil.example' } });
    assertProblem(evil, 403);
    assert.match(evil.body.detail, /origin/i);
    // A GET needs no Origin, and the session survived the refused requests.
    assert.equal((await fetch(`${t.url}/api/me`, { headers: { cookie } })).status, 200);
    assert.equal((await t.request('POST', '/api/auth/logout', { cookie })).status, 204);
  });

  test('GET /api/me for a session and for an API key', async () => {
    const op = await t.user('operator', ['monitors:write', 'system:read']);
    const s = await t.request('GET', '/api/me', { cookie: op.cookie });
    assert.equal(s.status, 200);
    assert.equal(s.body.auth, 'session');
    assert.equal(s.body.user.username, op.username);
    assert.equal(s.body.key, undefined);
    assert.ok(s.body.scopes.includes('brain:write') && !s.body.scopes.includes('admin'));
    const k = await t.request('GET', '/api/me', { key: op.key });
    assert.equal(k.body.auth, 'api_key');
    assert.deepEqual(k.body.scopes, ['monitors:read', 'monitors:write', 'system:read']);
    assert.equal(k.body.key.name, `${op.username}-key`);
    const bad = await t.request('GET', '/api/me', { key: 'np_' + 'x'.repeat(40) });
    assertProblem(bad, 401);
    assert.equal(bad.body.code, 'invalid_api_key');
    assertProblem(await t.request('GET', '/api/me'), 401);
  });

  test('API keys: shown once, stored as a hash, scopes capped by role, revocable', async () => {
    const op = await t.user('operator');
    const r = await t.request('POST', '/api/api-keys', { cookie: op.cookie, body: { name: 'ci', scopes: ['monitors:write', 'brain:read'], expires_in_days: 30 } });
    assert.equal(r.status, 201, r.text);
    const key: string = r.body.key;
    assert.match(key, /^np_[A-Za-z0-9]{40}$/);
    assert.equal(r.body.prefix, key.slice(0, 11));
    assert.deepEqual(r.body.owner, { id: op.id, username: op.username });
    assert.ok(Math.abs(Date.parse(r.body.expires_at) - (Date.now() + 30 * 86_400_000)) < 60_000);

    const list = await t.request('GET', '/api/api-keys', { cookie: op.cookie });
    assert.equal(list.status, 200);
    assert.ok(list.body.items.every((k: any) => k.owner.id === op.id), 'a non-admin sees only their keys');
    const listed = list.body.items.find((k: any) => k.id === r.body.id);
    assert.equal(listed.key, undefined, 'the key is shown only once');
    const all = await t.request('GET', '/api/api-keys', { key: admin.key });
    assert.ok(all.body.items.some((k: any) => k.owner.username === op.username), 'an admin sees everyone\'s keys');
    assert.ok(all.body.items.some((k: any) => k.owner.username === admin.username));

    const rows = t.service.app.store.all<Record<string, unknown>>('SELECT * FROM api_keys');
    assert.ok(!JSON.stringify(rows).includes(key), 'the key itself is not in the database');
    assert.equal(rows.find((x) => x.id === r.body.id)!.hash, createHash('sha256').update(key).digest('hex'));

    // Capped by role, and a key cannot mint a stronger key.
    const tooMuch = await t.request('POST', '/api/api-keys', { cookie: op.cookie, body: { name: 'x', scopes: ['admin'] } });
    assertProblem(tooMuch, 403);
    const viewer = await t.user('viewer');
    assertProblem(await t.request('POST', '/api/api-keys', { cookie: viewer.cookie, body: { name: 'x', scopes: ['monitors:write'] } }), 403);
    assert.equal((await t.request('POST', '/api/api-keys', { cookie: viewer.cookie, body: { name: 'ro', scopes: ['system:read'] } })).status, 201);
    const sysKey = await t.request('POST', '/api/api-keys', { key: admin.key, body: { name: 'sys', scopes: ['system:write'] } });
    assertProblem(await t.request('POST', '/api/api-keys', { key: sysKey.body.key, body: { name: 'x', scopes: ['admin'] } }), 403);
    assert.equal((await t.request('POST', '/api/api-keys', { key: sysKey.body.key, body: { name: 'y', scopes: ['system:read'] } })).status, 201);

    // Expiry must be in the future; one way of giving it.
    assertProblem(await t.request('POST', '/api/api-keys', { cookie: op.cookie, body: { name: 'x', scopes: ['monitors:read'], expires_at: '2001-01-01T00:00:00Z' } }), 400, 'expires_at');
    assertProblem(await t.request('POST', '/api/api-keys', { cookie: op.cookie, body: { name: 'x', scopes: ['monitors:read'], expires_at: '2999-01-01T00:00:00Z', expires_in_days: 3 } }), 400, 'expires_in_days');

    // The key works, then is revoked; others cannot revoke it, unknown ids are 404.
    assert.equal((await t.request('GET', '/api/me', { key })).status, 200);
    assertProblem(await t.request('DELETE', `/api/api-keys/${r.body.id}`, { cookie: viewer.cookie }), 403);
    assertProblem(await t.request('DELETE', `/api/api-keys/${crypto.randomUUID()}`, { cookie: viewer.cookie }), 403);
    assertProblem(await t.request('DELETE', '/api/api-keys/not-a-uuid', { key: admin.key }), 404);
    assertProblem(await t.request('DELETE', `/api/api-keys/${crypto.randomUUID()}`, { key: admin.key }), 404);
    assert.equal((await t.request('DELETE', `/api/api-keys/${r.body.id}`, { cookie: op.cookie })).status, 204);
    const revoked = await t.request('GET', '/api/me', { key });
    assertProblem(revoked, 401);
    assert.equal(revoked.body.code, 'invalid_api_key');

    const created = await auditOf(t, admin.key, 'action=api_key.*&limit=100');
    const c = created.find((e) => e.action === 'api_key.create' && e.details.id === r.body.id);
    assert.equal(c.actor, op.username);
    assert.equal(c.source_ip, '127.0.0.1');
    assert.ok(!JSON.stringify(created).includes(key));
    assert.ok(created.some((e) => e.action === 'api_key.revoke' && e.details.id === r.body.id));
  });

  test('users: admin CRUD with validation and conflicts', async () => {
    const list = await t.request('GET', '/api/users?limit=1', { key: admin.key });
    assert.equal(list.status, 200);
    assert.equal(list.body.items.length, 1);
    assert.ok(list.body.total >= 1);
    const c = await t.request('POST', '/api/users', { key: admin.key, body: { username: 'erin', password: 'erin password', role: 'viewer', email: 'erin@example.org', display_name: 'Erin' } });
    assert.equal(c.status, 201, c.text);
    assert.equal(c.body.email, 'erin@example.org');
    assert.equal(c.body.password_hash, undefined);
    const dup = await t.request('POST', '/api/users', { key: admin.key, body: { username: 'ERIN', password: 'erin password', role: 'viewer' } });
    assertProblem(dup, 409);
    assert.equal(dup.body.code, 'username_taken');
    assertProblem(await t.request('POST', '/api/users', { key: admin.key, body: { username: 'e', password: 'erin password', role: 'viewer' } }), 400, 'username');
    assertProblem(await t.request('POST', '/api/users', { key: admin.key, body: { username: 'bad name!', password: 'erin password', role: 'viewer' } }), 400, 'username');
    assertProblem(await t.request('POST', '/api/users', { key: admin.key, body: { username: 'frank', password: 'short', role: 'viewer' } }), 400, 'password');
    assertProblem(await t.request('POST', '/api/users', { key: admin.key, body: { username: 'frank', password: 'frank password', role: 'root' } }), 400, 'role');
    assertProblem(await t.request('POST', '/api/users', { key: admin.key, body: { username: 'frank', password: 'frank password', role: 'viewer', email: 'nope' } }), 400, 'email');
    assertProblem(await t.request('POST', '/api/users', { key: admin.key, body: { username: 'frank', password: 'frank password', role: 'viewer', is_root: true } }), 400, 'is_root');
    // Every fault in one 400, the password policy's with the schema's.
    const all = await t.request('POST', '/api/users', { key: admin.key, body: { username: 'bad name!', password: 'short', role: 'viewer', email: 'nope' } });
    assert.deepEqual(all.body.errors.map((e: { path: string }) => e.path).sort(), ['email', 'password', 'username']);

    const got = await t.request('GET', `/api/users/${c.body.id}`, { key: admin.key });
    assert.equal(got.body.username, 'erin');
    assertProblem(await t.request('GET', '/api/users/not-a-uuid', { key: admin.key }), 404);
    assertProblem(await t.request('GET', `/api/users/${crypto.randomUUID()}`, { key: admin.key }), 404);

    // An e-mail change takes a session and the administrator's own password (system-email-change.test.ts).
    const up = await t.request('PUT', `/api/users/${c.body.id}`,
      { cookie: admin.cookie, body: { role: 'operator', email: null, current_password: admin.password } });
    assert.equal(up.status, 200, up.text);
    assert.equal(up.body.role, 'operator');
    assert.equal(up.body.email, null);
    assertProblem(await t.request('PUT', `/api/users/${c.body.id}`, { key: admin.key, body: { disabled: 'yes' } }), 400, 'disabled');

    const del = await t.request('DELETE', `/api/users/${c.body.id}`, { key: admin.key });
    assert.equal(del.status, 204);
    assertProblem(await t.request('DELETE', `/api/users/${c.body.id}`, { key: admin.key }), 404);

    const entries = await auditOf(t, admin.key, 'action=user.*&limit=100');
    const mine = entries.filter((e) => e.details?.id === c.body.id);
    assert.deepEqual(mine.map((e) => e.action), ['user.delete', 'user.update', 'user.create']);
    assert.deepEqual(mine[1].details.fields.sort(), ['email', 'role']);
    assert.equal(mine[0].actor, `${admin.username} (key test-admin)`);
    assert.ok(mine.every((e) => e.source_ip === '127.0.0.1'));
    assert.ok(!JSON.stringify(entries).includes('erin password'));
  });

  test('users: self-service rules', async () => {
    const v = await t.user('viewer');
    const other = await t.user('viewer');
    assert.equal((await t.request('GET', `/api/users/${v.id}`, { cookie: v.cookie })).status, 200);
    assertProblem(await t.request('GET', `/api/users/${other.id}`, { cookie: v.cookie }), 403);
    assertProblem(await t.request('GET', '/api/users', { cookie: v.cookie }), 403);
    assertProblem(await t.request('POST', '/api/users', { cookie: v.cookie, body: { username: 'zed', password: 'zed password 1', role: 'admin' } }), 403);
    assertProblem(await t.request('DELETE', `/api/users/${other.id}`, { cookie: v.cookie }), 403);
    assertProblem(await t.request('PUT', `/api/users/${other.id}`, { cookie: v.cookie, body: { display_name: 'x' } }), 403);

    const named = await t.request('PUT', `/api/users/${v.id}`, { cookie: v.cookie, body: { display_name: 'Vera', email: 'vera@example.org', current_password: v.password } });
    assert.equal(named.status, 200, named.text);
    assert.equal(named.body.display_name, 'Vera');
    assertProblem(await t.request('PUT', `/api/users/${v.id}`, { cookie: v.cookie, body: { role: 'admin' } }), 403);
    assertProblem(await t.request('PUT', `/api/users/${v.id}`, { cookie: v.cookie, body: { disabled: true } }), 403);
    // Sending the unchanged role along is fine (forms send everything).
    assert.equal((await t.request('PUT', `/api/users/${v.id}`, { cookie: v.cookie, body: { role: 'viewer' } })).status, 200);

    // Own password: current password required and checked; other sessions end, this one stays.
    const second = await t.login(v.username, v.password);
    assertProblem(await t.request('PUT', `/api/users/${v.id}`, { cookie: v.cookie, body: { password: 'a new password 1' } }), 400, 'current_password');
    const wrong = await t.request('PUT', `/api/users/${v.id}`, { cookie: v.cookie, body: { password: 'a new password 1', current_password: 'wrong one' } });
    assertProblem(wrong, 400, 'current_password');
    assertProblem(await t.request('PUT', `/api/users/${v.id}`, { cookie: v.cookie, body: { password: 'short', current_password: v.password } }), 400, 'password');
    const changed = await t.request('PUT', `/api/users/${v.id}`, { cookie: v.cookie, body: { password: 'a new password 1', current_password: v.password } });
    assert.equal(changed.status, 200, changed.text);
    assert.equal((await t.request('GET', '/api/me', { cookie: v.cookie })).status, 200, 'own session kept');
    assert.equal((await t.request('GET', '/api/me', { cookie: second })).status, 401, 'other session ended');
    assert.equal((await t.request('POST', '/api/auth/login', { body: { username: v.username, password: v.password } })).status, 401);
    await t.login(v.username, 'a new password 1');

    // An admin sets another user's password without the current one; all of that user's sessions end.
    const reset = await t.request('PUT', `/api/users/${v.id}`, { key: admin.key, body: { password: 'admin chose this 1' } });
    assert.equal(reset.status, 200, reset.text);
    assert.equal((await t.request('GET', '/api/me', { cookie: v.cookie })).status, 401);
    await t.login(v.username, 'admin chose this 1');

    const entries = await auditOf(t, admin.key, 'action=user.update&limit=100');
    const pw = entries.filter((e) => e.details?.id === v.id && e.details.fields?.includes('password'));
    assert.ok(pw.some((e) => e.actor === v.username && e.outcome === 'success'));
    assert.ok(pw.some((e) => e.outcome === 'failure' && e.details.reason === 'wrong_current_password'));
    assert.ok(!JSON.stringify(entries).includes('admin chose this 1'));
  });

  test('setup wizard: needed until saved; validation; admin only; writes the config', async () => {
    const before = await t.request('GET', '/api/setup/needed');
    assert.deepEqual(before.body, { needed: true, bootstrap_needed: false, completed_at: null });
    const op = await t.user('operator');
    const good = { probe_name: 'Lab probe', hostname: 'probe-1', timezone: 'Europe/Berlin', admin_email: 'ops@example.org' };
    assertProblem(await t.request('POST', '/api/setup/save', { cookie: op.cookie, body: good }), 403);
    assertProblem(await t.request('POST', '/api/setup/save', { key: admin.key, body: { ...good, timezone: 'Mars/Olympus' } }), 400, 'timezone');
    assertProblem(await t.request('POST', '/api/setup/save', { key: admin.key, body: { ...good, timezone: '+02:00' } }), 400, 'timezone');
    assertProblem(await t.request('POST', '/api/setup/save', { key: admin.key, body: { ...good, hostname: '-bad-' } }), 400, 'hostname');
    assertProblem(await t.request('POST', '/api/setup/save', { key: admin.key, body: { ...good, hostname: 'a.b' } }), 400, 'hostname');
    assertProblem(await t.request('POST', '/api/setup/save', { key: admin.key, body: { ...good, admin_email: 'x' } }), 400, 'admin_email');
    assertProblem(await t.request('POST', '/api/setup/save', { key: admin.key, body: { ...good, probe_name: '' } }), 400, 'probe_name');
    assertProblem(await t.request('POST', '/api/setup/save', { key: admin.key, body: { timezone: 'UTC' } }), 400, 'probe_name');
    assert.equal((await t.request('GET', '/api/setup/needed')).body.needed, true, 'failed saves change nothing');

    const r = await t.request('POST', '/api/setup/save', { key: admin.key, body: { ...good, timezone: 'europe/berlin' } });
    assert.equal(r.status, 200, r.text);
    assert.equal(r.body.timezone, 'Europe/Berlin', 'stored in canonical spelling');
    assert.equal(r.body.probe_name, 'Lab probe');
    const cfg = t.service.app.config.get().probe;
    assert.deepEqual({ ...cfg }, { name: 'Lab probe', hostname: 'probe-1', timezone: 'Europe/Berlin', admin_email: 'ops@example.org' });
    const after = await t.request('GET', '/api/setup/needed');
    assert.equal(after.body.needed, false);
    assert.equal(after.body.completed_at, r.body.completed_at);
    const e = (await auditOf(t, admin.key, 'action=setup.save'))[0];
    assert.equal(e.actor, `${admin.username} (key test-admin)`);
    assert.equal(e.details.timezone, 'Europe/Berlin');
  });

  test('audit log: admin only, filters, validation', async () => {
    const all = await t.request('GET', '/api/audit-log', { key: admin.key });
    assert.equal(all.status, 200);
    assert.ok(all.body.total >= all.body.items.length && all.body.items.length <= 50);
    const times = all.body.items.map((e: any) => e.at);
    assert.deepEqual([...times].sort().reverse(), times, 'newest first');
    const byActor = await auditOf(t, admin.key, `actor=${encodeURIComponent(admin.username)}`);
    assert.ok(byActor.length > 0 && byActor.every((e) => e.actor === admin.username));
    const auth = await auditOf(t, admin.key, 'action=auth.*&limit=500');
    assert.ok(auth.length > 0 && auth.every((e) => e.action.startsWith('auth.')));
    const future = await auditOf(t, admin.key, 'since=2999-01-01T00:00:00Z');
    assert.equal(future.length, 0);
    const past = await auditOf(t, admin.key, 'until=2001-01-01T00:00:00Z');
    assert.equal(past.length, 0);
    const page = await t.request('GET', '/api/audit-log?limit=2&offset=1', { key: admin.key });
    assert.equal(page.body.items.length, 2);
    assert.equal(page.body.items[0].id, all.body.items[1].id);
    assertProblem(await t.request('GET', '/api/audit-log?limit=0', { key: admin.key }), 400, 'query.limit');
    assertProblem(await t.request('GET', '/api/audit-log?limit=501', { key: admin.key }), 400, 'query.limit');
    assertProblem(await t.request('GET', '/api/audit-log?since=yesterday', { key: admin.key }), 400, 'query.since');
    const op = await t.user('operator', ['system:read']);
    assertProblem(await t.request('GET', '/api/audit-log', { cookie: op.cookie }), 403);
    assertProblem(await t.request('GET', '/api/audit-log', { key: op.key }), 403);
  });

  test('invalid bodies on each endpoint are 400 problem+json naming the field', async () => {
    const v = await t.user('viewer');
    const cases: [string, string, Record<string, unknown>, string, { key?: string; cookie?: string }][] = [
      ['POST', '/api/auth/login', { username: 5, password: 'x' }, 'username', {}],
      ['POST', '/api/auth/login', { username: 'a' }, 'password', {}],
      ['POST', '/api/auth/login', { username: 'a', password: 'b', remember: true }, 'remember', {}],
      ['POST', '/api/users', { username: 'gina', password: 'gina password' }, 'role', { key: admin.key }],
      ['PUT', `/api/users/${v.id}`, { email: 'not-an-email' }, 'email', { key: admin.key }],
      ['PUT', `/api/users/${v.id}`, { display_name: 7 }, 'display_name', { cookie: v.cookie }],
      ['POST', '/api/api-keys', { name: 'k', scopes: ['nope'] }, 'scopes.0', { key: admin.key }],
      ['POST', '/api/api-keys', { name: 'k', scopes: [] }, 'scopes', { key: admin.key }],
      ['POST', '/api/api-keys', { scopes: ['monitors:read'] }, 'name', { key: admin.key }],
      ['POST', '/api/api-keys', { name: 'k', scopes: ['monitors:read'], expires_at: 'tomorrow' }, 'expires_at', { key: admin.key }],
      ['POST', '/api/setup/bootstrap', { username: 'x' }, 'username', {}],
      ['POST', '/api/setup/save', { probe_name: 'p', timezone: 'Nowhere/Special' }, 'timezone', { key: admin.key }],
    ];
    for (const [method, path, body, field, auth] of cases) {
      const r = await t.request(method, path, { body, ...auth });
      assertProblem(r, 400, field);
      assert.equal(r.body.code, 'validation_failed', `${method} ${path}`);
    }
    // Bootstrap is checked for being done before the body's rules: a done probe says 409 for a valid body.
    const done = await t.request('POST', '/api/setup/bootstrap', { body: { username: 'again', password: 'again password' } });
    assertProblem(done, 409);
    assert.equal(done.body.code, 'already_bootstrapped');
  });
});

// ---- a probe on a manual clock behind a trusted proxy: rate limits, expiry, Secure cookies ----------

describe('with a manual clock behind a trusted proxy', () => {
  let t: TestApp;
  let admin: Awaited<ReturnType<TestApp['admin']>>;
  const clock = new ManualClock(Date.parse('2026-03-01T00:00:00Z'));
  const from = (ip: string, extra: Record<string, string> = {}) => ({ 'x-forwarded-for': ip, ...extra });
  before(async () => {
    t = await appWithConfig('server:\n  trust_proxy: true\n', { clock });
    admin = await t.admin();
  });
  after(() => t.close());

  test('the Secure attribute follows X-Forwarded-Proto when the proxy is trusted', async () => {
    const r = await t.request('POST', '/api/auth/login', { body: { username: admin.username, password: admin.password }, headers: from('198.51.100.1', { 'x-forwarded-proto': 'https' }) });
    assert.equal(r.status, 200);
    assert.equal(attrs(r.headers.get('set-cookie')!).secure, true);
  });

  test('login locks an account at one address, with 429 and Retry-After, even for the right password; audited', async () => {
    const u = await t.user('viewer');
    const other = await t.user('viewer');
    const ip = '198.51.100.20';
    const login = (who: { username: string }, password: string, at = ip) =>
      t.request('POST', '/api/auth/login', { body: { username: who.username, password }, headers: from(at) });
    for (let i = 0; i < 5; i++) assert.equal((await login(u, 'wrong password')).status, 401);
    const locked = await login(u, u.password);
    assertProblem(locked, 429);
    assert.equal(locked.body.code, 'rate_limited');
    assert.equal(locked.headers.get('retry-after'), String(15 * 60));
    // Another user at the same address (an office behind one NAT address), and the same user elsewhere, are not locked.
    assert.equal((await login(other, other.password)).status, 200);
    assert.equal((await login(u, u.password, '198.51.100.21')).status, 200);
    clock.advance(10 * 60_000);
    assert.equal((await login(u, u.password)).headers.get('retry-after'), String(5 * 60));
    clock.advance(5 * 60_000 + 1000);
    assert.equal((await login(u, u.password)).status, 200);
    const fails = await auditOf(t, admin.key, 'action=auth.login&limit=100');
    const fromIp = fails.filter((e) => e.source_ip === ip && e.outcome === 'failure');
    assert.equal(fromIp.length, 5);
    assert.ok(fromIp.some((e) => e.details.locked_out === true));
  });

  test('16 parallel wrong passwords for one account from one address: 5 are checked, the rest get 429', async () => {
    const u = await t.user('viewer');
    const ip = '198.51.100.30';
    const all = await Promise.all(Array.from({ length: 16 }, () =>
      t.request('POST', '/api/auth/login', { body: { username: u.username, password: 'wrong password' }, headers: from(ip) })));
    const count = (status: number) => all.filter((r) => r.status === status).length;
    assert.equal(count(401), 5);
    assert.equal(count(429), 11);
    assertProblem(await t.request('POST', '/api/auth/login', { body: { username: u.username, password: u.password }, headers: from(ip) }), 429);
    clock.advance(16 * 60_000);
  });

  test('an address is locked only far above one person\'s mistakes (ten times the limit), in parallel too', async () => {
    const u = await t.user('viewer');
    const ip = '198.51.100.40';
    // 60 different names at once: the address allows 50 guesses, then refuses everyone.
    const all = await Promise.all(Array.from({ length: 60 }, (_, i) =>
      t.request('POST', '/api/auth/login', { body: { username: `guess${i}`, password: 'wrong password' }, headers: from(ip) })));
    assert.equal(all.filter((r) => r.status === 401).length, 50);
    assert.equal(all.filter((r) => r.status === 429).length, 10);
    assertProblem(await t.request('POST', '/api/auth/login', { body: { username: u.username, password: u.password }, headers: from(ip) }), 429);
    clock.advance(16 * 60_000);
  });

  test('sessions end after the idle timeout and at the absolute expiry', async () => {
    const cookie = await t.login(admin.username, admin.password);
    clock.advance(119 * 60_000);
    assert.equal((await t.request('GET', '/api/me', { cookie })).status, 200);
    clock.advance(119 * 60_000);
    assert.equal((await t.request('GET', '/api/me', { cookie })).status, 200, 'activity keeps it alive');
    clock.advance(121 * 60_000);
    const idle = await t.request('GET', '/api/me', { cookie });
    assertProblem(idle, 401);
    assert.equal(idle.body.code, 'session_expired');

    const active = await t.login(admin.username, admin.password);
    for (let h = 1; h < 12; h++) {
      clock.advance(60 * 60_000);
      assert.equal((await t.request('GET', '/api/me', { cookie: active })).status, 200, `hour ${h}`);
    }
    clock.advance(60 * 60_000);
    assert.equal((await t.request('GET', '/api/me', { cookie: active })).body.code, 'session_expired');
  });

  test('an expired API key is refused', async () => {
    const r = await t.request('POST', '/api/api-keys', { key: admin.key, body: { name: 'day', scopes: ['system:read'], expires_in_days: 1 } });
    assert.equal(r.status, 201);
    assert.equal((await t.request('GET', '/api/me', { key: r.body.key })).status, 200);
    clock.advance(86_400_000 + 1000);
    const e = await t.request('GET', '/api/me', { key: r.body.key });
    assertProblem(e, 401);
    assert.equal(e.body.code, 'invalid_api_key');
    assert.match(e.body.detail, /expired/);
    const listed = (await t.request('GET', '/api/api-keys', { key: admin.key })).body.items.find((k: any) => k.id === r.body.id);
    assert.ok(listed.last_used_at, 'last use recorded');
  });
});

// ---- first run ---------------------------------------------------------------------------------------

describe('first run', () => {
  test('bootstrap from elsewhere needs the setup code; wrong codes are refused and rate limited', async () => {
    const t = await startTestApp();
    try {
      const remote = { 'x-forwarded-for': '192.0.2.44' }; // proxy headers: never counted as loopback
      assert.ok(t.initialPassword.length >= 20);
      assert.ok(t.logs.some((l) => l.includes('One-time admin password') && l.includes(t.initialPassword)));
      assert.deepEqual((await t.request('GET', '/api/setup/bootstrap-needed')).body, { bootstrap_needed: true });
      assert.deepEqual((await t.request('GET', '/api/setup/needed')).body, { needed: true, bootstrap_needed: true, completed_at: null });

      // The one-time admin can sign in, and is told bootstrap is still needed.
      const login = await t.request('POST', '/api/auth/login', { body: { username: 'admin', password: t.initialPassword } });
      assert.equal(login.status, 200);
      assert.equal(login.body.bootstrap_needed, true);
      const oneTimeCookie = cookieOf(login);

      const body = { username: 'owner', password: 'owner password 1', email: 'owner@example.org' };
      assertProblem(await t.request('POST', '/api/setup/bootstrap', { body, headers: remote }), 400, 'setup_code');
      const wrong = await t.request('POST', '/api/setup/bootstrap', { body: { ...body, setup_code: 'not-the-code' }, headers: remote });
      assertProblem(wrong, 403);
      assert.equal(wrong.body.code, 'invalid_setup_code');
      assertProblem(await t.request('POST', '/api/setup/bootstrap', { body: { ...body, setup_code: t.initialPassword, password: 'short' }, headers: remote }), 400, 'password');

      const ok = await t.request('POST', '/api/setup/bootstrap', { body: { ...body, setup_code: t.initialPassword }, headers: remote });
      assert.equal(ok.status, 201, ok.text);
      assert.equal(ok.body.user.username, 'owner');
      assert.equal(ok.body.user.role, 'admin');
      assert.equal((await t.request('GET', '/api/setup/bootstrap-needed')).body.bootstrap_needed, false);
      assert.equal(existsSync(join(t.dataDir, 'initial-admin-password')), false, 'password file removed');
      assert.equal((await t.request('GET', '/api/me', { cookie: oneTimeCookie })).status, 401, 'one-time session ended');
      assert.equal((await t.request('POST', '/api/auth/login', { body: { username: 'admin', password: t.initialPassword } })).status, 401, 'one-time password retired');
      const again = await t.request('POST', '/api/setup/bootstrap', { body: { ...body, username: 'second', setup_code: t.initialPassword } });
      assertProblem(again, 409);
      assert.equal(again.body.code, 'already_bootstrapped');

      const cookie = await t.login('owner', 'owner password 1');
      const k = (await t.request('POST', '/api/api-keys', { cookie, body: { name: 'a', scopes: ['admin'] } })).body.key;
      const entries = await auditOf(t, k, 'action=setup.bootstrap');
      const success = entries.find((e) => e.outcome === 'success');
      assert.equal(success.actor, 'owner');
      assert.equal(success.details.via, 'setup_code');
      assert.equal(success.source_ip, '127.0.0.1');
      assert.ok(entries.some((e) => e.outcome === 'failure' && e.details.reason === 'wrong_setup_code'));
      assert.ok(!JSON.stringify(entries).includes(t.initialPassword));
    } finally {
      await t.close();
    }
  });

  test('wrong setup codes are rate limited per address', async () => {
    const t = await startTestApp();
    try {
      const body = { username: 'owner', password: 'owner password 1', setup_code: 'guess' };
      for (let i = 0; i < 5; i++) assert.equal((await t.request('POST', '/api/setup/bootstrap', { body, headers: { 'x-forwarded-for': '1.2.3.4' } })).status, 403);
      const r = await t.request('POST', '/api/setup/bootstrap', { body: { ...body, setup_code: t.initialPassword }, headers: { 'x-forwarded-for': '1.2.3.4' } });
      assertProblem(r, 429);
      assert.ok(r.headers.get('retry-after'));
      // From the probe itself no code is needed (and the remote lockout does not apply).
      assert.equal((await t.request('POST', '/api/setup/bootstrap', { body: { username: 'owner', password: 'owner password 1' } })).status, 201);
    } finally {
      await t.close();
    }
  });

  test('from loopback no setup code is needed; the last admin is protected', async () => {
    const t = await startTestApp();
    try {
      const r = await t.request('POST', '/api/setup/bootstrap', { body: { username: 'local', password: 'local password 1' } });
      assert.equal(r.status, 201, r.text);
      const cookie = await t.login('local', 'local password 1');
      const me = r.body.user.id;
      const self = await t.request('DELETE', `/api/users/${me}`, { cookie });
      assertProblem(self, 409);
      assert.equal(self.body.code, 'last_admin');
      assert.equal((await t.request('PUT', `/api/users/${me}`, { cookie, body: { role: 'operator' } })).body.code, 'last_admin');
      assert.equal((await t.request('PUT', `/api/users/${me}`, { cookie, body: { disabled: true } })).body.code, 'last_admin');
      // With a second admin, an admin may step down or delete themselves.
      const second = await t.request('POST', '/api/users', { cookie, body: { username: 'second', password: 'second password', role: 'admin' } });
      assert.equal(second.status, 201);
      assert.equal((await t.request('PUT', `/api/users/${me}`, { cookie, body: { role: 'operator' } })).body.role, 'operator');
      const other = await t.login('second', 'second password');
      assert.equal((await t.request('PUT', `/api/users/${me}`, { cookie: other, body: { role: 'admin' } })).status, 200);
      assert.equal((await t.request('DELETE', `/api/users/${me}`, { cookie })).status, 204);
      assert.equal((await t.request('GET', '/api/me', { cookie })).status, 401, 'the deleted user is signed out');
      const last = await t.request('DELETE', `/api/users/${second.body.id}`, { cookie: other });
      assert.equal(last.body.code, 'last_admin');
    } finally {
      await t.close();
    }
  });

  test('the one-time admin may create the real admin through /api/users, which retires it', async () => {
    const t = await startTestApp();
    try {
      const cookie = await t.login('admin', t.initialPassword);
      const r = await t.request('POST', '/api/users', { cookie, body: { username: 'real', password: 'real password 1', role: 'admin' } });
      assert.equal(r.status, 201, r.text);
      assert.equal((await t.request('GET', '/api/setup/bootstrap-needed')).body.bootstrap_needed, false);
      assert.equal((await t.request('GET', '/api/me', { cookie })).status, 401);
      assert.equal(existsSync(join(t.dataDir, 'initial-admin-password')), false);
    } finally {
      await t.close();
    }
  });
});
