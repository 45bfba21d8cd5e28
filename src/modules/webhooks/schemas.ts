// Request and response schemas of the webhooks API, the module's configuration, and rows -> API objects.
import { z } from 'zod';
import type { AppContext } from '../../core/context.js';
import { paging, SecretMarker, SecretsDropped } from '../../core/http/schemas.js';
import { secretShown } from '../../core/secret-marker.js';
import { iso } from '../../core/clock.js';
import { ALERT_OUTCOMES } from './alert.js';
import { alertType, SEVERITIES } from './alert-types.js';
import type { WebhookConfig } from './config.js';
import { parseOptions } from './options.js';
import { parseRouting, RoutingOutSchema, RoutingSchema } from './routing.js';
import { WEBHOOK_TYPES, type WebhookType } from './providers/index.js';

// ---- configuration ---------------------------------------------------------------------------------

/** The module's configuration section (config.ts), as in effect now. */
export function webhookConfig(app: Pick<AppContext, 'config'>): WebhookConfig {
  return app.config.get().webhooks;
}

// ---- bounds and defaults -----------------------------------------------------------------------------

export const LIMITS = {
  name: 100,
  url: 2048,
  secret: 1024,
  cooldown: { min: 0, max: 7 * 86_400, default: 300 },
  /** Minutes between reminders while a monitor stays down (null: none, the default). */
  reminder_minutes: { min: 5, max: 1440 },
  /** Deliveries waiting per webhook; beyond it new alerts for that webhook are dropped (and logged). */
  pending_per_webhook: 200,
} as const;

export const DEFAULT_ALERT_TYPES = ['monitor_down', 'monitor_up'];

// ---- requests ----------------------------------------------------------------------------------------

export const IdParams = z.object({ id: z.uuid() });

/** null when `s` is an http(s) URL a webhook can post to, else why not. */
export function urlProblem(s: string): string | null {
  let u: URL;
  try { u = new URL(s); } catch { return 'Expected an http:// or https:// URL'; }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') return `Expected an http:// or https:// URL, not ${u.protocol}`;
  if (!u.hostname) return 'The URL has no host';
  if (/\s/.test(s)) return 'The URL contains white space';
  if (u.hash) return 'A webhook URL has no #fragment';
  return null;
}

const Url = z.string().trim().min(1).max(LIMITS.url).superRefine((s, ctx) => {
  const p = urlProblem(s);
  if (p) ctx.addIssue({ code: 'custom', message: p });
}).describe('Destination URL (http or https); required except for e-mail, which has none. Responses show it with tokens ' +
  'replaced by ***; sending that back keeps the stored URL.');

const AlertTypes = z.array(z.string()).min(1).max(50).superRefine((list, ctx) => {
  list.forEach((t, i) => {
    if (!alertType(t))
      ctx.addIssue({ code: 'custom', path: [i], message: `Unknown alert type "${t}" (see GET /api/webhooks/alert-types)` });
    else if (list.indexOf(t) !== i) ctx.addIssue({ code: 'custom', path: [i], message: `"${t}" is listed twice` });
  });
}).describe('Alert types that trigger this webhook (GET /api/webhooks/alert-types)');

/** A new secret (string), null or {set: false} to remove it, {set: true} to keep it. */
const Secret = z.union([
  z.string().min(1).max(LIMITS.secret).regex(/^[^\r\n]*$/, 'A secret is one line'),
  z.null(),
  SecretMarker,
]).describe('Write-only; its role depends on the provider (GET /api/webhooks/providers). Shown as {set: true|false}; null removes it.');

/** Checked by the provider's own schema (service.ts), so only the shape here. */
const Options = z.record(z.string(), z.unknown())
  .describe('Provider options (GET /api/webhooks/providers lists each provider\'s as JSON Schema), e.g. Telegram\'s chat_id');

