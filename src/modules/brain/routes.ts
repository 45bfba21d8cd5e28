// The inventory endpoints of SPEC.md, "Asset inventory" (without the vault and credentials, which plug
// in through their own TypeDef and routes). Scopes: brain:read for GET, brain:write for everything else.
import { z } from 'zod';
import { isAdmin } from '../../core/auth/index.js';
import { HttpError } from '../../core/errors.js';
import { reply, route, type AnyRoute, type RequestCtx, actorOf } from '../../core/http/registry.js';
import { bindingChanges } from './credentials/scope.js';
import { listOf, paging } from '../../core/http/schemas.js';
import type { SessionSource } from './contracts.js';
import { parseData, type ItemRow, type ItemService } from './items.js';
import { LinkSchema, RELATIONS, type LinkService } from './links.js';
import { search, SEARCH_MAX } from './search.js';
import { subnetAddresses } from './subnet-addresses.js';
import { BRAIN_TYPES, SHORT_ID_PREFIX, subnetCidr, type BrainType } from './types.js';

const subnetCidrOf = (row: ItemRow) => subnetCidr(parseData(row.data));



const IdOrShort = z.string().trim().min(1).max(100).describe('UUID or short ID (e.g. EP-12, case-insensitive)');

export const ItemSchema = z.object({
  id: z.string(), type: z.enum(BRAIN_TYPES), short_id: z.string(), name: z.string(),
  created_at: z.string(), updated_at: z.string(),
}).catchall(z.unknown()).describe('An inventory record: the common fields, the type\'s own fields (see docs/brain.md), timestamps');

const MonitorLinkSchema = z.object({
  id: z.string(), name: z.string(), target: z.string(), check_type: z.string(), status: z.string(),
  last_check: z.string().nullable(), response_time: z.number().nullable(),
  links: z.array(z.object({ id: z.string(), relation: z.enum(RELATIONS) })),
});

const SummarySchema = z.object({ type: z.enum(BRAIN_TYPES), id: z.string(), short_id: z.string(), name: z.string() });

const HistorySchema = z.object({
  id: z.number().int(), at: z.string(), actor: z.string().nullable(),
  action: z.enum(['create', 'update', 'delete', 'detach']),
  changes: z.record(z.string(), z.object({ from: z.unknown(), to: z.unknown() })).describe('Field-by-field diff'),
  note: z.string().nullable(),
});


function typeFieldsDoc(items: ItemService, types: readonly BrainType[]): string {
  return types.map((t) => {
    const d = items.def(t);
    const refs = d.refs.map((r) => `${r.field} -> ${r.type}`).join(', ');
    return `${t} (${SHORT_ID_PREFIX[t]}): name, ${d.fields.join(', ')}${refs ? `; references ${refs}` : ''}`;
  }).join('. ');
}

