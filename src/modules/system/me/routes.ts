// GET /api/me: who the caller is, how they authenticated and what they may do.
import { z } from 'zod';
import type { AuthServices } from '../../../core/auth/index.js';
import { SCOPES, type Scope } from '../../../core/auth/scopes.js';
import { PublicUserSchema, toPublicUser } from '../../../core/auth/users.js';
import { unauthorized } from '../../../core/errors.js';
import { route, type AnyRoute } from '../../../core/http/registry.js';

const MeResponse = z.object({
  user: PublicUserSchema,
  auth: z.enum(['session', 'api_key']),
  scopes: z.array(z.enum(SCOPES as [Scope, ...Scope[]])),
  key: z.object({ id: z.string(), name: z.string() }).optional(),
});

/** GET /api/auth/session: the same answer as GET /api/me when signed in, else only signed_in false. */
const SessionResponse = z.union([
  z.object({ signed_in: z.literal(false) }),
  MeResponse.extend({ signed_in: z.literal(true) }),
]);

export function meRoutes(svc: AuthServices): AnyRoute[] {
  return [
    route({
      method: 'GET', path: '/api/auth/session', auth: 'none', tag: 'auth',
      summary: 'Whether the request is signed in: {signed_in: false}, or GET /api/me\'s answer with signed_in true',
      description: 'For the web app\'s first load: a signed-out browser gets a 200 instead of a 401 it would log as a ' +
        'failed request. It takes no input and tells only the caller about its own cookie or key, so it reveals no ' +
        'other account or session; an invalid, expired or absent session is simply signed_in false.',
      response: SessionResponse,
      handler: (ctx) => {
        const p = ctx.principal;
        const row = p ? svc.users.row(p.user.id) : undefined;
        if (!p || !row) return { signed_in: false as const };
        const out: z.infer<typeof SessionResponse> = { signed_in: true, user: toPublicUser(row), auth: p.kind,
          scopes: SCOPES.filter((s) => p.scopes.has(s)) };
        if (p.kind === 'api_key' && p.key_id) {
          const k = svc.apiKeys.get(p.key_id);
          if (k) out.key = { id: k.id, name: k.name };
        }
        return out;
      },
    }),
    route({
      method: 'GET', path: '/api/me', auth: 'user', tag: 'auth',
      summary: 'The current user, how they authenticated and their effective scopes',
      response: MeResponse,
      handler: (ctx) => {
        const p = ctx.principal!;
        const row = svc.users.row(p.user.id);
        if (!row) throw unauthorized();
        const scopes = SCOPES.filter((s) => p.scopes.has(s));
        const out: z.infer<typeof MeResponse> = { user: toPublicUser(row), auth: p.kind, scopes };
        if (p.kind === 'api_key' && p.key_id) {
          const k = svc.apiKeys.get(p.key_id);
          if (k) out.key = { id: k.id, name: k.name };
        }
        return out;
      },
    }),
  ];
}
