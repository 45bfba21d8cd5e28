// The credential vault and CredentialSecrets over a real store: setup/unlock/lock, wrong passphrases and
// the rate limiter, restart = locked, ciphertexts bound to credential and field, GCM tamper detection,
// the key zeroed on lock, and no plaintext in the rows or files.
import assert from 'node:assert/strict';
import { readFile, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { RateLimiter } from '../../src/core/auth/ratelimit.js';
import { ManualClock } from '../../src/core/clock.js';
import { HttpError } from '../../src/core/errors.js';
import { JOURNAL_FILE, openStore, SNAPSHOT_FILE, type Store } from '../../src/core/store/index.js';
import type { CredentialSecrets } from '../../src/modules/brain/contracts.js';
import { createCredentialSecrets } from '../../src/modules/brain/secrets.js';
import { vaultMigrations } from '../../src/modules/brain/migrations.js';
import { Vault, VaultIntegrityError, WrongPassphraseError } from '../../src/modules/brain/vault/service.js';

type T = { after(fn: () => Promise<void> | void): void };

const PASS = 'orange-kettle-47-violin';
const CR_A = '7d8f9a3c-0000-4000-8000-00000000000a';
const CR_B = '7d8f9a3c-0000-4000-8000-00000000000b';

/** Cleanups of a test, run last-registered first (stores close before their directories go). */
const cleanups = new WeakMap<T, (() => Promise<unknown>)[]>();
function onEnd(t: T, fn: () => Promise<unknown>): void {
  let list = cleanups.get(t);
  if (!list) {
    const fns: (() => Promise<unknown>)[] = (list = []);
    cleanups.set(t, fns);
    t.after(async () => { for (const f of fns.reverse()) await f(); });
  }
  list.push(fn);
}

async function tempDir(t: T): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'netprobe-vault-'));
  onEnd(t, () => rm(dir, { recursive: true, force: true }));
  return dir;
}

async function open(t: T, dir: string): Promise<Store> {
  const store = await openStore({ dir, migrations: vaultMigrations, groupCommitMs: 60_000 });
  onEnd(t, () => store.close().catch(() => undefined));
  return store;
}

interface Fixture { dir: string; store: Store; clock: ManualClock; limiter: RateLimiter; vault: Vault; secrets: CredentialSecrets }

async function fixture(t: T, dir?: string, maxFailures = 3): Promise<Fixture> {
  const d = dir ?? (await tempDir(t));
  const store = await open(t, d);
  const clock = new ManualClock();
  const limiter = new RateLimiter(clock, () => ({ maxFailures, windowMs: 15 * 60_000, lockoutMs: 15 * 60_000 }));
  const vault = new Vault({ store, clock, limiter });
  return { dir: d, store, clock, limiter, vault, secrets: createCredentialSecrets(store, vault) };
}

async function rejectsWith(p: Promise<unknown> | (() => unknown), status: number, code?: string): Promise<HttpError> {
  let err: unknown;
  try { await (typeof p === 'function' ? p() : p); } catch (e) { err = e; }
  assert.ok(err instanceof HttpError, `expected HttpError ${status}, got ${String(err)}`);
  assert.equal(err.status, status, err.message);
  if (code) assert.equal(err.code, code);
  return err;
}

test('before setup: locked, not initialized; secrets cannot be stored; unlock is 409', async (t) => {
  const f = await fixture(t);
  assert.deepEqual(f.vault.status(), { initialized: false, locked: true });
  const e = await rejectsWith(() => f.vault.encrypt(CR_A, 'password', 'x'), 423, 'vault_locked');
  assert.match(e.message, /set up the vault first/);
  assert.equal(e.toProblem().initialized, false);
  await rejectsWith(f.store.write((tx) => f.secrets.write(tx, CR_A, { password: 'x' })), 423, 'vault_locked');
  await rejectsWith(f.vault.unlock(PASS), 409, 'vault_not_initialized');
  assert.equal(f.store.get<{ n: number }>('SELECT COUNT(*) AS n FROM brain_secrets')?.n, 0);
});

test('setup: passphrase policy, leaves the vault unlocked, only once (also when two race)', async (t) => {
  const f = await fixture(t);
  const short = await rejectsWith(f.vault.setup('too-short'), 400, 'validation_failed');
  assert.equal(short.errors?.[0]?.path, 'passphrase');
  await rejectsWith(f.vault.setup('            '), 400);
  assert.equal(f.vault.initialized(), false);

  const results = await Promise.allSettled([f.vault.setup(PASS), f.vault.setup(PASS + '-other')]);
  assert.equal(results.filter((r) => r.status === 'fulfilled').length, 1);
  const lost = results.find((r) => r.status === 'rejected') as PromiseRejectedResult;
  assert.equal((lost.reason as HttpError).code, 'vault_already_initialized');
  assert.deepEqual(f.vault.status(), { initialized: true, locked: false });
  await rejectsWith(f.vault.setup(PASS), 409, 'vault_already_initialized');
  assert.equal(f.store.get<{ n: number }>('SELECT COUNT(*) AS n FROM brain_vault')?.n, 1);
});

