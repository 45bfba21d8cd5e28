// The store side of alerting: routing an alert to the webhooks (cooldown decisions, outbox rows, the
// alert log) in one fsynced write, the log of held alerts, the attempt log, and trimming both logs.
// The dispatcher reads the outbox; nothing here sends anything.
import { randomUUID } from 'node:crypto';
import type { AppContext } from '../../core/context.js';
import type { Tx } from '../../core/store/types.js';
import type { Alert, AlertOutcome, SentOutcome } from './alert.js';
import { alertType, alertTypes, problemTypes } from './alert-types.js';
import { decide } from './cooldown.js';
import { notRouted, parseRouting } from './routing.js';
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

/** A webhook subscribed to an alert's type: one that may be told (`w`), or why it is not, whatever else holds. */
type Offer = { w: WebhookRow; decision?: undefined } | { w: WebhookRow; decision: Decision };

const told = (w: WebhookRow, decision: Decision['decision'], extra: Partial<Decision> = {}): Decision =>
  ({ webhook_id: w.id, webhook_name: w.name, decision, ...extra });

export class Outbox {
  constructor(private readonly app: AppContext) {}

  private now(): number { return this.app.clock.now(); }

  /**
   * The webhooks subscribed to the alert's type, in creation order: each one that routes the alert's
   * monitor and is enabled may be told; the others carry why not (not_routed with the reason, disabled).
   */
  private offers(tx: Pick<Tx, 'all'>, alert: Alert): Offer[] {
    const out: Offer[] = [];
    for (const w of tx.all<WebhookRow>('SELECT * FROM webhooks ORDER BY created_at, id')) {
      if (!parseList(w.alert_types).includes(alert.type)) continue;
      const reason = notRouted(parseRouting(w.monitors), alert.monitor);
      if (reason) out.push({ w, decision: told(w, 'not_routed', { reason }) });
      else if (w.enabled !== 1) out.push({ w, decision: told(w, 'disabled') });
      else out.push({ w });
    }
    return out;
  }

  /** Queues the alert for a webhook (or finds its outbox full) and notes when it was told, inside a write. */
  private queue(tx: Tx, w: WebhookRow, alert: Alert, now: number): Decision {
    const pending = tx.get<{ n: number }>('SELECT count(*) AS n FROM webhook_outbox WHERE webhook_id = ?', [w.id])!.n;
    if (pending >= LIMITS.pending_per_webhook) return told(w, 'outbox_full');
    const deliveryId = randomUUID();
    tx.run('INSERT INTO webhook_outbox (id, webhook_id, alert, attempts, next_at, created_at) VALUES (?, ?, ?, 0, ?, ?)',
      [deliveryId, w.id, JSON.stringify(alert), now, now]);
    tx.run(`INSERT INTO webhook_cooldowns (webhook_id, subject, alert_type, last_at) VALUES (?, ?, ?, ?)
            ON CONFLICT (webhook_id, subject, alert_type) DO UPDATE SET last_at = excluded.last_at`,
    [w.id, alert.subject, alert.type, now]);
    return told(w, 'queued', { delivery_id: deliveryId });
  }

  private lastTold(tx: Pick<Tx, 'all'>, webhookId: string, subject: string): Map<string, number> {
    return new Map(tx.all<{ alert_type: string; last_at: number }>(
      'SELECT alert_type, last_at FROM webhook_cooldowns WHERE webhook_id = ? AND subject = ?', [webhookId, subject],
    ).map((r) => [r.alert_type, r.last_at]));
  }

