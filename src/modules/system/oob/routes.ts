// /api/oob/*: out-of-band access through ZeroTier (zt) and Tailscale (ts). Every change is admin-only and
// audited; leave, toggle off, forget and down answer 409 `would_cut_off` when the request itself arrives
// over that overlay, unless the body says {"confirm": true}. A missing program is a 503 with how to
// install it here. docs/oob.md.
import { z } from 'zod';
import { reply, route, type AnyRoute } from '../../../core/http/registry.js';
import type { RequestCtx } from '../../../core/context.js';
import { requestAddresses } from './overlay-guard.js';
import type { TailscaleService } from './tailscale-service.js';
import type { ZeroTierService } from './zerotier-service.js';
import { installOverview } from './install-hints.js';

const NetworkId = z.string().regex(/^[0-9a-fA-F]{16}$/, 'Must be a ZeroTier network ID: 16 hexadecimal digits')
  .transform((s) => s.toLowerCase());
const Confirm = z.boolean().optional()
  .describe('Go ahead even though the request arrives over this overlay and taking it down cuts the connection');

const JoinBody = z.strictObject({ network_id: NetworkId });
const LeaveBody = z.strictObject({
  network_id: NetworkId.optional().describe('Default: the one remembered network that is on'), confirm: Confirm,
});
const ToggleBody = z.strictObject({
  network_id: NetworkId.optional().describe('Default: the one remembered network'),
  enabled: z.boolean().optional().describe('On (join) or off (leave); default: the opposite of now'),
  confirm: Confirm,
});
const ForgetBody = z.strictObject({ network_id: NetworkId.optional().describe('Default: the one remembered network'), confirm: Confirm });
const UpBody = z.strictObject({
  auth_key: z.string().max(500).regex(/^tskey-[A-Za-z0-9_-]+$/, 'Must be a Tailscale auth key (tskey-...)').optional()
    .describe('Write-only. Without it, an interactive login: the answer carries the login URL'),
  hostname: z.string().regex(/^[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?$/, 'Must be a host name label (letters, digits, -)').optional()
    .describe("The node's name in the tailnet (tailscale up --hostname)"),
  reset: z.boolean().optional().describe('Reset settings made outside this service to their defaults (tailscale up --reset)'),
});
const DownBody = z.strictObject({ confirm: Confirm });

const ZtNetwork = z.object({
  id: z.string(), name: z.string(), status: z.string(), type: z.string(), mac: z.string(), device: z.string(),
  assigned_addresses: z.array(z.string()), routes: z.array(z.object({ target: z.string(), via: z.string().nullable() })),
});
const LastError = z.object({ at: z.string(), action: z.string(), code: z.string(), detail: z.string() }).nullable();
const Remembered = z.object({
  id: z.string(), name: z.string(), enabled: z.boolean(), joined_at: z.string().nullable(), left_at: z.string().nullable(),
});
const UpResponse = z.object({
  backend_state: z.string(), auth_url: z.string().nullable(), tailscale_ips: z.array(z.string()), detail: z.string(),
});
const Hint = z.object({
  provider: z.string(), supported: z.boolean(), summary: z.string(), commands: z.array(z.string()), after: z.array(z.string()),
  docs_url: z.string(), installed: z.boolean(), program: z.string(),
});
const StatusResponse = z.object({
  zerotier: z.object({
    provider: z.literal('zerotier'), installed: z.boolean(), program: z.string(), service_running: z.boolean().nullable(),
    token_copy: z.boolean().describe('Whether the service has its copy of the auth token (<data dir>/.zeroTierOneAuthToken)'),
    node: z.object({ address: z.string(), version: z.string(), online: z.boolean(), tunneled: z.boolean(), state: z.string() }).nullable(),
    state: z.string(), online: z.boolean(),
    networks: z.array(ZtNetwork.extend({ remembered: z.boolean(), enabled: z.boolean() })),
    remembered: z.array(Remembered), assigned_addresses: z.array(z.string()), last_error: LastError,
  }),
  tailscale: z.object({
    provider: z.literal('tailscale'), installed: z.boolean(), program: z.string(), service_running: z.boolean().nullable(),
    state: z.string(), backend_state: z.string().nullable(), online: z.boolean(), needs_login: z.boolean(),
    login_in_progress: z.boolean(), tailnet: z.string().nullable(), hostname: z.string().nullable(), dns_name: z.string().nullable(),
    assigned_addresses: z.array(z.string()), health: z.array(z.string()), version: z.string().nullable(), last_error: LastError,
  }),
});

/** The cut-off guard's view of the request. */
const callerOf = (ctx: RequestCtx, confirm?: boolean) => ({ addresses: requestAddresses(ctx.req, ctx.ip), confirm });

export function oobRoutes(zt: ZeroTierService, ts: TailscaleService): AnyRoute[] {
  return [
    route({
      method: 'POST', path: '/api/oob/zt/join', admin: true, tag: 'oob',
      summary: 'Join a ZeroTier network and remember it (admin)',
      description: 'zerotier-cli join. The network usually shows REQUESTING_CONFIGURATION until its controller authorises the probe ' +
        '(GET /api/oob/status). 503 `program_missing` (with install instructions), `zerotier_service_down`, `zerotier_token_missing`.',
      body: JoinBody, response: z.object({ network: ZtNetwork, remembered: z.literal(true) }),
      handler: (ctx) => zt.log.audited(ctx, 'oob.zt.join', ctx.body.network_id, {}, () => zt.join(ctx.body.network_id)),
    }),
    route({
      method: 'POST', path: '/api/oob/zt/leave', admin: true, tag: 'oob',
      summary: 'Leave a ZeroTier network; it stays remembered for toggle (admin)',
      description: '409 `would_cut_off` when the request arrives over that network, unless `confirm` is true. ' +
        '`was_member` is false for a network the probe was not in (zerotier-cli says "200 leave OK" either way).',
      body: LeaveBody, response: z.object({ network_id: z.string(), was_member: z.boolean(), remembered: z.boolean() }),
      handler: (ctx) => zt.log.audited(ctx, 'oob.zt.leave', ctx.body.network_id ?? null, { confirm: ctx.body.confirm === true },
        () => zt.leave(ctx.body.network_id, callerOf(ctx, ctx.body.confirm)),
        (r) => ({ network_id: r.network_id, was_member: r.was_member })),
    }),
    route({
      method: 'POST', path: '/api/oob/zt/toggle', admin: true, tag: 'oob',
      summary: 'Turn a remembered ZeroTier network off (leave) or on (rejoin) (admin)',
      description: 'Without `enabled`, flips the current membership. Turning off answers 409 `would_cut_off` when the request arrives ' +
        'over that network, unless `confirm` is true.',
      body: ToggleBody,
      response: z.object({ network_id: z.string(), enabled: z.boolean(), changed: z.boolean(), network: ZtNetwork.nullable() }),
      handler: (ctx) => zt.log.audited(ctx, 'oob.zt.toggle', ctx.body.network_id ?? null,
        { ...(ctx.body.enabled !== undefined ? { requested: ctx.body.enabled } : {}), confirm: ctx.body.confirm === true },
        () => zt.toggle(ctx.body.network_id, ctx.body.enabled, callerOf(ctx, ctx.body.confirm)),
        (r) => ({ network_id: r.network_id, enabled: r.enabled, changed: r.changed })),
    }),
    route({
      method: 'POST', path: '/api/oob/zt/forget', admin: true, tag: 'oob',
      summary: 'Leave a ZeroTier network if joined and forget it (admin)',
      description: '404 when the network is neither joined nor remembered; 409 `would_cut_off` as for leave.',
      body: ForgetBody, response: z.object({ network_id: z.string(), was_member: z.boolean(), forgotten: z.boolean() }),
      handler: (ctx) => zt.log.audited(ctx, 'oob.zt.forget', ctx.body.network_id ?? null, { confirm: ctx.body.confirm === true },
        () => zt.forget(ctx.body.network_id, callerOf(ctx, ctx.body.confirm)),
        (r) => ({ network_id: r.network_id, was_member: r.was_member })),
    }),
    route({
      method: 'POST', path: '/api/oob/ts/up', admin: true, tag: 'oob',
      summary: 'Bring Tailscale up with an auth key, or start an interactive login (admin)',
      description: 'With `auth_key`: the key goes to tailscale in a 0600 file that is removed at once (never in argv, a log or the ' +
        'audit log); 200 once Running. Without it: 202 with `auth_url` to open (tailscaled completes the login on its own). ' +
        '`backend_state` NeedsMachineAuth: a tailnet administrator must approve the machine.',
      body: UpBody, response: UpResponse,
      handler: async (ctx) => {
        const r = await ts.log.audited(ctx, 'oob.ts.up', null,
          { login: ctx.body.auth_key !== undefined ? 'auth_key' : 'interactive',
            ...(ctx.body.hostname ? { hostname: ctx.body.hostname } : {}), reset: ctx.body.reset === true },
          () => ts.up({ authKey: ctx.body.auth_key, hostname: ctx.body.hostname, reset: ctx.body.reset }),
          (x) => ({ backend_state: x.backend_state }));
        return r.backend_state === 'Running' ? r : reply(202, r);
      },
    }),
    route({
      method: 'POST', path: '/api/oob/ts/down', admin: true, tag: 'oob',
      summary: 'Bring Tailscale down (admin)',
      description: '`was_running` is false when it was already stopped. 409 `would_cut_off` when the request arrives over Tailscale ' +
        '(100.64.0.0/10, fd7a:115c:a1e0::/48 or the node\'s addresses), unless `confirm` is true.',
      body: DownBody, response: z.object({ was_running: z.boolean() }),
      handler: (ctx) => ts.log.audited(ctx, 'oob.ts.down', null, { confirm: ctx.body.confirm === true },
        () => ts.down(callerOf(ctx, ctx.body.confirm)), (r) => ({ was_running: r.was_running })),
    }),
    route({
      method: 'GET', path: '/api/oob/ts/login-url', admin: true, tag: 'oob',
      summary: 'The URL to log the probe in to a tailnet (admin)',
      description: 'tailscaled\'s pending login URL, or a new interactive login started in the background; admin-only because ' +
        'whoever opens the URL first puts the probe in their tailnet. `auth_url` is null when already Running. 504 ' +
        '`login_url_pending` when tailscaled gave none in time.',
      response: UpResponse.extend({ started: z.boolean() }),
      handler: (ctx) => ts.log.audited(ctx, 'oob.ts.login_url', null, {}, () => ts.loginUrl(),
        (r) => ({ backend_state: r.backend_state, started: r.started, url_given: r.auth_url !== null })),
    }),
    route({
      method: 'GET', path: '/api/oob/status', scope: 'system:read', tag: 'oob',
      summary: 'Out-of-band access: ZeroTier and Tailscale, each installed, running, state, networks or tailnet, addresses',
      response: StatusResponse,
      handler: async () => {
        const [zerotier, tailscale] = await Promise.all([zt.status(), ts.status()]);
        return { zerotier, tailscale };
      },
    }),
    route({
      method: 'GET', path: '/api/oob/install', scope: 'system:read', tag: 'oob',
      summary: 'How to install ZeroTier and Tailscale on this OS and architecture (nothing is run)',
      response: z.object({
        os: z.object({ id: z.string(), version_codename: z.string(), pretty_name: z.string() }),
        arch: z.object({ node: z.string(), debian: z.string() }),
        providers: z.object({ zerotier: Hint, tailscale: Hint }),
      }),
      handler: () => installOverview({ zerotier: zt.program(), tailscale: ts.program() }),
    }),
  ];
}
