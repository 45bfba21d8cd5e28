// Webhooks through the API: create, update, delete (each audited in its own write) and test deliveries.
// What became of alerts and deliveries is read by activity.ts.
import { randomUUID } from 'node:crypto';
import type { AppContext } from '../../core/context.js';
import { badRequest, HttpError, notFound, type FieldError } from '../../core/errors.js';
import type { Actor } from '../../core/audit/types.js';
import { isSealed, SecretUnreadableError } from '../../core/secretbox.js';
import type { Tx } from '../../core/store/types.js';
import { iso } from '../../core/clock.js';
import { originOf } from '../../core/net.js';
import type { AttemptRow } from './activity.js';
import { testAlert } from './alert.js';
import { buildRequest } from './dispatcher.js';
import type { Sender } from './outbound.js';
import {
  DEFAULT_ALERT_TYPES, LIMITS, subscribedTypes, webhookConfig, webhookOut,
  type CreateWebhookInput, type UpdateWebhookInput, type UpdatedWebhookOut, type WebhookOut, type WebhookRow,
} from './schemas.js';
import type { Outbox } from './outbox.js';
import { checkOptions, parseOptions, unpackUrl } from './options.js';
import { defaultType, providerOf, takesUrl, type Provider, type WebhookType } from './providers/index.js';
import { MASK, redactUrl, scrub, urlSecrets } from './redact.js';
import { ALL, normalRouting, parseRouting, type Routing } from './routing.js';
import { clearSecret, clearUrl, openWebhook, sealSecret, sealUrl, shownUrl } from './secrets.js';

export interface TestResult {
  ok: boolean;
  status_code: number | null;
  latency_ms: number | null;
  error?: string;
  response_excerpt: string;
}

type SecretInput = CreateWebhookInput['secret'];

/** Why a stored secret is missing after an update that changed the destination. */
const DROPPED_NOTE = 'stored secrets are not sent to a new destination (the URL\'s scheme, host or port, or the type, changed): ' +
  'send them again';

export class WebhookService {
  /**
   * `smtpConfigured`: whether the probe has an SMTP server, which an e-mail channel needs (the system
   * module's settings); `monitorIds`: the monitors there are (the monitors module's, through its contract).
   */
  constructor(private readonly app: AppContext, private readonly outbox: Outbox, private readonly sender: Sender,
    private readonly kick: () => void, private readonly smtpConfigured: () => boolean,
    private readonly monitorIds: () => ReadonlySet<string>) {}

  /** Monitors chosen by id must exist now; each unknown one is named at its index. A deleted one leaves the list later by itself. */
  private routingErrors(r: Routing | undefined): FieldError[] {
    if (r?.mode !== 'monitors') return [];
    const known = this.monitorIds();
    return r.ids.flatMap((id, i) => (known.has(id) ? [] : [{ path: `monitors.ids.${i}`, message: `No monitor with id ${id}` }]));
  }

  private now(): number { return this.app.clock.now(); }

  private row(id: string): WebhookRow {
    const r = this.app.store.get<WebhookRow>('SELECT * FROM webhooks WHERE id = ?', [id]);
    if (!r) throw notFound('Webhook');
    return r;
  }

  private out(r: WebhookRow): WebhookOut {
    const pending = this.app.store.get<{ n: number }>('SELECT count(*) AS n FROM webhook_outbox WHERE webhook_id = ?', [r.id])!.n;
    const last = this.app.store.get<AttemptRow>('SELECT * FROM webhook_attempts WHERE webhook_id = ? ORDER BY id DESC LIMIT 1', [r.id]);
    return webhookOut(r, {
      url: this.shown(r),
      pending,
      last: last ? { at: iso(last.t), outcome: last.outcome, status_code: last.status_code, error: last.error } : null,
    });
  }

  /** The URL as responses, the audit trail and logs show it; null for a provider without one (e-mail). */
  private shown(r: Pick<WebhookRow, 'url' | 'type'>): string | null {
    return takesUrl(providerOf(r.type)) ? shownUrl(this.app.secretbox, r) : null;
  }

  /**
   * The destination rules that depend on whether the provider has a URL: one with a URL needs it; an
   * e-mail channel takes neither a URL nor a secret (its SMTP password is in the SMTP settings).
   */
  private static destinationErrors(p: Provider, url: string | null | undefined, secret: SecretInput): FieldError[] {
    if (takesUrl(p)) return url === '' || url === undefined ? [{ path: 'url', message: `Required for ${p.label}` }] : [];
    return [
      ...(url ? [{ path: 'url', message: `${p.label} has no URL: its recipients are options.to` }] : []),
      ...(typeof secret === 'string'
        ? [{ path: 'secret', message: `${p.label} takes no secret: the SMTP password is in the SMTP settings` }] : []),
    ];
  }

