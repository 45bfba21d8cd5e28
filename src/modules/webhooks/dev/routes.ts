// The two debug endpoints of this module (SPEC.md, "System and administration"): recent alerts with
// what became of them, and recent delivery attempts. Admin only, like the other /api/dev endpoints.
import { route, type AnyRoute } from '../../../core/http/registry.js';
import { listOf } from '../../../core/http/schemas.js';
import { AlertRecordSchema, AlertsQuery, AttemptSchema, RecentQuery } from '../schemas.js';
import type { WebhookService } from '../service.js';

export function webhookDevRoutes(svc: WebhookService): AnyRoute[] {
  return [
    route({
      method: 'GET', path: '/api/dev/alerts/recent', admin: true, tag: 'dev',
      summary: 'Recent alerts (admin), newest first',
      description: 'Each alert as sent (or held back), and per webhook whether it was queued or why not ' +
        '(cooldown, no_problem_sent, outbox_full). Kept: webhooks.alert_log_size rows, webhooks.log_retention_days.',
      query: AlertsQuery, response: listOf(AlertRecordSchema),
      handler: (ctx) => svc.recentAlerts(ctx.query),
    }),
    route({
      method: 'GET', path: '/api/dev/webhooks/recent', admin: true, tag: 'dev',
      summary: 'Recent webhook deliveries (admin), newest first',
      description: 'Every delivery attempt and test: outcome, status code, latency, error and a short response excerpt. ' +
        'Kept: webhooks.attempt_log_size rows, webhooks.log_retention_days.',
      query: RecentQuery, response: listOf(AttemptSchema),
      handler: (ctx) => svc.recentAttempts(ctx.query),
    }),
  ];
}
