// The audit log: who did what, from where, with what outcome. Entries are written either in their own
// fsynced transaction (record) or inside the caller's transaction (insert) so that a change and its
// entry land together or not at all.
import { randomUUID } from 'node:crypto';
import type { Clock } from '../clock.js';
import type { EventBus } from '../events.js';
import type { Store, Tx } from '../store/types.js';
import type { AuditEntryInput, AuditLog } from './types.js';

export interface AuditEntry {
  id: string;
  at: string;
  actor: string | null;
  actor_user_id: string | null;
  source_ip: string | null;
  action: string;
  target: string | null;
  outcome: 'success' | 'failure';
  details: Record<string, unknown> | null;
}

export interface AuditQuery {
  actor?: string;
  /** Exact action, or a prefix ending in `*` such as `auth.*`. */
  action?: string;
  /** ISO timestamps, inclusive. */
  since?: string;
  until?: string;
  limit?: number;
  offset?: number;
}

export interface AuditService extends AuditLog {
  /** Newest first. */
  query(q: AuditQuery): { items: AuditEntry[]; total: number };
}

// Secrets must never reach the trail. Callers are responsible, this is the safety net.
const SECRET_KEY = /(^|_)(password|passwd|secret|token|key|passphrase|otp|totp_code|setup_code)$/i;
const API_KEY_VALUE = /\bnp_[A-Za-z0-9]{20,}\b/g;
const MAX_DEPTH = 6;

/** A copy of `details` without secret-looking keys and without anything that looks like an API key. */
export function redactDetails(value: unknown, depth = 0): unknown {
  if (typeof value === 'string') return value.replace(API_KEY_VALUE, 'np_[redacted]');
  if (value === null || typeof value !== 'object') return value;
  if (depth >= MAX_DEPTH) return '[truncated]';
  if (Array.isArray(value)) return value.map((v) => redactDetails(v, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    if (SECRET_KEY.test(k)) continue;
    out[k] = redactDetails(v, depth + 1);
  }
  return out;
}

interface Row {
  id: string; at: string; actor: string | null; actor_user_id: string | null; source_ip: string | null;
  action: string; target: string | null; outcome: 'success' | 'failure'; details: string | null;
}

function fromRow(r: Row): AuditEntry {
  let details: Record<string, unknown> | null = null;
  if (r.details) { try { details = JSON.parse(r.details) as Record<string, unknown>; } catch { details = null; } }
  return { ...r, details };
}

const cut = (s: string | null | undefined, n: number) => (s == null ? null : String(s).slice(0, n));

export function createAudit(store: Store, clock: Clock, bus?: EventBus): AuditService {
  const pending: { id: string; action: string; actor: string | null; target: string | null }[] = [];
  let scheduled = false;

  // insert() cannot know whether the caller's transaction commits. Store.write commits (or rolls back)
  // synchronously before it yields, so by the next macrotask the row is there or it is not.
  function announceLater(e: (typeof pending)[number]): void {
    if (!bus) return;
    pending.push(e);
    if (scheduled) return;
    scheduled = true;
    setImmediate(() => {
      scheduled = false;
      for (const p of pending.splice(0)) {
        if (store.get('SELECT 1 AS x FROM audit_log WHERE id = ?', [p.id])) bus.emit('audit.recorded', p);
      }
    });
  }

  function insert(tx: Tx, entry: AuditEntryInput): void {
    const id = randomUUID();
    const details = entry.details ? JSON.stringify(redactDetails(entry.details)) : null;
    tx.run(
      `INSERT INTO audit_log (id, at, actor, actor_user_id, source_ip, action, target, outcome, details)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      [id, clock.iso(), cut(entry.actor, 200), entry.actor_user_id ?? null, cut(entry.source_ip, 64),
        entry.action.slice(0, 100), cut(entry.target, 300), entry.outcome ?? 'success', details],
    );
    announceLater({ id, action: entry.action, actor: entry.actor ?? null, target: entry.target ?? null });
  }

  return {
    insert,
    async record(entry) {
      await store.write((tx) => insert(tx, entry), 'sync');
    },
    query(q) {
      const where: string[] = [];
      const params: (string | number)[] = [];
      if (q.actor) { where.push('actor = ?'); params.push(q.actor); }
      if (q.action) {
        if (q.action.endsWith('*')) {
          where.push("action LIKE ? ESCAPE '\\'");
          params.push(q.action.slice(0, -1).replace(/[\\%_]/g, (c) => '\\' + c) + '%');
        } else {
          where.push('action = ?');
          params.push(q.action);
        }
      }
      if (q.since) { where.push('at >= ?'); params.push(new Date(q.since).toISOString()); }
      if (q.until) { where.push('at <= ?'); params.push(new Date(q.until).toISOString()); }
      const w = where.length ? `WHERE ${where.join(' AND ')}` : '';
      const total = store.get<{ n: number }>(`SELECT COUNT(*) AS n FROM audit_log ${w}`, params)?.n ?? 0;
      const limit = Math.min(Math.max(q.limit ?? 50, 1), 1000);
      const offset = Math.max(q.offset ?? 0, 0);
      const rows = store.all<Row>(
        `SELECT id, at, actor, actor_user_id, source_ip, action, target, outcome, details FROM audit_log ${w}
         ORDER BY at DESC, rowid DESC LIMIT ? OFFSET ?`,
        [...params, limit, offset],
      );
      return { items: rows.map(fromRow), total: Number(total) };
    },
  };
}
