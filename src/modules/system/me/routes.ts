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

export function meRoutes(svc: AuthServices): AnyRoute[] {
  return [
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
