// Delivers the outbox. Each webhook's deliveries go one at a time, in order (a "down" never overtakes
// its "up" when the first attempt fails); different webhooks go in parallel. One timer on the app
// Clock for the earliest retry. A failed attempt that is worth retrying waits retry_base_seconds x 3^(n-1)
// (10 s, 30 s, 90 s, 270 s by default; longer when the receiver sent Retry-After), up to max_attempts.
// On shutdown, attempts in flight are aborted and their rows stay in the outbox for the next start.
import type { AppContext } from '../../core/context.js';
import type { Logger } from '../../core/log.js';
import { SecretUnreadableError } from '../../core/secretbox.js';
import type { Alert } from './alert.js';
import { webhookConfig, type WebhookRow } from './schemas.js';
import type { AttemptRecord, Outbox, OutboxRow } from './outbox.js';
import { providerOf } from './providers/index.js';
import type { DeliveryContext, Outbound } from './providers/types.js';
import { redactUrl, scrub, urlSecrets } from './redact.js';
import { parseOptions } from './options.js';
import { openWebhook } from './secrets.js';
import type { Sender } from './outbound.js';

/** Webhooks delivered to at the same time. */
const MAX_PARALLEL = 4;
/** The longest wait between attempts, whatever the backoff or Retry-After says. */
const MAX_DELAY_MS = 3600_000;

/** Delay before attempt `attempts + 1`, after `attempts` failed ones. */
export function backoffMs(attempts: number, baseSeconds: number, retryAfterMs?: number): number {
  const exp = baseSeconds * 1000 * 3 ** Math.max(0, attempts - 1);
  return Math.min(MAX_DELAY_MS, Math.max(exp, retryAfterMs ?? 0));
}

/** What a webhook's provider builds for an alert (`w` opened: see secrets.ts), and what in it must never be shown. */
export function buildRequest(app: AppContext, w: WebhookRow, alert: Alert, deliveryId: string): { req: Outbound; pieces: string[] } {
  const cfg = app.config.get();
  const ctx: DeliveryContext = {
    url: w.url,
    secret: w.secret,
    options: parseOptions(w.options),
    delivery_id: deliveryId,
    sent_at: app.clock.iso(),
    probe: { name: cfg.probe.name, version: app.version },
    ...(cfg.server.public_url ? { public_url: cfg.server.public_url } : {}),
  };
  const req = providerOf(w.type).build(alert, ctx);
  const pieces = urlSecrets(w.url, w.type).pieces;
  if (w.secret) pieces.unshift(w.secret);
  return { req, pieces };
}

export class Dispatcher {
  private readonly log: Logger;
  private readonly inflight = new Map<string, { ctrl: AbortController; done: Promise<void> }>();
  private timer: { at: number; cancel(): void } | null = null;
  private started = false;
  private stopped = false;
  private kicked = false;

  constructor(private readonly app: AppContext, private readonly outbox: Outbox, private readonly sender: Sender) {
    this.log = app.log.child('webhooks');
  }

  /** Starts delivering, beginning with what a previous run left in the outbox. */
  start(): void {
    this.started = true;
    const pending = this.outbox.heads().length;
    if (pending) this.log.info('resuming deliveries left in the outbox', { webhooks: pending });
    this.kick();
  }

  /** Looks at the outbox soon (after new rows, or when a delivery finished). */
  kick(): void {
    if (!this.started || this.stopped || this.kicked) return;
    this.kicked = true;
    setImmediate(() => { this.kicked = false; this.pass(); });
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.timer?.cancel();
    this.timer = null;
    const running = [...this.inflight.values()];
    for (const r of running) r.ctrl.abort();
    await Promise.all(running.map((r) => r.done));
  }

  /** Deliveries in flight now (for tests and diagnostics). */
  busy(): number { return this.inflight.size; }

  private pass(): void {
    if (this.stopped) return;
    const now = this.app.clock.now();
    let next = Infinity;
    for (const row of this.outbox.heads()) {
      if (this.inflight.has(row.webhook_id)) continue;
      if (row.next_at > now) { next = Math.min(next, row.next_at); continue; }
      if (this.inflight.size >= MAX_PARALLEL) continue; // a finishing delivery kicks again
      this.begin(row);
    }
    this.arm(next);
  }

