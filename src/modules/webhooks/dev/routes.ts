// The two debug endpoints of this module (SPEC.md, "System and administration"): recent alerts with
// what became of them, and recent delivery attempts. Admin only, like the other /api/dev endpoints.
// They answer what GET /api/webhooks/alerts and /api/webhooks/deliveries answer (the same code,
// activity.ts): SPEC.md names these paths, the others are for anyone with webhooks:read.
import { route, type AnyRoute } from '../../../core/http/registry.js';
import { listOf } from '../../../core/http/schemas.js';
import type { WebhookActivity } from '../activity.js';
import { AlertRecordSchema, AlertsQuery, AttemptSchema, DeliveriesQuery } from '../schemas.js';

export function webhookDevRoutes(activity: WebhookActivity): AnyRoute[] {
  return [
    route({
      method: 'GET', path: '/api/dev/alerts/recent', admin: true, tag: 'dev',
      summary: 'Recent alerts (admin), newest first',
      description: 'As GET /api/webhooks/alerts: each alert as sent (or held back), and per webhook whether it was queued ' +
        '(and where that delivery stands) or why not (cooldown, no_problem_sent, outbox_full). Kept: webhooks.alert_log_size rows, ' +
        'webhooks.log_retention_days.',
      query: AlertsQuery, response: listOf(AlertRecordSchema),
      handler: (ctx) => activity.alerts(ctx.query),
    }),
    route({
      method: 'GET', path: '/api/dev/webhooks/recent', admin: true, tag: 'dev',
      summary: 'Recent webhook deliveries (admin), newest first',
      description: 'As GET /api/webhooks/deliveries: every delivery attempt and test: outcome, status code, latency, error and a ' +
        'short response excerpt. Kept: webhooks.attempt_log_size rows, webhooks.log_retention_days.',
      query: DeliveriesQuery, response: listOf(AttemptSchema),
      handler: (ctx) => activity.attempts(ctx.query),
    }),
  ];
}