  /** 409 when an e-mail channel is set up on a probe without an SMTP server. */
  private requireSmtp(p: Provider): void {
    if (takesUrl(p) || this.smtpConfigured()) return;
    throw new HttpError(409, 'smtp_not_configured',
      'No SMTP server is configured: set one in Settings, E-mail (configuration section smtp) before adding an e-mail channel');
  }

  list(): { items: WebhookOut[]; total: number } {
    const items = this.app.store.all<WebhookRow>('SELECT * FROM webhooks ORDER BY name COLLATE NOCASE, id').map((r) => this.out(r));
    return { items, total: items.length };
  }

  /**
   * Provider rules that need the URL, type and secret together; errors name `url`, `type` or `secret`.
   * `url` null: the stored URL cannot be decrypted here and is kept as it is, so only the secret rule applies;
   * '' for none (e-mail, or missing: destinationErrors says so).
   */
  private check(url: string | null, type: WebhookType, hasSecret: boolean, typeGiven: boolean, optionErrors: FieldError[],
    secretDropped = false): void {
    const p = providerOf(type);
    const errors: FieldError[] = [...optionErrors];
    if (p.secret?.required && !hasSecret) errors.push({ path: 'secret', message: `${p.label} needs a secret: ${p.secret.role}` });
    for (const e of (url === null || url === '' ? undefined : p.check?.(new URL(url), hasSecret)) ?? []) {
      errors.push(e.path === 'url' && typeGiven ? { path: 'url', message: `${e.message} (type ${type})` } : e);
    }
    if (secretDropped) {
      for (const e of errors) if (e.path === 'secret') e.message += `; ${DROPPED_NOTE}`;
    }
    if (errors.length) throw badRequest(`Invalid webhook: ${errors.map((e) => `${e.path}: ${e.message}`).join('; ')}`, errors);
  }

  private static secretAfter(input: SecretInput, stored: string | null): string | null {
    if (input === undefined) return stored;
    if (input === null) return null;
    if (typeof input === 'string') return input;
    return input.set ? stored : null;
  }