test('lock/unlock cycle; wrong passphrase is 403 and changes nothing; unicode is normalised', async (t) => {
  const f = await fixture(t, undefined, 100);
  const pass = 'Cafe\u0301 au lait, noir';   // decomposed é
  await f.vault.setup(pass);
  const sealed = f.vault.encrypt(CR_A, 'password', 's3cret-value');
  assert.equal(f.vault.decrypt(CR_A, 'password', sealed), 's3cret-value');

  assert.deepEqual(f.vault.lock(), { initialized: true, locked: true });
  assert.deepEqual(f.vault.lock(), { initialized: true, locked: true }, 'lock is idempotent');
  await rejectsWith(() => f.vault.decrypt(CR_A, 'password', sealed), 423, 'vault_locked');
  await rejectsWith(() => f.vault.encrypt(CR_A, 'password', 'x'), 423, 'vault_locked');
  assert.throws(() => f.secrets.assertUnlocked(), (e: HttpError) => e.status === 423);

  const wrong = await rejectsWith(f.vault.unlock(pass + 'x'), 403, 'wrong_passphrase');
  assert.ok(wrong instanceof WrongPassphraseError);
  assert.equal(f.vault.isUnlocked(), false);

  assert.deepEqual(await f.vault.unlock('Caf\u00e9 au lait, noir'), { initialized: true, locked: false }); // composed é
  assert.equal(f.vault.decrypt(CR_A, 'password', sealed), 's3cret-value');
  // Unlocking again checks the passphrase and keeps the vault as it is.
  await rejectsWith(f.vault.unlock('not the passphrase'), 403);
  assert.equal(f.vault.isUnlocked(), true);
  assert.deepEqual(await f.vault.unlock(pass), { initialized: true, locked: false });
});

test('wrong passphrases are rate limited through the shared limiter; a lockout refuses even the right one', async (t) => {
  const f = await fixture(t, undefined, 3);
  await f.vault.setup(PASS);
  f.vault.lock();
  const limit = { keys: ['vault:ip:10.0.0.7', 'vault:user:u1'], clearOnSuccess: ['vault:user:u1'] };
  const e1 = await rejectsWith(f.vault.unlock('wrong passphrase 1', limit), 403);
  const e2 = await rejectsWith(f.vault.unlock('wrong passphrase 2', limit), 403);
  assert.equal((e1 as WrongPassphraseError).lockedOut, false);
  assert.equal((e2 as WrongPassphraseError).lockedOut, false);
  const e3 = await rejectsWith(f.vault.unlock('wrong passphrase 3', limit), 403);
  assert.equal((e3 as WrongPassphraseError).lockedOut, true, 'the third failure starts the lockout');
  const limited = await rejectsWith(f.vault.unlock(PASS, limit), 429, 'rate_limited');
  assert.equal(limited.headers?.['Retry-After'], String(15 * 60));
  assert.equal(f.vault.isUnlocked(), false);
  // Another address and user are not affected; the lockout ends with its time.
  await f.vault.unlock(PASS, { keys: ['vault:ip:10.0.0.8', 'vault:user:u2'] });
  f.vault.lock();
  f.clock.advance(15 * 60_000 + 1);
  await f.vault.unlock(PASS, limit);
  assert.equal(f.vault.isUnlocked(), true);
  assert.equal(f.limiter.retryAfter(['vault:user:u1']), 0);
});

test('concurrent wrong attempts queue behind each other and stop at the lockout', async (t) => {
  const f = await fixture(t, undefined, 2);
  await f.vault.setup(PASS);
  f.vault.lock();
  const keys = { keys: ['vault:ip:10.9.9.9'] };
  const results = await Promise.allSettled(Array.from({ length: 5 }, (_, i) => f.vault.unlock(`wrong passphrase ${i}`, keys)));
  const codes = results.map((r) => (r as PromiseRejectedResult).reason.code);
  assert.deepEqual(codes, ['wrong_passphrase', 'wrong_passphrase', 'rate_limited', 'rate_limited', 'rate_limited']);
});

