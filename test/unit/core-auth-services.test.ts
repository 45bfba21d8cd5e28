// Users, sessions, API keys, bootstrap, the authenticator and the audit log against a real store.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import type { IncomingMessage } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { createAudit } from '../../src/core/audit/index.js';
import { createAuth, isAdmin, type AuthServices } from '../../src/core/auth/index.js';
import { roleScopes, type Scope } from '../../src/core/auth/scopes.js';
import { needsRehash, verifyPassword } from '../../src/core/auth/passwords.js';
import { hashToken } from '../../src/core/auth/sessions.js';
import { ManualClock } from '../../src/core/clock.js';
import { ConfigService } from '../../src/core/config/index.js';
import { HttpError } from '../../src/core/errors.js';
import { Logger } from '../../src/core/log.js';
import { coreMigrations } from '../../src/core/schema.js';
import { openStore } from '../../src/core/store/index.js';
import type { Store } from '../../src/core/store/types.js';

type T = { after(fn: () => Promise<void> | void): void };

interface Env {
  dir: string;
  store: Store;
  clock: ManualClock;
  auth: AuthServices;
  config: ConfigService;
  lines: string[];
}

async function setup(t: T): Promise<Env> {
  const dir = await mkdtemp(join(tmpdir(), 'netprobe-auth-'));
  const clock = new ManualClock();
  const lines: string[] = [];
  const log = Logger.create({ write: (l) => lines.push(l), level: 'debug' });
  const config = await ConfigService.load({ env: { NETPROBE_DATA_DIR: dir }, log: log.child('config') });
  const store = await openStore({ dir, migrations: coreMigrations, now: () => clock.now(), groupCommitMs: 60_000 });
  t.after(async () => { await store.close(); await rm(dir, { recursive: true, force: true }); });
  const auth = createAuth({ store, config, clock, log: log.child('auth') });
  return { dir, store, clock, auth, config, lines };
}

async function rejectsWith(p: Promise<unknown>, status: number, code?: string): Promise<HttpError> {
  try { await p; } catch (e) {
    assert.ok(e instanceof HttpError, `expected HttpError, got ${String(e)}`);
    assert.equal(e.status, status, e.message);
    if (code) assert.equal(e.code, code);
    return e;
  }
  assert.fail(`expected ${status}`);
}

function fakeReq(headers: Record<string, string>, remote = '127.0.0.1'): IncomingMessage {
  return { headers, socket: { remoteAddress: remote } } as unknown as IncomingMessage;
}

/** The first real admin via bootstrap, as most tests need one. */
async function realAdmin(e: Env, username = 'root') {
  await e.auth.bootstrap.ensureInitialAdmin();
  return e.auth.bootstrap.bootstrap({ username, password: 'root password 123' });
}

test('first run: one-time admin, 0600 password file, one clear log line; later starts only point at the file', async (t) => {
  const e = await setup(t);
  assert.equal(e.auth.bootstrap.needed(), true);
  const r = await e.auth.bootstrap.ensureInitialAdmin();
  assert.equal(r.created, true);
  assert.ok(r.password && r.password.length >= 20);
  assert.doesNotMatch(r.password, /[0O1lI]/);
  const file = join(e.dir, 'initial-admin-password');
  assert.equal((await readFile(file, 'utf8')).trim(), r.password);
  assert.equal((await stat(file)).mode & 0o777, 0o600);
  const warn = e.lines.filter((l) => l.includes('WARN') && l.includes(r.password!));
  assert.equal(warn.length, 1);
  assert.match(warn[0]!, /One-time admin password: \S+ \(also in .*initial-admin-password\); sign in as "admin"/);

  const admin = e.auth.users.getByUsername('ADMIN')!;
  assert.equal(admin.role, 'admin');
  assert.equal(admin.one_time, 1);
  assert.equal(e.auth.bootstrap.needed(), true, 'the one-time admin is not a real admin');

  e.lines.length = 0;
  const again = await e.auth.bootstrap.ensureInitialAdmin();
  assert.equal(again.created, false);
  assert.equal(e.auth.users.count(), 1);
  assert.ok(e.lines.some((l) => l.includes(file)));
  assert.ok(!e.lines.some((l) => l.includes(r.password!)), 'the password is logged only once');

  assert.equal(await e.auth.bootstrap.verifySetupCode(r.password!), true);
  assert.equal(await e.auth.bootstrap.verifySetupCode('wrong code'), false);
});

