// Microsoft Teams: a message with one Adaptive Card attachment, the format both Teams Workflows
// ("post to a channel when a webhook request is received") and the older incoming-webhook connectors
// accept. https://learn.microsoft.com/microsoftteams/platform/webhooks-and-connectors/how-to/connectors-using
import type { Alert } from '../alert.js';
import { clip, facts, hostOf, jsonRequest, MARK, toneOf, type Tone } from './format.js';
import type { DeliveryContext, Provider } from './types.js';

const CARD_COLOR: Record<Tone, string> = { critical: 'Attention', error: 'Attention', warning: 'Warning', info: 'Accent',
  resolved: 'Good' };

export const teams = {
  type: 'teams' as const,
  label: 'Microsoft Teams',
  reference: 'https://learn.microsoft.com/microsoftteams/platform/task-modules-and-cards/cards/cards-reference#adaptive-card',
  detect: 'host',
  matches: (u) => {
    const h = hostOf(u);
    return h.endsWith('.webhook.office.com') || h.endsWith('.logic.azure.com') || h.endsWith('.powerplatform.com') ||
      (h === 'outlook.office.com' && u.pathname.startsWith('/webhook'));
  },
  // Connector URLs: /webhookb2/<group>@<tenant>/IncomingWebhook/<secret>/<owner>
  secretSegments: (segs) => {
    const i = segs.indexOf('IncomingWebhook');
    return i >= 0 ? segs.map((_, k) => k).filter((k) => k > i || k === 1) : [];
  },
  build(alert: Alert, ctx: DeliveryContext) {
    const tone = toneOf(alert);
    return jsonRequest(ctx.url, {
      type: 'message',
      attachments: [{
        contentType: 'application/vnd.microsoft.card.adaptive',
        contentUrl: null,
        content: {
          $schema: 'http://adaptivecards.io/schemas/adaptive-card.json',
          type: 'AdaptiveCard',
          version: '1.4',
          msteams: { width: 'Full' },
          body: [
            { type: 'TextBlock', size: 'Large', weight: 'Bolder', wrap: true, color: CARD_COLOR[tone],
              text: clip(`${MARK[tone]} ${alert.title}`, 300) },
            { type: 'TextBlock', wrap: true, text: clip(alert.message, 4000) },
            { type: 'FactSet', facts: facts(alert, ctx).map((f) => ({ title: f.name, value: clip(f.value, 1000) })) },
            { type: 'TextBlock', wrap: true, isSubtle: true, size: 'Small', text: `netprobe · ${alert.type}` },
          ],
        },
      }],
    }, ctx);
  },
} satisfies Provider;
