// The credential vault: one random 256-bit data key, stored only wrapped (AES-256-GCM) under a key
// derived from the administrator's passphrase with scrypt, held in memory while unlocked. Credential
// secrets are sealed with it (AES-256-GCM, bound to credential id and field). See docs/vault.md.
//
// Memory: scrypt with N=2^15, r=8 costs 32 MiB. Vault derivations run one at a time (a queue shared by
// every Vault in the process), so a burst of unlock attempts cannot push a 1 GB Pi into swap; stored
// parameters that would need more than 64 MiB are refused.
import { createCipheriv, createDecipheriv, randomBytes, randomFillSync, scrypt, type ScryptOptions } from 'node:crypto';
import type { RateLimiter } from '../../../core/auth/ratelimit.js';
import type { Clock } from '../../../core/clock.js';
import { badRequest, conflict, HttpError, type FieldError } from '../../../core/errors.js';
import type { Logger } from '../../../core/log.js';
import type { Store, Tx } from '../../../core/store/types.js';

export interface VaultStatus {
  initialized: boolean;
  locked: boolean;
}

/** One sealed secret as stored in brain_secrets. */
export interface SealedSecret {
  iv: Uint8Array;
  ciphertext: Uint8Array;
  tag: Uint8Array;
}

/** The key derivation parameters stored with the vault (JSON in brain_vault.kdf). */
export interface KdfParams {
  alg: 'scrypt';
  N: number;
  r: number;
  p: number;
}

export const VAULT_KDF: KdfParams = { alg: 'scrypt', N: 1 << 15, r: 8, p: 1 };
export const PASSPHRASE_MIN = 12;
export const PASSPHRASE_MAX = 1024;
/** scrypt needs 128 * N * r * p bytes; stored parameters beyond this are refused (Pi with 1 GB). */
const MAX_KDF_MEMORY = 64 * 1024 * 1024;
const KEY_BYTES = 32;
const SALT_BYTES = 16;
const IV_BYTES = 12;
const TAG_BYTES = 16;
const FORMAT = 1;
const WRAP_AAD_PREFIX = 'netprobe.brain.vault.data-key.v1\0';

export interface VaultOptions {
  store: Store;
  clock: Clock;
  /** The shared limiter (app.auth.limiter); unlock attempts are counted under the keys the caller passes. */
  limiter?: RateLimiter;
  log?: Logger;
}

/** What unlock() counts a wrong passphrase against, and which of those keys a success clears. */
export interface UnlockLimit {
  keys: string[];
  clearOnSuccess?: string[];
}

/** 403 for a wrong passphrase; `lockedOut` is true when this failure started a rate-limit lockout. */
export class WrongPassphraseError extends HttpError {
  constructor(readonly lockedOut: boolean) {
    super(403, 'wrong_passphrase', 'The vault passphrase is not correct');
    this.name = 'WrongPassphraseError';
  }
}

/** A stored secret (or the vault row) failed its integrity check: tampered, moved or corrupt. */
export class VaultIntegrityError extends HttpError {
  constructor(detail: string) {
    super(500, 'vault_integrity_failed', detail);
    this.name = 'VaultIntegrityError';
  }
}

interface VaultRow {
  format: number;
  kdf: string;
  salt: Uint8Array;
  wrap_iv: Uint8Array;
  wrapped_key: Uint8Array;
  wrap_tag: Uint8Array;
  created_at: string;
}

// ---- key derivation, one at a time -------------------------------------------------------------------

let kdfQueue: Promise<unknown> = Promise.resolve();

function serial<T>(fn: () => Promise<T>): Promise<T> {
  const run = kdfQueue.then(fn, fn);
  kdfQueue = run.catch(() => undefined);
  return run;
}

function derive(passphrase: string, salt: Uint8Array, k: KdfParams): Promise<Buffer> {
  const opts: ScryptOptions = { N: k.N, r: k.r, p: k.p, maxmem: 128 * k.N * k.r * k.p + 16 * 1024 * 1024 };
  return new Promise<Buffer>((resolve, reject) => {
    scrypt(passphrase.normalize('NFC'), salt, KEY_BYTES, opts, (err, key) => (err ? reject(err) : resolve(key)));
  });
}

function parseKdf(text: string): KdfParams {
  let k: Partial<KdfParams>;
  try { k = JSON.parse(text) as Partial<KdfParams>; } catch { k = {}; }
  const { N, r, p } = k;
  const ok = k.alg === 'scrypt' && Number.isInteger(N) && Number.isInteger(r) && Number.isInteger(p) &&
    N! >= 1024 && (N! & (N! - 1)) === 0 && r! >= 1 && r! <= 32 && p! >= 1 && p! <= 4 &&
    128 * N! * r! * p! <= MAX_KDF_MEMORY;
  if (!ok) throw new VaultIntegrityError('The stored vault parameters are invalid or need more memory than this probe allows');
  return { alg: 'scrypt', N: N!, r: r!, p: p! };
}