test('bootstrap creates the real admin and retires the one-time admin, its sessions and file', async (t) => {
  const e = await setup(t);
  const { password } = await e.auth.bootstrap.ensureInitialAdmin();
  const oneTime = e.auth.users.getByUsername('admin')!;
  const s = await e.auth.sessions.create(oneTime.id, { ip: '127.0.0.1' });
  const user = await e.auth.bootstrap.bootstrap({ username: 'alice', password: 'alice password 1', email: 'a@example.org' });
  assert.equal(user.role, 'admin');
  assert.equal(user.email, 'a@example.org');
  assert.equal(e.auth.bootstrap.needed(), false);
  assert.equal(e.auth.users.getByUsername('admin'), null);
  assert.equal(await e.auth.sessions.resolve(s.token), null);
  assert.equal(existsSync(join(e.dir, 'initial-admin-password')), false);
  assert.equal(await e.auth.bootstrap.verifySetupCode(password!), false);
  await rejectsWith(e.auth.bootstrap.bootstrap({ username: 'mallory', password: 'mallory password' }), 409, 'already_bootstrapped');
  // A start after bootstrap neither recreates the admin nor complains.
  assert.equal((await e.auth.bootstrap.ensureInitialAdmin()).created, false);
  assert.equal(e.auth.users.count(), 1);
});

test('the one-time admin choosing its own password becomes a real admin', async (t) => {
  const e = await setup(t);
  await e.auth.bootstrap.ensureInitialAdmin();
  const admin = e.auth.users.getByUsername('admin')!;
  const r = await e.auth.users.update(admin.id, { password: 'a brand new password' });
  assert.deepEqual(r.changed, ['password']);
  assert.equal(e.auth.users.row(admin.id)!.one_time, 0);
  assert.equal(e.auth.bootstrap.needed(), false);
  assert.equal(existsSync(join(e.dir, 'initial-admin-password')), false);
});

test('users: create, duplicates, policy, list, public shape', async (t) => {
  const e = await setup(t);
  await realAdmin(e);
  const bob = await e.auth.users.create({ username: 'Bob', password: 'bob password 1', role: 'operator', display_name: 'Bob B' });
  assert.deepEqual(Object.keys(bob).sort(),
    ['created_at', 'disabled', 'display_name', 'email', 'id', 'last_login_at', 'role', 'updated_at', 'username']);
  assert.equal(bob.disabled, false);
  await rejectsWith(e.auth.users.create({ username: 'bob', password: 'another password', role: 'viewer' }), 409, 'username_taken');
  const pol = await rejectsWith(e.auth.users.create({ username: 'carol', password: 'short', role: 'viewer' }), 400);
  assert.equal(pol.errors?.[0]?.path, 'password');
  await rejectsWith(e.auth.users.create({ username: 'carolcarol', password: 'CarolCarol', role: 'viewer' }), 400);
  // A hash made with weaker parameters is upgraded by rehash (the login route calls it after a match).
  const weak = 'scrypt$1024$8$1$AAAAAAAAAAAAAAAAAAAAAA$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA';
  await e.store.write((tx) => tx.run('UPDATE users SET password_hash = ? WHERE id = ?', [weak, bob.id]));
  assert.equal(needsRehash(e.auth.users.row(bob.id)!.password_hash), true);
  await e.auth.users.rehash(bob.id, 'bob password 1');
  const upgraded = e.auth.users.row(bob.id)!.password_hash;
  assert.equal(needsRehash(upgraded), false);
  assert.equal(await verifyPassword('bob password 1', upgraded), true);
  const list = e.auth.users.list({ limit: 1, offset: 0 });
  assert.equal(list.total, 2);
  assert.equal(list.items.length, 1);
  assert.equal(e.auth.users.get('not-a-uuid'), null);
  assert.equal(e.auth.users.get(crypto.randomUUID()), null);
});

test('users: the last enabled admin cannot be deleted, demoted or disabled', async (t) => {
  const e = await setup(t);
  const root = await realAdmin(e);
  await rejectsWith(e.auth.users.delete(root.id), 409, 'last_admin');
  await rejectsWith(e.auth.users.update(root.id, { role: 'operator' }), 409, 'last_admin');
  await rejectsWith(e.auth.users.update(root.id, { disabled: true }), 409, 'last_admin');
  const second = await e.auth.users.create({ username: 'second', password: 'second password', role: 'admin' });
  await e.auth.users.update(root.id, { role: 'operator' });
  await rejectsWith(e.auth.users.delete(second.id), 409, 'last_admin');
  await e.auth.users.update(root.id, { role: 'admin' });
  await e.auth.users.update(second.id, { disabled: true });
  // A disabled admin does not count.
  await rejectsWith(e.auth.users.delete(root.id), 409, 'last_admin');
  await e.auth.users.delete(second.id);
  assert.equal(e.auth.users.count(), 1);
});

