// Temporary passwords for password recovery by e-mail (docs/auth.md, "Password recovery"): one pending
// per user, scrypt-hashed like the real password and kept beside it until it expires or is used. The
// real password keeps working meanwhile, so requesting a reset cannot lock anyone out; using the
// temporary one at sign-in sets a new password (users.update) and retires it.
import type { Clock } from '../clock.js';
import type { Store, Tx } from '../store/types.js';

export interface TempPasswordRow {
  user_id: string;
  hash: string;
  created_at: string;
  expires_at: string;
}

export class TemporaryPasswordService {
  constructor(private store: Store, private clock: Clock) {}

  /** The pending temporary password of a user, or null (none, or expired). */
  pending(userId: string): TempPasswordRow | null {
    const r = this.store.get<TempPasswordRow>(
      'SELECT user_id, hash, created_at, expires_at FROM user_temp_passwords WHERE user_id = ?', [userId]);
    if (!r || Date.parse(r.expires_at) <= this.clock.now()) return null;
    return r;
  }

  /** Stores (replacing any earlier one) a hashed temporary password valid for `ttlMs`; returns its expiry. */
  set(tx: Tx, userId: string, hash: string, ttlMs: number): string {
    const now = this.clock.now();
    const expires = this.clock.iso(now + ttlMs);
    tx.run(`INSERT INTO user_temp_passwords (user_id, hash, created_at, expires_at) VALUES (?, ?, ?, ?)
            ON CONFLICT(user_id) DO UPDATE SET hash = excluded.hash, created_at = excluded.created_at, expires_at = excluded.expires_at`,
    [userId, hash, this.clock.iso(now), expires]);
    return expires;
  }

  /** Removes the temporary password with this exact hash (a send that failed); false when it changed meanwhile. */
  async removeIf(userId: string, hash: string): Promise<boolean> {
    return this.store.write((tx) =>
      tx.run('DELETE FROM user_temp_passwords WHERE user_id = ? AND hash = ?', [userId, hash]).changes > 0, 'sync');
  }

  /** Drops expired rows (maintenance). */
  async purgeExpired(): Promise<number> {
    const now = this.clock.iso();
    if (!this.store.get('SELECT 1 AS x FROM user_temp_passwords WHERE expires_at <= ? LIMIT 1', [now])) return 0;
    return this.store.write((tx) => tx.run('DELETE FROM user_temp_passwords WHERE expires_at <= ?', [now]).changes);
  }
}

/** Retires a user's temporary password inside a transaction (any password change, deletion). */
export function retireTemporaryPassword(tx: Tx, userId: string): void {
  tx.run('DELETE FROM user_temp_passwords WHERE user_id = ?', [userId]);
}