  private arm(at: number): void {
    if (this.timer && this.timer.at === at) return;
    this.timer?.cancel();
    this.timer = null;
    if (!Number.isFinite(at)) return;
    const handle = this.app.clock.setTimeout(() => { this.timer = null; this.kick(); }, Math.max(0, at - this.app.clock.now()));
    this.timer = { at, cancel: () => handle.cancel() };
  }

  private begin(row: OutboxRow): void {
    const ctrl = new AbortController();
    const done = this.attempt(row, ctrl.signal)
      .catch((e: unknown) => { this.log.error('delivery attempt failed unexpectedly', { delivery: row.id, err: e as Error }); })
      .finally(() => { this.inflight.delete(row.webhook_id); this.kick(); });
    this.inflight.set(row.webhook_id, { ctrl, done });
  }

  private async attempt(row: OutboxRow, signal: AbortSignal): Promise<void> {
    const cfg = webhookConfig(this.app);
    const w = this.app.store.get<WebhookRow>('SELECT * FROM webhooks WHERE id = ?', [row.webhook_id]);
    const alert = JSON.parse(row.alert) as Alert;
    const attempt = row.attempts + 1;
    const base = {
      webhook_id: row.webhook_id, webhook_name: w?.name ?? '(deleted)', delivery_id: row.id, alert_id: alert.id,
      alert_type: alert.type, attempt, status_code: null, latency_ms: null, response_excerpt: null,
    };
    if (!w || !w.enabled) {
      const rec: AttemptRecord = { ...base, attempt: row.attempts, outcome: 'cancelled',
        error: w ? 'the webhook is disabled' : 'the webhook was deleted' };
      await this.outbox.settle(row, rec, null);
      this.log.info('delivery cancelled', { webhook: base.webhook_name, delivery: row.id, alert_type: alert.type, reason: rec.error });
      return;
    }
    let built: ReturnType<typeof buildRequest>;
    let open: WebhookRow;
    try {
      open = openWebhook(this.app.secretbox, w);
      built = buildRequest(this.app, open, alert, row.id);
    } catch (e) {
      // A secret sealed under another probe's key (a restored database): retrying cannot help, re-entering it does.
      const unreadable = e instanceof SecretUnreadableError;
      const error = unreadable ? e.message : `could not build the request: ${(e as Error).message}`;
      await this.outbox.settle(row, { ...base, outcome: 'failed', error }, null);
      this.log.error(`delivery failed: ${unreadable ? 'a stored secret cannot be decrypted' : 'could not build the request'}`,
        { webhook: w.name, delivery: row.id, ...(unreadable ? { error } : { err: e as Error }) });
      return;
    }
    const res = await this.sender(built.req, { timeoutMs: cfg.timeout_seconds * 1000, signal });
    if (signal.aborted && this.stopped) return; // stopping: the row stays as it was, for the next start
    const retry = !res.ok && res.retryable && attempt < cfg.max_attempts;
    const error = res.error ? scrub(res.error, built.pieces) : null;
    const rec: AttemptRecord = {
      ...base, outcome: res.ok ? 'delivered' : retry ? 'retry' : 'failed', status_code: res.status_code, latency_ms: res.latency_ms,
      error, response_excerpt: scrub(res.response_excerpt, built.pieces),
    };
    const retryAt = retry ? this.app.clock.now() + backoffMs(attempt, cfg.retry_base_seconds, res.retry_after_ms) : null;
    await this.outbox.settle(row, rec, retryAt);
    const fields = {
      webhook: w.name, ...(built.req.kind === 'mail' ? { to: built.req.to.join(', ') } : { url: redactUrl(open.url, open.type) }),
      delivery: row.id, alert_type: alert.type, attempt,
      status_code: res.status_code, latency_ms: res.latency_ms, ...(error ? { error } : {}),
      ...(retryAt ? { retry_at: this.app.clock.iso(retryAt) } : {}),
    };
    if (res.ok) this.log.info('webhook delivered', fields);
    else if (retry) this.log.warn('webhook delivery failed; will retry', fields);
    else this.log.error('webhook delivery failed for good', fields);
  }
}
