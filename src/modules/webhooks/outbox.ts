// The store side of alerting: routing an alert to the webhooks (cooldown decisions, outbox rows, the
// alert log) in one fsynced write, the log of held alerts, the attempt log, and trimming both logs.
// The dispatcher reads the outbox; nothing here sends anything.
import { randomUUID } from 'node:crypto';
import type { AppContext } from '../../core/context.js';
import type { Tx } from '../../core/store/types.js';
import type { Alert, AlertOutcome, SentOutcome } from './alert.js';
import { alertType, alertTypes, problemTypes } from './alert-types.js';
import { decide } from './cooldown.js';
import { LIMITS, parseList, webhookConfig, type AttemptOutcome, type Decision, type WebhookRow } from './schemas.js';

/** Cooldown rows older than this go, unless they are a problem no recovery has followed yet. */
const COOLDOWN_KEEP_MS = 8 * 86_400_000;

export interface OutboxRow {
  seq: number;
  id: string;
  webhook_id: string;
  alert: string;
  attempts: number;
  next_at: number;
  created_at: number;
  last_error: string | null;
}

export interface AttemptRecord {
  webhook_id: string;
  webhook_name: string;
  delivery_id: string | null;
  alert_id: string | null;
  alert_type: string;
  attempt: number;
  outcome: AttemptOutcome;
  status_code: number | null;
  latency_ms: number | null;
  error: string | null;
  response_excerpt: string | null;
}

export class Outbox {
  constructor(private readonly app: AppContext) {}

  private now(): number { return this.app.clock.now(); }

  /**
   * Offers an alert to every enabled webhook subscribed to its type: queues a delivery or records why
   * not, logs the alert, and runs `also` in the same write. Returns the decisions. The write is fsynced
   * when a webhook may get the alert; an alert nobody subscribes to is only logged (group commit).
   */
  route(alert: Alert, outcome: SentOutcome, also?: (tx: Tx) => void): Promise<Decision[]> {
    const now = this.now();
    const def = alertType(alert.type);
    const problems = problemTypes();
    const wanted = this.app.store.get(
      'SELECT 1 AS x FROM webhooks WHERE enabled = 1 AND EXISTS (SELECT 1 FROM json_each(alert_types) WHERE value = ?)', [alert.type]);
    return this.app.store.write((tx) => {
      const decisions: Decision[] = [];
      for (const w of tx.all<WebhookRow>('SELECT * FROM webhooks WHERE enabled = 1 ORDER BY created_at, id')) {
        const subscribed = parseList(w.alert_types);
        if (!subscribed.includes(alert.type)) continue;
        const lastAt = new Map(tx.all<{ alert_type: string; last_at: number }>(
          'SELECT alert_type, last_at FROM webhook_cooldowns WHERE webhook_id = ? AND subject = ?', [w.id, alert.subject],
        ).map((r) => [r.alert_type, r.last_at]));
        let decision: Decision['decision'] = decide({
          alertType: alert.type, recovery: !!def?.recovery, cooldown: w.cooldown, subscribed, problemTypes: problems, lastAt, now,
        });
        let deliveryId: string | undefined;
        if (decision === 'queued') {
          const pending = tx.get<{ n: number }>('SELECT count(*) AS n FROM webhook_outbox WHERE webhook_id = ?', [w.id])!.n;
          if (pending >= LIMITS.pending_per_webhook) {
            decision = 'outbox_full';
          } else {
            deliveryId = randomUUID();
            tx.run('INSERT INTO webhook_outbox (id, webhook_id, alert, attempts, next_at, created_at) VALUES (?, ?, ?, 0, ?, ?)',
              [deliveryId, w.id, JSON.stringify(alert), now, now]);
            tx.run(`INSERT INTO webhook_cooldowns (webhook_id, subject, alert_type, last_at) VALUES (?, ?, ?, ?)
                    ON CONFLICT (webhook_id, subject, alert_type) DO UPDATE SET last_at = excluded.last_at`,
            [w.id, alert.subject, alert.type, now]);
          }
        }
        decisions.push({ webhook_id: w.id, webhook_name: w.name, decision, ...(deliveryId ? { delivery_id: deliveryId } : {}) });
      }
      this.logAlert(tx, alert, outcome, decisions, now);
      this.pruneCooldowns(tx, now);
      also?.(tx);
      return decisions;
    }, wanted ? 'sync' : 'group');
  }

