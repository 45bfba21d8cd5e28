// What became of alerts, read for the people following them: the alert log with each webhook's
// decision and, for every delivery queued, where it stands now (waiting, delivered, failed, cancelled);
// the attempt log; the deliveries waiting in the outbox with their next attempt. Read only. One
// implementation behind GET /api/webhooks/alerts, /deliveries, /deliveries/pending and the two
// /api/dev endpoints. What it returns was scrubbed of secrets when it was written (dispatcher.ts).
import type { AppContext } from '../../core/context.js';
import { iso } from '../../core/clock.js';
import type { SqlValue } from '../../core/store/types.js';
import type { AlertOutcome } from './alert.js';
import type { OutboxRow } from './outbox.js';
import type {
  AlertRecordOut, AlertsFilter, AttemptOut, AttemptOutcome, Decision, DeliveriesFilter, DeliveryStatus, PendingDeliveryOut,
  PendingFilter,
} from './schemas.js';

export interface AttemptRow {
  id: number; t: number; webhook_id: string; webhook_name: string; delivery_id: string | null; alert_id: string | null;
  alert_type: string; attempt: number; outcome: AttemptOutcome; status_code: number | null; latency_ms: number | null;
  error: string | null; response_excerpt: string | null;
}

interface AlertRow { id: string; t: number; type: string; subject: string; outcome: AlertOutcome; alert: string; decisions: string }

interface List<T> { items: T[]; total: number }

/** A WHERE clause from the conditions that apply, with their parameters in order. */
function where(conds: [string, SqlValue | undefined][]): { sql: string; params: SqlValue[] } {
  const on = conds.filter(([, v]) => v !== undefined);
  return { sql: on.length ? `WHERE ${on.map(([c]) => c).join(' AND ')}` : '', params: on.map(([, v]) => v as SqlValue) };
}

const attemptOk = (r: Pick<AttemptRow, 'outcome' | 'status_code'>) =>
  r.outcome === 'delivered' || (r.outcome === 'test' && r.status_code != null && r.status_code >= 200 && r.status_code < 300);

/** An attempt's outcome once it no longer waits in the outbox. */
const SETTLED: Partial<Record<AttemptOutcome, DeliveryStatus['state']>> = {
  delivered: 'delivered', failed: 'failed', cancelled: 'cancelled',
};

export class WebhookActivity {
  constructor(private readonly app: AppContext) {}

  /** The alert log, newest first, each queued delivery with where it stands now. */
  alerts(q: AlertsFilter): List<AlertRecordOut> {
    const w = where([
      ['type = ?', q.type],
      ['outcome = ?', q.outcome],
      ["EXISTS (SELECT 1 FROM json_each(decisions) WHERE json_extract(value, '$.webhook_id') = ?)", q.webhook_id],
      ['monitor_id = ?', q.monitor_id],
      ['t >= ?', q.since === undefined ? undefined : Date.parse(q.since)],
      ['t <= ?', q.until === undefined ? undefined : Date.parse(q.until)],
    ]);
    const store = this.app.store;
    const total = store.get<{ n: number }>(`SELECT count(*) AS n FROM webhook_alerts ${w.sql}`, w.params)!.n;
    const rows = store.all<AlertRow>(
      `SELECT id, t, type, subject, outcome, alert, decisions FROM webhook_alerts ${w.sql} ORDER BY n DESC LIMIT ? OFFSET ?`,
      [...w.params, q.limit, q.offset]);
    const decided = rows.map((r) => JSON.parse(r.decisions) as Decision[]);
    const status = this.deliveryStatus(decided.flat().flatMap((d) => (d.delivery_id ? [d.delivery_id] : [])));
    return {
      items: rows.map((r, i) => ({
        id: r.id, at: iso(r.t), type: r.type, subject: r.subject, outcome: r.outcome,
        decisions: decided[i]!.map((d) => {
          const delivery = d.delivery_id ? status.get(d.delivery_id) : undefined;
          return delivery ? { ...d, delivery } : d;
        }),
        alert: JSON.parse(r.alert) as Record<string, unknown>,
      })),
      total,
    };
  }

