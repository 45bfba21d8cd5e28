// ntfy (https://ntfy.sh/<topic>, or a self-hosted server): published as JSON to the server's root with
// the topic in the body, so titles and messages keep their UTF-8 (ntfy's header form cannot). The topic
// is a shared secret on a public server and is redacted; the webhook's secret, when set, is an access
// token sent as a Bearer token. https://docs.ntfy.sh/publish/#publish-as-json
import type { Alert } from '../alert.js';
import { hostOf, jsonRequest, toneOf, type Tone } from './format.js';
import type { DeliveryContext, Provider } from './types.js';

/** ntfy priorities: 1 min … 3 default … 5 max. */
const PRIORITY: Record<Tone, number> = { critical: 5, error: 4, warning: 4, info: 3, resolved: 3 };
/** Tags that ntfy shows as emoji. */
const TAG: Record<Tone, string> = {
  critical: 'rotating_light', error: 'red_circle', warning: 'warning', info: 'information_source', resolved: 'white_check_mark',
};

/** The topic (last path segment) and the server's root URL it is published to. */
export function ntfyTarget(raw: string): { root: string; topic: string } {
  const u = new URL(raw);
  const segs = u.pathname.split('/').filter(Boolean);
  const topic = decodeURIComponent(segs.pop() ?? '');
  u.pathname = segs.length ? `/${segs.join('/')}/` : '/';
  return { root: u.href, topic };
}

export const ntfy = {
  type: 'ntfy' as const,
  label: 'ntfy',
  reference: 'https://docs.ntfy.sh/publish/#publish-as-json',
  detect: 'host',
  matches: (u) => hostOf(u) === 'ntfy.sh',
  secret: { required: false, role: 'an access token (tk_…) for a protected topic' },
  check: (u) => (/^[-_A-Za-z0-9]{1,64}$/.test(u.pathname.split('/').filter(Boolean).pop() ?? '') ? []
    : [{ path: 'url', message: 'Expected the topic URL, e.g. https://ntfy.sh/<topic> (topic: letters, digits, - and _)' }]),
  secretSegments: (segs) => (segs.length ? [segs.length - 1] : []),
  build(alert: Alert, ctx: DeliveryContext) {
    const { root, topic } = ntfyTarget(ctx.url);
    const tone = toneOf(alert);
    return jsonRequest(root, {
      topic,
      title: alert.title,
      message: alert.message,
      priority: PRIORITY[tone],
      tags: [TAG[tone], alert.type],
    }, ctx, ctx.secret ? { authorization: `Bearer ${ctx.secret}` } : {});
  },
} satisfies Provider;