/** The additional authenticated data of a credential secret: its credential id and field, unambiguously. */
export function secretAad(credentialId: string, field: string): Buffer {
  return Buffer.from(JSON.stringify(['netprobe.brain.credential-secret.v1', credentialId, field]), 'utf8');
}

/** The passphrase policy; an empty list means it is acceptable. */
export function passphrasePolicyErrors(passphrase: string, path = 'passphrase'): FieldError[] {
  const length = [...passphrase].length;
  const errors: FieldError[] = [];
  if (length < PASSPHRASE_MIN) errors.push({ path, message: `Must be at least ${PASSPHRASE_MIN} characters long` });
  if (length > PASSPHRASE_MAX) errors.push({ path, message: `Must be at most ${PASSPHRASE_MAX} characters long` });
  if (passphrase.trim().length === 0) errors.push({ path, message: 'Must not be only spaces' });
  return errors;
}

const bytes = (v: Uint8Array) => Buffer.from(v.buffer, v.byteOffset, v.byteLength);

// ---- the vault -------------------------------------------------------------------------------------------

export class Vault {
  readonly clock: Clock;
  private store: Store;
  private limiter?: RateLimiter;
  private log?: Logger;
  /** The data key while unlocked: its own (non-pooled) 32-byte buffer, zeroed on lock. */
  private dataKey: Buffer | null = null;

  constructor(opts: VaultOptions) {
    this.store = opts.store;
    this.clock = opts.clock;
    this.limiter = opts.limiter;
    this.log = opts.log;
  }

  status(): VaultStatus {
    return { initialized: this.initialized(), locked: this.dataKey === null };
  }

  initialized(): boolean {
    return this.store.get('SELECT 1 AS x FROM brain_vault WHERE id = 1') !== undefined;
  }

  isUnlocked(): boolean {
    return this.dataKey !== null;
  }

  /**
   * Creates the data key and stores it wrapped under the passphrase. Leaves the vault unlocked.
   * `inTx` runs inside the same write transaction (for the audit entry). 409 `vault_already_initialized`
   * when the vault exists; 400 when the passphrase breaks the policy.
   */
  async setup(passphrase: string, inTx?: (tx: Tx) => void): Promise<VaultStatus> {
    const errors = passphrasePolicyErrors(passphrase);
    if (errors.length) throw badRequest(`Invalid passphrase: ${errors.map((e) => e.message).join('; ')}`, errors);
    if (this.initialized()) throw alreadyInitialized();

    const kdf = JSON.stringify(VAULT_KDF);
    const salt = randomBytes(SALT_BYTES);
    const dataKey = randomFillSync(Buffer.alloc(KEY_BYTES));
    try {
      const kek = await serial(() => derive(passphrase, salt, VAULT_KDF));
      const iv = randomBytes(IV_BYTES);
      let wrapped: Buffer, tag: Buffer;
      try {
        const c = createCipheriv('aes-256-gcm', kek, iv, { authTagLength: TAG_BYTES });
        c.setAAD(Buffer.from(WRAP_AAD_PREFIX + kdf, 'utf8'));
        wrapped = Buffer.concat([c.update(dataKey), c.final()]);
        tag = c.getAuthTag();
      } finally {
        kek.fill(0);
      }
      const now = this.clock.iso();
      await this.store.write((tx) => {
        // Checked again inside the transaction: two concurrent setups cannot both win.
        if (tx.get('SELECT 1 AS x FROM brain_vault WHERE id = 1')) throw alreadyInitialized();
        tx.run(
          `INSERT INTO brain_vault (id, format, kdf, salt, wrap_iv, wrapped_key, wrap_tag, created_at, updated_at)
           VALUES (1, ?, ?, ?, ?, ?, ?, ?, ?)`,
          [FORMAT, kdf, salt, iv, wrapped, tag, now, now],
        );
        inTx?.(tx);
      }, 'sync');
    } catch (e) {
      dataKey.fill(0);
      throw e;
    }
    this.replaceKey(dataKey);
    this.log?.info('vault set up and unlocked');
    return this.status();
  }

