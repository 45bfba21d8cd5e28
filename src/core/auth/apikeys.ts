// API keys for scripts: `np_` + 40 random base62 characters, shown once at creation. The database keeps
// the sha256 of the whole key (looked up by hash, so no comparison leaks timing about the key's
// characters) and its first 11 characters as a prefix that lists can show to tell keys apart.
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { z } from 'zod';
import type { Clock } from '../clock.js';
import { badRequest, forbidden, notFound } from '../errors.js';
import type { Store } from '../store/types.js';
import { SCOPES, type Scope } from './scopes.js';
import type { InTx, UserRow } from './types.js';

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const KEY_BODY = 40;
const KEY_FORMAT = /^np_[A-Za-z0-9]{40}$/;
export const KEY_PREFIX_LENGTH = 11;
/** last_used_at is written at most this often per key, so a busy script does not mean a write per call. */
const TOUCH_EVERY_MS = 60_000;

export interface ApiKeyRow {
  id: string;
  name: string;
  prefix: string;
  hash: string;
  scopes: string;
  owner_id: string;
  created_at: string;
  expires_at: string | null;
  last_used_at: string | null;
  last_used_ip: string | null;
}

export interface PublicApiKey {
  id: string;
  name: string;
  prefix: string;
  scopes: Scope[];
  owner: { id: string; username: string };
  created_at: string;
  expires_at: string | null;
  last_used_at: string | null;
}

export const PublicApiKeySchema = z.object({
  id: z.string(),
  name: z.string(),
  prefix: z.string(),
  scopes: z.array(z.enum(SCOPES as [Scope, ...Scope[]])),
  owner: z.object({ id: z.string(), username: z.string() }),
  created_at: z.string(),
  expires_at: z.string().nullable(),
  last_used_at: z.string().nullable(),
});

export type ResolvedKey =
  | { status: 'ok'; key: ApiKeyRow & { scopeList: Scope[] }; owner: UserRow }
  | { status: 'expired' | 'unknown' | 'owner_disabled' };

export const hashKey = (key: string) => createHash('sha256').update(key).digest('hex');

/** Uniform random base62 characters (rejection sampling: no modulo bias). */
function randomBase62(n: number): string {
  let out = '';
  while (out.length < n) {
    for (const b of randomBytes(n * 2)) {
      if (b < 248) out += ALPHABET[b % 62];
      if (out.length === n) break;
    }
  }
  return out;
}

function parseScopes(json: string): Scope[] {
  try {
    const v = JSON.parse(json) as unknown;
    return Array.isArray(v) ? v.filter((s): s is Scope => SCOPES.includes(s as Scope)) : [];
  } catch { return []; }
}

/** Deduplicated, in the canonical order of SCOPES. */
const normaliseScopes = (scopes: Iterable<Scope>) => { const set = new Set(scopes); return SCOPES.filter((s) => set.has(s)); };

interface ListRow extends ApiKeyRow { owner_username: string }

const toPublic = (r: ListRow): PublicApiKey => ({
  id: r.id, name: r.name, prefix: r.prefix, scopes: parseScopes(r.scopes),
  owner: { id: r.owner_id, username: r.owner_username },
  created_at: r.created_at, expires_at: r.expires_at, last_used_at: r.last_used_at,
});

const SELECT_PUBLIC = `SELECT k.id, k.name, k.prefix, k.hash, k.scopes, k.owner_id, k.created_at, k.expires_at,
  k.last_used_at, k.last_used_ip, u.username AS owner_username FROM api_keys k JOIN users u ON u.id = k.owner_id`;

export class ApiKeyService {
  constructor(private store: Store, private clock: Clock) {}

