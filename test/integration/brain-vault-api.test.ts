// The credential vault through real HTTP against the real service: access rules, setup once, lock and
// unlock, wrong passphrases audited and rate limited, locked after a restart, and no passphrase or
// secret value anywhere it could leak: responses, logs, the audit log, netprobe.journal, netprobe.db.
//
// The secrets are written through the vault's service onto a credential created through the API (all
// seven secret fields at once, more than any one kind takes); test/integration/brain-credentials.test.ts
// covers the credential routes themselves.
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { JOURNAL_FILE, SNAPSHOT_FILE } from '../../src/core/store/index.js';
import { brainServicesOf, type BrainServices } from '../../src/modules/brain/index.js';
import { startTestApp, type RequestOptions, type TestApp, type TestResponse } from '../helpers/harness.js';

const PASSPHRASE = 'Vault-Passphrase-Marmot-6613';
const SECRETS = {
  community: 'Comm-Secret-Heron-2291',
  password: 'Pass-Secret-Otter-4478',
  snmpv3_auth_key: 'Auth-Secret-Lynx-8812',
  snmpv3_priv_key: 'Priv-Secret-Bison-3305',
  ssh_private_key: '-----BEGIN OPENSSH PRIVATE KEY-----\nSSH-Secret-Walrus-7740\n-----END OPENSSH PRIVATE KEY-----\n',
  ssh_passphrase: 'SshPass-Secret-Ibex-1029',
  api_token: 'Token-Secret-Gecko-5561',
};
const WRONG = ['Wrong-Passphrase-Alpha-01', 'Wrong-Passphrase-Bravo-02', 'Wrong-Passphrase-Charlie-03',
  'Wrong-Passphrase-Delta-04', 'Wrong-Passphrase-Echo-05'];

/** Starts the service; the brain module builds the vault and its secrets (brainServicesOf). */
async function startVaultApp(dataDir: string): Promise<{ t: TestApp; vault: BrainServices }> {
  const t = await startTestApp({ dataDir });
  return { t, vault: brainServicesOf(t.service.app) };
}

function assertProblem(r: TestResponse, status: number, code?: string): void {
  assert.equal(r.status, status, r.text);
  assert.match(r.headers.get('content-type') ?? '', /application\/problem\+json/);
  if (code) assert.equal(r.body.code, code, r.text);
}

