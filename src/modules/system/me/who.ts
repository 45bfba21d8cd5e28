// Who the caller is, as GET /api/me and GET /api/auth/session answer it: the user, how they
// authenticated, their effective scopes and, for an API key, which one.
import { z } from 'zod';
import type { AuthServices } from '../../../core/auth/index.js';
import { SCOPES, type Scope } from '../../../core/auth/scopes.js';
import { PublicUserSchema, toPublicUser } from '../../../core/auth/users.js';
import type { RequestCtx } from '../../../core/context.js';

export const MeResponse = z.object({
  user: PublicUserSchema,
  auth: z.enum(['session', 'api_key']),
  scopes: z.array(z.enum(SCOPES as [Scope, ...Scope[]])),
  key: z.object({ id: z.string(), name: z.string() }).optional(),
});
export type Me = z.infer<typeof MeResponse>;

/** The caller as MeResponse, or null when it is not signed in (or its user is gone). */
export function whoIs(svc: AuthServices, p: RequestCtx['principal']): Me | null {
  const row = p ? svc.users.row(p.user.id) : undefined;
  if (!p || !row) return null;
  const out: Me = { user: toPublicUser(row), auth: p.kind, scopes: SCOPES.filter((s) => p.scopes.has(s)) };
  if (p.kind === 'api_key' && p.key_id) {
    const k = svc.apiKeys.get(p.key_id);
    if (k) out.key = { id: k.id, name: k.name };
  }
  return out;
}