test('restart: a new Vault over the same store is locked and unlocks with the passphrase', async (t) => {
  const dir = await tempDir(t);
  const f = await fixture(t, dir);
  await f.vault.setup(PASS);
  await f.store.write((tx) => f.secrets.write(tx, CR_A, { community: 'public-ish', password: 'hunter22' }));
  await f.store.close();

  const g = await fixture(t, dir);
  assert.deepEqual(g.vault.status(), { initialized: true, locked: true });
  assert.deepEqual(g.secrets.which(CR_A), ['community', 'password'], 'which() works while locked');
  await rejectsWith(() => g.secrets.read(CR_A, 'held'), 423, 'vault_locked');
  await g.vault.unlock(PASS);
  assert.deepEqual(g.secrets.read(CR_A, 'held'), { community: 'public-ish', password: 'hunter22' });
});

test('secrets: write/which/read/remove; null removes; omitted fields are kept; bad fields are 400', async (t) => {
  const f = await fixture(t);
  await f.vault.setup(PASS);
  await f.store.write((tx) => f.secrets.write(tx, CR_A, { password: 'pw-1', snmpv3_auth_key: 'auth-1', snmpv3_priv_key: 'priv-1' }));
  await f.store.write((tx) => f.secrets.write(tx, CR_B, { community: 'comm-b' }));
  await f.store.write((tx) => f.secrets.write(tx, CR_A, { password: 'pw-2', snmpv3_auth_key: null }));
  assert.deepEqual(f.secrets.which(CR_A), ['password', 'snmpv3_priv_key']);
  assert.deepEqual(f.secrets.read(CR_A, 'held'), { password: 'pw-2', snmpv3_priv_key: 'priv-1' });
  assert.deepEqual(f.secrets.read(CR_B, 'held'), { community: 'comm-b' });
  assert.deepEqual(f.secrets.read('unknown', 'held'), {});

  await rejectsWith(f.store.write((tx) => f.secrets.write(tx, CR_A, { bogus: 'x' } as never)), 400, 'validation_failed');
  await rejectsWith(f.store.write((tx) => f.secrets.write(tx, CR_A, { password: 'x'.repeat(70_000) })), 400);

  // A failed transaction leaves the secrets as they were.
  await assert.rejects(f.store.write((tx) => { f.secrets.write(tx, CR_A, { password: 'pw-3' }); throw new Error('boom'); }));
  assert.equal(f.secrets.read(CR_A, 'held').password, 'pw-2');

  f.vault.lock();
  await rejectsWith(f.store.write((tx) => f.secrets.write(tx, CR_A, { password: 'pw-4' })), 423, 'vault_locked');
  await f.store.write((tx) => f.secrets.write(tx, CR_A, { snmpv3_priv_key: null }));   // removing needs no key
  await f.store.write((tx) => f.secrets.remove(tx, CR_B));
  assert.deepEqual(f.secrets.which(CR_A), ['password']);
  assert.deepEqual(f.secrets.which(CR_B), []);

  const withExists = createCredentialSecrets(f.store, f.vault, { exists: (id) => id === CR_A });
  await f.vault.unlock(PASS);
  await rejectsWith(() => withExists.read('nope', 'held'), 404, 'not_found');
  assert.deepEqual(withExists.read(CR_A, 'held'), { password: 'pw-2' });
});

test('ciphertexts are bound to credential id and field: moved rows fail to decrypt', async (t) => {
  const f = await fixture(t);
  await f.vault.setup(PASS);
  await f.store.write((tx) => {
    f.secrets.write(tx, CR_A, { password: 'a-password', community: 'a-community' });
    f.secrets.write(tx, CR_B, { password: 'b-password' });
  });
  // Swap the two credentials' password rows.
  await f.store.write((tx) => {
    tx.run("UPDATE brain_secrets SET credential_id = 'tmp' WHERE credential_id = ? AND field = 'password'", [CR_A]);
    tx.run("UPDATE brain_secrets SET credential_id = ? WHERE credential_id = ? AND field = 'password'", [CR_A, CR_B]);
    tx.run("UPDATE brain_secrets SET credential_id = ? WHERE credential_id = 'tmp'", [CR_B]);
  });
  assert.throws(() => f.secrets.read(CR_A, 'held'), (e: unknown) => e instanceof VaultIntegrityError && e.status === 500);
  assert.throws(() => f.secrets.read(CR_B, 'held'), VaultIntegrityError);

  // Move a ciphertext to another field of the same credential.
  const g = await fixture(t);
  await g.vault.setup(PASS);
  await g.store.write((tx) => g.secrets.write(tx, CR_A, { password: 'pw' }));
  await g.store.write((tx) => tx.run("UPDATE brain_secrets SET field = 'community' WHERE credential_id = ?", [CR_A]));
  assert.throws(() => g.secrets.read(CR_A, 'held'), VaultIntegrityError);
  // And directly through the vault.
  const sealed = g.vault.encrypt(CR_A, 'password', 'pw');
  assert.throws(() => g.vault.decrypt(CR_B, 'password', sealed), VaultIntegrityError);
  assert.throws(() => g.vault.decrypt(CR_A, 'ssh_passphrase', sealed), VaultIntegrityError);
});

