// /api/hivemind: pairing with a controller over MQTT 5 (service.ts; docs/hivemind.md).
import { z } from 'zod';
import type { RequestCtx } from '../../../core/context.js';
import { route, type AnyRoute } from '../../../core/http/registry.js';
import { MAX_CODE_LENGTH } from './pairing-code.js';
import type { HivemindService, Requester } from './service.js';

const Status = z.object({
  paired: z.boolean(),
  controller_url: z.string().nullable().describe('The broker, as mqtts://host:port'),
  probe_id: z.string().nullable().describe('This probe\'s client id on the broker, and the <id> of its topics netprobe/<id>/...'),
  tls: z.boolean().nullable(),
  ca_sha256: z.string().nullable().describe('SHA-256 fingerprint of the pinned CA certificate'),
  paired_at: z.string().nullable(),
  state: z.enum(['connecting', 'connected', 'disconnected', 'error']),
  connected_since: z.string().nullable(),
  last_error: z.string().nullable(),
  last_error_at: z.string().nullable(),
  next_attempt_at: z.string().nullable().describe('When the next reconnect attempt is due, while the broker cannot be reached'),
  queued: z.number().int().describe('Events waiting for the broker\'s acknowledgement (kept on disk across restarts)'),
  dropped: z.number().int().describe('Events dropped because the queue was full (hivemind.queue_limit), since the pairing was made'),
});

const PairBody = z.strictObject({
  code: z.string().min(1).max(MAX_CODE_LENGTH + 16)
    .describe('The pairing code from the controller (base64url JSON: url, id, secret, ca, ca_sha256)'),
});
const UnpairBody = z.strictObject({
  force: z.boolean().default(false).describe('Forget the pairing even when the broker cannot be reached to clear the retained messages'),
});
const UnpairResult = Status.extend({ retained_cleared: z.boolean() });

const requester = (ctx: RequestCtx): Requester => ({
  actor: ctx.principal?.actor ?? null,
  auditEntry: (action, target, details, outcome) => ctx.auditEntry(action, target, details, outcome),
});

export function hivemindRoutes(svc: HivemindService): AnyRoute[] {
  return [
    route({
      method: 'GET', path: '/api/hivemind/status', scope: 'system:read', tag: 'system',
      summary: 'Connection status to a controller',
      description: 'Whether the probe is paired, with which broker and id, the connection state, since when, the last error, ' +
        'and the events queued while the broker cannot be reached. Never the secret.',
      response: Status,
      handler: () => svc.status(),
    }),
    route({
      method: 'POST', path: '/api/hivemind/pair', admin: true, tag: 'system',
      summary: 'Pair with a controller (admin)',
      description: 'Checks the pairing code (400 naming what is wrong; mqtt:// without TLS only with hivemind.allow_insecure), connects ' +
        'to the broker (MQTT 5, TLS pinned to the code\'s CA, persistent session, retained last will) and waits for its answer: 502 when ' +
        'the broker refuses or cannot be reached, 504 when it does not answer in time; nothing is saved then and a previous pairing ' +
        'stays. On success the pairing replaces any previous one (whose retained status is cleared).',
      body: PairBody, response: Status,
      handler: (ctx) => svc.pair(ctx.body.code, requester(ctx)),
    }),
    route({
      method: 'POST', path: '/api/hivemind/unpair', admin: true, tag: 'system',
      summary: 'Unpair from the controller (admin)',
      description: 'Clears the retained status and monitor states this probe published, disconnects cleanly (no last will) and forgets ' +
        'the secret. 409 not_paired; 409 broker_unreachable while the broker cannot be reached, unless {"force": true}.',
      body: UnpairBody, response: UnpairResult,
      handler: (ctx) => svc.unpair(ctx.body.force, requester(ctx)),
    }),
  ];
}
