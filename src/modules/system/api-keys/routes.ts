// API keys: created by any signed-in user for themselves (never beyond their own rights), listed and
// revoked by their owner, and all of them by administrators.
import { z } from 'zod';
import { PublicApiKeySchema } from '../../../core/auth/apikeys.js';
import { isAdmin, type AuthServices } from '../../../core/auth/index.js';
import { SCOPES, type Scope } from '../../../core/auth/scopes.js';
import { badRequest, forbidden, notFound } from '../../../core/errors.js';
import { reply, route, type AnyRoute } from '../../../core/http/registry.js';
import { listOf, paging } from '../../../core/http/schemas.js';

const ScopeEnum = z.enum(SCOPES as [Scope, ...Scope[]]);
const IdParams = z.object({ id: z.uuid() });
const ListQuery = z.object({
  ...paging(500, 100),
});
const KeyList = listOf(PublicApiKeySchema);

const CreateBody = z.strictObject({
  name: z.string().trim().min(1).max(100),
  scopes: z.array(ScopeEnum).min(1).max(SCOPES.length),
  expires_at: z.iso.datetime({ offset: true }).nullish(),
  expires_in_days: z.number().int().min(1).max(3650).nullish(),
});

const Created = PublicApiKeySchema.extend({
  key: z.string().describe('The key itself; shown only in this response'),
});

export function apiKeyRoutes(svc: AuthServices): AnyRoute[] {
  return [
    route({
      method: 'GET', path: '/api/api-keys', scope: 'system:read', self: true, tag: 'api-keys',
      summary: 'List API keys (administrators: all; others: their own)',
      query: ListQuery, response: KeyList,
      handler: (ctx) => {
        const p = ctx.principal!;
        return svc.apiKeys.list({ ...ctx.query, ownerId: isAdmin(p) ? undefined : p.user.id });
      },
    }),

    route({
      method: 'POST', path: '/api/api-keys', scope: 'system:write', self: true, status: 201, tag: 'api-keys',
      summary: 'Create an API key for yourself; the key is in this response only',
      description: 'Scopes cannot exceed your own: your role for a session, the calling key\'s scopes for a key (403). ' +
        'Give `expires_at` (ISO 8601, in the future) or `expires_in_days`, or neither for a key that does not expire.',
      body: CreateBody, response: Created,
      handler: async (ctx) => {
        const p = ctx.principal!;
        const b = ctx.body;
        if (b.expires_at && b.expires_in_days) {
          throw badRequest('Give expires_at or expires_in_days, not both',
            [{ path: 'expires_in_days', message: 'Cannot be combined with expires_at' }]);
        }
        const expires_at = b.expires_in_days
          ? ctx.app.clock.iso(ctx.app.clock.now() + b.expires_in_days * 86_400_000) : b.expires_at ?? null;
        const { key, record } = await svc.apiKeys.create(
          { id: p.user.id, username: p.user.username },
          { name: b.name, scopes: b.scopes, expires_at },
          p.scopes,
          (tx, k) => ctx.app.audit.insert(tx, ctx.auditEntry('api_key.create', k.name,
            { id: k.id, prefix: k.prefix, scopes: k.scopes, expires_at: k.expires_at })),
        );
        return reply(201, { ...record, key });
      },
    }),

    route({
      method: 'DELETE', path: '/api/api-keys/:id', scope: 'system:write', self: true, tag: 'api-keys',
      summary: 'Revoke an API key (your own; administrators: any)',
      description: 'A non-administrator gets 403 for any id that is not one of their keys; an administrator gets 404 for an unknown id.',
      params: IdParams,
      handler: async (ctx) => {
        const p = ctx.principal!;
        const k = svc.apiKeys.get(ctx.params.id);
        // Like every self-service route, a non-admin gets 403 for any record not theirs; unknown ids
        // included, so the answer does not tell which key ids exist.
        if (!isAdmin(p) && k?.owner.id !== p.user.id) throw forbidden('You can only revoke your own API keys');
        if (!k) throw notFound('API key');
        await svc.apiKeys.revoke(k.id, (tx, r) => ctx.app.audit.insert(tx, ctx.auditEntry('api_key.revoke', r.name,
          { id: r.id, prefix: r.prefix, owner: r.owner.username })));
        return undefined;
      },
    }),
  ];
}
