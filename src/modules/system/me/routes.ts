// GET /api/me: who the caller is, how they authenticated and what they may do.
import type { AuthServices } from '../../../core/auth/index.js';
import { unauthorized } from '../../../core/errors.js';
import { route, type AnyRoute } from '../../../core/http/registry.js';
import { MeResponse, whoIs } from './who.js';

export function meRoutes(svc: AuthServices): AnyRoute[] {
  return [
    route({
      method: 'GET', path: '/api/me', auth: 'user', tag: 'auth',
      summary: 'The current user, how they authenticated and their effective scopes',
      response: MeResponse,
      handler: (ctx) => {
        const me = whoIs(svc, ctx.principal);
        if (!me) throw unauthorized();
        return me;
      },
    }),
  ];
}
