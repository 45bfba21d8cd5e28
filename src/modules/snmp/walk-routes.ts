// POST /api/snmp/walk: an on-demand walk of one or more subtrees. Reaching out to a device counts as a
// write (snmp:write). Walks with a stored credential are audited (a secret was used); the community or
// v3 keys given inline are used for this request only and never stored, logged or echoed.
import { z } from 'zod';
import type { AppContext } from '../../core/context.js';
import { route, type AnyRoute, type RequestCtx } from '../../core/http/registry.js';
import type { SnmpService, WalkResponse } from './service.js';
import { snmpSettings } from './service.js';
import { AgentFields, type AgentInput } from './targets.js';

/** Walk options shared by the endpoint and templates. */
export const WalkOptions = {
  max_repetitions: z.number().int().min(1).max(200).optional().describe('GETBULK max-repetitions (v2c/v3), default 20'),
  timeout: z.number().min(0.1).max(60).optional().describe('Seconds to wait for each answer (like snmpwalk -t), default 2'),
  retries: z.number().int().min(0).max(5).optional().describe('Retries per request, default 1'),
  max_varbinds: z.number().int().min(1).max(100_000).optional().describe('Stop after this many values (default 10,000) and say truncated'),
};
export type WalkOptionValues = { max_repetitions?: number; timeout?: number; retries?: number; max_varbinds?: number };

export const OidList = z.array(z.string().trim().min(1).max(300)).min(1).max(50)
  .describe('Subtrees to walk: numeric OIDs (1.3.6.1.2.1.1) or names from the OID store (system, ifTable, IF-MIB::ifDescr)');

const WalkBody = z.strictObject({ ...AgentFields, oids: OidList, ...WalkOptions });

export const WalkVarbind = z.object({
  oid: z.string(), name: z.string(), type: z.string(), value: z.union([z.string(), z.number(), z.null()]),
  hex: z.boolean().optional(), display: z.string(),
});
export const WalkResult = z.object({
  target: z.string(), version: z.enum(['v1', 'v2c', 'v3']), elapsed_ms: z.number(), count: z.number().int(),
  truncated: z.boolean(), varbinds: z.array(WalkVarbind),
});

/** Runs a walk for an agent description and options; shared by the endpoint and template runs. */
export async function runWalk(app: AppContext, snmp: SnmpService, agent: AgentInput, oids: string[],
  opts: WalkOptionValues, signal?: AbortSignal): Promise<WalkResponse> {
  const roots = snmp.roots(oids);
  const settings = snmpSettings(app);
  const target = snmp.targets.resolve(agent, {
    timeout_ms: opts.timeout !== undefined ? Math.round(opts.timeout * 1000) : settings.timeout_ms,
    retries: opts.retries ?? settings.retries,
  });
  return snmp.walk({ target, oids: roots, max_repetitions: opts.max_repetitions, max_varbinds: opts.max_varbinds, signal });
}

/** An AbortSignal that fires when the client goes away, so an abandoned walk stops. */
export function clientGone(ctx: RequestCtx): AbortSignal {
  const ac = new AbortController();
  ctx.res.once('close', () => { if (!ctx.res.writableFinished) ac.abort(); });
  return ac.signal;
}

export function walkRoutes(app: AppContext, snmp: SnmpService): AnyRoute[] {
  return [
    route({
      method: 'POST', path: '/api/snmp/walk', scope: 'snmp:write', tag: 'snmp',
      summary: 'Walk one or more subtrees of an agent (v1 GETNEXT, v2c/v3 GETBULK)',
      description: 'Errors: 504 snmp_timeout; 502 snmp_unreachable / snmp_error / snmp_report / snmp_bad_response; '
        + '422 snmp_bad_community / snmp_unknown_user / snmp_wrong_key / snmp_decryption_failed / snmp_unsupported_level; '
        + '423 when a stored credential needs the locked vault. See docs/snmp.md.',
      body: WalkBody, response: WalkResult,
      handler: async (ctx) => {
        const { oids, max_repetitions, timeout, retries, max_varbinds, ...agent } = ctx.body;
        const walk = runWalk(app, snmp, agent, oids, { max_repetitions, timeout, retries, max_varbinds }, clientGone(ctx));
        if (!agent.credential_id) return walk;
        // A stored secret was used: audit the walk, failed or not (never the secret itself).
        const details = { credential_id: agent.credential_id, oids };
        try {
          const result = await walk;
          await ctx.audit('snmp.walk', agent.target, { ...details, count: result.count });
          return result;
        } catch (err) {
          await ctx.audit('snmp.walk', agent.target, { ...details, error: err instanceof Error ? err.message : String(err) }, 'failure');
          throw err;
        }
      },
    }),
  ];
}