  /** Logs an alert the alert gate held back (no webhook sees it). */
  logHeld(alert: Alert): Promise<void> {
    return this.app.store.write((tx) => this.logAlert(tx, alert, 'held', [], this.now()), 'group');
  }

  /** Everything this module keeps about a monitor that was deleted. */
  forgetMonitor(monitorId: string): Promise<void> {
    return this.app.store.write((tx) => {
      tx.run('DELETE FROM webhook_cert_alerts WHERE monitor_id = ?', [monitorId]);
      tx.run('DELETE FROM webhook_cooldowns WHERE subject = ? OR subject LIKE ?', [`monitor/${monitorId}`, `monitor/${monitorId}/%`]);
    }, 'sync');
  }

  // ---- the outbox as the dispatcher sees it ---------------------------------------------------------

  /** The first waiting delivery of each webhook (deliveries of one webhook go in order). */
  heads(): OutboxRow[] {
    return this.app.store.all<OutboxRow>(
      'SELECT * FROM webhook_outbox WHERE seq IN (SELECT min(seq) FROM webhook_outbox GROUP BY webhook_id) ORDER BY next_at, seq');
  }

  /** The result of an attempt: the row leaves the outbox (done) or waits for `retryAt`; the attempt is logged. */
  settle(row: OutboxRow, rec: AttemptRecord, retryAt: number | null): Promise<void> {
    const now = this.now();
    return this.app.store.write((tx) => {
      if (retryAt == null) tx.run('DELETE FROM webhook_outbox WHERE seq = ?', [row.seq]);
      else tx.run('UPDATE webhook_outbox SET attempts = ?, next_at = ?, last_error = ? WHERE seq = ?',
        [rec.attempt, retryAt, rec.error, row.seq]);
      this.logAttempt(tx, rec, now);
    }, 'sync');
  }

  // ---- logs -----------------------------------------------------------------------------------------

  /** Logs one attempt (or test) inside a write, trimming the log to its size and age bounds. */
  logAttempt(tx: Tx, r: AttemptRecord, now: number): void {
    const cfg = webhookConfig(this.app);
    tx.run(`INSERT INTO webhook_attempts (t, webhook_id, webhook_name, delivery_id, alert_id, alert_type, attempt, outcome,
              status_code, latency_ms, error, response_excerpt) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    [now, r.webhook_id, r.webhook_name, r.delivery_id, r.alert_id, r.alert_type, r.attempt, r.outcome,
      r.status_code, r.latency_ms, r.error, r.response_excerpt]);
    tx.run('DELETE FROM webhook_attempts WHERE id <= (SELECT max(id) FROM webhook_attempts) - ? OR t < ?',
      [cfg.attempt_log_size, now - cfg.log_retention_days * 86_400_000]);
  }

  private logAlert(tx: Tx, alert: Alert, outcome: AlertOutcome, decisions: Decision[], now: number): void {
    const cfg = webhookConfig(this.app);
    tx.run('INSERT INTO webhook_alerts (id, t, type, subject, outcome, alert, decisions) VALUES (?, ?, ?, ?, ?, ?, ?)',
      [alert.id, now, alert.type, alert.subject, outcome, JSON.stringify(alert), JSON.stringify(decisions)]);
    tx.run('DELETE FROM webhook_alerts WHERE n <= (SELECT max(n) FROM webhook_alerts) - ? OR t < ?',
      [cfg.alert_log_size, now - cfg.log_retention_days * 86_400_000]);
  }

  /**
   * Drops cooldown rows older than the longest cooldown, except a problem no recovery has followed yet:
   * a recovery after a week-long outage must still find that its down was sent.
   */
  private pruneCooldowns(tx: Tx, now: number): void {
    const problems = problemTypes();
    const recoveries = alertTypes().filter((t) => t.recovery).map((t) => t.type);
    const list = (xs: string[]) => (xs.length ? xs.map((x) => `'${x}'`).join(', ') : "''");
    tx.run(`DELETE FROM webhook_cooldowns WHERE last_at < ? AND (alert_type NOT IN (${list(problems)}) OR EXISTS (
              SELECT 1 FROM webhook_cooldowns r WHERE r.webhook_id = webhook_cooldowns.webhook_id
                AND r.subject = webhook_cooldowns.subject AND r.alert_type IN (${list(recoveries)})
                AND r.last_at > webhook_cooldowns.last_at))`, [now - COOLDOWN_KEEP_MS]);
  }
}