  /**
   * Offers an alert to every webhook subscribed to its type: queues a delivery for each enabled one that
   * routes its monitor, unless cooldown says no, or records why not; logs the alert, and runs `also` in
   * the same write. Returns the decisions. The write is fsynced when a webhook may get the alert; an
   * alert nobody subscribes to is only logged (group commit).
   */
  route(alert: Alert, outcome: SentOutcome, also?: (tx: Tx) => void): Promise<Decision[]> {
    const now = this.now();
    const def = alertType(alert.type);
    const problems = problemTypes();
    const wanted = this.app.store.get(
      'SELECT 1 AS x FROM webhooks WHERE enabled = 1 AND EXISTS (SELECT 1 FROM json_each(alert_types) WHERE value = ?)', [alert.type]);
    return this.app.store.write((tx) => {
      const decisions: Decision[] = [];
      for (const o of this.offers(tx, alert)) {
        if (o.decision) { decisions.push(o.decision); continue; }
        const w = o.w;
        const decision = decide({
          alertType: alert.type, recovery: !!def?.recovery, cooldown: w.cooldown, subscribed: parseList(w.alert_types),
          problemTypes: problems, lastAt: this.lastTold(tx, w.id, alert.subject), now,
        });
        decisions.push(decision === 'queued' ? this.queue(tx, w, alert, now) : told(w, decision));
      }
      this.logAlert(tx, alert, outcome, decisions, now);
      this.pruneCooldowns(tx, now);
      also?.(tx);
      return decisions;
    }, wanted ? 'sync' : 'group');
  }

  /**
   * Logs an alert the alert gate held back: nobody is told, and each webhook that would have been is
   * listed as held, with the reason, so the log says who did not hear of it and why.
   */
  logHeld(alert: Alert, reason: string): Promise<void> {
    return this.app.store.write((tx) => {
      const decisions = this.offers(tx, alert).map((o) => o.decision ?? told(o.w, 'held', { reason }));
      this.logAlert(tx, alert, 'held', decisions, this.now());
    }, 'group');
  }

  /**
   * A reminder of a monitor still down (`alert`, built by monitorReminderAlert), to each enabled webhook
   * with reminders that routes it and has not been told of the outage for its reminder_minutes: the
   * outage must be that old too (`downSince`). Neither cooldown nor whether the webhook heard the first
   * down holds a reminder back. Logged (outcome reminder) only when it went to somebody; reads alone
   * otherwise, as it runs on every failed check of a down monitor.
   */
  async remind(alert: Alert, downSince: number): Promise<Decision[]> {
    const now = this.now();
    const due = (tx: Pick<Tx, 'all'>) => this.offers(tx, alert).flatMap((o) => {
      const every = o.w.reminder_minutes;
      if (o.decision || every == null) return [];
      const last = this.lastTold(tx, o.w.id, alert.subject).get('monitor_down') ?? -Infinity;
      const gap = every * 60_000;
      return now - downSince >= gap && now - last >= gap ? [o.w] : [];
    });
    if (!this.app.store.get('SELECT 1 AS x FROM webhooks WHERE enabled = 1 AND reminder_minutes IS NOT NULL')) return [];
    if (!due(this.app.store).length) return [];
    return this.app.store.write((tx) => {
      const decisions = due(tx).map((w) => this.queue(tx, w, alert, now));
      if (decisions.length) this.logAlert(tx, alert, 'reminder', decisions, now);
      return decisions;
    }, 'sync');
  }

  /** Everything this module keeps about a monitor that was deleted, and the monitor in webhooks that chose it. */
  forgetMonitor(monitorId: string): Promise<void> {
    return this.app.store.write((tx) => {
      tx.run('DELETE FROM webhook_cert_alerts WHERE monitor_id = ?', [monitorId]);
      tx.run('DELETE FROM webhook_cooldowns WHERE subject = ? OR subject LIKE ?', [`monitor/${monitorId}`, `monitor/${monitorId}/%`]);
      for (const w of tx.all<Pick<WebhookRow, 'id' | 'monitors'>>(
        `SELECT id, monitors FROM webhooks WHERE json_extract(monitors, '$.mode') = 'monitors'
           AND EXISTS (SELECT 1 FROM json_each(monitors, '$.ids') WHERE value = ?)`, [monitorId])) {
        const r = parseRouting(w.monitors);
        if (r.mode !== 'monitors') continue;
        const ids = r.ids.filter((x) => x !== monitorId);
        tx.run('UPDATE webhooks SET monitors = ? WHERE id = ?', [JSON.stringify({ mode: 'monitors', ids }), w.id]);
      }
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
    tx.run('INSERT INTO webhook_alerts (id, t, type, subject, outcome, alert, decisions, monitor_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
      [alert.id, now, alert.type, alert.subject, outcome, JSON.stringify(alert), JSON.stringify(decisions), alert.monitor?.id ?? null]);
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
