// Opsgenie Alert API (https://api.opsgenie.com/v2/alerts, or api.eu.opsgenie.com). The webhook's secret
// is an API integration key, sent as `Authorization: GenieKey <key>`. A problem creates an alert whose
// alias is `netprobe/<subject>` (Opsgenie de-duplicates open alerts on it); a recovery closes it through
// POST <url>/<alias>/close?identifierType=alias. https://docs.opsgenie.com/docs/alert-api
import type { Alert } from '../alert.js';
import type { Severity } from '../alert-types.js';
import { clip, facts, hostOf, jsonRequest } from './format.js';
import type { DeliveryContext, Provider } from './types.js';

const PRIORITY: Record<Severity, string> = { critical: 'P1', error: 'P2', warning: 'P3', info: 'P5' };

export const opsgenieAlias = (alert: Alert) => clip(`netprobe/${alert.subject}`, 512);

export const opsgenie = {
  type: 'opsgenie' as const,
  label: 'Opsgenie',
  reference: 'https://docs.opsgenie.com/docs/alert-api',
  detect: 'host',
  matches: (u) => hostOf(u) === 'api.opsgenie.com' || hostOf(u) === 'api.eu.opsgenie.com',
  secret: { required: true, role: 'an API integration key (sent as GenieKey)' },
  check: (u) => (u.pathname.replace(/\/$/, '').endsWith('/v2/alerts') ? []
    : [{ path: 'url', message: 'Expected the Alert API URL, https://api.opsgenie.com/v2/alerts (or api.eu.opsgenie.com)' }]),
  build(alert: Alert, ctx: DeliveryContext) {
    const auth = { authorization: `GenieKey ${ctx.secret ?? ''}` };
    const source = clip(`netprobe ${ctx.probe.name}`, 100);
    const base = new URL(ctx.url);
    base.pathname = base.pathname.replace(/\/$/, '');
    if (alert.resolved) {
      const close = new URL(base);
      close.pathname = `${base.pathname}/${encodeURIComponent(opsgenieAlias(alert))}/close`;
      close.searchParams.set('identifierType', 'alias');
      return jsonRequest(close.href, { source, note: clip(alert.message, 25_000) }, ctx, auth);
    }
    const m = alert.monitor;
    const details: Record<string, string> = {};
    for (const f of facts(alert, ctx)) details[f.name] = clip(f.value, 8000);
    return jsonRequest(base.href, {
      message: clip(alert.title, 130),
      alias: opsgenieAlias(alert),
      description: clip(alert.message, 15_000),
      tags: [...new Set([alert.type, ...(m?.tags ?? [])])].slice(0, 20).map((t) => clip(t, 50)),
      details,
      entity: clip(m?.name ?? ctx.probe.name, 512),
      source,
      priority: PRIORITY[alert.severity],
    }, ctx, auth);
  },
} satisfies Provider;