const WebhookFields = {
  name: z.string().trim().min(1).max(LIMITS.name),
  url: Url,
  type: z.enum(WEBHOOK_TYPES).describe('Provider (request format); default from the URL\'s host, else generic'),
  alert_types: AlertTypes,
  cooldown: z.number().int().min(LIMITS.cooldown.min).max(LIMITS.cooldown.max)
    .describe('Seconds after a delivery during which further alerts of the same type about the same subject are not sent (default 300)'),
  enabled: z.boolean().describe('A disabled webhook sends nothing (default true)'),
  secret: Secret,
  options: Options,
  monitors: RoutingSchema,
  reminder_minutes: z.number().int().min(LIMITS.reminder_minutes.min).max(LIMITS.reminder_minutes.max).nullable()
    .describe('While a monitor it told of stays down, repeat its down alert every this many minutes (5-1440), saying how long it ' +
      'has been down; null (the default): no reminders. Sent with the monitor\'s failed checks, so at most as often as it is checked.'),
};

export const CreateWebhookBody = z.strictObject({
  name: WebhookFields.name,
  url: WebhookFields.url.optional(),
  type: WebhookFields.type.optional(),
  alert_types: WebhookFields.alert_types.optional(),
  cooldown: WebhookFields.cooldown.optional(),
  enabled: WebhookFields.enabled.optional(),
  secret: WebhookFields.secret.optional(),
  options: WebhookFields.options.optional(),
  monitors: WebhookFields.monitors.optional(),
  reminder_minutes: WebhookFields.reminder_minutes.optional(),
});
export type CreateWebhookInput = z.infer<typeof CreateWebhookBody>;

export const UpdateWebhookBody = CreateWebhookBody.partial();
export type UpdateWebhookInput = z.infer<typeof UpdateWebhookBody>;

/** What a delivery attempt came to (the attempt log's `outcome`). */
export const ATTEMPT_OUTCOMES = ['delivered', 'retry', 'failed', 'cancelled', 'test'] as const;
export type AttemptOutcome = (typeof ATTEMPT_OUTCOMES)[number];

/**
 * Per webhook subscribed to an alert's type: queued for it, or why not (the alert gate held it, the
 * webhook is disabled, it does not route the alert's monitor, cooldown, its problem was never sent, a full outbox).
 */
export const DECISIONS = ['queued', 'cooldown', 'no_problem_sent', 'outbox_full', 'not_routed', 'disabled', 'held'] as const;

/** Where a queued delivery stands now. */
export const DELIVERY_STATES = ['pending', 'delivered', 'failed', 'cancelled', 'unknown'] as const;

export const DeliveriesQuery = z.object({
  ...paging(500, 50),
  webhook_id: z.uuid().optional().describe('Only attempts of this webhook'),
  outcome: z.enum(ATTEMPT_OUTCOMES).optional().describe('Only attempts with this outcome'),
  alert_id: z.uuid().optional().describe('Only attempts to deliver this alert'),
});
export type DeliveriesFilter = z.infer<typeof DeliveriesQuery>;

export const AlertsQuery = z.object({
  ...paging(500, 50),
  type: z.string().max(50).optional().describe('Only alerts of this type'),
  outcome: z.enum(ALERT_OUTCOMES).optional().describe('Only alerts with this outcome'),
  webhook_id: z.uuid().optional().describe('Only alerts offered to this webhook'),
  monitor_id: z.uuid().optional().describe('Only alerts about this monitor (its status and certificate)'),
  since: z.iso.datetime({ offset: true }).optional().describe('Only alerts logged at or after this time'),
  until: z.iso.datetime({ offset: true }).optional().describe('Only alerts logged at or before this time'),
});
export type AlertsFilter = z.infer<typeof AlertsQuery>;

export const PendingQuery = z.object({
  ...paging(500, 50),
  webhook_id: z.uuid().optional().describe('Only deliveries of this webhook'),
});
export type PendingFilter = z.infer<typeof PendingQuery>;

// ---- responses ---------------------------------------------------------------------------------------

