// Mattermost incoming webhooks (https://<server>/hooks/<key>): Slack-compatible message attachments
// with colour, title, text and short fields. https://developers.mattermost.com/integrate/webhooks/incoming/
import type { Alert } from '../alert.js';
import { clip, facts, hexColor, jsonRequest, MARK, toneOf } from './format.js';
import type { DeliveryContext, Provider } from './types.js';

/** Mattermost hook keys are 26 lowercase letters and digits. */
const HOOK_PATH = /^\/hooks\/[a-z0-9]{26}\/?$/;

export const mattermost = {
  type: 'mattermost' as const,
  label: 'Mattermost',
  reference: 'https://developers.mattermost.com/integrate/reference/message-attachments/',
  detect: 'path',
  matches: (u) => HOOK_PATH.test(u.pathname),
  secretSegments: (segs) => (segs[0] === 'hooks' && segs.length >= 2 ? [1] : []),
  build(alert: Alert, ctx: DeliveryContext) {
    const tone = toneOf(alert);
    return jsonRequest(ctx.url, {
      username: clip(`netprobe ${ctx.probe.name}`, 60),
      attachments: [{
        fallback: clip(`${alert.title}: ${alert.message}`, 3000),
        color: hexColor(tone),
        title: clip(`${MARK[tone]} ${alert.title}`, 300),
        text: clip(alert.message, 4000),
        fields: facts(alert, ctx).map((f) => ({ short: true, title: f.name, value: f.value })),
        footer: `netprobe · ${alert.type}`,
      }],
    }, ctx);
  },
} satisfies Provider;