test('users: password change ends other sessions; disabling ends all; delete removes sessions and keys', async (t) => {
  const e = await setup(t);
  await realAdmin(e);
  const u = await e.auth.users.create({ username: 'dave', password: 'dave password 1', role: 'operator' });
  const s1 = await e.auth.sessions.create(u.id, {});
  const s2 = await e.auth.sessions.create(u.id, {});
  const r = await e.auth.users.update(u.id, { password: 'dave password 2', email: 'd@example.org' }, { keepSessionId: s1.id });
  assert.deepEqual(r.changed.sort(), ['email', 'password']);
  assert.ok(await e.auth.sessions.resolve(s1.token));
  assert.equal(await e.auth.sessions.resolve(s2.token), null);
  const none = await e.auth.users.update(u.id, { email: 'd@example.org' });
  assert.deepEqual(none.changed, []);

  await e.auth.users.update(u.id, { disabled: true });
  assert.equal(await e.auth.sessions.resolve(s1.token), null);
  await e.auth.users.update(u.id, { disabled: false });

  const k = await e.auth.apiKeys.create({ id: u.id, username: 'dave' }, { name: 'k', scopes: ['monitors:read'] }, roleScopes('operator'));
  await e.auth.sessions.create(u.id, {});
  await e.auth.users.delete(u.id);
  assert.equal(e.store.get<{ n: number }>('SELECT COUNT(*) AS n FROM sessions WHERE user_id = ?', [u.id])!.n, 0);
  assert.equal((await e.auth.apiKeys.resolve(k.key, null)).status, 'unknown');
});

test('sessions: hashed at rest, absolute expiry, idle timeout, throttled last_seen, purge', async (t) => {
  const e = await setup(t);
  const root = await realAdmin(e);
  const s = await e.auth.sessions.create(root.id, { ip: '192.0.2.1', userAgent: 'test' });
  assert.match(s.token, /^[A-Za-z0-9_-]{43}$/);
  assert.equal(s.max_age, 12 * 3600);
  assert.equal(e.store.get('SELECT id FROM sessions WHERE id = ?', [s.token]), undefined);
  assert.ok(e.store.get('SELECT id FROM sessions WHERE id = ?', [hashToken(s.token)]));
  assert.ok(e.auth.users.get(root.id)!.last_login_at);

  const seen = () => e.store.get<{ last_seen_at: string }>('SELECT last_seen_at FROM sessions WHERE id = ?', [s.id])!.last_seen_at;
  const first = seen();
  e.clock.advance(30_000);
  assert.ok(await e.auth.sessions.resolve(s.token));
  assert.equal(seen(), first, 'not rewritten within a minute');
  e.clock.advance(31_000);
  assert.ok(await e.auth.sessions.resolve(s.token));
  assert.notEqual(seen(), first);

  // Idle timeout (120 minutes by default).
  e.clock.advance(121 * 60_000);
  assert.equal(await e.auth.sessions.resolve(s.token), null);

  // Absolute expiry, even while active.
  const s2 = await e.auth.sessions.create(root.id, {});
  for (let i = 0; i < 12; i++) { e.clock.advance(60 * 60_000); if (i < 11) assert.ok(await e.auth.sessions.resolve(s2.token), `hour ${i}`); }
  assert.equal(await e.auth.sessions.resolve(s2.token), null);

  await e.auth.sessions.create(root.id, {});
  const s4 = await e.auth.sessions.create(root.id, {});
  e.clock.advance(200 * 60_000);
  await e.auth.sessions.create(root.id, {});
  assert.equal(await e.auth.sessions.purgeExpired(), 2);
  assert.equal(await e.auth.sessions.resolve(s4.token), null);
  assert.equal(await e.auth.sessions.resolve('garbage'), null);
});

