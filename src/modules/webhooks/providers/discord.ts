// Discord webhooks (https://discord.com/api/webhooks/<id>/<token>): one embed with title, description,
// colour, timestamp and up to 25 inline fields; mentions are disabled so a monitor named "@everyone"
// pings nobody. https://discord.com/developers/docs/resources/webhook#execute-webhook
import type { Alert } from '../alert.js';
import { clip, COLOR, facts, hostOf, jsonRequest, toneOf } from './format.js';
import type { DeliveryContext, Provider } from './types.js';

const HOSTS = new Set(['discord.com', 'discordapp.com', 'ptb.discord.com', 'canary.discord.com']);

export const discord = {
  type: 'discord' as const,
  label: 'Discord',
  reference: 'https://discord.com/developers/docs/resources/webhook#execute-webhook',
  detect: 'host',
  matches: (u) => HOSTS.has(hostOf(u)) && u.pathname.startsWith('/api/webhooks/'),
  // /api/webhooks/<id>/<token>
  secretSegments: (segs) => (segs[0] === 'api' && segs[1] === 'webhooks' && segs.length >= 4 ? [3] : []),
  build(alert: Alert, ctx: DeliveryContext) {
    return jsonRequest(ctx.url, {
      username: clip(`netprobe ${ctx.probe.name}`, 80),
      allowed_mentions: { parse: [] },
      embeds: [{
        title: clip(alert.title, 256),
        description: clip(alert.message, 4096),
        color: COLOR[toneOf(alert)],
        timestamp: alert.occurred_at,
        fields: facts(alert, ctx).slice(0, 25).map((f) => ({ name: clip(f.name, 256), value: clip(f.value || '-', 1024), inline: true })),
        footer: { text: clip(`netprobe · ${alert.type}`, 2048) },
      }],
    }, ctx);
  },
} satisfies Provider;