const LastDelivery = z.object({
  at: z.string(),
  outcome: z.string(),
  status_code: z.number().int().nullable(),
  error: z.string().nullable(),
}).nullable();

export const WebhookSchema = z.object({
  id: z.string(),
  name: z.string(),
  url: z.string().nullable().describe('Tokens in the path or query replaced by ***; null for e-mail (its recipients are options.to)'),
  type: z.enum(WEBHOOK_TYPES),
  alert_types: z.array(z.string()),
  cooldown: z.number().int(),
  enabled: z.boolean(),
  secret: SecretMarker,
  options: z.record(z.string(), z.unknown()).describe('The provider\'s options'),
  monitors: RoutingOutSchema,
  reminder_minutes: z.number().int().nullable().describe('Minutes between reminders while a monitor stays down; null: none'),
  pending_deliveries: z.number().int().describe('Deliveries waiting in the outbox'),
  last_delivery: LastDelivery.describe('The latest attempt or test'),
  created_at: z.string(),
  updated_at: z.string(),
});
export type WebhookOut = z.infer<typeof WebhookSchema>;

/** An update's answer: the webhook, and which stored secrets it dropped (a new destination, docs/webhooks.md). */
export const UpdatedWebhookSchema = WebhookSchema.extend({ secrets_dropped: SecretsDropped.optional() });
export type UpdatedWebhookOut = z.infer<typeof UpdatedWebhookSchema>;

export const TestResultSchema = z.object({
  ok: z.boolean(),
  status_code: z.number().int().nullable().describe('The HTTP status (for e-mail: the SMTP server\'s reply code, 250 when taken)'),
  latency_ms: z.number().nullable(),
  error: z.string().optional(),
  response_excerpt: z.string(),
});

export const AlertTypeSchema = z.object({
  type: z.string(),
  description: z.string(),
  severity: z.enum(SEVERITIES),
  source: z.string(),
  recovery: z.boolean(),
});

export const AttemptSchema = z.object({
  id: z.number().int(),
  at: z.string(),
  webhook_id: z.string(),
  webhook_name: z.string().describe('As it was named at the attempt'),
  delivery_id: z.string().nullable(),
  alert_id: z.string().nullable(),
  alert_type: z.string(),
  alert_title: z.string().nullable().describe('The alert\'s title while the alert log keeps it; null for a test'),
  attempt: z.number().int(),
  outcome: z.enum(ATTEMPT_OUTCOMES)
    .describe('delivered; retry: failed, tried again later; failed: failed for good; cancelled: the webhook was disabled or deleted; test'),
  ok: z.boolean(),
  status_code: z.number().int().nullable(),
  latency_ms: z.number().nullable(),
  error: z.string().nullable().describe('Secrets of the webhook scrubbed out'),
  response_excerpt: z.string().nullable().describe('The first 200 characters of the answer, secrets scrubbed out'),
});
export type AttemptOut = z.infer<typeof AttemptSchema>;

/** A webhook's decision as the alert log stores it. */
export const DecisionSchema = z.object({
  webhook_id: z.string(),
  webhook_name: z.string(),
  decision: z.enum(DECISIONS),
  reason: z.string().optional().describe('not_routed: which monitors it gets alerts for; held: what held the alert'),
  delivery_id: z.string().optional(),
});
export type Decision = z.infer<typeof DecisionSchema>;

export const DeliveryStatusSchema = z.object({
  state: z.enum(DELIVERY_STATES).describe('pending: waiting for its first attempt or a retry; delivered; failed: given up; ' +
    'cancelled: the webhook was disabled or deleted; unknown: no longer in the outbox and its attempts trimmed from the log'),
  attempts: z.number().int().describe('Attempts made so far'),
  last_attempt_at: z.string().nullable(),
  status_code: z.number().int().nullable().describe('HTTP status of the latest attempt (for e-mail: the SMTP reply code)'),
  error: z.string().nullable().describe('Why the latest attempt failed (secrets scrubbed out)'),
  next_attempt_at: z.string().nullable()
    .describe('pending: when the next attempt is due; it may also wait for an earlier delivery of the same webhook'),
});
export type DeliveryStatus = z.infer<typeof DeliveryStatusSchema>;