  /** The attempt log (deliveries and tests), newest first. */
  attempts(q: DeliveriesFilter): List<AttemptOut> {
    const w = where([['webhook_id = ?', q.webhook_id], ['outcome = ?', q.outcome], ['alert_id = ?', q.alert_id]]);
    const store = this.app.store;
    const total = store.get<{ n: number }>(`SELECT count(*) AS n FROM webhook_attempts ${w.sql}`, w.params)!.n;
    const rows = store.all<AttemptRow>(`SELECT * FROM webhook_attempts ${w.sql} ORDER BY id DESC LIMIT ? OFFSET ?`,
      [...w.params, q.limit, q.offset]);
    const titles = this.alertTitles(rows.flatMap((r) => (r.alert_id && r.outcome !== 'test' ? [r.alert_id] : [])));
    return {
      items: rows.map(({ t, ...r }) => ({
        ...r, at: iso(t), alert_title: (r.alert_id && titles.get(r.alert_id)) ?? null, ok: attemptOk(r),
      })),
      total,
    };
  }

  /** Deliveries waiting in the outbox (for their first attempt or a retry), oldest first: the order they go in. */
  pending(q: PendingFilter): List<PendingDeliveryOut> {
    const w = where([['o.webhook_id = ?', q.webhook_id]]);
    const store = this.app.store;
    const total = store.get<{ n: number }>(`SELECT count(*) AS n FROM webhook_outbox o ${w.sql}`, w.params)!.n;
    const rows = store.all<OutboxRow & { webhook_name: string | null; waiting_for: number }>(
      `SELECT o.*, h.name AS webhook_name,
              (SELECT count(*) FROM webhook_outbox e WHERE e.webhook_id = o.webhook_id AND e.seq < o.seq) AS waiting_for
         FROM webhook_outbox o LEFT JOIN webhooks h ON h.id = o.webhook_id ${w.sql} ORDER BY o.seq LIMIT ? OFFSET ?`,
      [...w.params, q.limit, q.offset]);
    return {
      items: rows.map((r) => {
        const alert = JSON.parse(r.alert) as { id: string; type: string; title: string; subject: string };
        return {
          delivery_id: r.id, webhook_id: r.webhook_id, webhook_name: r.webhook_name ?? '(deleted)',
          alert_id: alert.id, alert_type: alert.type, alert_title: alert.title, subject: alert.subject,
          queued_at: iso(r.created_at), attempts: r.attempts, next_attempt_at: iso(r.next_at), waiting_for: r.waiting_for,
          last_error: r.last_error,
        };
      }),
      total,
    };
  }

  /** Where each delivery stands: waiting in the outbox, else what its latest logged attempt came to. */
  private deliveryStatus(ids: string[]): Map<string, DeliveryStatus> {
    const out = new Map<string, DeliveryStatus>();
    if (!ids.length) return out;
    const list = JSON.stringify(ids);
    const latest = new Map<string, AttemptRow>();
    for (const a of this.app.store.all<AttemptRow>(
      'SELECT * FROM webhook_attempts WHERE delivery_id IN (SELECT value FROM json_each(?)) ORDER BY id', [list])) {
      latest.set(a.delivery_id!, a);
    }
    const waiting = new Map(this.app.store.all<OutboxRow>(
      'SELECT * FROM webhook_outbox WHERE id IN (SELECT value FROM json_each(?))', [list]).map((r) => [r.id, r]));
    for (const id of ids) {
      const a = latest.get(id);
      const o = waiting.get(id);
      const last = { last_attempt_at: a ? iso(a.t) : null, status_code: a?.status_code ?? null };
      if (o) {
        out.set(id, { state: 'pending', attempts: o.attempts, ...last, error: o.last_error, next_attempt_at: iso(o.next_at) });
      } else {
        out.set(id, { state: (a && SETTLED[a.outcome]) ?? 'unknown', attempts: a?.attempt ?? 0, ...last, error: a?.error ?? null,
          next_attempt_at: null });
      }
    }
    return out;
  }

  /** Titles of the alerts still in the alert log, by alert id. */
  private alertTitles(ids: string[]): Map<string, string> {
    if (!ids.length) return new Map();
    return new Map(this.app.store.all<{ id: string; title: string }>(
      `SELECT id, json_extract(alert, '$.title') AS title FROM webhook_alerts WHERE id IN (SELECT value FROM json_each(?))`,
      [JSON.stringify([...new Set(ids)])]).map((r) => [r.id, r.title]));
  }
}
