// /api/v1sion/enrich-ssh: start an SSH enrichment, follow it (SSE), read its per-target results, cancel it
// (enrich-ssh/service.ts).
import { z } from 'zod';
import { isAdmin } from '../../../core/auth/index.js';
import { actorOf, reply, route } from '../../../core/http/registry.js';
import { TARGET_PLATFORMS } from './facts.js';
import { MAX_TARGETS, type EnrichService } from './service.js';

const JobParams = z.object({ job_id: z.uuid() });

const EnrichBody = z.object({
  targets: z.array(z.uuid()).max(MAX_TARGETS).optional().describe('SSH target ids'),
  session_id: z.uuid().optional().describe('A saved session: its nodes get what is learned about the devices they stand for'),
  addresses: z.array(z.string().trim().min(1).max(64)).max(MAX_TARGETS).optional().describe(
    'Addresses of the session\'s nodes: each uses the SSH target of that address and port, or a new one made with credential_id'),
  credential_id: z.string().trim().min(1).max(64).optional().describe(
    'ssh_password or ssh_key credential (UUID or CR-n) for addresses that have no SSH target yet'),
  port: z.number().int().min(1).max(65535).optional().describe('Port of the addresses\' targets (default 22)'),
  platform: z.enum(TARGET_PLATFORMS).optional().describe('Platform of the targets made for addresses (default auto)'),
}).strict();

const Started = z.object({
  job_id: z.string(), session_id: z.string().nullable(),
  targets: z.array(z.object({ id: z.string(), name: z.string(), host: z.string(), port: z.number(), created: z.boolean() })),
});

const Outcome = z.object({
  target_id: z.string(), name: z.string(), host: z.string(), port: z.number(), state: z.enum(['ok', 'failed', 'cancelled']),
  error: z.object({ code: z.string(), message: z.string(), at: z.string() }).catchall(z.unknown()).nullable(),
  summary: z.record(z.string(), z.unknown()).nullable(), nodes: z.array(z.string()), duration_ms: z.number(),
});

const Status = z.object({
  job_id: z.string(), state: z.string(), progress: z.number(), started_at: z.string().nullable(), finished_at: z.string().nullable(),
  error: z.string().nullable(), session_id: z.string().nullable(), targets: Started.shape.targets, results: z.array(Outcome),
});

export function enrichRoutes(svc: EnrichService) {
  return [
    route({
      method: 'POST', path: '/api/v1sion/enrich-ssh', scope: 'v1sion:write', status: 202,
      summary: 'Start an SSH enrichment',
      description: 'Logs in to each device (a changed host key refused; a new one pinned on first use, except that a password ' +
        'goes only to a host whose key is pinned unless an administrator starts the enrichment; each credential only within its ' +
        'scope: 403 credential_out_of_scope), runs its platform\'s fixed ' +
        'read-only commands and stores hostname, OS, model, serial, interfaces, routes, ARP, LLDP/CDP neighbours and ' +
        'listening services on the target and the session\'s nodes. 423 while the vault is locked, 429 while two run, ' +
        '409 when a target is being enriched already.',
      body: EnrichBody, response: Started,
      handler: async (ctx) => reply(202, await svc.start(ctx.body, actorOf(ctx), isAdmin(ctx.principal))),
    }),
    route({
      method: 'GET', path: '/api/v1sion/enrich-ssh/:job_id/stream', scope: 'v1sion:read', produces: 'text/event-stream',
      summary: 'SSH enrichment progress as SSE',
      description: 'Messages: phase, progress, one target per device as it finishes ({target: {target_id, state, error, summary, ' +
        'nodes}}), and a final completed, failed or cancelled; each with type and progress (0-100). Last-Event-ID replays.',
      params: JobParams,
      handler: (ctx) => { svc.stream(ctx.req, ctx.res, ctx.params.job_id); },
    }),
    route({
      method: 'GET', path: '/api/v1sion/enrich-ssh/:job_id', scope: 'v1sion:read',
      summary: 'An SSH enrichment and its results',
      description: 'State, progress and each finished target\'s outcome. The facts themselves are on the targets and nodes.',
      params: JobParams, response: Status,
      handler: (ctx) => svc.status(ctx.params.job_id),
    }),
    route({
      method: 'DELETE', path: '/api/v1sion/enrich-ssh/:job_id', scope: 'v1sion:write',
      summary: 'Cancel an SSH enrichment',
      description: 'Stops within a second: every connection is closed; targets finished so far keep what was learned. ' +
        '409 when it has finished.',
      params: JobParams,
      handler: (ctx) => svc.cancel(ctx.params.job_id, actorOf(ctx)),
    }),
  ];
}
