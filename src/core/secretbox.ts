// The service's own secrets at rest (HTTP monitor credentials, webhook signing secrets and URL tokens):
// sealed with AES-256-GCM under a machine key kept apart from the database, in `<data dir>/machine.key`
// (32 random bytes, mode 0600). Unlike the vault it needs no passphrase, so alerts and checks work
// right after a reboot; what it protects against is a copied database or backup without the key file.
// Stored values are self-describing: "enc1:" + base64(iv | tag | ciphertext).
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import type { Logger } from './log.js';

export const MACHINE_KEY_FILE = 'machine.key';
export const SEALED_PREFIX = 'enc1:';
/** What a check or a delivery reports when a stored secret was sealed under another key (or altered). */
export const UNREADABLE_SECRET = 'stored secret cannot be decrypted: re-enter it';

const KEY_BYTES = 32;
const IV_BYTES = 12;
const TAG_BYTES = 16;
// Binds every envelope to this format: a ciphertext of some other use of AES-GCM never opens here.
const AAD = Buffer.from('netprobe.secretbox.v1', 'utf8');
const ENVELOPE = /^enc1:[A-Za-z0-9+/]+={0,2}$/;
const MIN_ENVELOPE = SEALED_PREFIX.length + Math.ceil((IV_BYTES + TAG_BYTES) / 3) * 4;

export class SecretUnreadableError extends Error {
  constructor(what?: string) {
    super(what ? `${UNREADABLE_SECRET} (${what})` : UNREADABLE_SECRET);
    this.name = 'SecretUnreadableError';
  }
}

export interface SecretBox {
  /** A fresh envelope (random IV) for a clear value. */
  seal(plain: string): string;
  /** The clear value; throws SecretUnreadableError for another key's envelope, an altered one or a non-envelope. */
  open(sealed: string): string;
  /** The clear value, or null when it cannot be opened. */
  tryOpen(sealed: string): string | null;
  isSealed(value: unknown): value is string;
}

/** Whether a stored value is an envelope (says nothing about which key sealed it). */
export function isSealed(value: unknown): value is string {
  return typeof value === 'string' && value.length >= MIN_ENVELOPE && ENVELOPE.test(value);
}

export function createSecretBox(keyBytes: Uint8Array): SecretBox {
  if (keyBytes.length !== KEY_BYTES) throw new Error(`a machine key is ${KEY_BYTES} bytes, not ${keyBytes.length}`);
  const key = Buffer.alloc(KEY_BYTES); // its own buffer, not a slice of a pooled one
  key.set(keyBytes);
  const open = (sealed: string): string => {
    if (!isSealed(sealed)) throw new SecretUnreadableError();
    const raw = Buffer.from(sealed.slice(SEALED_PREFIX.length), 'base64');
    try {
      const d = createDecipheriv('aes-256-gcm', key, raw.subarray(0, IV_BYTES));
      d.setAAD(AAD);
      d.setAuthTag(raw.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
      return Buffer.concat([d.update(raw.subarray(IV_BYTES + TAG_BYTES)), d.final()]).toString('utf8');
    } catch {
      throw new SecretUnreadableError();
    }
  };
  return {
    seal(plain) {
      const iv = randomBytes(IV_BYTES);
      const c = createCipheriv('aes-256-gcm', key, iv);
      c.setAAD(AAD);
      const body = Buffer.concat([c.update(plain, 'utf8'), c.final()]);
      return SEALED_PREFIX + Buffer.concat([iv, c.getAuthTag(), body]).toString('base64');
    },
    open,
    tryOpen(sealed) {
      try { return open(sealed); } catch { return null; }
    },
    isSealed,
  };
}

type KeyLog = Pick<Logger, 'info' | 'warn' | 'error'>;

/** The key in `file`, or null when there is none. A file that is not a key is moved aside (kept, not deleted). */
async function readKey(file: string, log?: KeyLog): Promise<Buffer | null> {
  let fh: fs.FileHandle;
  try { fh = await fs.open(file, 'r'); } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw e;
  }
  try {
    const st = await fh.stat();
    if (st.isFile() && st.size === KEY_BYTES) {
      if ((st.mode & 0o077) !== 0) {
        await fh.chmod(0o600); // a restore (tar, cp) may have widened it
        log?.warn('machine key file was readable by others; set to mode 0600', { file });
      }
      const buf = Buffer.alloc(KEY_BYTES);
      const { bytesRead } = await fh.read(buf, 0, KEY_BYTES, 0);
      if (bytesRead === KEY_BYTES) return buf;
    }
  } finally {
    await fh.close();
  }
  const aside = `${file}.invalid-${Date.now()}`;
  try { await fs.rename(file, aside); } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null; // another process moved it first
    throw e;
  }
  log?.error('machine key file is not a key (expected 32 bytes); moved aside, a new key is made', { file, moved_to: aside });
  return null;
}

/**
 * Creates the key file unless it exists: a temp file (0600 from the start), fsync, then a hard link to
 * the final name, which fails if another process won the race (so nobody's key is ever replaced), and
 * a directory fsync. Where hard links are not supported, a rename (no-clobber checked just before).
 */
async function createKey(file: string): Promise<boolean> {
  const dir = path.dirname(file);
  const tmp = path.join(dir, `.${path.basename(file)}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`);
  const fh = await fs.open(tmp, 'wx', 0o600);
  try {
    await fh.chmod(0o600);
    await fh.writeFile(randomBytes(KEY_BYTES));
    await fh.sync();
  } finally {
    await fh.close();
  }
  let made = false;
  try {
    await fs.link(tmp, file);
    made = true;
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') return false;
    if (code !== 'EPERM' && code !== 'ENOTSUP' && code !== 'ENOSYS') throw e;
    if (!(await fs.access(file).then(() => true, () => false))) { await fs.rename(tmp, file); made = true; }
  } finally {
    await fs.rm(tmp, { force: true });
  }
  const d = await fs.open(dir, 'r');
  try { await d.sync(); } finally { await d.close(); }
  return made;
}

/** Loads `<dir>/machine.key`, creating it on first use. Safe when several callers race to create it. */
export async function loadMachineKey(dir: string, log?: KeyLog): Promise<Buffer> {
  const file = path.join(dir, MACHINE_KEY_FILE);
  await fs.mkdir(dir, { recursive: true, mode: 0o700 });
  for (let i = 0; i < 5; i++) {
    const key = await readKey(file, log);
    if (key) return key;
    if (await createKey(file)) log?.info('machine key created', { file });
  }
  throw new Error(`could not create or read ${file}`);
}

export async function openSecretBox(dir: string, log?: KeyLog): Promise<SecretBox> {
  const key = await loadMachineKey(dir, log);
  try { return createSecretBox(key); } finally { key.fill(0); }
}
