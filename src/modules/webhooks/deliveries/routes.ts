// Deliveries for the people following alerts (the Alerts page): the log of every attempt and test, and
// the deliveries waiting in the outbox for their first attempt or a retry. Scope webhooks:read.
// GET /api/dev/webhooks/recent serves the same attempt log to administrators.
import { route, type AnyRoute } from '../../../core/http/registry.js';
import { listOf } from '../../../core/http/schemas.js';
import type { WebhookActivity } from '../activity.js';
import { AttemptSchema, DeliveriesQuery, PendingDeliverySchema, PendingQuery } from '../schemas.js';

export function deliveryRoutes(activity: WebhookActivity): AnyRoute[] {
  return [
    route({
      method: 'GET', path: '/api/webhooks/deliveries', scope: 'webhooks:read',
      summary: 'Recent delivery attempts and tests, newest first',
      description: 'Outcome (delivered, retry, failed, cancelled, test), status code, latency, error and a short excerpt of the ' +
        'answer, with secrets scrubbed out. Kept: webhooks.attempt_log_size attempts, webhooks.log_retention_days. ' +
        'Filters: webhook_id, outcome, alert_id.',
      query: DeliveriesQuery, response: listOf(AttemptSchema),
      handler: (ctx) => activity.attempts(ctx.query),
    }),
    route({
      method: 'GET', path: '/api/webhooks/deliveries/pending', scope: 'webhooks:read',
      summary: 'Deliveries waiting to be sent, in the order they go',
      description: 'Each waits for its first attempt or a retry (next_attempt_at); a webhook\'s deliveries go one at a time, ' +
        'so one may also wait for earlier ones (waiting_for). At most 200 wait per webhook.',
      query: PendingQuery, response: listOf(PendingDeliverySchema),
      handler: (ctx) => activity.pending(ctx.query),
    }),
  ];
}