export const AlertRecordSchema = z.object({
  id: z.string(),
  at: z.string(),
  type: z.string(),
  subject: z.string(),
  outcome: z.enum(ALERT_OUTCOMES)
    .describe('routed: offered to the webhooks; held: held back by the alert gate (details.held_by); released: sent after a hold; ' +
      'reminder: a monitor still down, repeated to the webhooks whose reminder was due (details.reminder)'),
  decisions: z.array(DecisionSchema.extend({
    delivery: DeliveryStatusSchema.optional().describe('For a queued delivery: where it stands now'),
  })).describe('One per webhook subscribed to the type when the alert was raised (a reminder: per webhook it was due for): ' +
    'queued for it, or why not'),
  alert: z.record(z.string(), z.unknown()).describe('The alert as sent (docs/webhooks.md, "Payload")'),
});
export type AlertRecordOut = z.infer<typeof AlertRecordSchema>;

export const PendingDeliverySchema = z.object({
  delivery_id: z.string(),
  webhook_id: z.string(),
  webhook_name: z.string(),
  alert_id: z.string(),
  alert_type: z.string(),
  alert_title: z.string(),
  subject: z.string(),
  queued_at: z.string(),
  attempts: z.number().int().describe('Attempts made so far (0: not tried yet)'),
  next_attempt_at: z.string().describe('When the next attempt is due, unless it waits for earlier deliveries'),
  waiting_for: z.number().int().describe('Earlier deliveries of the same webhook that go first (a webhook\'s deliveries go in order)'),
  last_error: z.string().nullable().describe('Why the latest attempt failed (secrets scrubbed out)'),
});
export type PendingDeliveryOut = z.infer<typeof PendingDeliverySchema>;


// ---- rows --------------------------------------------------------------------------------------------

export interface WebhookRow {
  id: string;
  name: string;
  /** Stored sealed when it holds a token (secrets.ts); open it before use. '' for a provider without one (e-mail). */
  url: string;
  type: WebhookType;
  alert_types: string;
  cooldown: number;
  enabled: number;
  /** Stored sealed (secrets.ts); open it before use. */
  secret: string | null;
  /** The provider's options, JSON (options.ts). */
  options: string;
  /** Which monitors' alerts it gets, JSON (routing.ts). */
  monitors: string;
  reminder_minutes: number | null;
  created_at: number;
  updated_at: number;
}

/**
 * A webhook's subscription as the API shows it: the stored types still registered. A type taken out of
 * the registry (it had no producer yet) stays stored, so the subscription resumes if it comes back, but
 * is not shown, so a webhook read and sent back as it is stays valid.
 */
export function subscribedTypes(stored: string): string[] {
  return parseList(stored).filter((t) => alertType(t) !== undefined);
}

export function parseList(text: string): string[] {
  try {
    const v: unknown = JSON.parse(text);
    return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
  } catch {
    return [];
  }
}


/** `extra.url`: the URL as shown (redacted; the stored one may be sealed, see secrets.ts). */
export function webhookOut(r: WebhookRow, extra: { url: string | null; pending: number; last: z.infer<typeof LastDelivery> }): WebhookOut {
  return {
    id: r.id,
    name: r.name,
    url: extra.url,
    type: r.type,
    alert_types: subscribedTypes(r.alert_types),
    cooldown: r.cooldown,
    enabled: r.enabled === 1,
    secret: secretShown(r.secret != null),
    options: parseOptions(r.options),
    monitors: parseRouting(r.monitors),
    reminder_minutes: r.reminder_minutes,
    pending_deliveries: extra.pending,
    last_delivery: extra.last,
    created_at: iso(r.created_at),
    updated_at: iso(r.updated_at),
  };
}
