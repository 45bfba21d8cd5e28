// POST /api/snmp/walk: an on-demand walk of one or more subtrees. Reaching out to a device counts as a
// write (snmp:write). Walks with a stored credential are audited (a secret was used); the community or
// v3 keys given inline are used for this request only and never stored, logged or echoed.
import { z } from 'zod';
import type { AppContext } from '../../../core/context.js';
import { clientGone } from '../../../core/http/abort.js';
import { route, type AnyRoute } from '../../../core/http/registry.js';
import { OidList, WalkOptions, WalkResult } from '../schemas.js';
import type { SnmpService } from '../service.js';
import { AgentFields } from '../targets.js';

const WalkBody = z.strictObject({ ...AgentFields, oids: OidList, ...WalkOptions });

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
        const walk = snmp.walkAgent(agent, oids, { max_repetitions, timeout, retries, max_varbinds }, clientGone(ctx));
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
