// The alert log for the people following alerts (the Alerts page): every alert raised, whether the
// alert gate held it back, and per webhook whether it was told (and where that delivery stands) or why
// not. Scope webhooks:read. GET /api/dev/alerts/recent serves the same list to administrators.
import { route, type AnyRoute } from '../../../core/http/registry.js';
import { listOf } from '../../../core/http/schemas.js';
import type { WebhookActivity } from '../activity.js';
import { AlertRecordSchema, AlertsQuery } from '../schemas.js';

export function alertRoutes(activity: WebhookActivity): AnyRoute[] {
  return [
    route({
      method: 'GET', path: '/api/webhooks/alerts', scope: 'webhooks:read',
      summary: 'Recent alerts and what became of them, newest first',
      description: 'Each alert as sent (or held back: outcome held, details.held_by says by what; a reminder of a monitor still down: ' +
        'outcome reminder), and per webhook subscribed to its type whether it was queued or why not (held, not_routed with the reason, ' +
        'disabled, cooldown, no_problem_sent, outbox_full); a queued one carries its delivery: pending (with the next attempt), ' +
        'delivered, failed or cancelled. Kept: webhooks.alert_log_size alerts, webhooks.log_retention_days. Filters: type, outcome, ' +
        'webhook_id (alerts offered to that webhook), monitor_id (alerts about that monitor), since and until (when logged).',
      query: AlertsQuery, response: listOf(AlertRecordSchema),
      handler: (ctx) => activity.alerts(ctx.query),
    }),
  ];
}
