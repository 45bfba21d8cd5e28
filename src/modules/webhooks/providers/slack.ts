// Slack incoming webhooks (https://hooks.slack.com/services/T…/B…/…): `text` (the notification and
// fallback line) plus Block Kit blocks: a header, the message, the facts as section fields, a context line.
// https://api.slack.com/messaging/webhooks, https://api.slack.com/reference/block-kit/blocks
import type { Alert } from '../alert.js';
import { clip, facts, hostOf, jsonRequest, MARK, toneOf } from './format.js';
import type { DeliveryContext, Provider } from './types.js';

/** Slack's mrkdwn treats &, < and > as control characters. */
export const slackEscape = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

export const slack = {
  type: 'slack' as const,
  label: 'Slack',
  reference: 'https://api.slack.com/messaging/webhooks',
  detect: 'host',
  matches: (u) => hostOf(u) === 'hooks.slack.com',
  // /services/T…/B…/<secret>: the last part is the credential.
  secretSegments: (segs) => (segs[0] === 'services' && segs.length >= 4 ? [3] : []),
  build(alert: Alert, ctx: DeliveryContext) {
    const mark = MARK[toneOf(alert)];
    const fields = facts(alert, ctx).slice(0, 10)
      .map((f) => ({ type: 'mrkdwn', text: clip(`*${slackEscape(f.name)}*\n${slackEscape(f.value)}`, 2000) }));
    return jsonRequest(ctx.url, {
      text: clip(`${mark} ${slackEscape(alert.title)}: ${slackEscape(alert.message)}`, 3000),
      blocks: [
        { type: 'header', text: { type: 'plain_text', text: clip(`${mark} ${alert.title}`, 150), emoji: true } },
        { type: 'section', text: { type: 'mrkdwn', text: clip(slackEscape(alert.message), 3000) } },
        { type: 'section', fields },
        { type: 'context', elements: [{ type: 'mrkdwn', text: `netprobe · ${alert.type}` }] },
      ],
    }, ctx);
  },
} satisfies Provider;
