// Changing a user's e-mail address through real HTTP: it takes a signed-in session and the caller's own
// current password (with password recovery by e-mail the address controls the account), never an API
// key, and the previous address gets a notice, received here by an SMTP sink on loopback.
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { assertProblem, startTestApp, type TestApp } from '../helpers/harness.js';
import { sink, until, type Sink } from '../helpers/smtp-sink.js';

async function appWithConfig(yaml: string): Promise<TestApp> {
  const dir = await mkdtemp(join(tmpdir(), 'netprobe-email-change-it-'));
  await writeFile(join(dir, 'config.yaml'), yaml);
  const app = await startTestApp({ dataDir: dir });
  const close = app.close.bind(app);
  app.close = async (o) => { await close(o); await rm(dir, { recursive: true, force: true }); };
  return app;
}

describe('changing an e-mail address', () => {
  let t: TestApp;
  let mail: Sink;
  let admin: Awaited<ReturnType<TestApp['admin']>>;
  let u: Awaited<ReturnType<TestApp['user']>>;
  const put = (id: string, auth: { cookie?: string; key?: string }, body: Record<string, unknown>) =>
    t.request('PUT', `/api/users/${id}`, { ...auth, body });
  const emailOf = async (id: string) => (await t.request('GET', `/api/users/${id}`, { key: admin.key })).body.email;
  const auditOf = async (target: string) =>
    (await t.request('GET', '/api/audit-log?action=user.update&limit=50', { key: admin.key })).body.items
      .filter((i: any) => i.target === target) as any[];

  before(async () => {
    mail = await sink();
    t = await appWithConfig(`auth:\n  login_max_failures: 3\nsmtp:\n  host: 127.0.0.1\n  port: ${mail.port}\n  security: none\n`);
    admin = await t.admin();
    u = await t.user('operator', ['system:write']);
    assert.equal((await put(u.id, { cookie: u.cookie }, { email: 'first@example.test', current_password: u.password })).status, 200);
  });
  after(async () => { await t.close(); await mail.close(); });

  test('through an API key it is refused, even an administrator\'s; other fields still change', async () => {
    const own = await put(u.id, { key: u.key }, { email: 'attacker@example.test', current_password: u.password });
    assertProblem(own, 403);
    assert.equal(own.body.code, 'session_required');
    assert.match(own.body.detail, /signed-in session/);
    assertProblem(await put(u.id, { key: admin.key }, { email: 'attacker@example.test' }), 403);
    assert.equal(await emailOf(u.id), 'first@example.test');
    // A display name, or the same address again, needs neither a session nor a password.
    assert.equal((await put(u.id, { key: u.key }, { display_name: 'Una', email: 'first@example.test' })).status, 200);
  });

  test('without the current password it is a 400 naming current_password; a wrong one is counted', async () => {
    assertProblem(await put(u.id, { cookie: u.cookie }, { email: 'second@example.test' }), 400, 'current_password');
    const w = await t.user('viewer');
    for (let i = 0; i < 3; i++) {
      const r = await put(w.id, { cookie: w.cookie }, { email: 'w@example.test', current_password: 'not the password' });
      assertProblem(r, 400, 'current_password');
      assert.equal(r.body.code, 'wrong_current_password');
    }
    // The limit is 3: now even the right password waits.
    assertProblem(await put(w.id, { cookie: w.cookie }, { email: 'w@example.test', current_password: w.password }), 429);
    assert.equal(await emailOf(w.id), null);
    const failed = (await auditOf(w.username)).filter((i) => i.outcome === 'failure');
    assert.equal(failed.length, 3);
    assert.deepEqual(failed[0].details.fields, ['email']);
  });

  test('with the current password it changes, the old address is told, and it is audited', async () => {
    const before = mail.mails.length;
    const r = await put(u.id, { cookie: u.cookie }, { email: 'second@example.test', current_password: u.password });
    assert.equal(r.status, 200, r.text);
    assert.equal(r.body.email, 'second@example.test');
    const notice = await until('the notice', () => mail.mails[before]);
    assert.deepEqual(notice.to, ['first@example.test']);
    assert.match(notice.raw, /was changed/);
    assert.ok(notice.raw.includes(`"${u.username}"`));
    assert.ok(notice.raw.includes('by the account itself'));
    assert.ok(!notice.raw.includes(u.password));
    const entry = (await auditOf(u.username)).find((i) => i.outcome === 'success' && i.details.fields?.includes('email'));
    assert.ok(entry, 'a user.update entry for the e-mail change');
    assert.equal(entry.details.old_email_notice, 'queued');
    assert.equal(entry.actor, u.username);
  });

  test('an administrator changes another user\'s address with the administrator\'s own password', async () => {
    assertProblem(await put(u.id, { cookie: admin.cookie }, { email: 'third@example.test', current_password: u.password }), 400, 'current_password');
    const before = mail.mails.length;
    const r = await put(u.id, { cookie: admin.cookie }, { email: 'third@example.test', current_password: admin.password });
    assert.equal(r.status, 200, r.text);
    const notice = await until('the notice', () => mail.mails[before]);
    assert.deepEqual(notice.to, ['second@example.test']);
    assert.ok(notice.raw.includes(`administrator "${admin.username}"`));
  });
});

describe('changing an e-mail address without an SMTP server', () => {
  let t: TestApp;
  before(async () => { t = await appWithConfig(''); });
  after(() => t.close());

  test('it changes; the notice is skipped, and the log and the audit entry say so', async () => {
    const u = await t.user('viewer');
    const body = (email: string) => ({ email, current_password: u.password });
    assert.equal((await t.request('PUT', `/api/users/${u.id}`, { cookie: u.cookie, body: body('a@example.test') })).status, 200);
    const r = await t.request('PUT', `/api/users/${u.id}`, { cookie: u.cookie, body: body('b@example.test') });
    assert.equal(r.status, 200, r.text);
    assert.ok(t.logs.some((l) => l.includes('e-mail change notice not sent')));
    const a = await t.request('GET', '/api/audit-log?action=user.update&limit=10', { key: (await t.admin()).key });
    assert.ok(a.body.items.some((i: any) => i.target === u.username && i.details.old_email_notice === 'smtp_not_configured'));
  });
});