test('api keys: format, hash only at rest, scopes capped, expiry, list, revoke, throttled last use', async (t) => {
  const e = await setup(t);
  const root = await realAdmin(e);
  const op = await e.auth.users.create({ username: 'op', password: 'operator password', role: 'operator' });
  const { key, record } = await e.auth.apiKeys.create({ id: op.id, username: 'op' },
    { name: 'ci', scopes: ['monitors:write', 'monitors:read', 'monitors:write'] }, roleScopes('operator'));
  assert.match(key, /^np_[A-Za-z0-9]{40}$/);
  assert.equal(record.prefix, key.slice(0, 11));
  assert.deepEqual(record.scopes, ['monitors:read', 'monitors:write']);
  assert.deepEqual(record.owner, { id: op.id, username: 'op' });
  const dump = JSON.stringify(e.store.all('SELECT * FROM api_keys'));
  assert.ok(!dump.includes(key), 'the key itself is never stored');

  await rejectsWith(e.auth.apiKeys.create({ id: op.id, username: 'op' }, { name: 'x', scopes: ['admin'] }, roleScopes('operator')), 403, 'forbidden');
  // A key cannot mint a stronger key.
  await rejectsWith(e.auth.apiKeys.create({ id: root.id, username: 'root' }, { name: 'x', scopes: ['brain:write'] },
    new Set<Scope>(['system:write', 'system:read'])), 403);
  const past = await rejectsWith(e.auth.apiKeys.create({ id: op.id, username: 'op' },
    { name: 'x', scopes: ['monitors:read'], expires_at: '2020-01-01T00:00:00Z' }, roleScopes('operator')), 400);
  assert.equal(past.errors?.[0]?.path, 'expires_at');

  const r = await e.auth.apiKeys.resolve(key, '192.0.2.9');
  assert.equal(r.status, 'ok');
  const used = () => e.store.get<{ last_used_at: string; last_used_ip: string }>('SELECT last_used_at, last_used_ip FROM api_keys WHERE id = ?', [record.id])!;
  const firstUse = used();
  assert.equal(firstUse.last_used_ip, '192.0.2.9');
  e.clock.advance(10_000);
  await e.auth.apiKeys.resolve(key, '192.0.2.9');
  assert.equal(used().last_used_at, firstUse.last_used_at);
  e.clock.advance(60_000);
  await e.auth.apiKeys.resolve(key, '192.0.2.10');
  assert.notEqual(used().last_used_at, firstUse.last_used_at);
  assert.equal(used().last_used_ip, '192.0.2.10');

  const exp = await e.auth.apiKeys.create({ id: op.id, username: 'op' },
    { name: 'short', scopes: ['monitors:read'], expires_at: e.clock.iso(e.clock.now() + 60_000) }, roleScopes('operator'));
  assert.equal((await e.auth.apiKeys.resolve(exp.key, null)).status, 'ok');
  e.clock.advance(61_000);
  assert.equal((await e.auth.apiKeys.resolve(exp.key, null)).status, 'expired');
  assert.equal((await e.auth.apiKeys.resolve('np_' + 'A'.repeat(40), null)).status, 'unknown');
  assert.equal((await e.auth.apiKeys.resolve('nonsense', null)).status, 'unknown');

  await e.auth.apiKeys.create({ id: root.id, username: 'root' }, { name: 'root-key', scopes: ['admin'] }, roleScopes('admin'));
  assert.equal(e.auth.apiKeys.list().total, 3);
  assert.equal(e.auth.apiKeys.list({ ownerId: op.id }).total, 2);
  assert.equal(e.auth.apiKeys.list({ ownerId: op.id }).items[0]!.name, 'short', 'newest first');

  await e.auth.apiKeys.revoke(record.id);
  assert.equal((await e.auth.apiKeys.resolve(key, null)).status, 'unknown');
  await rejectsWith(e.auth.apiKeys.revoke(record.id), 404);
});

test('authenticator: key first, then cookie; principals, actors and 401 codes', async (t) => {
  const e = await setup(t);
  const root = await realAdmin(e);
  const op = await e.auth.users.create({ username: 'op', password: 'operator password', role: 'operator' });
  const { key } = await e.auth.apiKeys.create({ id: op.id, username: 'op' }, { name: 'ci', scopes: ['monitors:write'] }, roleScopes('operator'));
  const s = await e.auth.sessions.create(root.id, {});
  const a = e.auth.authenticator;

  assert.equal(await a.authenticate(fakeReq({})), null);
  const byKey = (await a.authenticate(fakeReq({ 'x-api-key': key, cookie: `np_session=${s.token}` })))!;
  assert.equal(byKey.kind, 'api_key');
  assert.equal(byKey.actor, 'op (key ci)');
  assert.deepEqual([...byKey.scopes].sort(), ['monitors:read', 'monitors:write']);
  assert.equal(isAdmin(byKey), false);

  const bySession = (await a.authenticate(fakeReq({ cookie: `other=1; np_session=${s.token}` })))!;
  assert.equal(bySession.kind, 'session');
  assert.equal(bySession.actor, 'root');
  assert.equal(bySession.session_id, s.id);
  assert.ok(isAdmin(bySession));

  await rejectsWith(a.authenticate(fakeReq({ 'x-api-key': 'np_wrong' })), 401, 'invalid_api_key');
  await rejectsWith(a.authenticate(fakeReq({ cookie: 'np_session=' + 'x'.repeat(43) })), 401, 'session_expired');

  // The owner's role caps the key: demoted to viewer, the write scope is gone.
  await e.auth.users.update(op.id, { role: 'viewer' });
  const capped = (await a.authenticate(fakeReq({ 'x-api-key': key })))!;
  assert.deepEqual([...capped.scopes], ['monitors:read']);
  await e.auth.users.update(op.id, { disabled: true });
  const dis = await rejectsWith(a.authenticate(fakeReq({ 'x-api-key': key })), 401, 'invalid_api_key');
  assert.match(dis.message, /disabled/);
});