test('GCM detects tampering with ciphertext, tag or iv; a tampered wrapped key does not unlock', async (t) => {
  const f = await fixture(t, undefined, 100);
  await f.vault.setup(PASS);
  const sealed = f.vault.encrypt(CR_A, 'password', 'tamper-me');
  assert.equal(f.vault.decrypt(CR_A, 'password', sealed), 'tamper-me');
  for (const part of ['ciphertext', 'tag', 'iv'] as const) {
    const copy = { iv: Uint8Array.from(sealed.iv), ciphertext: Uint8Array.from(sealed.ciphertext), tag: Uint8Array.from(sealed.tag) };
    copy[part][0]! ^= 0x01;
    assert.throws(() => f.vault.decrypt(CR_A, 'password', copy), VaultIntegrityError, part);
  }
  // Same plaintext, fresh IV each time: no two ciphertexts alike.
  const again = f.vault.encrypt(CR_A, 'password', 'tamper-me');
  assert.notDeepEqual(Buffer.from(again.ciphertext), Buffer.from(sealed.ciphertext));

  const row = f.store.get<{ wrapped_key: Uint8Array }>('SELECT wrapped_key FROM brain_vault')!;
  const bad = Uint8Array.from(row.wrapped_key);
  bad[3]! ^= 0x80;
  await f.store.write((tx) => tx.run('UPDATE brain_vault SET wrapped_key = ?', [bad]));
  f.vault.lock();
  await rejectsWith(f.vault.unlock(PASS), 403, 'wrong_passphrase');
  // Altered KDF parameters are refused before any derivation.
  await f.store.write((tx) => tx.run('UPDATE brain_vault SET kdf = ?', ['{"alg":"scrypt","N":4194304,"r":8,"p":1}']));
  await rejectsWith(f.vault.unlock(PASS), 500, 'vault_integrity_failed');
});

test('lock zeroes the data key buffer', async (t) => {
  const f = await fixture(t);
  await f.vault.setup(PASS);
  const key = (f.vault as unknown as { dataKey: Buffer | null }).dataKey;
  assert.ok(key && key.length === 32 && key.some((b) => b !== 0));
  f.vault.lock();
  assert.ok(key.every((b) => b === 0), 'the old key buffer is all zeros');
  assert.equal((f.vault as unknown as { dataKey: Buffer | null }).dataKey, null);

  await f.vault.unlock(PASS);
  const key2 = (f.vault as unknown as { dataKey: Buffer }).dataKey;
  assert.ok(key2.some((b) => b !== 0));
  assert.equal(key2.buffer.byteLength, 32, 'the key has its own ArrayBuffer, not a slice of the shared pool');
});

test('no plaintext secret or passphrase in the rows, the journal or the snapshot', async (t) => {
  const f = await fixture(t);
  const passphrase = 'Zebra-Quartz-Passphrase-9081';
  const plaintexts = ['Community-Plain-7731', 'Password-Plain-5524', 'PrivKey-Plain-9902', 'AuthKey-Plain-1187',
    '-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA-Plain\n-----END OPENSSH PRIVATE KEY-----'];
  await f.vault.setup(passphrase);
  await f.store.write((tx) => f.secrets.write(tx, CR_A, {
    community: plaintexts[0], password: plaintexts[1], snmpv3_priv_key: plaintexts[2], snmpv3_auth_key: plaintexts[3], ssh_private_key: plaintexts[4],
  }));
  assert.equal(f.secrets.read(CR_A, 'held').ssh_private_key, plaintexts[4]);

  const needles = [passphrase, ...plaintexts].flatMap((s) => [
    Buffer.from(s, 'utf8'), Buffer.from(Buffer.from(s, 'utf8').toString('base64')), Buffer.from(Buffer.from(s, 'utf8').toString('hex')),
  ]);
  const rows = [...f.store.all('SELECT * FROM brain_secrets'), ...f.store.all('SELECT * FROM brain_vault')];
  const rowBytes = Buffer.concat(rows.flatMap((r) => Object.values(r).map((v) => (v instanceof Uint8Array ? Buffer.from(v) : Buffer.from(String(v))))));
  const journal = await readFile(join(f.dir, JOURNAL_FILE));
  await f.store.checkpoint();
  const snapshot = await readFile(join(f.dir, SNAPSHOT_FILE));
  for (const [name, hay] of [['rows', rowBytes], ['journal', journal], ['snapshot', snapshot]] as const) {
    assert.ok(hay.length > 0, `${name} is not empty`);
    for (const n of needles) assert.equal(hay.indexOf(n), -1, `${name} contains ${n.toString().slice(0, 20)}…`);
  }
});
