// Generic JSON: the alert as it is, in a small envelope, for any HTTP endpoint. With a secret, the body
// is signed: X-Netprobe-Signature: sha256=<hex HMAC-SHA256 of the exact body bytes, keyed by the secret>.
// docs/webhooks.md, "Generic JSON payload", is the reference for receivers.
import { createHmac } from 'node:crypto';
import type { Alert } from '../alert.js';
import { jsonRequest } from './format.js';
import type { DeliveryContext, Provider } from './types.js';

/** Version of the envelope below; it changes only when a field changes meaning or goes away. */
export const GENERIC_PAYLOAD_VERSION = 1;

export function signature(secret: string, body: string): string {
  return `sha256=${createHmac('sha256', secret).update(body, 'utf8').digest('hex')}`;
}

export const generic = {
  type: 'generic' as const,
  label: 'Generic JSON',
  reference: 'docs/webhooks.md#generic-json-payload',
  detect: 'fallback',
  matches: () => true,
  secret: { required: false, role: 'HMAC-SHA256 key: the body is signed in X-Netprobe-Signature' },
  build(alert: Alert, ctx: DeliveryContext) {
    const envelope = {
      version: GENERIC_PAYLOAD_VERSION,
      delivery_id: ctx.delivery_id,
      sent_at: ctx.sent_at,
      probe: ctx.probe,
      alert,
    };
    const req = jsonRequest(ctx.url, envelope, ctx, {
      'x-netprobe-event': alert.type,
      'x-netprobe-delivery': ctx.delivery_id,
    });
    if (ctx.secret) req.headers['x-netprobe-signature'] = signature(ctx.secret, req.body);
    return req;
  },
} satisfies Provider;
