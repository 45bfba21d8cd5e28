// Gotify (https://<server>/message?token=<app token>): title, message, priority 0-10, plain text.
// The application token may be in the URL (`token=`, redacted) or be the webhook's secret, then sent as
// X-Gotify-Key. https://gotify.net/api-docs#/message/createMessage
import type { Alert } from '../alert.js';
import { facts, jsonRequest, toneOf, type Tone } from './format.js';
import type { DeliveryContext, Provider } from './types.js';

const PRIORITY: Record<Tone, number> = { critical: 8, error: 7, warning: 5, info: 2, resolved: 2 };

export const gotify = {
  type: 'gotify' as const,
  label: 'Gotify',
  reference: 'https://gotify.net/docs/pushmsg',
  detect: 'path',
  matches: (u) => /\/message\/?$/.test(u.pathname) && u.searchParams.has('token'),
  secret: { required: false, role: 'the application token, when it is not in the URL (sent as X-Gotify-Key)' },
  check: (u, hasSecret) => {
    if (!/\/message\/?$/.test(u.pathname)) return [{ path: 'url', message: 'Expected the message URL, https://<server>/message' }];
    if (!u.searchParams.get('token') && !hasSecret)
      return [{ path: 'secret', message: 'Gotify needs the application token: token= in the URL, or as the secret' }];
    return [];
  },
  build(alert: Alert, ctx: DeliveryContext) {
    const lines = [alert.message, '', ...facts(alert, ctx).map((f) => `${f.name}: ${f.value}`)];
    return jsonRequest(ctx.url, {
      title: alert.title,
      message: lines.join('\n'),
      priority: PRIORITY[toneOf(alert)],
      extras: { 'client::display': { contentType: 'text/plain' } },
    }, ctx, ctx.secret ? { 'x-gotify-key': ctx.secret } : {});
  },
} satisfies Provider;
