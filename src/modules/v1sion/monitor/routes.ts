// GET /api/v1sion/monitor/status and /by-ip: badges for the topology canvas, open by default (SPEC.md),
// behind sign-in when discovery.status_requires_auth is set.
import { z } from 'zod';
import type { AppContext } from '../../../core/context.js';
import { invalid } from '../../../core/errors.js';
import { canonicalIp } from '../../../core/ip.js';
import { route } from '../../../core/http/registry.js';
import type { MonitorStatusService } from './service.js';

const MAX_IPS = 256;
const STATUS = z.enum(['up', 'down', 'degraded', 'paused', 'unknown']);

const AddressStatus = z.object({
  ip: z.string(),
  status: STATUS.nullable().describe('The worst status of every monitor on the address; null when none watches it'),
  monitors: z.number().int(),
  reachability: z.enum(['reachable', 'unreachable']).nullable().describe(
    'reachable: a monitor on the address answered its last check (a ping, or a service, which proves the host too); ' +
    'unreachable: a ping monitor on it is down and nothing answered; null: no monitor tells'),
  services: z.object({
    total: z.number().int(), down: z.number().int(), failing: z.number().int(), degraded: z.number().int(), maintenance: z.number().int(),
  }).describe(
    'The monitors on the address other than ping (HTTP, TCP, DNS), and how many of them are down, failing (failed checks below ' +
    'their failure threshold) and degraded (slow or lossy answers); those a maintenance window holds now count as maintenance instead'),
});

const ByIpQuery = z.object({
  ips: z.string().min(1).max(MAX_IPS * 46).describe(`Comma-separated IPv4 or IPv6 addresses, at most ${MAX_IPS}`),
}).strict();

const requiresAuth = (app: AppContext) => app.config.get().discovery.status_requires_auth;

export function monitorStatusRoutes(svc: MonitorStatusService) {
  return [
    route({
      method: 'GET', path: '/api/v1sion/monitor/status', auth: 'none', scope: 'v1sion:read', authRequiredIf: requiresAuth,
      summary: 'Monitor status for topology node badges; no authentication',
      description: 'Each monitor\'s id and status only (no names, targets, tags or history). At most a second old; ' +
        'answers 304 to If-None-Match with the current ETag. discovery.status_requires_auth puts it behind sign-in.',
      response: z.object({ monitors: z.array(z.object({ id: z.string(), status: STATUS })) }),
      handler: (ctx) => { svc.status().send(ctx.req, ctx.res); },
    }),

    route({
      method: 'GET', path: '/api/v1sion/monitor/status/by-ip', auth: 'none', scope: 'v1sion:read', authRequiredIf: requiresAuth,
      summary: 'Status by IP',
      description: 'Per address asked: the worst status (down, degraded, unknown, up, paused) of the monitors whose target ' +
        'is that address (http URL host, ping target, tcp host, dns resolver), and how many; null and 0 when none. Apart from ' +
        'that, whether the host answers (reachability) and how many of its services (every monitor but ping) are down or ' +
        'degraded. Targets written as names do not match. Cached and served like /api/v1sion/monitor/status.',
      query: ByIpQuery,
      response: z.object({ addresses: z.array(AddressStatus) }),
      handler: (ctx) => { svc.byAddress(parseIps(ctx.query.ips)).send(ctx.req, ctx.res); },
    }),
  ];
}

const badIps = (message: string) => invalid('query', [{ path: 'query.ips', message }]);

/** Canonical, distinct addresses in the order given; a 400 naming `ips` for anything else. */
function parseIps(text: string): string[] {
  const parts = text.split(',').map((s) => s.trim()).filter(Boolean);
  if (!parts.length) throw badIps('Give at least one IP address');
  if (parts.length > MAX_IPS) throw badIps(`At most ${MAX_IPS} addresses`);
  const out = new Set<string>();
  for (const p of parts) {
    const ip = canonicalIp(p);
    if (!ip) throw badIps(`"${p.slice(0, 64)}" is not an IPv4 or IPv6 address`);
    out.add(ip);
  }
  return [...out];
}
