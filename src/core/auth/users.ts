// Users: accounts, roles and passwords. Password hashes never leave this file except for verification.
//
// Rules kept here, not in the routes, so that every path (API, bootstrap, future CLI) obeys them:
// - the last enabled admin cannot be deleted, demoted or disabled (409 `last_admin`);
// - a password change or disabling ends the user's sessions (except the caller's own session);
// - once a real (non-one-time) admin exists, the generated one-time admin is retired: its password was
//   printed to the log and must stop working.
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import type { Clock } from '../clock.js';
import { badRequest, conflict, notFound } from '../errors.js';
import { UUID_PATTERN } from '../http/schemas.js';
import type { Store, Tx } from '../store/types.js';
import { hashPassword, passwordPolicyErrors } from './passwords.js';
import type { Role } from './scopes.js';
import type { InTx, UserRow } from './types.js';
import { endUserSessions } from './sessions.js';
import { retireTemporaryPassword } from './temporary.js';

export const Username = z.string().min(3).max(64)
  .regex(/^[A-Za-z0-9._-]+$/, 'Use 3 to 64 letters, digits, dots, dashes or underscores');
export const Email = z.email().max(254);
export const DisplayName = z.string().trim().min(1).max(100);

export type { InTx, UserRow } from './types.js';

export interface PublicUser {
  id: string;
  username: string;
  display_name: string | null;
  email: string | null;
  role: Role;
  disabled: boolean;
  created_at: string;
  updated_at: string;
  last_login_at: string | null;
}

export const PublicUserSchema = z.object({
  id: z.string(),
  username: z.string(),
  display_name: z.string().nullable(),
  email: z.string().nullable(),
  role: z.enum(['admin', 'operator', 'viewer']),
  disabled: z.boolean(),
  created_at: z.string(),
  updated_at: z.string(),
  last_login_at: z.string().nullable(),
});

export interface NewUser {
  username: string;
  password: string;
  role: Role;
  display_name?: string | null;
  email?: string | null;
  /** Only for the generated first-run admin. */
  one_time?: boolean;
}

export interface UserPatch {
  display_name?: string | null;
  email?: string | null;
  role?: Role;
  disabled?: boolean;
  password?: string;
}

/** Runs inside the write transaction that makes the change, e.g. to insert its audit entry. */
export function toPublicUser(r: UserRow): PublicUser {
  return {
    id: r.id, username: r.username, display_name: r.display_name, email: r.email, role: r.role,
    disabled: !!r.disabled, created_at: r.created_at, updated_at: r.updated_at, last_login_at: r.last_login_at,
  };
}

const COLS = 'id, username, display_name, email, role, password_hash, one_time, disabled, created_at, updated_at, ' +
  'last_login_at, password_changed_at';

export class UserService {
  constructor(
    private store: Store,
    private clock: Clock,
    /** Called after a commit that retired the one-time admin (the bootstrap service removes its file). */
    private onOneTimeRetired: () => void | Promise<void> = () => {},
  ) {}

  row(id: string): UserRow | null {
    if (!UUID_PATTERN.test(id)) return null;
    return this.store.get<UserRow>(`SELECT ${COLS} FROM users WHERE id = ?`, [id]) ?? null;
  }

  get(id: string): PublicUser | null {
    const r = this.row(id);
    return r ? toPublicUser(r) : null;
  }

  /** Enabled users with this e-mail address (compared without regard to case). */
  byEmail(email: string): UserRow[] {
    return this.store.all<UserRow>(`SELECT ${COLS} FROM users WHERE email = ? COLLATE NOCASE AND disabled = 0 LIMIT 2`, [email]);
  }

  /** Case-insensitive, as usernames are unique without regard to case. */
  getByUsername(username: string): UserRow | null {
    return this.store.get<UserRow>(`SELECT ${COLS} FROM users WHERE username = ?`, [username]) ?? null;
  }

  list(opts: { limit?: number; offset?: number } = {}): { items: PublicUser[]; total: number } {
    const total = this.count();
    const rows = this.store.all<UserRow>(`SELECT ${COLS} FROM users ORDER BY username COLLATE NOCASE LIMIT ? OFFSET ?`,
      [opts.limit ?? 50, opts.offset ?? 0]);
    return { items: rows.map(toPublicUser), total };
  }

  count(): number {
    return Number(this.store.get<{ n: number }>('SELECT COUNT(*) AS n FROM users')?.n ?? 0);
  }

  /** Enabled admins that are not the generated one-time admin. */
  realAdminCount(): number {
    return Number(this.store.get<{ n: number }>(
      "SELECT COUNT(*) AS n FROM users WHERE role = 'admin' AND disabled = 0 AND one_time = 0")?.n ?? 0);
  }

  oneTimeAdmin(): UserRow | null {
    return this.store.get<UserRow>(`SELECT ${COLS} FROM users WHERE one_time = 1 ORDER BY created_at LIMIT 1`) ?? null;
  }

  async create(input: NewUser, also?: InTx<PublicUser>): Promise<PublicUser> {
    const errors = passwordPolicyErrors(input.password, input.username);
    if (errors.length) throw badRequest('The password does not meet the password policy', errors);
    const hash = await hashPassword(input.password);
    let retired = false;
    const user = await this.store.write((tx) => {
      if (tx.get('SELECT 1 AS x FROM users WHERE username = ?', [input.username]))
        throw conflict(`A user named ${input.username} already exists`, 'username_taken');
      const now = this.clock.iso();
      const id = randomUUID();
      tx.run(`INSERT INTO users (${COLS}) VALUES (?, ?, ?, ?, ?, ?, ?, 0, ?, ?, NULL, ?)`, [
        id, input.username, input.display_name ?? null, input.email ?? null, input.role, hash,
        input.one_time ? 1 : 0, now, now, now,
      ]);
      if (input.role === 'admin' && !input.one_time) retired = retireOneTime(tx) > 0;
      const created = toPublicUser(tx.get<UserRow>(`SELECT ${COLS} FROM users WHERE id = ?`, [id])!);
      also?.(tx, created);
      return created;
    }, 'sync');
    if (retired) await this.onOneTimeRetired();
    return user;
  }