test('audit: insert with a change, record, query filters, newest first, secrets dropped', async (t) => {
  const e = await setup(t);
  const audit = createAudit(e.store, e.clock);
  await audit.record({ action: 'auth.login', actor: 'alice', source_ip: '192.0.2.1', target: 'alice' });
  e.clock.advance(1000);
  await audit.record({ action: 'auth.login', actor: null, target: 'bob', outcome: 'failure', details: { reason: 'wrong_password', password: 'hunter2' } });
  e.clock.advance(1000);
  await e.store.write((tx) => {
    tx.run("INSERT INTO settings (key, value, updated_at) VALUES ('x', '1', 'now')");
    audit.insert(tx, { action: 'user.update', actor: 'alice', details: { fields: ['password'], nested: { api_key: 'np_abc', token: 't' }, note: 'np_' + 'a'.repeat(40) } });
  });
  e.clock.advance(1000);
  // A failed transaction leaves no audit entry behind.
  await assert.rejects(e.store.write((tx) => { audit.insert(tx, { action: 'user.delete', actor: 'alice' }); throw new Error('boom'); }));

  const all = audit.query({});
  assert.equal(all.total, 3);
  assert.deepEqual(all.items.map((i) => i.action), ['user.update', 'auth.login', 'auth.login']);
  assert.deepEqual(all.items[1]!.details, { reason: 'wrong_password' });
  assert.equal(all.items[1]!.outcome, 'failure');
  assert.deepEqual(all.items[0]!.details, { fields: ['password'], nested: {}, note: 'np_[redacted]' });
  assert.equal(all.items[2]!.source_ip, '192.0.2.1');

  assert.equal(audit.query({ action: 'auth.*' }).total, 2);
  assert.equal(audit.query({ action: 'auth' }).total, 0);
  assert.equal(audit.query({ action: 'au%' }).total, 0);
  assert.equal(audit.query({ action: 'user.update' }).total, 1);
  assert.equal(audit.query({ actor: 'alice' }).total, 2);
  const t0 = Date.parse('2026-01-01T00:00:00Z');
  assert.equal(audit.query({ since: new Date(t0 + 1000).toISOString() }).total, 2);
  assert.equal(audit.query({ until: new Date(t0 + 1000).toISOString() }).total, 2);
  assert.equal(audit.query({ since: '2026-01-01T01:00:01+01:00', until: '2026-01-01T00:00:01.500Z' }).total, 1);
  const page = audit.query({ limit: 1, offset: 1 });
  assert.equal(page.total, 3);
  assert.equal(page.items[0]!.action, 'auth.login');
});

test('audit: audit.recorded events only for committed entries', async (t) => {
  const e = await setup(t);
  const { EventBus } = await import('../../src/core/events.js');
  const bus = new EventBus();
  const seen: string[] = [];
  bus.on('audit.recorded', (p) => { seen.push(p.action); });
  const audit = createAudit(e.store, e.clock, bus);
  await audit.record({ action: 'a.one', actor: 'x' });
  await assert.rejects(e.store.write((tx) => { audit.insert(tx, { action: 'a.two', actor: 'x' }); throw new Error('rollback'); }));
  await e.store.write((tx) => audit.insert(tx, { action: 'a.three', actor: 'x' }));
  await new Promise((r) => setImmediate(r));
  assert.deepEqual(seen, ['a.one', 'a.three']);
});

test('maintenance timer purges expired sessions and can be stopped', async (t) => {
  const e = await setup(t);
  const root = await realAdmin(e);
  const s = await e.auth.sessions.create(root.id, {});
  const stop = e.auth.startMaintenance();
  // Each tick schedules the next one after its purge has finished, so move time an hour at a time.
  for (let h = 0; h < 3; h++) {
    e.clock.advance(60 * 60_000);
    await new Promise((r) => setTimeout(r, 20));
  }
  assert.equal(e.auth.sessions.countForUser(root.id), 0);
  stop();
  assert.equal(await e.auth.sessions.resolve(s.token), null);
});