  async create(input: CreateWebhookInput, by: Actor): Promise<WebhookOut> {
    if (input.secret && typeof input.secret === 'object' && input.secret.set) {
      throw badRequest('Invalid webhook: secret: {"set": true} keeps a stored secret; a new webhook has none',
        [{ path: 'secret', message: 'Send the secret itself' }]);
    }
    const type = input.type ?? (input.url !== undefined ? defaultType(input.url) : undefined);
    if (type === undefined) {
      throw badRequest('Invalid webhook: url: Required', [{ path: 'url', message: 'Required (an e-mail channel, type email, has none)' }]);
    }
    const p = providerOf(type);
    const secret = WebhookService.secretAfter(input.secret, null);
    // Options packed into the URL's query (as before they were fields) are taken out of it; e-mail has no URL.
    const unpacked = takesUrl(p) && input.url !== undefined ? unpackUrl(p, input.url, input.options ?? {})
      : { url: '', options: input.options ?? {} };
    const options = checkOptions(p, unpacked.options);
    this.check(unpacked.url, type, secret != null, input.type !== undefined,
      [...WebhookService.destinationErrors(p, input.url, input.secret), ...options.errors, ...this.routingErrors(input.monitors)]);
    this.requireSmtp(p);
    const routing = normalRouting(input.monitors ?? ALL);
    const reminder = input.reminder_minutes ?? null;
    const id = randomUUID();
    const now = this.now();
    const box = this.app.secretbox;
    const row = await this.app.store.write((tx) => {
      tx.run(`INSERT INTO webhooks (id, name, url, type, alert_types, cooldown, enabled, secret, options, monitors, reminder_minutes,
                created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      [id, input.name, sealUrl(box, unpacked.url, type), type, JSON.stringify(input.alert_types ?? DEFAULT_ALERT_TYPES),
        input.cooldown ?? LIMITS.cooldown.default, input.enabled === false ? 0 : 1, sealSecret(box, secret),
        JSON.stringify(options.options), JSON.stringify(routing), reminder, now, now]);
      const r = tx.get<WebhookRow>('SELECT * FROM webhooks WHERE id = ?', [id])!;
      this.app.audit.insert(tx, by.auditEntry('webhooks.create', r.name, {
        id, type, url: this.shown(r), options: options.options, alert_types: subscribedTypes(r.alert_types),
        cooldown: r.cooldown, enabled: r.enabled === 1, secret_set: secret != null, monitors: routing, reminder_minutes: reminder,
      }));
      return r;
    }, 'sync');
    return this.out(row);
  }

  async update(id: string, input: UpdateWebhookInput, by: Actor): Promise<UpdatedWebhookOut> {
    const old = this.row(id);
    const box = this.app.secretbox;
    // Stored URL and secret may be sealed; null / undefined: sealed under another key, kept unless replaced.
    const oldUrl = clearUrl(box, old);
    const oldSecret = clearSecret(box, old);
    // The redacted URL sent back (as a form does) keeps the stored one.
    const keepUrl = input.url === undefined || (oldUrl !== null && (input.url === redactUrl(oldUrl, old.type) || input.url === oldUrl));
    const type = input.type ?? (keepUrl ? old.type : defaultType(input.url!));
    const p = providerOf(type);
    const mail = !takesUrl(p);
    // Options left out stay while the provider does; options packed into a new URL's query are taken out of it.
    const given = input.options ?? (type === old.type ? parseOptions(old.options) : {});
    const unpacked = mail ? { url: '', options: given } : keepUrl ? { url: oldUrl, options: given } : unpackUrl(p, input.url!, given);
    const url = unpacked.url;
    const options = checkOptions(p, unpacked.options);
    // Stored secrets are bound to the destination: the URL's origin and the provider type.
    const moved = type !== old.type || (!keepUrl && (oldUrl === null || originOf(url!) !== originOf(oldUrl)));
    if (moved && !mail && keepUrl && input.url !== oldUrl && (oldUrl === null || urlSecrets(oldUrl, old.type).pieces.length > 0)) {
      const message = 'Send the whole URL again: the tokens stored in it are not carried over to another type';
      throw badRequest(`Invalid webhook: url: ${message}`, [{ path: 'url', message }]);
    }
    // Left out or {set: true}: kept while the destination stays, dropped when it moves.
    const dropped = moved && old.secret !== null && WebhookService.secretAfter(input.secret, old.secret) === old.secret ? ['secret'] : [];
    // The same secret sent again keeps its envelope, so it does not count as a change.
    const secret = typeof input.secret === 'string'
      ? (input.secret === oldSecret ? old.secret : sealSecret(box, input.secret))
      : WebhookService.secretAfter(input.secret, dropped.length ? null : old.secret);
    this.check(url, type, secret !== null, input.type !== undefined,
      [...WebhookService.destinationErrors(p, mail ? (keepUrl ? undefined : input.url) : url, input.secret), ...options.errors,
        ...this.routingErrors(input.monitors)],
      dropped.length > 0);
    if (type !== old.type) this.requireSmtp(p);
    const next = {
      name: input.name ?? old.name,
      // A kept clear URL is sealed when the new type finds a token in it; e-mail keeps none.
      url: mail ? '' : keepUrl ? (isSealed(old.url) ? old.url : sealUrl(box, old.url, type)) : sealUrl(box, url!, type),
      type,
      alert_types: input.alert_types !== undefined ? JSON.stringify(input.alert_types) : old.alert_types,
      cooldown: input.cooldown ?? old.cooldown,
      enabled: input.enabled === undefined ? old.enabled : input.enabled ? 1 : 0,
      secret,
      options: JSON.stringify(options.options),
      // Compared as stored: the same routing sent back (as a form does) changes nothing.
      monitors: input.monitors !== undefined ? JSON.stringify(normalRouting(input.monitors)) : JSON.stringify(parseRouting(old.monitors)),
      reminder_minutes: input.reminder_minutes !== undefined ? input.reminder_minutes : old.reminder_minutes,
    };
    const changed = (Object.keys(next) as (keyof typeof next)[]).filter((k) => next[k] !== old[k]);
    if (!changed.length) return this.out(old);
    const now = this.now();
    const row = await this.app.store.write((tx) => {
      if (!tx.get('SELECT 1 AS x FROM webhooks WHERE id = ?', [id])) throw notFound('Webhook');
      tx.run(`UPDATE webhooks SET name = ?, url = ?, type = ?, alert_types = ?, cooldown = ?, enabled = ?, secret = ?, options = ?,
              monitors = ?, reminder_minutes = ?, updated_at = ? WHERE id = ?`,
      [next.name, next.url, next.type, next.alert_types, next.cooldown, next.enabled, next.secret, next.options, next.monitors,
        next.reminder_minutes, now, id]);
      const cancelled = next.enabled === 0 && old.enabled === 1 ? this.cancelPending(tx, old, 'the webhook was disabled') : 0;
      this.app.audit.insert(tx, by.auditEntry('webhooks.update', next.name, {
        id, fields: changed, type, url: mail ? null : url === null ? MASK : redactUrl(url, type),
        ...(changed.includes('monitors') ? { monitors: JSON.parse(next.monitors) as Routing } : {}),
        ...(changed.includes('reminder_minutes') ? { reminder_minutes: next.reminder_minutes } : {}),
        ...(cancelled ? { cancelled_deliveries: cancelled } : {}),
        ...(dropped.length ? { secrets_dropped: dropped } : {}),
      }));
      return tx.get<WebhookRow>('SELECT * FROM webhooks WHERE id = ?', [id])!;
    }, 'sync');
    this.kick(); // a changed URL or secret applies to waiting deliveries at once
    return { ...this.out(row), ...(dropped.length ? { secrets_dropped: dropped } : {}) };
  }

  async remove(id: string, by: Actor): Promise<void> {
    const old = this.row(id);
    await this.app.store.write((tx) => {
      if (!tx.get('SELECT 1 AS x FROM webhooks WHERE id = ?', [id])) throw notFound('Webhook');
      const dropped = this.cancelPending(tx, old, 'the webhook was deleted');
      tx.run('DELETE FROM webhook_cooldowns WHERE webhook_id = ?', [id]);
      tx.run('DELETE FROM webhooks WHERE id = ?', [id]);
      this.app.audit.insert(tx, by.auditEntry('webhooks.delete', old.name, {
        id, type: old.type, url: this.shown(old), ...(dropped ? { dropped_deliveries: dropped } : {}),
      }));
    }, 'sync');
  }

  /** Deletes a webhook's waiting deliveries, logging each as cancelled. */
  private cancelPending(tx: Tx, w: WebhookRow, reason: string): number {
    const rows = tx.all<{ seq: number; id: string; alert: string; attempts: number }>(
      'SELECT seq, id, alert, attempts FROM webhook_outbox WHERE webhook_id = ? ORDER BY seq', [w.id]);
    for (const r of rows) {
      const alert = JSON.parse(r.alert) as { id: string; type: string };
      this.outbox.logAttempt(tx, {
        webhook_id: w.id, webhook_name: w.name, delivery_id: r.id, alert_id: alert.id, alert_type: alert.type, attempt: r.attempts,
        outcome: 'cancelled', status_code: null, latency_ms: null, error: reason, response_excerpt: null,
      }, this.now());
    }
    tx.run('DELETE FROM webhook_outbox WHERE webhook_id = ?', [w.id]);
    return rows.length;
  }

  /**
   * Sends a test alert to the webhook now, enabled or not, outside the outbox (no retry, no cooldown),
   * and answers within the attempt timeout. Logged with the attempts and audited.
   */
  async test(id: string, by: Actor): Promise<TestResult> {
    const w = this.row(id);
    const alert = testAlert(w, this.app.clock.iso());
    const deliveryId = randomUUID();
    const out = await this.sendTest(w, alert, deliveryId);
    await this.app.store.write((tx) => {
      this.outbox.logAttempt(tx, {
        webhook_id: w.id, webhook_name: w.name, delivery_id: deliveryId, alert_id: alert.id, alert_type: alert.type, attempt: 1,
        outcome: 'test', status_code: out.status_code, latency_ms: out.latency_ms, error: out.error ?? null,
        response_excerpt: out.response_excerpt,
      }, this.now());
      this.app.audit.insert(tx, {
        ...by.auditEntry('webhooks.test', w.name,
          { id, type: w.type, status_code: out.status_code, ...(out.error ? { error: out.error } : {}) }),
        outcome: out.ok ? 'success' : 'failure',
      });
    }, 'sync');
    this.app.log.child('webhooks').info(`webhook test ${out.ok ? 'delivered' : 'failed'}`, {
      webhook: w.name, ...(takesUrl(providerOf(w.type)) ? { url: this.shown(w) } : { to: parseOptions(w.options).to }),
      status_code: out.status_code, latency_ms: out.latency_ms,
      ...(out.error ? { error: out.error } : {}),
    });
    return out;
  }

  /** The test request, with secrets scrubbed from what comes back; fails without sending when they cannot be opened. */
  private async sendTest(stored: WebhookRow, alert: ReturnType<typeof testAlert>, deliveryId: string): Promise<TestResult> {
    let w: WebhookRow;
    try {
      w = openWebhook(this.app.secretbox, stored);
    } catch (e) {
      if (!(e instanceof SecretUnreadableError)) throw e;
      return { ok: false, status_code: null, latency_ms: null, error: e.message, response_excerpt: '' };
    }
    const { req, pieces } = buildRequest(this.app, w, alert, deliveryId);
    const res = await this.sender(req, { timeoutMs: webhookConfig(this.app).timeout_seconds * 1000 });
    return {
      ok: res.ok,
      status_code: res.status_code,
      latency_ms: res.latency_ms,
      ...(res.error ? { error: scrub(res.error, pieces) } : {}),
      response_excerpt: scrub(res.response_excerpt, pieces),
    };
  }
}