  /**
   * Unwraps the data key with the passphrase. 409 `vault_not_initialized` before setup; 429 while one of
   * `limit.keys` is locked out; WrongPassphraseError (403 `wrong_passphrase`) for a wrong passphrase,
   * which counts a failure against `limit.keys`. A correct passphrase on an unlocked vault is a no-op.
   */
  async unlock(passphrase: string, limit: UnlockLimit = { keys: [] }): Promise<VaultStatus> {
    const row = this.row();
    if (!row)
      throw new HttpError(409, 'vault_not_initialized', 'The vault is not set up yet: set it up first (POST /api/brain/vault/setup)');
    if (row.format !== FORMAT) throw new VaultIntegrityError(`The stored vault has an unknown format (${row.format})`);
    const kdf = parseKdf(row.kdf);
    this.limiter?.check(limit.keys, 'vault passphrase attempts');

    const key = await serial(async () => {
      // Again once our turn has come: failures queued before us may have started a lockout.
      this.limiter?.check(limit.keys, 'vault passphrase attempts');
      const kek = await derive(passphrase, row.salt, kdf);
      try {
        const d = createDecipheriv('aes-256-gcm', kek, bytes(row.wrap_iv), { authTagLength: TAG_BYTES });
        d.setAAD(Buffer.from(WRAP_AAD_PREFIX + row.kdf, 'utf8'));
        d.setAuthTag(bytes(row.wrap_tag));
        const out = Buffer.concat([d.update(bytes(row.wrapped_key)), d.final()]);
        const ok = out.length === KEY_BYTES;
        const own = Buffer.alloc(KEY_BYTES);
        if (ok) out.copy(own);
        out.fill(0);
        if (!ok) throw new VaultIntegrityError('The stored data key has the wrong length');
        return own;
      } catch (e) {
        if (e instanceof HttpError) throw e;
        // GCM authentication failed: the passphrase is wrong (or the vault row was altered). The failure
        // is counted before the queue moves on, so the next queued attempt sees a lockout it started.
        const lockedOut = this.limiter?.failure(limit.keys) ?? false;
        this.log?.warn('wrong vault passphrase', lockedOut ? { locked_out: true } : undefined);
        throw new WrongPassphraseError(lockedOut);
      } finally {
        kek.fill(0);
      }
    });

    if (limit.clearOnSuccess?.length) this.limiter?.success(limit.clearOnSuccess);
    if (this.dataKey) key.fill(0);
    else {
      this.replaceKey(key);
      this.log?.info('vault unlocked');
    }
    return this.status();
  }

  /** Forgets the data key (zeroing its buffer). Idempotent. */
  lock(): VaultStatus {
    if (this.dataKey) {
      this.dataKey.fill(0);
      this.dataKey = null;
      this.log?.info('vault locked');
    }
    return this.status();
  }

  /** 423 `vault_locked` unless the vault is set up and unlocked. */
  assertUnlocked(): void {
    this.key();
  }

  /** Seals a secret under the data key, bound to (credentialId, field). 423 when locked. */
  encrypt(credentialId: string, field: string, plaintext: string): SealedSecret {
    const key = this.key();
    const iv = randomBytes(IV_BYTES);
    const c = createCipheriv('aes-256-gcm', key, iv, { authTagLength: TAG_BYTES });
    c.setAAD(secretAad(credentialId, field));
    const plain = Buffer.from(plaintext, 'utf8');
    try {
      const ciphertext = Buffer.concat([c.update(plain), c.final()]);
      return { iv, ciphertext, tag: c.getAuthTag() };
    } finally {
      plain.fill(0);
    }
  }

  /**
   * Opens a sealed secret. 423 when locked; VaultIntegrityError (500 `vault_integrity_failed`) when it was
   * tampered with or belongs to another credential or field.
   */
  decrypt(credentialId: string, field: string, sealed: SealedSecret): string {
    const key = this.key();
    try {
      const d = createDecipheriv('aes-256-gcm', key, bytes(sealed.iv), { authTagLength: TAG_BYTES });
      d.setAAD(secretAad(credentialId, field));
      d.setAuthTag(bytes(sealed.tag));
      const plain = Buffer.concat([d.update(bytes(sealed.ciphertext)), d.final()]);
      const text = plain.toString('utf8');
      plain.fill(0);
      return text;
    } catch {
      this.log?.warn('a credential secret failed its integrity check', { credential_id: credentialId, field });
      throw new VaultIntegrityError(`The stored ${field} of credential ${credentialId} failed its integrity check`);
    }
  }

  private key(): Buffer {
    if (this.dataKey) return this.dataKey;
    if (!this.initialized()) {
      throw new HttpError(423, 'vault_locked', 'The credential vault is not set up: set up the vault first (POST /api/brain/vault/setup)',
        { extra: { initialized: false } });
    }
    throw new HttpError(423, 'vault_locked',
      'The credential vault is locked: an administrator must unlock it (POST /api/brain/vault/unlock)',
      { extra: { initialized: true } });
  }

  private replaceKey(key: Buffer): void {
    this.dataKey?.fill(0);
    this.dataKey = key;
  }

  private row(): VaultRow | undefined {
    return this.store.get<VaultRow>(
      'SELECT format, kdf, salt, wrap_iv, wrapped_key, wrap_tag, created_at FROM brain_vault WHERE id = 1');
  }
}

function alreadyInitialized(): HttpError {
  return conflict('The vault is already set up; unlock it with its passphrase', 'vault_already_initialized');
}
