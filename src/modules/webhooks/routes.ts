// The six webhook endpoints of SPEC.md, "Webhooks", and the providers the web form renders from.
// Scopes: webhooks:read for GET, webhooks:write for the rest (the registry enforces the method/scope pairing).
import { actorOf, reply, route, type AnyRoute } from '../../core/http/registry.js';
import { alertTypes } from './alert-types.js';
import { listOf } from '../../core/http/schemas.js';
import {
  AlertTypeSchema, CreateWebhookBody, IdParams, TestResultSchema, UpdatedWebhookSchema, UpdateWebhookBody, WebhookSchema,
} from './schemas.js';
import { providerList, ProviderSchema } from './options.js';
import type { WebhookService } from './service.js';

export function webhookRoutes(svc: WebhookService): AnyRoute[] {
  return [
    route({
      method: 'GET', path: '/api/webhooks', scope: 'webhooks:read',
      summary: 'List webhooks',
      description: 'URLs are shown with their tokens replaced by ***; secrets only as {set: true|false}.',
      response: listOf(WebhookSchema),
      handler: () => svc.list(),
    }),

    route({
      method: 'POST', path: '/api/webhooks', scope: 'webhooks:write', status: 201,
      summary: 'Create a webhook',
      description: 'name is required, and url for every type but email (an e-mail channel: type email, options.to its recipients, ' +
        'sent through the probe\'s SMTP server; 409 smtp_not_configured while there is none). type defaults from the URL\'s host ' +
        '(else generic); alert_types defaults to monitor_down and monitor_up; cooldown is seconds (default 300); enabled defaults ' +
        'to true. Audited.',
      body: CreateWebhookBody, response: WebhookSchema,
      handler: async (ctx) => reply(201, await svc.create(ctx.body, actorOf(ctx))),
    }),

    route({
      method: 'GET', path: '/api/webhooks/alert-types', scope: 'webhooks:read',
      summary: 'Alert types that can trigger webhooks',
      response: listOf(AlertTypeSchema),
      handler: () => {
        const items = alertTypes().map((t) => ({ type: t.type, description: t.description, severity: t.severity, source: t.source,
          recovery: !!t.recovery }));
        return { items, total: items.length };
      },
    }),

    route({
      method: 'GET', path: '/api/webhooks/providers', scope: 'webhooks:read',
      summary: 'Webhook providers, with their options as JSON Schema',
      description: 'Each provider\'s label, where its request format is documented, what the webhook\'s secret is for it, and the ' +
        'options a webhook of that type takes (title and description per field; required ones listed). The web form renders from it.',
      response: listOf(ProviderSchema),
      handler: () => {
        const items = providerList();
        return { items, total: items.length };
      },
    }),

    route({
      method: 'PUT', path: '/api/webhooks/:id', scope: 'webhooks:write',
      summary: 'Update a webhook (only the fields given change)',
      description: 'The redacted URL sent back keeps the stored URL; a secret left out or sent as {set: true} is kept, null removes it. ' +
        'Stored secrets stay with the destination: when the URL\'s scheme, host or port or the type changes, a secret not sent ' +
        'again is dropped (listed in secrets_dropped), and a stored URL with tokens must be sent whole with a new type. ' +
        'A new URL without a type takes the type its host suggests. Disabling cancels deliveries still waiting. Audited.',
      params: IdParams, body: UpdateWebhookBody, response: UpdatedWebhookSchema,
      handler: (ctx) => svc.update(ctx.params.id, ctx.body, actorOf(ctx)),
    }),

    route({
      method: 'DELETE', path: '/api/webhooks/:id', scope: 'webhooks:write',
      summary: 'Delete a webhook',
      description: 'Its waiting deliveries are cancelled (each logged as cancelled); its attempt log entries stay until trimmed. Audited.',
      params: IdParams,
      handler: async (ctx) => { await svc.remove(ctx.params.id, actorOf(ctx)); return undefined; },
    }),

    route({
      method: 'POST', path: '/api/webhooks/:id/test', scope: 'webhooks:write',
      summary: 'Send a test payload to the webhook URL (an e-mail channel: a test message to its recipients)',
      description: 'Sends an alert of type "test" now (also to a disabled webhook), without retries, and answers within the attempt ' +
        'timeout (webhooks.timeout_seconds, 10 s) with the delivery result (for e-mail, status_code is the SMTP server\'s reply ' +
        'code). A failed delivery is still a 200 with ok: false. Audited.',
      params: IdParams, response: TestResultSchema,
      handler: (ctx) => svc.test(ctx.params.id, actorOf(ctx)),
    }),
  ];
}
