// PagerDuty Events API v2 (https://events.pagerduty.com/v2/enqueue). The webhook's secret is the
// integration's routing key. A problem triggers and a recovery resolves, both with the dedup key
// `netprobe/<subject>`, which is stable per monitor: every down, degraded or failed-check alert of a
// monitor updates one PagerDuty alert, and monitor_up resolves it.
// https://developer.pagerduty.com/docs/events-api-v2/trigger-events/
import type { Alert } from '../alert.js';
import { clip, hostOf, jsonRequest } from './format.js';
import type { DeliveryContext, Provider } from './types.js';

export const dedupKey = (alert: Alert) => clip(`netprobe/${alert.subject}`, 255);

export const pagerduty = {
  type: 'pagerduty' as const,
  label: 'PagerDuty (Events API v2)',
  reference: 'https://developer.pagerduty.com/docs/events-api-v2/overview/',
  detect: 'host',
  matches: (u) => hostOf(u) === 'events.pagerduty.com' || hostOf(u) === 'events.eu.pagerduty.com',
  secret: { required: true, role: 'the integration\'s routing key (Events API v2)' },
  check: (u) => (u.pathname.replace(/\/$/, '').endsWith('/v2/enqueue') ? []
    : [{ path: 'url', message: 'Expected the Events API v2 URL, https://events.pagerduty.com/v2/enqueue' }]),
  build(alert: Alert, ctx: DeliveryContext) {
    const routing_key = ctx.secret ?? '';
    if (alert.resolved) {
      return jsonRequest(ctx.url, { routing_key, event_action: 'resolve', dedup_key: dedupKey(alert) }, ctx);
    }
    const m = alert.monitor;
    return jsonRequest(ctx.url, {
      routing_key,
      event_action: 'trigger',
      dedup_key: dedupKey(alert),
      client: clip(`netprobe ${ctx.probe.name}`, 255),
      payload: {
        summary: clip(`${alert.title}: ${alert.message}`, 1024),
        source: clip(m?.target ?? ctx.probe.name, 255),
        severity: alert.severity,
        timestamp: alert.occurred_at,
        component: m ? clip(m.name, 255) : undefined,
        group: m?.tags[0],
        class: alert.type,
        custom_details: { ...alert.details, alert_id: alert.id, monitor: m, probe: ctx.probe.name },
      },
    }, ctx);
  },
} satisfies Provider;