describe('credential vault API', () => {
  let CREDENTIAL_ID = '';
  let dir: string;
  let t: TestApp;
  let vault: BrainServices;
  let admin: Awaited<ReturnType<TestApp['admin']>>;
  /** Every response body and header seen, and every log line of every run, for the leak check. */
  const seen: string[] = [];
  const logs: string[] = [];
  const journals: Buffer[] = [];

  async function req(method: string, path: string, opts: RequestOptions = {}): Promise<TestResponse> {
    const r = await t.request(method, path, opts);
    r.headers.forEach((v, k) => seen.push(`${k}: ${v}`));
    seen.push(r.text);
    return r;
  }

  async function audit(action: string): Promise<any[]> {
    const r = await req('GET', `/api/audit-log?action=${encodeURIComponent(action)}&limit=100`, { key: admin.key });
    assert.equal(r.status, 200, r.text);
    return r.body.items;
  }

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'netprobe-vault-it-'));
    await writeFile(join(dir, 'config.yaml'), 'log:\n  level: debug\n');
    ({ t, vault } = await startVaultApp(dir));
    admin = await t.admin();
    // A real credential record (no secrets yet, so the vault need not be set up) to hang the secrets on.
    const c = await req('POST', '/api/brain/credentials', { key: admin.key, body: { name: 'vault-test', kind: 'api_token' } });
    assert.equal(c.status, 201, c.text);
    CREDENTIAL_ID = c.body.id;
  });
  after(async () => {
    await t?.close().catch(() => undefined);
    await rm(dir, { recursive: true, force: true });
  });

  test('status needs authentication and brain:read; viewers may read it', async () => {
    assertProblem(await req('GET', '/api/brain/vault/status'), 401, 'unauthenticated');
    const viewer = await t.user('viewer', ['brain:read']);
    const r = await req('GET', '/api/brain/vault/status', { key: viewer.key });
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(r.body, { initialized: false, locked: true });
    assert.deepEqual((await req('GET', '/api/brain/vault/status', { cookie: viewer.cookie })).body, { initialized: false, locked: true });
    const monitorsOnly = await t.user('viewer', ['monitors:read']);
    assertProblem(await req('GET', '/api/brain/vault/status', { key: monitorsOnly.key }), 403, 'forbidden');
  });

  test('setup, unlock and lock are for administrators only', async () => {
    const operator = await t.user('operator', ['brain:write']);
    const viewer = await t.user('viewer', ['brain:read']);
    const k = await req('POST', '/api/api-keys', { cookie: admin.cookie, body: { name: 'admin-brain-only', scopes: ['brain:write'] } });
    assert.equal(k.status, 201, k.text);
    for (const path of ['/api/brain/vault/setup', '/api/brain/vault/unlock', '/api/brain/vault/lock']) {
      for (const who of [{ key: operator.key }, { cookie: operator.cookie }, { key: viewer.key }, { key: k.body.key as string }]) {
        assertProblem(await req('POST', path, { ...who, body: { passphrase: PASSPHRASE } }), 403, 'forbidden');
      }
      assertProblem(await req('POST', path, { body: { passphrase: PASSPHRASE } }), 401);
    }
    assert.deepEqual(vault.vault.status(), { initialized: false, locked: true });
  });

  test('before setup: unlock is 409, storing a secret is 423; the passphrase policy and strict body hold', async () => {
    assertProblem(await req('POST', '/api/brain/vault/unlock', { key: admin.key, body: { passphrase: PASSPHRASE } }), 409, 'vault_not_initialized');
    await assert.rejects(t.service.app.store.write((tx) => vault.secrets.write(tx, CREDENTIAL_ID, { password: SECRETS.password })),
      (e: any) => e.status === 423 && e.code === 'vault_locked' && /set up the vault first/.test(e.message));
    const short = await req('POST', '/api/brain/vault/setup', { key: admin.key, body: { passphrase: 'short-one' } });
    assertProblem(short, 400, 'validation_failed');
    assert.equal(short.body.errors[0].path, 'passphrase');
    assertProblem(await req('POST', '/api/brain/vault/setup', { key: admin.key, body: { passphrase: PASSPHRASE, extra: 1 } }), 400);
    assertProblem(await req('POST', '/api/brain/vault/setup', { key: admin.key, body: {} }), 400);
    assert.equal(vault.vault.status().initialized, false);
  });

  test('setup once: leaves the vault unlocked, is audited, a second setup is 409', async () => {
    const r = await req('POST', '/api/brain/vault/setup', { cookie: admin.cookie, body: { passphrase: PASSPHRASE } });
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(r.body, { initialized: true, locked: false });
    assertProblem(await req('POST', '/api/brain/vault/setup', { key: admin.key, body: { passphrase: PASSPHRASE } }), 409, 'vault_already_initialized');
    const [entry] = await audit('vault.setup');
    assert.equal(entry.actor, admin.username);
    assert.equal(entry.outcome, 'success');
    assert.equal(entry.source_ip, '127.0.0.1');
    assert.equal(entry.details.kdf, 'scrypt');

    // Secrets written through the service, inside a store transaction like the credentials CRUD will.
    await t.service.app.store.write((tx) => vault.secrets.write(tx, CREDENTIAL_ID, SECRETS), 'sync');
    assert.deepEqual(vault.secrets.read(CREDENTIAL_ID, 'held'), SECRETS);
    assert.deepEqual(vault.secrets.which(CREDENTIAL_ID).sort(), Object.keys(SECRETS).sort());
  });

  test('lock forgets the key (423 for secrets), unlock brings it back; both audited', async () => {
    const l = await req('POST', '/api/brain/vault/lock', { key: admin.key });
    assert.equal(l.status, 200, l.text);
    assert.deepEqual(l.body, { initialized: true, locked: true });
    assert.deepEqual((await req('GET', '/api/brain/vault/status', { key: admin.key })).body, { initialized: true, locked: true });
    assert.throws(() => vault.secrets.read(CREDENTIAL_ID, 'held'), (e: any) => e.status === 423 && e.code === 'vault_locked');
    await assert.rejects(t.service.app.store.write((tx) => vault.secrets.write(tx, CREDENTIAL_ID, { password: 'Other-Secret-Value-0001' })),
      (e: any) => e.status === 423);
    assert.equal((await req('POST', '/api/brain/vault/lock', { key: admin.key })).status, 200, 'lock is idempotent');

    const u = await req('POST', '/api/brain/vault/unlock', { cookie: admin.cookie, body: { passphrase: PASSPHRASE } });
    assert.equal(u.status, 200, u.text);
    assert.deepEqual(u.body, { initialized: true, locked: false });
    assert.deepEqual(vault.secrets.read(CREDENTIAL_ID, 'held'), SECRETS);
    assert.equal((await audit('vault.lock')).length, 2);
    const [unlocked] = await audit('vault.unlock');
    assert.equal(unlocked.actor, admin.username);
    assert.equal(unlocked.outcome, 'success');
  });

  test('a wrong passphrase is 403, audited, and rate limited with 429 and Retry-After', async () => {
    await req('POST', '/api/brain/vault/lock', { key: admin.key });
    for (let i = 0; i < WRONG.length; i++) {
      const r = await req('POST', '/api/brain/vault/unlock', { key: admin.key, body: { passphrase: WRONG[i] } });
      assertProblem(r, 403, 'wrong_passphrase');
    }
    const limited = await req('POST', '/api/brain/vault/unlock', { key: admin.key, body: { passphrase: PASSPHRASE } });
    assertProblem(limited, 429, 'rate_limited');
    assert.ok(Number(limited.headers.get('retry-after')) > 0, 'Retry-After is set');
    assert.equal(vault.vault.isUnlocked(), false, 'even the right passphrase is refused during the lockout');

    const failures = await audit('vault.unlock_failed');
    assert.equal(failures.length, WRONG.length, 'every wrong passphrase is audited, the 429 is not');
    for (const f of failures) {
      assert.equal(f.outcome, 'failure');
      assert.ok(f.actor.startsWith(admin.username), f.actor);
      assert.equal(f.source_ip, '127.0.0.1');
      assert.equal(f.details.reason, 'wrong_passphrase');
    }
    assert.equal(failures.filter((f) => f.details.locked_out).length, 1, 'the failure that starts the lockout says so');
  });

  test('after a restart the vault is locked; it unlocks with the passphrase and the secrets are intact', async () => {
    logs.push(...t.logs);
    // The first life's journal holds the transaction that stored the secrets (the shutdown checkpoint
    // truncates it), so keep a copy for the leak check.
    journals.push(await readFile(join(dir, JOURNAL_FILE)));
    assert.ok(journals[0]!.includes(CREDENTIAL_ID), 'the journal holds the secrets transaction');
    await t.close({ keepData: true });
    ({ t, vault } = await startVaultApp(dir));
    assert.deepEqual((await req('GET', '/api/brain/vault/status', { key: admin.key })).body, { initialized: true, locked: true });
    assert.throws(() => vault.secrets.read(CREDENTIAL_ID, 'held'), (e: any) => e.status === 423);
    assert.deepEqual(vault.secrets.which(CREDENTIAL_ID).sort(), Object.keys(SECRETS).sort(), 'which() works while locked');
    const u = await req('POST', '/api/brain/vault/unlock', { key: admin.key, body: { passphrase: PASSPHRASE } });
    assert.equal(u.status, 200, u.text);
    assert.deepEqual(vault.secrets.read(CREDENTIAL_ID, 'held'), SECRETS);
  });

  test('no passphrase or secret value in any response, log line, audit entry, the journal or the database', async () => {
    const values = [PASSPHRASE, ...WRONG, ...Object.values(SECRETS)];
    // The distinctive middle part of each value too (e.g. a key body without its armour), in the forms
    // in which bytes reach the journal (JSON with base64 blobs) or a log (hex).
    const needles = values.flatMap((v) => {
      const b = Buffer.from(v, 'utf8');
      return [v, b.toString('base64'), b.toString('hex'), JSON.stringify(v).slice(1, -1)];
    }).concat(Object.values(SECRETS).map((v) => v.match(/[A-Za-z]+-Secret-[A-Za-z]+-\d+/)![0]));

    // The whole audit log, through the API and straight from the table.
    const all = await req('GET', '/api/audit-log?limit=500', { key: admin.key });
    assert.equal(all.status, 200);
    assert.ok(all.body.items.length >= 10);
    const auditRows = JSON.stringify(t.service.app.store.all('SELECT * FROM audit_log'));

    const journal = await readFile(join(dir, JOURNAL_FILE));
    await t.service.app.store.checkpoint();
    const snapshot = await readFile(join(dir, SNAPSHOT_FILE));
    assert.ok(snapshot.includes(CREDENTIAL_ID), 'the snapshot holds the secrets rows');
    logs.push(...t.logs);
    assert.ok(logs.some((l) => l.includes('vault')), 'the logs were captured');

    const hay: [string, Buffer][] = [
      ['responses', Buffer.from(seen.join('\n'))],
      ['logs', Buffer.from(logs.join('\n'))],
      ['audit log', Buffer.from(auditRows)],
      [`${JOURNAL_FILE} (first run)`, journals[0]!],
      [JOURNAL_FILE, journal],
      [SNAPSHOT_FILE, snapshot],
    ];
    for (const [name, bytes] of hay) {
      assert.ok(bytes.length > 0, `${name} is not empty`);
      for (const n of needles) assert.equal(bytes.indexOf(n), -1, `${name} contains a secret (${n.slice(0, 12)}…)`);
    }
    // And the secrets really are in the database, only as ciphertext.
    const rows = t.service.app.store.all<{ ciphertext: Uint8Array }>('SELECT ciphertext FROM brain_secrets WHERE credential_id = ?', [CREDENTIAL_ID]);
    assert.equal(rows.length, Object.keys(SECRETS).length);
  });
});