  /**
   * Creates a key owned by `owner`. `cap` is what the caller may grant: their own effective scopes (a
   * session's role scopes, or the scopes of the key they call with), so no key can mint a stronger one.
   */
  async create(
    owner: { id: string; username: string },
    input: { name: string; scopes: Scope[]; expires_at?: string | null },
    cap: ReadonlySet<Scope>,
    also?: InTx<PublicApiKey>,
  ): Promise<{ key: string; record: PublicApiKey }> {
    const scopes = normaliseScopes(input.scopes);
    if (!scopes.length) throw badRequest('A key needs at least one scope', [{ path: 'scopes', message: 'Give at least one scope' }]);
    const beyond = scopes.filter((s) => !cap.has(s));
    if (beyond.length) throw forbidden(`You cannot grant scopes you do not have: ${beyond.join(', ')}`);
    let expires: string | null = null;
    if (input.expires_at) {
      const t = Date.parse(input.expires_at);
      if (!Number.isFinite(t)) throw badRequest('Invalid expiry', [{ path: 'expires_at', message: 'Must be an ISO 8601 date-time' }]);
      if (t <= this.clock.now()) throw badRequest('The expiry is in the past', [{ path: 'expires_at', message: 'Must be in the future' }]);
      expires = this.clock.iso(t);
    }
    const key = 'np_' + randomBase62(KEY_BODY);
    const id = randomUUID();
    const record = await this.store.write((tx) => {
      tx.run(`INSERT INTO api_keys (id, name, prefix, hash, scopes, owner_id, created_at, expires_at)
              VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
        [id, input.name, key.slice(0, KEY_PREFIX_LENGTH), hashKey(key), JSON.stringify(scopes), owner.id, this.clock.iso(), expires]);
      const rec = toPublic(tx.get<ListRow>(`${SELECT_PUBLIC} WHERE k.id = ?`, [id])!);
      also?.(tx, rec);
      return rec;
    }, 'sync');
    return { key, record };
  }

  get(id: string): PublicApiKey | null {
    const r = this.store.get<ListRow>(`${SELECT_PUBLIC} WHERE k.id = ?`, [id]);
    return r ? toPublic(r) : null;
  }

  /** Newest first; all keys, or only `ownerId`'s. */
  list(opts: { ownerId?: string; limit?: number; offset?: number } = {}): { items: PublicApiKey[]; total: number } {
    const where = opts.ownerId ? 'WHERE k.owner_id = ?' : '';
    const params = opts.ownerId ? [opts.ownerId] : [];
    const total = Number(this.store.get<{ n: number }>(`SELECT COUNT(*) AS n FROM api_keys k ${where}`, params)?.n ?? 0);
    const rows = this.store.all<ListRow>(`${SELECT_PUBLIC} ${where} ORDER BY k.created_at DESC, k.rowid DESC LIMIT ? OFFSET ?`,
      [...params, opts.limit ?? 100, opts.offset ?? 0]);
    return { items: rows.map(toPublic), total };
  }

  /** Deletes a key; a revoked key is simply unknown from then on. */
  async revoke(id: string, also?: InTx<PublicApiKey>): Promise<PublicApiKey> {
    return this.store.write((tx) => {
      const r = tx.get<ListRow>(`${SELECT_PUBLIC} WHERE k.id = ?`, [id]);
      if (!r) throw notFound('API key');
      tx.run('DELETE FROM api_keys WHERE id = ?', [id]);
      const rec = toPublic(r);
      also?.(tx, rec);
      return rec;
    }, 'sync');
  }

  /** Looks a presented key up by its hash and notes its use (throttled, group-committed). */
  async resolve(presented: string, ip: string | null): Promise<ResolvedKey> {
    if (!KEY_FORMAT.test(presented)) return { status: 'unknown' };
    const row = this.store.get<ApiKeyRow>(
      'SELECT id, name, prefix, hash, scopes, owner_id, created_at, expires_at, last_used_at, last_used_ip FROM api_keys WHERE hash = ?',
      [hashKey(presented)]);
    if (!row) return { status: 'unknown' };
    const now = this.clock.now();
    if (row.expires_at && Date.parse(row.expires_at) <= now) return { status: 'expired' };
    const owner = this.store.get<UserRow>(
      `SELECT id, username, display_name, email, role, password_hash, one_time, disabled, created_at, updated_at,
              last_login_at, password_changed_at FROM users WHERE id = ?`, [row.owner_id]);
    if (!owner) return { status: 'unknown' };
    if (owner.disabled) return { status: 'owner_disabled' };
    if (!row.last_used_at || now - Date.parse(row.last_used_at) >= TOUCH_EVERY_MS) {
      row.last_used_at = this.clock.iso(now);
      row.last_used_ip = ip;
      await this.store.write((tx) => tx.run('UPDATE api_keys SET last_used_at = ?, last_used_ip = ? WHERE id = ?',
        [row.last_used_at, ip, row.id]), 'group');
    }
    return { status: 'ok', key: { ...row, scopeList: parseScopes(row.scopes) }, owner };
  }
}
