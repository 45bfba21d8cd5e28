// First run. Nothing ships with a well-known password: the first start creates the user `admin` with a
// random one-time password, writes it to <data dir>/initial-admin-password (0600) and logs it once.
// That password works for signing in and as the setup code of POST /api/setup/bootstrap, which creates
// the real administrator and retires the one-time one (user, sessions and file).
//
// The settings table helpers live here too: the flags they hold so far are first-run flags.
import { randomBytes } from 'node:crypto';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import type { Clock } from '../clock.js';
import { writeFileAtomic } from '../files.js';
import { conflict } from '../errors.js';
import type { Logger } from '../log.js';
import type { Store, Tx } from '../store/types.js';
import { verifyPassword } from './passwords.js';
import type { InTx } from './types.js';
import type { NewUser, PublicUser, UserService } from './users.js';

export const INITIAL_PASSWORD_FILE = 'initial-admin-password';
export const INITIAL_ADMIN = 'admin';
/** No 0/O, 1/l/I: the password is read off a console and typed in by hand. */
const UNAMBIGUOUS = 'ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz23456789';
const PASSWORD_LENGTH = 24;
const SETUP_COMPLETED = 'setup.completed_at';

export function generateOneTimePassword(length = PASSWORD_LENGTH): string {
  let out = '';
  while (out.length < length) {
    for (const b of randomBytes(length * 2)) {
      // 57 symbols: accept bytes below 228 (4 * 57) so every symbol is equally likely.
      if (b < 4 * UNAMBIGUOUS.length) out += UNAMBIGUOUS[b % UNAMBIGUOUS.length];
      if (out.length === length) break;
    }
  }
  return out;
}

// ---- settings (key -> JSON value) ------------------------------------------------------------------

export function readSetting<T = unknown>(store: Pick<Store, 'get'>, key: string): T | undefined {
  const row = store.get<{ value: string }>('SELECT value FROM settings WHERE key = ?', [key]);
  if (!row) return undefined;
  try { return JSON.parse(row.value) as T; } catch { return undefined; }
}

export function writeSetting(tx: Tx, key: string, value: unknown, at: string): void {
  tx.run(`INSERT INTO settings (key, value, updated_at) VALUES (?, ?, ?)
          ON CONFLICT(key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at`,
  [key, JSON.stringify(value), at]);
}

// ---- the service -----------------------------------------------------------------------------------

export class BootstrapService {
  readonly passwordFile: string;
  /** The log entry that printed the one-time password, dropped from the ring when it is retired. */
  private passwordLogSeq = 0;

  constructor(private deps: { store: Store; clock: Clock; log: Logger; users: UserService; dataDir: string }) {
    this.passwordFile = path.join(deps.dataDir, INITIAL_PASSWORD_FILE);
  }

  /**
   * Called once at start (after migrations). Creates the one-time admin when there are no users; on
   * later starts points at the password file again while the one-time admin is still there, and removes
   * a stale file once it is not. Returns the password only when it was created now.
   */
  async ensureInitialAdmin(_app?: unknown): Promise<{ created: boolean; password?: string; file: string }> {
    const { users, log } = this.deps;
    if (users.count() === 0) {
      const password = generateOneTimePassword();
      // File first: if the process dies between the two steps, the next start simply starts over.
      await writeFileAtomic(this.passwordFile, password + '\n');
      await users.create({ username: INITIAL_ADMIN, password, role: 'admin', one_time: true, display_name: 'Initial administrator' });
      this.passwordLogSeq = log.warn(
        `One-time admin password: ${password} (also in ${this.passwordFile}); sign in as "${INITIAL_ADMIN}" or use it as the setup code`);
      return { created: true, password, file: this.passwordFile };
    }
    const oneTime = users.oneTimeAdmin();
    const present = await fs.access(this.passwordFile).then(() => true, () => false);
    if (oneTime && present) {
      log.warn(`Setup is not finished: the one-time password of "${oneTime.username}" is in ${this.passwordFile}`);
    } else if (oneTime) {
      log.warn(`Setup is not finished: sign in as "${oneTime.username}" with the one-time password printed at first start`);
    } else if (present) {
      await this.removePasswordFile();
    }
    return { created: false, file: this.passwordFile };
  }

  /** True until an enabled administrator other than the one-time admin exists. */
  needed(): boolean {
    return this.deps.users.realAdminCount() === 0;
  }

  /** Whether `code` is the one-time admin's password (constant-time scrypt either way). */
  async verifySetupCode(code: string): Promise<boolean> {
    const oneTime = this.deps.users.oneTimeAdmin();
    return verifyPassword(code, oneTime?.password_hash ?? null);
  }

  /**
   * Creates the first real administrator and retires the one-time admin in the same transaction.
   * 409 `already_bootstrapped` once a real admin exists (checked again inside the transaction).
   */
  async bootstrap(input: Omit<NewUser, 'role' | 'one_time'>, also?: InTx<PublicUser>): Promise<PublicUser> {
    if (!this.needed()) throw alreadyDone();
    const user = await this.deps.users.create({ ...input, role: 'admin' }, (tx, created) => {
      const others = Number(tx.get<{ n: number }>(
        "SELECT COUNT(*) AS n FROM users WHERE role = 'admin' AND disabled = 0 AND one_time = 0 AND id <> ?", [created.id])?.n ?? 0);
      if (others > 0) throw alreadyDone();
      // users.create has retired the one-time admin (its user, sessions and keys) in this transaction.
      also?.(tx, created);
    });
    await this.removePasswordFile();
    return user;
  }

  /** Retires the one-time password's traces: its file, and its line in the log ring buffer. */
  async removePasswordFile(): Promise<void> {
    this.deps.log.forget(this.passwordLogSeq);
    try {
      await fs.rm(this.passwordFile, { force: true });
    } catch (e) {
      this.deps.log.error('could not remove the initial admin password file', { path: this.passwordFile, err: e as Error });
    }
  }

  /** When the setup wizard was completed (POST /api/setup/save), or null. */
  setupCompletedAt(): string | null {
    return readSetting<string>(this.deps.store, SETUP_COMPLETED) ?? null;
  }

  /** Marks the wizard done inside the caller's transaction; returns the time recorded. */
  markSetupCompleted(tx: Tx): string {
    const at = this.deps.clock.iso();
    writeSetting(tx, SETUP_COMPLETED, at, at);
    return at;
  }
}

const alreadyDone = () => conflict('An administrator already exists; sign in instead', 'already_bootstrapped');

