// First-run: create the real administrator (bootstrap), then the setup wizard's basic settings.
import type { IncomingMessage } from 'node:http';
import { z } from 'zod';
import type { AuthServices } from '../../../core/auth/index.js';
import { refinePasswordPolicy } from '../../../core/auth/passwords.js';
import { DisplayName, Email, PublicUserSchema, Username } from '../../../core/auth/users.js';
import { badRequest, conflict, HttpError } from '../../../core/errors.js';
import { reply, route, type AnyRoute, type RequestCtx } from '../../../core/http/registry.js';
import { timeZoneSchema } from '../../../core/time-zone.js';

const BootstrapBody = z.strictObject({
  setup_code: z.string().max(200).optional(),
  username: Username,
  password: z.string(),
  email: Email.nullish(),
  display_name: DisplayName.nullish(),
}).superRefine(refinePasswordPolicy);

/** One DNS label (RFC 1123): what the probe calls itself on the network. */
const HostLabel = z.string().regex(/^(?!-)[A-Za-z0-9-]{1,63}(?<!-)$/,
  'Must be a host name label: 1 to 63 letters, digits or dashes, not starting or ending with a dash');

/** An IANA zone name as the runtime knows it, returned in its canonical spelling. */
const TimeZone = timeZoneSchema();

const SaveBody = z.strictObject({
  probe_name: z.string().trim().min(1).max(100),
  hostname: HostLabel.optional(),
  timezone: TimeZone,
  admin_email: Email.optional(),
});

const SaveResponse = z.object({
  probe_name: z.string(),
  hostname: z.string(),
  timezone: z.string(),
  admin_email: z.string(),
  completed_at: z.string(),
});

/**
 * A request made on the probe itself. Behind a local reverse proxy every request comes from loopback,
 * so a request carrying forwarding headers never counts as local.
 */
function isLocalRequest(req: IncomingMessage, ip: string): boolean {
  if (req.headers['x-forwarded-for'] || req.headers['forwarded'] || req.headers['x-real-ip']) return false;
  const remote = req.socket.remoteAddress ?? '';
  const addr = remote.startsWith('::ffff:') ? remote.slice(7) : remote;
  return (addr === '::1' || /^127\./.test(addr)) && (ip === addr);
}

export function setupRoutes(svc: AuthServices): AnyRoute[] {
  /** A right to bootstrap that needs no setup code: the probe itself, or the one-time admin's session. */
  function proofWithoutCode(ctx: RequestCtx): 'loopback' | 'one_time_session' | null {
    if (isLocalRequest(ctx.req, ctx.ip)) return 'loopback';
    const p = ctx.principal;
    return p?.kind === 'session' && svc.users.row(p.user.id)?.one_time ? 'one_time_session' : null;
  }

  /** How the caller proved they may bootstrap: loopback, the one-time admin's session, or the setup code. */
  async function proveSetupRight(ctx: RequestCtx, code: string | undefined): Promise<'loopback' | 'one_time_session' | 'setup_code'> {
    const without = proofWithoutCode(ctx);
    if (without) return without;
    if (!code) {
      throw badRequest('The setup code is required: it is the one-time admin password from the log or the initial-admin-password file',
        [{ path: 'setup_code', message: 'Required unless the request comes from the probe itself' }]);
    }
    if (!(await svc.bootstrap.verifySetupCode(code))) {
      const locked = ctx.rateLimit!.failure();
      await ctx.audit('setup.bootstrap', null, { reason: 'wrong_setup_code', ...(locked ? { locked_out: true } : {}) }, 'failure');
      throw new HttpError(403, 'invalid_setup_code', 'The setup code is not correct');
    }
    return 'setup_code';
  }

  return [
    route({
      method: 'GET', path: '/api/setup/bootstrap-needed', auth: 'none', tag: 'setup',
      summary: 'Whether the first administrator still has to be created',
      response: z.object({ bootstrap_needed: z.boolean() }),
      handler: () => ({ bootstrap_needed: svc.bootstrap.needed() }),
    }),

    route({
      method: 'POST', path: '/api/setup/bootstrap', auth: 'none', status: 201, tag: 'setup',
      rateLimit: { bucket: 'setup', by: ['ip'], what: 'setup code attempts', exempt: (ctx) => proofWithoutCode(ctx) !== null },
      summary: 'Create the first administrator and retire the one-time admin',
      description: '`setup_code` is the one-time admin password (log, or <data dir>/initial-admin-password). It is not ' +
        'needed from the probe itself (loopback, without proxy headers) or from a session of the one-time admin. A wrong ' +
        'code is 403 and rate limited. 409 `already_bootstrapped` once a real administrator exists.',
      body: BootstrapBody, response: z.object({ user: PublicUserSchema }),
      handler: async (ctx) => {
        if (!svc.bootstrap.needed()) throw conflict('An administrator already exists; sign in instead', 'already_bootstrapped');
        const via = await proveSetupRight(ctx, ctx.body.setup_code);
        const b = ctx.body;
        const user = await svc.bootstrap.bootstrap(
          { username: b.username, password: b.password, email: b.email ?? null, display_name: b.display_name ?? null },
          (tx, u) => ctx.app.audit.insert(tx, {
            ...ctx.auditEntry('setup.bootstrap', u.username, { id: u.id, via }),
            actor: u.username, actor_user_id: u.id,
          }),
        );
        return reply(201, { user });
      },
    }),

    route({
      method: 'GET', path: '/api/setup/needed', auth: 'none', tag: 'setup',
      summary: 'Whether the setup wizard still has to run',
      response: z.object({ needed: z.boolean(), bootstrap_needed: z.boolean(), completed_at: z.string().nullable() }),
      handler: () => {
        const completed_at = svc.bootstrap.setupCompletedAt();
        return { needed: completed_at === null, bootstrap_needed: svc.bootstrap.needed(), completed_at };
      },
    }),

    route({
      method: 'POST', path: '/api/setup/save', admin: true, tag: 'setup',
      summary: "Complete the setup wizard: the probe's name, host name, time zone and administrator e-mail",
      body: SaveBody, response: SaveResponse,
      handler: async (ctx) => {
        const b = ctx.body;
        const cfg = await ctx.app.config.update({
          probe: { name: b.probe_name, timezone: b.timezone, hostname: b.hostname, admin_email: b.admin_email },
        });
        const completed_at = await ctx.app.store.write((tx) => {
          const at = svc.bootstrap.markSetupCompleted(tx);
          ctx.app.audit.insert(tx, ctx.auditEntry('setup.save', null, {
            probe_name: cfg.probe.name, hostname: cfg.probe.hostname, timezone: cfg.probe.timezone, admin_email: cfg.probe.admin_email,
          }));
          return at;
        }, 'sync');
        return {
          probe_name: cfg.probe.name, hostname: cfg.probe.hostname, timezone: cfg.probe.timezone,
          admin_email: cfg.probe.admin_email, completed_at,
        };
      },
    }),
  ];
}
