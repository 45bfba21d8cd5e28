// Browser sessions: a random 32-byte token in the `np_session` cookie; the database keeps only its
// sha256, so a leaked database or backup cannot be replayed as a cookie. A session ends at an absolute
// expiry (auth.session_ttl_hours) or after auth.session_idle_minutes without a request.
import { createHash, randomBytes } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Clock } from '../clock.js';
import type { Store, Tx } from '../store/types.js';
import type { InTx, UserRow } from './types.js';

export const SESSION_COOKIE = 'np_session';
const TOKEN = /^[A-Za-z0-9_-]{43}$/;
/** last_seen_at is refreshed at most this often, so browsing does not turn into a write per request. */
const TOUCH_EVERY_MS = 60_000;

export interface SessionPolicy {
  ttlHours: number;
  idleMinutes: number;
}

export interface SessionRow {
  id: string;
  user_id: string;
  created_at: string;
  expires_at: string;
  last_seen_at: string;
  ip: string | null;
  user_agent: string | null;
}

export interface NewSession {
  /** The cookie value; exists only in the response that sets the cookie. */
  token: string;
  id: string;
  expires_at: string;
  /** Cookie Max-Age in seconds. */
  max_age: number;
}

export const hashToken = (token: string) => createHash('sha256').update(token).digest('hex');

/** Ends a user's sessions inside a transaction, optionally keeping one (the caller's own). */
export function endUserSessions(tx: Tx, userId: string, exceptId?: string): number {
  return exceptId
    ? tx.run('DELETE FROM sessions WHERE user_id = ? AND id <> ?', [userId, exceptId]).changes
    : tx.run('DELETE FROM sessions WHERE user_id = ?', [userId]).changes;
}

const USER_COLS = 'id, username, display_name, email, role, password_hash, one_time, disabled, created_at, updated_at, ' +
  'last_login_at, password_changed_at';

export class SessionService {
  constructor(private store: Store, private clock: Clock, private policy: () => SessionPolicy) {}

  async create(userId: string, meta: { ip?: string | null; userAgent?: string | null }, also?: InTx<NewSession>): Promise<NewSession> {
    const token = randomBytes(32).toString('base64url');
    const id = hashToken(token);
    const now = this.clock.now();
    const ttlMs = this.policy().ttlHours * 3_600_000;
    const created: NewSession = { token, id, expires_at: this.clock.iso(now + ttlMs), max_age: Math.floor(ttlMs / 1000) };
    await this.store.write((tx) => {
      const at = this.clock.iso(now);
      tx.run(`INSERT INTO sessions (id, user_id, created_at, expires_at, last_seen_at, ip, user_agent)
              VALUES (?, ?, ?, ?, ?, ?, ?)`,
        [id, userId, at, created.expires_at, at, meta.ip ?? null, meta.userAgent?.slice(0, 300) ?? null]);
      tx.run('UPDATE users SET last_login_at = ? WHERE id = ?', [at, userId]);
      also?.(tx, created);
    }, 'sync');
    return created;
  }

  /** The live session and its enabled user for a cookie token, or null (unknown, expired, idle, disabled). */
  async resolve(token: string): Promise<{ session: SessionRow; user: UserRow } | null> {
    if (!TOKEN.test(token)) return null;
    const id = hashToken(token);
    const session = this.store.get<SessionRow>(
      'SELECT id, user_id, created_at, expires_at, last_seen_at, ip, user_agent FROM sessions WHERE id = ?', [id]);
    if (!session) return null;
    const user = this.store.get<UserRow>(`SELECT ${USER_COLS} FROM users WHERE id = ?`, [session.user_id]);
    if (!user) return null;
    const now = this.clock.now();
    const idleMs = this.policy().idleMinutes * 60_000;
    if (Date.parse(session.expires_at) <= now || Date.parse(session.last_seen_at) + idleMs <= now || user.disabled) {
      await this.store.write((tx) => tx.run('DELETE FROM sessions WHERE id = ?', [id]), 'group');
      return null;
    }
    if (now - Date.parse(session.last_seen_at) >= TOUCH_EVERY_MS) {
      session.last_seen_at = this.clock.iso(now);
      await this.store.write((tx) => tx.run('UPDATE sessions SET last_seen_at = ? WHERE id = ?', [session.last_seen_at, id]), 'group');
    }
    return { session, user };
  }

  async destroy(id: string, also?: InTx<boolean>): Promise<boolean> {
    return this.store.write((tx) => {
      const gone = tx.run('DELETE FROM sessions WHERE id = ?', [id]).changes > 0;
      also?.(tx, gone);
      return gone;
    }, 'sync');
  }

  async destroyAllForUser(userId: string, exceptId?: string): Promise<number> {
    return this.store.write((tx) => endUserSessions(tx, userId, exceptId), 'sync');
  }

  /** Deletes sessions past their absolute expiry or idle timeout. */
  async purgeExpired(): Promise<number> {
    const now = this.clock.now();
    const idleCutoff = this.clock.iso(now - this.policy().idleMinutes * 60_000);
    return this.store.write((tx) => tx.run('DELETE FROM sessions WHERE expires_at <= ? OR last_seen_at <= ?',
      [this.clock.iso(now), idleCutoff]).changes, 'group');
  }

  countForUser(userId: string): number {
    return Number(this.store.get<{ n: number }>('SELECT COUNT(*) AS n FROM sessions WHERE user_id = ?', [userId])?.n ?? 0);
  }
}

// ---- cookies ---------------------------------------------------------------------------------------

/** True when the browser reached us over TLS, directly or (with server.trust_proxy) through a proxy. */
export function isSecureRequest(req: IncomingMessage, trustProxy: boolean): boolean {
  if ((req.socket as { encrypted?: boolean }).encrypted) return true;
  if (!trustProxy) return false;
  const proto = String(req.headers['x-forwarded-proto'] ?? '').split(',')[0]!.trim().toLowerCase();
  return proto === 'https';
}

export function sessionCookie(token: string, maxAgeSec: number, secure: boolean): string {
  return `${SESSION_COOKIE}=${token}; Max-Age=${maxAgeSec}; Path=/; HttpOnly; SameSite=Strict${secure ? '; Secure' : ''}`;
}

export function clearSessionCookie(secure: boolean): string {
  return `${SESSION_COOKIE}=; Max-Age=0; Path=/; HttpOnly; SameSite=Strict${secure ? '; Secure' : ''}`;
}

/** One cookie's value from the Cookie header; the first one wins when a name repeats. */
export function readCookie(req: IncomingMessage, name: string): string | undefined {
  const header = req.headers.cookie;
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const i = part.indexOf('=');
    if (i < 0) continue;
    if (part.slice(0, i).trim() !== name) continue;
    const v = part.slice(i + 1).trim();
    try { return decodeURIComponent(v.startsWith('"') && v.endsWith('"') ? v.slice(1, -1) : v); } catch { return v; }
  }
  return undefined;
}
