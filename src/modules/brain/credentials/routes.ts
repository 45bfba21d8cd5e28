// The credentials' literal routes (SPEC.md, "Asset inventory"): writes need the admin role, so they win
// over /api/brain/:type; secrets are write-only and shown as {set: true|false}. The type is in service.ts.
import { z } from 'zod';
import type { AppContext } from '../../../core/context.js';
import { actorOf, reply, route, type AnyRoute } from '../../../core/http/registry.js';
import { paging } from '../../../core/http/schemas.js';
import { denyReason } from '../../../core/auth/scopes.js';
import { parseCidr } from '../../../core/ip.js';
import { CREDENTIAL_USAGE_KINDS, type CredentialSecrets, type CredentialUsage, type CredentialUsageSource } from '../contracts.js';
import type { ItemService } from '../items.js';
import { CREDENTIAL_KINDS } from './service.js';

const IdParams = z.object({ id: z.string().trim().min(1).max(100).describe('UUID or short ID (CR-n)') });
const Item = z.object({ id: z.string(), short_id: z.string(), name: z.string(), kind: z.string() }).catchall(z.unknown());
const Use = z.object({ target: z.string(), protocol: z.string(), outcome: z.enum(['success', 'failure']),
  detail: z.string().nullable(), at: z.string() });

const Usage = z.object({
  kind: z.enum(CREDENTIAL_USAGE_KINDS), id: z.string(), name: z.string(),
  short_id: z.string().nullable(), detail: z.string().nullable(),
  outside_scope: z.array(z.string()).describe('Where this use would send the credential that its scope does not allow ' +
    '(those sends are refused); empty when the scope covers it'),
});

export function credentialRoutes(app: AppContext, items: ItemService, secrets: Pick<CredentialSecrets, 'scope'>,
  sources: () => CredentialUsageSource[] = () => []): AnyRoute[] {
  return [
    route({
      method: 'GET', path: '/api/brain/credentials', scope: 'brain:read', tag: 'brain',
      summary: 'List credentials, secrets redacted',
      query: z.object({
        ...paging(500, 50),
        q: z.string().trim().min(1).max(200).optional(), tag: z.string().trim().min(1).max(50).optional(),
        kind: z.enum(CREDENTIAL_KINDS).optional(),
      }),
      response: z.object({ items: z.array(Item), total: z.number().int() }),
      handler: (ctx) => items.list('credentials', ctx.query),
    }),
    route({
      method: 'POST', path: '/api/brain/credentials', admin: true, tag: 'brain', status: 201,
      summary: 'Create a credential (admin); secrets need an unlocked vault (423)',
      body: z.record(z.string(), z.unknown()), response: Item, bodySchemaFor: () => items.def('credentials').create,
      handler: async (ctx) => reply(201, await items.create('credentials', ctx.body, actorOf(ctx))),
    }),
    route({
      method: 'GET', path: '/api/brain/credentials/:id', scope: 'brain:read', tag: 'brain',
      summary: 'Get a credential, secrets redacted', params: IdParams, response: Item,
      handler: (ctx) => items.get('credentials', ctx.params.id),
    }),
    route({
      method: 'PUT', path: '/api/brain/credentials/:id', admin: true, tag: 'brain',
      summary: 'Update a credential (admin); an omitted secret keeps its stored value',
      params: IdParams, body: z.record(z.string(), z.unknown()), response: Item, bodySchemaFor: () => items.def('credentials').update,
      handler: (ctx) => items.update('credentials', ctx.params.id, ctx.body, actorOf(ctx)),
    }),
    route({
      method: 'DELETE', path: '/api/brain/credentials/:id', admin: true, tag: 'brain',
      summary: 'Delete a credential and its stored secrets (admin)',
      params: IdParams, query: z.object({ detach: z.enum(['true', 'false', '1', '0']).optional() }),
      handler: async (ctx) => {
        await items.remove('credentials', ctx.params.id, ctx.query.detach === 'true' || ctx.query.detach === '1', actorOf(ctx));
        return undefined;
      },
    }),
    route({
      method: 'GET', path: '/api/brain/credentials/:id/scan', scope: 'brain:read', tag: 'brain',
      summary: 'Devices this credential succeeded or failed on (recorded by discovery)',
      params: IdParams, response: z.object({ items: z.array(Use), total: z.number().int() }),
      handler: (ctx) => {
        const cred = items.get('credentials', ctx.params.id);
        const rows = app.store.all<{ target: string; protocol: string; outcome: 'success' | 'failure'; detail: string | null; at: number }>(
          'SELECT target, protocol, outcome, detail, at FROM brain_credential_uses WHERE credential_id = ? ORDER BY at DESC',
          [String(cred.id)]);
        return { items: rows.map((r) => ({ ...r, at: new Date(r.at).toISOString() })), total: rows.length };
      },
    }),
    route({
      method: 'GET', path: '/api/brain/credentials/:id/usage', scope: 'brain:read', tag: 'brain',
      summary: 'Where a credential is used (endpoints, discovery\'s list, SSH targets, SNMP templates, device cards) and what ' +
        'falls outside its scope',
      description: 'Names and IDs only, never a secret. Uses kept by another module are listed only when the caller may read ' +
        'that module (v1sion:read for discovery and SSH targets, snmp:read for SNMP); `hidden` counts the others.',
      params: IdParams,
      response: z.object({ items: z.array(Usage), total: z.number().int(), hidden: z.number().int() }),
      handler: (ctx) => {
        const cred = items.get('credentials', ctx.params.id);
        const id = String(cred.id);
        const out: CredentialUsage[] = items.referrers(id).filter((r) => r.type === 'endpoints').map((r) => {
          const ips = items.get('endpoints', r.id).ip_addresses;
          return { kind: 'endpoint', id: r.id, short_id: r.short_id, name: r.name,
            detail: Array.isArray(ips) && typeof ips[0] === 'string' ? ips[0] : null };
        });
        let hidden = 0;
        for (const source of sources()) {
          const uses = source.usesOf(id);
          if (ctx.principal && denyReason(ctx.principal, { scope: source.scope }) === null) out.push(...uses);
          else hidden += uses.length;
        }
        const order = (k: CredentialUsage['kind']) => CREDENTIAL_USAGE_KINDS.indexOf(k);
        out.sort((a, b) => order(a.kind) - order(b.kind) || a.name.localeCompare(b.name));
        const scope = secrets.scope(id);
        const outside = (d: string) => {
          const net = d.includes('/') ? parseCidr(d, { loose: true }) : null;
          return net?.ok ? !scope.covers(net.cidr) : !scope.allows({ host: d });
        };
        const items_ = out.map((u) => ({ kind: u.kind, id: u.id, name: u.name, short_id: u.short_id ?? null, detail: u.detail ?? null,
          outside_scope: (u.destinations ?? []).filter(outside) }));
        return { items: items_, total: items_.length, hidden };
      },
    }),
  ];
}
