// /api/v1sion/scan: start a subnet scan, follow it (SSE), read its result, cancel it (scan/service.ts).
import { z } from 'zod';
import { actorOf, reply, route } from '../../../core/http/registry.js';
import { listOf, paging } from '../../../core/http/schemas.js';
import { CredentialFields } from './request.js';
import { ScanCounts, ScanResult } from './result.js';
import type { ScanService } from './service.js';

const JobParams = z.object({ job_id: z.uuid() });

const ScanBody = z.object({
  subnet: z.string().trim().min(1).max(64).describe(
    'The network in CIDR notation (one address is a /32). Private and local ranges and the probe\'s own subnets by default ' +
    '(discovery.allowed_ranges adds more); IPv4 up to /20 by default (discovery.max_prefix_v4)'),
  ...CredentialFields,
}).strict();

const Started = z.object({ job_id: z.string(), subnet: z.string() });

const ListQuery = z.object({
  ...paging(100, 20),
  subnet: z.string().max(64).optional().describe('Only scans of this network (CIDR; compared in canonical form)'),
}).strict();
const KeptScanSchema = z.object({
  job_id: z.string(), subnet: z.string(), state: z.string(), started_at: z.string(), finished_at: z.string().nullable(),
  counts: ScanCounts.partial(),
});
const RunningScanSchema = z.object({
  job_id: z.string(), subnet: z.string(), started_at: z.string(), progress: z.number().describe('0-100'),
});
const LocalSubnets = z.object({
  items: z.array(z.object({
    subnet: z.string(), interface: z.string(), address: z.string(), family: z.union([z.literal(4), z.literal(6)]),
  })),
});

export function scanRoutes(svc: ScanService) {
  return [
    route({
      method: 'GET', path: '/api/v1sion/scan', scope: 'v1sion:read',
      summary: 'Kept scan results',
      description: 'The scans whose results are kept (discovery.results_kept), newest first, without their hosts: job id, subnet, ' +
        'state, times and counts; and in running the scans not finished yet. subnet keeps only scans of that network (400 ' +
        'naming query.subnet when it is not a CIDR).',
      query: ListQuery, response: listOf(KeptScanSchema).extend({ running: z.array(RunningScanSchema).describe(
        'The scans running now (subnet filter applied), newest first: kept in items once they end') }),
      handler: (ctx) => svc.list(ctx.query),
    }),
    route({
      method: 'GET', path: '/api/v1sion/scan/local-subnets', scope: 'v1sion:read',
      summary: "The probe's own subnets",
      description: 'The networks of the probe\'s interface addresses (no loopback, no IPv6 link-local), IPv4 first: what a scan ' +
        'form offers. Each may be scanned whatever discovery.allowed_ranges says.',
      response: LocalSubnets,
      handler: () => svc.localSubnets(),
    }),
    route({
      method: 'POST', path: '/api/v1sion/scan', scope: 'v1sion:write', status: 202,
      summary: 'Start a subnet scan',
      description: 'Finds every live host (ICMP, the neighbour table, TCP, SNMP at once), identifies SNMP agents, reads LLDP, ' +
        'CDP and forwarding tables and builds the topology. 403 outside the allowed ranges, 429 while two scans run. ' +
        'Inline community and v3_params are used for this scan only.',
      body: ScanBody, response: Started,
      handler: async (ctx) => reply(202, await svc.start(ctx.body, actorOf(ctx))),
    }),
    route({
      method: 'GET', path: '/api/v1sion/scan/:job_id/stream', scope: 'v1sion:read', produces: 'text/event-stream',
      summary: 'Scan progress as SSE',
      description: 'Messages: phase, progress, host (one per host as soon as it is classified), link, and a final completed, ' +
        'failed or cancelled; each with type and progress (0-100). Last-Event-ID replays.',
      params: JobParams,
      handler: (ctx) => { svc.stream(ctx.req, ctx.res, ctx.params.job_id); },
    }),
    route({
      method: 'GET', path: '/api/v1sion/scan/:job_id/result', scope: 'v1sion:read',
      summary: 'Final scan result',
      description: 'Hosts, devices, links, routes offered for import and warnings (the response schema). ' +
        '409 while the scan runs; the newest results are kept across restarts, older ones answer 404.',
      params: JobParams, response: ScanResult,
      handler: (ctx) => svc.result(ctx.params.job_id),
    }),
    route({
      method: 'DELETE', path: '/api/v1sion/scan/:job_id', scope: 'v1sion:write',
      summary: 'Cancel a scan',
      description: 'Stops the scan within a second (no program is left running); what it found so far is kept. 409 when it has finished.',
      params: JobParams,
      handler: (ctx) => svc.cancel(ctx.params.job_id, actorOf(ctx)),
    }),
  ];
}