  /**
   * Applies a patch; `changed` names the fields whose value actually changed. `keepSessionId` is the
   * caller's own session, which survives their own password change.
   */
  async update(id: string, patch: UserPatch, opts: { keepSessionId?: string; also?: InTx<{ user: PublicUser; changed: string[] }> } = {})
    : Promise<{ user: PublicUser; changed: string[] }> {
    const before = this.row(id);
    if (!before) throw notFound('User');
    let hash: string | undefined;
    if (patch.password !== undefined) {
      const errors = passwordPolicyErrors(patch.password, before.username);
      if (errors.length) throw badRequest('The password does not meet the password policy', errors);
      hash = await hashPassword(patch.password);
    }
    let retired = false;
    const result = await this.store.write((tx) => {
      // Re-read inside the transaction: the hash above took time, and the rules need the current state.
      const cur = tx.get<UserRow>(`SELECT ${COLS} FROM users WHERE id = ?`, [id]);
      if (!cur) throw notFound('User');
      const now = this.clock.iso();
      const sets: string[] = [];
      const params: (string | number | null)[] = [];
      const changed: string[] = [];
      const set = (col: string, value: string | number | null, field = col) => {
        sets.push(`${col} = ?`); params.push(value);
        if (!changed.includes(field)) changed.push(field);
      };
      if (patch.display_name !== undefined && patch.display_name !== cur.display_name) set('display_name', patch.display_name);
      if (patch.email !== undefined && patch.email !== cur.email) set('email', patch.email);
      if (patch.role !== undefined && patch.role !== cur.role) set('role', patch.role);
      if (patch.disabled !== undefined && (patch.disabled ? 1 : 0) !== cur.disabled) set('disabled', patch.disabled ? 1 : 0);
      if (hash) {
        set('password_hash', hash, 'password');
        set('password_changed_at', now, 'password');
        // A one-time admin who chose their own password is a real admin now.
        if (cur.one_time) set('one_time', 0, 'password');
      }
      const role = patch.role ?? cur.role;
      const disabled = patch.disabled ?? !!cur.disabled;
      if (role !== 'admin' || disabled) guardLastAdmin(tx, cur);
      if (changed.length) {
        tx.run(`UPDATE users SET ${sets.join(', ')}, updated_at = ? WHERE id = ?`, [...params, now, id]);
      }
      // A new password (set by anyone, or through a temporary password) retires a pending temporary one.
      if (hash) retireTemporaryPassword(tx, id);
      if (changed.includes('disabled') && disabled) endUserSessions(tx, id);
      else if (changed.includes('password')) endUserSessions(tx, id, opts.keepSessionId);
      if (hash && cur.one_time) {
        retireOneTime(tx); // any other one-time admin; this one is no longer one-time
        retired = true;
      }
      const out = { user: toPublicUser(tx.get<UserRow>(`SELECT ${COLS} FROM users WHERE id = ?`, [id])!), changed };
      if (changed.length) opts.also?.(tx, out);
      return out;
    }, 'sync');
    if (retired) await this.onOneTimeRetired();
    return result;
  }

  /** Re-hashes a just-verified password with today's parameters (after a cost increase); nothing else changes. */
  async rehash(id: string, password: string): Promise<void> {
    const hash = await hashPassword(password);
    await this.store.write((tx) => tx.run('UPDATE users SET password_hash = ? WHERE id = ?', [hash, id]), 'sync');
  }

  async delete(id: string, also?: InTx<PublicUser>): Promise<PublicUser> {
    return this.store.write((tx) => {
      const cur = tx.get<UserRow>(`SELECT ${COLS} FROM users WHERE id = ?`, [id]);
      if (!cur) throw notFound('User');
      guardLastAdmin(tx, cur);
      deleteUser(tx, id);
      const gone = toPublicUser(cur);
      also?.(tx, gone);
      return gone;
    }, 'sync');
  }
}

/** Deletes a user and what hangs off it; explicit, so it does not depend on PRAGMA foreign_keys. */
export function deleteUser(tx: Tx, id: string): void {
  endUserSessions(tx, id);
  retireTemporaryPassword(tx, id);
  tx.run('DELETE FROM api_keys WHERE owner_id = ?', [id]);
  tx.run('DELETE FROM users WHERE id = ?', [id]);
}

/** Deletes every one-time admin; returns how many there were. */
export function retireOneTime(tx: Tx): number {
  const rows = tx.all<{ id: string }>('SELECT id FROM users WHERE one_time = 1');
  for (const r of rows) deleteUser(tx, r.id);
  return rows.length;
}

/**
 * Refuses a change that would take away `target`'s admin powers when it is the last enabled admin: the
 * last real admin, or the last admin of any kind (before bootstrap only the one-time admin exists).
 */
function guardLastAdmin(tx: Tx, target: UserRow): void {
  if (target.role !== 'admin' || target.disabled) return;
  const count = (sql: string) => Number(tx.get<{ n: number }>(sql)?.n ?? 0);
  const real = count("SELECT COUNT(*) AS n FROM users WHERE role = 'admin' AND disabled = 0 AND one_time = 0");
  const any = count("SELECT COUNT(*) AS n FROM users WHERE role = 'admin' AND disabled = 0");
  if ((!target.one_time && real <= 1) || any <= 1)
    throw conflict('This is the last enabled administrator; create or enable another administrator first', 'last_admin');
}