export function brainRoutes(items: ItemService, links: LinkService, sessions: SessionSource): AnyRoute[] {
  // The seven SPEC.md types; a type not registered (yet) is a 404 from the service, like an unknown one.
  const types = items.types();
  const TypeEnum = z.enum(BRAIN_TYPES).describe(`One of ${BRAIN_TYPES.join(', ')} (available now: ${types.join(', ')})`);
  const TypeIdParams = z.object({ type: TypeEnum, id: IdOrShort });
  // Credentials are listed, read and written only through their own routes (credentials/routes.ts, writes
  // admin-only), so the generic /api/brain/:type routes never serve them, however the path is spelt.
  const GENERIC_TYPES = BRAIN_TYPES.filter((t): t is Exclude<BrainType, 'credentials'> => t !== 'credentials');
  const GenericType = z.enum(GENERIC_TYPES).describe(`One of ${GENERIC_TYPES.join(', ')} (credentials have their own routes)`);
  const GenericTypeParams = z.object({ type: GenericType });
  const GenericTypeIdParams = z.object({ type: GenericType, id: IdOrShort });
  const genericTypes = types.filter((t) => t !== 'credentials');
  const IdParams = z.object({ id: IdOrShort });
  const EntityType = z.enum([...BRAIN_TYPES, 'monitors']);
  const filterNames = [...new Set(genericTypes.flatMap((t) => Object.keys(items.def(t).filters)))];
  const ListQuery = z.object({
    ...paging(500, 50),
    q: z.string().trim().min(1).max(200).optional().describe('Substring of the name (case-insensitive)'),
    tag: z.string().trim().min(1).max(50).optional().describe('Only records carrying this tag'),
    ...Object.fromEntries(filterNames.map((f) => [f, z.string().trim().min(1).max(200).optional()
      .describe(`Filter (types: ${genericTypes.filter((t) => items.def(t).filters[f]).join(', ')})`)])),
  });
  const fieldsDoc = typeFieldsDoc(items, genericTypes);
  // An endpoint that references a credential is part of that credential's scope: binding one is an administrator's act.
  const mayBind = (ctx: RequestCtx<{ type: string }, unknown, Record<string, unknown>>, id: string | null) => {
    if (ctx.params.type !== 'endpoints' || !ctx.principal || isAdmin(ctx.principal)) return;
    const before = id ? items.get('endpoints', id) : null;
    const fields = bindingChanges(before, ctx.body, (ref) => items.findRow(ref, 'credentials')?.id);
    if (fields.length) {
      throw new HttpError(403, 'credential_binding', `Only an administrator binds a stored credential to an endpoint: ` +
        `${fields.join(', ')} would let its secrets go to other hosts (an endpoint that references a credential is part of ` +
        'the credential\'s scope, docs/vault.md)', { errors: fields.map((f) => ({ path: f, message: 'administrators only' })) });
    }
  };

  return [
    route({
      method: 'GET', path: '/api/brain/stats', scope: 'brain:read',
      summary: 'Asset counts by type (one integer per type, all seven keys)',
      response: z.object(Object.fromEntries(BRAIN_TYPES.map((t) => [t, z.number().int()]))),
      handler: () => items.stats(),
    }),

    route({
      method: 'GET', path: '/api/brain/recent', scope: 'brain:read',
      summary: 'Recently updated records across all types, newest first',
      query: z.object(paging(100, 20)),
      response: listOf(SummarySchema.extend({ created_at: z.string(), updated_at: z.string() })),
      handler: (ctx) => items.recent(ctx.query.limit, ctx.query.offset),
    }),

    route({
      method: 'GET', path: '/api/brain/search', scope: 'brain:read',
      summary: 'Full-text search across all asset types',
      description: `At most ${SEARCH_MAX} results: exact short ID first, then exact name, IP, MAC, host name, serial, asset tag or CIDR, ` +
        'then (for an IP address) the subnets containing it, longest prefix first, then full-text matches ranked by relevance.',
      query: z.object({ q: z.string().trim().min(2).max(200).describe('At least 2 characters') }),
      response: listOf(SummarySchema.extend({ snippet: z.string(), match: z.enum(['short_id', 'exact', 'subnet', 'text']) })),
      handler: (ctx) => search(ctx.app.store, ctx.query.q, items.types()),
    }),

    route({
      method: 'GET', path: '/api/brain/resolve/:sid', scope: 'brain:read',
      summary: 'Resolve a short ID to its asset type and full data',
      params: z.object({ sid: z.string().min(1).max(30).describe('Short ID such as EP-12 (case-insensitive)') }),
      response: z.object({ type: z.enum(BRAIN_TYPES), item: ItemSchema }),
      handler: (ctx) => items.resolve(ctx.params.sid),
    }),

    route({
      method: 'GET', path: '/api/brain/history/:type/:id', scope: 'brain:read',
      summary: 'Change history of an asset, newest first (also after it was deleted)',
      params: TypeIdParams, query: z.object(paging(200, 50)),
      response: listOf(HistorySchema).extend({ item: SummarySchema.extend({ deleted: z.boolean() }) }),
      handler: (ctx) => items.history(ctx.params.type, ctx.params.id, ctx.query),
    }),

    route({
      method: 'GET', path: '/api/brain/links/:type/:id', scope: 'brain:read',
      summary: 'Links of an entity, in both directions',
      description: '`:type` is an inventory type or `monitors` (with the monitor\'s UUID).',
      params: z.object({ type: EntityType, id: IdOrShort }), response: listOf(LinkSchema),
      handler: (ctx) => links.list(ctx.params.type as BrainType | 'monitors', ctx.params.id),
    }),

    route({
      method: 'POST', path: '/api/brain/links', scope: 'brain:write', status: 201,
      summary: 'Create a link between two entities',
      description: `Relations: ${RELATIONS.join(', ')} (connected_to is symmetric). Each side is an inventory record ` +
        '(UUID or short ID) or a monitor (type monitors, UUID). The same from, to and relation twice is a 409.',
      body: z.strictObject({
        from: z.strictObject({ type: EntityType, id: IdOrShort }),
        to: z.strictObject({ type: EntityType, id: IdOrShort }),
        relation: z.enum(RELATIONS),
        note: z.string().trim().max(1000).nullable().optional(),
      }),
      response: LinkSchema,
      handler: async (ctx) => reply(201, await links.create(ctx.body as Parameters<LinkService['create']>[0], actorOf(ctx))),
    }),

    route({
      method: 'DELETE', path: '/api/brain/links/:id', scope: 'brain:write',
      summary: 'Delete a link',
      params: z.object({ id: z.string().min(1).max(100) }),
      handler: async (ctx) => { await links.remove(ctx.params.id, actorOf(ctx)); return undefined; },
    }),

    route({
      method: 'GET', path: '/api/brain/endpoints/:id/monitors', scope: 'brain:read',
      summary: 'Monitors linked to an endpoint, with their current status',
      params: IdParams, response: listOf(MonitorLinkSchema),
      handler: (ctx) => links.monitorsOf('endpoints', ctx.params.id),
    }),

    route({
      method: 'GET', path: '/api/brain/applications/:id/monitors', scope: 'brain:read',
      summary: 'Monitors linked to an application, with their current status',
      params: IdParams, response: listOf(MonitorLinkSchema),
      handler: (ctx) => links.monitorsOf('applications', ctx.params.id),
    }),

    route({
      method: 'GET', path: '/api/brain/subnets/:id/v1sion-sessions', scope: 'brain:read',
      summary: 'Saved topology sessions whose networks overlap the subnet',
      description: 'Empty until the discovery module saves sessions (docs/brain.md).',
      params: IdParams,
      response: listOf(z.object({ id: z.string(), name: z.string(), networks: z.array(z.string()) }).catchall(z.unknown())),
      handler: (ctx) => {
        const row = items.mustRow('subnets', ctx.params.id);
        const cidr = subnetCidrOf(row);
        const found = cidr ? sessions.overlapping(cidr) : [];
        return { items: found, total: found.length };
      },
    }),

    route({
      method: 'GET', path: '/api/brain/subnets/:id/addresses', scope: 'brain:read',
      summary: 'The addresses inside a subnet that the inventory knows, with their endpoints, and its utilisation',
      description: 'Addresses of endpoints inside the CIDR and the gateway, in numeric order (paged), each with the endpoints ' +
        'holding it and whether it lies in a DHCP range. `used` counts them; `size` is the usable addresses (an IPv4 block ' +
        'of /30 or larger without its network and broadcast addresses); `utilisation` is used / size.',
      params: IdParams, query: z.object(paging(1000, 500)),
      response: z.object({
        cidr: z.string(), size: z.number(), used: z.number().int(), utilisation: z.number().nullable(),
        gateway: z.string().nullable(), dhcp_size: z.number(), endpoints: z.number().int(),
        items: z.array(z.object({
          address: z.string(), gateway: z.boolean(), dhcp: z.boolean(),
          endpoints: z.array(z.object({ id: z.string(), short_id: z.string(), name: z.string() })),
        })),
        total: z.number().int(),
      }),
      handler: (ctx) => subnetAddresses(ctx.app.store, items.mustRow('subnets', ctx.params.id), ctx.query),
    }),

    route({
      method: 'GET', path: '/api/brain/:type', scope: 'brain:read',
      summary: 'List assets of a type',
      description: 'Sorted by name. `q` is a name substring; the other filters apply to the types named in their description ' +
        '(a filter of another type is a 400). Reference filters accept a UUID or a short ID; subnets `contains` takes an IP address.',
      params: GenericTypeParams, query: ListQuery, response: listOf(ItemSchema),
      handler: (ctx) => items.list(ctx.params.type, ctx.query),
    }),

    route({
      method: 'POST', path: '/api/brain/:type', scope: 'brain:write', status: 201,
      summary: 'Create an asset',
      description: `Fields per type: ${fieldsDoc}. Every type also takes description, tags, custom_fields and notes. ` +
        'Unknown fields are a 400; references take a UUID or a short ID of an existing record of the right type.',
      params: GenericTypeParams, body: z.record(z.string(), z.unknown()), response: ItemSchema,
      bodySchemaFor: (p) => items.typeDef(p.type!)?.create,
      handler: async (ctx) => {
        mayBind(ctx, null);
        return reply(201, await items.create(ctx.params.type, ctx.body, actorOf(ctx)));
      },
    }),

    route({
      method: 'GET', path: '/api/brain/:type/:id', scope: 'brain:read',
      summary: 'Get an asset (by UUID or short ID)',
      params: GenericTypeIdParams, response: ItemSchema,
      handler: (ctx) => items.get(ctx.params.type, ctx.params.id),
    }),

    route({
      method: 'PUT', path: '/api/brain/:type/:id', scope: 'brain:write',
      summary: 'Update an asset (only the fields given change; null clears an optional field)',
      params: GenericTypeIdParams, body: z.record(z.string(), z.unknown()), response: ItemSchema,
      bodySchemaFor: (p) => items.typeDef(p.type!)?.update,
      handler: (ctx) => {
        mayBind(ctx, ctx.params.id);
        return items.update(ctx.params.type, ctx.params.id, ctx.body, actorOf(ctx));
      },
    }),

    route({
      method: 'DELETE', path: '/api/brain/:type/:id', scope: 'brain:write',
      summary: 'Delete an asset with its links',
      description: 'A record that others reference is a 409 listing them (`referrers`), unless `detach=true`: then those ' +
        'references are cleared and each is recorded in the referrer\'s history.',
      params: GenericTypeIdParams,
      query: z.object({ detach: z.enum(['true', 'false', '1', '0']).optional()
        .describe('Clear references to the record instead of refusing') }),
      handler: async (ctx) => {
        await items.remove(ctx.params.type, ctx.params.id, ctx.query.detach === 'true' || ctx.query.detach === '1', actorOf(ctx));
        return undefined;
      },
    }),
  ];
}
