// Google Chat incoming webhooks (https://chat.googleapis.com/v1/spaces/…/messages?key=…&token=…): a text
// message using Chat's formatting (*bold*). https://developers.google.com/workspace/chat/quickstart/webhooks
import type { Alert } from '../alert.js';
import { clip, facts, hostOf, jsonRequest, MARK, toneOf } from './format.js';
import type { DeliveryContext, Provider } from './types.js';

export const googleChat = {
  type: 'google_chat' as const,
  label: 'Google Chat',
  reference: 'https://developers.google.com/workspace/chat/format-messages',
  detect: 'host',
  matches: (u) => hostOf(u) === 'chat.googleapis.com',
  build(alert: Alert, ctx: DeliveryContext) {
    const lines = [
      `${MARK[toneOf(alert)]} *${alert.title}*`,
      alert.message,
      '',
      ...facts(alert, ctx).map((f) => `*${f.name}:* ${f.value}`),
    ];
    return jsonRequest(ctx.url, { text: clip(lines.join('\n'), 4000) }, ctx, { 'content-type': 'application/json; charset=UTF-8' });
  },
} satisfies Provider;
