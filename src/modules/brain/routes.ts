// The inventory endpoints of SPEC.md, "Asset inventory" (without the vault and credentials, which plug
// in through their own TypeDef and routes). Scopes: brain:read for GET, brain:write for everything else.
import { z } from 'zod';
import { isAdmin } from '../../core/auth/index.js';
import type { Principal } from '../../core/auth/scopes.js';
import { fieldErrors, HttpError, invalid } from '../../core/errors.js';
import { mediaTypeOf, readTextBody } from '../../core/http/body.js';
import { parseGuardedJson } from '../../core/http/json-guard.js';
import { reply, route, type AnyRoute, type RequestCtx, actorOf } from '../../core/http/registry.js';
import { DEGRADED_REASONS, MONITOR_STATUSES } from '../monitors/contracts.js';
import { bindingChanges } from './credentials/scope.js';
import { listOf, paging } from '../../core/http/schemas.js';
import { BULK_MAX, bulkDelete, bulkTag } from './bulk.js';
import type { SessionSource } from './contracts.js';
import { exportCsv, exportFilename } from './csv/export.js';
import { importCsv, MAX_ROWS } from './csv/import.js';
import { parseData, type ItemRow, type ItemService } from './items.js';
import { LinkSchema, RELATIONS, type LinkService } from './links.js';
import { search, SEARCH_MAX } from './search.js';
import type { SeenAddresses } from './seen.js';
import { DISCOVERED_MAX, FREE_RANGES_MAX, subnetAddresses } from './subnet-addresses.js';
import { BRAIN_TYPES, LIMITS, SHORT_ID_PREFIX, subnetCidr, type BrainType } from './types.js';
import type { Watch } from './watch.js';

const subnetCidrOf = (row: ItemRow) => subnetCidr(parseData(row.data));



const IdOrShort = z.string().trim().min(1).max(100).describe('UUID or short ID (e.g. EP-12, case-insensitive)');

const DegradedReasonSchema = z.enum(DEGRADED_REASONS).nullable().describe('Why a degraded monitor is degraded: slow, loss, or ' +
  'failing (failed checks in a row, fewer than failure_threshold: the target did not answer); null unless degraded');

const MaintenanceSchema = z.object({ id: z.string(), name: z.string(), until: z.string() }).nullable()
  .describe('The maintenance window holding the monitor\'s alerts now (GET /api/monitors/maintenance), or null');

const WatchSchema = z.object({
  status: z.enum(MONITOR_STATUSES).nullable().describe('The worst status of its monitors (down, failing, slow or loss, unknown, up, ' +
    'paused, worst first; failing and slow are both degraded); null when none watches it'),
  degraded_reason: DegradedReasonSchema,
  failing_streak: z.number().int().nullable().describe('When the worst is failing: its failed checks in a row; else null'),
  failure_threshold: z.number().int().nullable().describe('When the worst is failing: the failed checks in a row that make it down; ' +
    'else null'),
  maintenance: MaintenanceSchema.describe('The worst monitor\'s maintenance window when one holds it (shown as "Maintenance", ' +
    'ranked just above up); else null'),
  monitors: z.number().int(),
  down: z.number().int().describe('Its monitors down outside a maintenance window'),
  in_maintenance: z.number().int().describe('Its monitors a maintenance window holds now'),
  last_seen: z.string().nullable().describe('When the probe last saw it alive: a discovery scan, or a monitor\'s answer'),
  seen_by: z.enum(['discovery', 'monitor']).nullable(),
}).describe('Endpoints only: what watches it (docs/brain.md, "What watches a record")');

export const ItemSchema = z.object({
  id: z.string(), type: z.enum(BRAIN_TYPES), short_id: z.string(), name: z.string(),
  created_at: z.string(), updated_at: z.string(), watch: WatchSchema.optional(),
}).catchall(z.unknown()).describe('An inventory record: the common fields, the type\'s own fields (see docs/brain.md), timestamps');

const MonitorLinkSchema = z.object({
  id: z.string(), name: z.string(), target: z.string(), check_type: z.string(), status: z.enum(MONITOR_STATUSES),
  degraded_reason: DegradedReasonSchema,
  failing_streak: z.number().int().describe('Consecutive failed checks now (down at failure_threshold)'),
  failure_threshold: z.number().int(),
  last_check: z.string().nullable(), response_time: z.number().nullable(),
  maintenance: MaintenanceSchema,
  address: z.string().nullable()
    .describe('The endpoint\'s address that the monitor\'s target is (found without a link); null when only linked'),
  links: z.array(z.object({ id: z.string(), relation: z.enum(RELATIONS) })).describe('The links that connect it (empty: found by address)'),
});

const SummarySchema = z.object({ type: z.enum(BRAIN_TYPES), id: z.string(), short_id: z.string(), name: z.string() });

const HistorySchema = z.object({
  id: z.number().int(), at: z.string(), actor: z.string().nullable(),
  action: z.enum(['create', 'update', 'delete', 'detach', 'link', 'unlink']),
  changes: z.record(z.string(), z.object({ from: z.unknown(), to: z.unknown() })).describe('Field-by-field diff'),
  note: z.string().nullable(),
});

const CSV_TYPES = ['text/csv', 'application/csv'];
const listed = <T>(items: T[]) => ({ items, total: items.length });
const ImportQuery = z.strictObject({
  dry_run: z.enum(['true', 'false', '1', '0']).optional().describe('true: say what the import would do, change nothing'),
});
const ImportBody = z.strictObject({ csv: z.string().describe('The CSV text (as a text/csv body would carry it)') });
const ImportResultSchema = z.object({
  type: z.enum(BRAIN_TYPES), dry_run: z.boolean(),
  created: z.number().int(), updated: z.number().int(), unchanged: z.number().int(), refused: z.number().int(),
  rows: z.array(z.object({
    line: z.number().int().describe('The line of the file the row starts on (the header is line 1)'),
    action: z.enum(['create', 'update', 'unchanged', 'refused']),
    id: z.string().nullable(), name: z.string().nullable(),
    short_id: z.string().nullable().describe('For a dry run: the short ID it would get'),
    fields: z.array(z.string()).optional().describe('The fields an update changes'),
    code: z.string().optional(), detail: z.string().optional(),
    errors: z.array(z.object({ path: z.string(), message: z.string() })).optional().describe('Why a row is refused, by column'),
  })),
});
const Tag = z.string().trim().min(1).max(LIMITS.tag);
const BulkIds = z.array(z.string().trim().min(1).max(100)).min(1).max(BULK_MAX).describe(`UUIDs or short IDs, at most ${BULK_MAX}`);
const BulkDeleteBody = z.strictObject({
  ids: BulkIds, detach: z.boolean().optional().describe('Clear references to the records instead of refusing (409)'),
});
const BulkTagBody = z.strictObject({
  ids: BulkIds, add: z.array(Tag).max(LIMITS.tags).default([]), remove: z.array(Tag).max(LIMITS.tags).default([]),
}).superRefine((b, ctx) => {
  if (!b.add.length && !b.remove.length) ctx.addIssue({ code: 'custom', path: ['add'], message: 'Give tags to add or to remove' });
});
const BulkDeleteResult = z.object({ deleted: z.number().int(), items: z.array(SummarySchema) });
const BulkTagResult = z.object({
  updated: z.number().int(), unchanged: z.number().int(), items: z.array(SummarySchema.extend({ tags: z.array(z.string()) })),
});

/** The text of an import: a text/csv body, or JSON {csv}. */
async function importText(ctx: RequestCtx): Promise<string> {
  const limit = ctx.app.config.get().http.json_limit_kb * 1024;
  const text = await readTextBody(ctx.req, limit, [...CSV_TYPES, 'application/json'], 'the import');
  if (CSV_TYPES.includes(mediaTypeOf(ctx.req))) return text;
  const r = ImportBody.safeParse(parseGuardedJson(text));
  if (!r.success) throw invalid('import', fieldErrors(r.error.issues));
  return r.data.csv;
}

/** Binding an endpoint to a stored credential is an administrator's act (it widens where the secrets may go). */
function refuseBinding(items: ItemService, principal: Principal | null, type: string, id: string | null,
  body: Record<string, unknown>): void {
  if (type !== 'endpoints' || !principal || isAdmin(principal)) return;
  const before = id ? items.get('endpoints', id) : null;
  const fields = bindingChanges(before, body, (ref) => items.findRow(ref, 'credentials')?.id);
  if (fields.length) {
    throw new HttpError(403, 'credential_binding', `Only an administrator binds a stored credential to an endpoint: ` +
      `${fields.join(', ')} would let its secrets go to other hosts (an endpoint that references a credential is part of ` +
      'the credential\'s scope, docs/vault.md)', { errors: fields.map((f) => ({ path: f, message: 'administrators only' })) });
  }
}

/**
 * The list's CSV export, the import, bulk delete and bulk tag of one type or of `:type`, declared here for the
 * generic types and (with the admin rule their writes need) for credentials.
 */
function listActions(items: ItemService, watch: Watch, type: { path: string; params?: z.ZodType; of: (ctx: RequestCtx) => BrainType },
  write: { scope: 'brain:write' } | { admin: true }, exportQuery: z.ZodType): AnyRoute[] {
  const tag = 'brain';
  return [
    route({
      method: 'GET', path: `${type.path}/export.csv`, scope: 'brain:read', tag, produces: 'text/csv',
      params: type.params, query: exportQuery,
      summary: 'The list as a CSV download (the list\'s filters, every page)',
      description: 'RFC 4180 with a header row: id, short_id, name, the type\'s fields, read-only figures (endpoints: status, ' +
        'last_seen), created_at, updated_at. A list is "a, b" (JSON when an item holds a comma), custom fields and DHCP ranges ' +
        'JSON, a reference the name of the record (its short ID when the name is not unique). Cells a spreadsheet would run as ' +
        'a formula get a leading single quote. Secrets are never exported.',
      handler: (ctx) => {
        const t = type.of(ctx);
        const { csv } = exportCsv(items, ctx.app.store, t, ctx.query as Record<string, unknown>, (page) => watch.shownAll(page));
        ctx.res.writeHead(200, {
          'Content-Type': 'text/csv; charset=utf-8', 'Cache-Control': 'no-store', 'Content-Length': String(Buffer.byteLength(csv)),
          'Content-Disposition': `attachment; filename="${exportFilename(t, ctx.app.clock.now())}"`,
        }).end(csv);
      },
    }),
    route({
      method: 'POST', path: `${type.path}/import`, ...write, tag, rawBody: true, consumes: CSV_TYPES, body: ImportBody,
      params: type.params, query: ImportQuery, response: ImportResultSchema,
      summary: 'Import records from CSV; dry_run=true says what would be created, updated and refused, and why',
      description: `A text/csv body or JSON {csv}, at most http.json_limit_kb and ${MAX_ROWS} rows. The first row names columns ` +
        '(an export\'s; an unknown one is a 400). A row whose id names a record of the type updates it (an empty cell clears a ' +
        'field); any other row creates one. Each row is validated as the API\'s create or update; a refused row (its field ' +
        'errors by column) leaves the others to be imported. References take a UUID, a short ID or a unique name. Audited once.',
      handler: async (ctx) => {
        const t = type.of(ctx);
        const dryRun = ctx.query.dry_run === 'true' || ctx.query.dry_run === '1';
        return importCsv(items, ctx.app.store, t, await importText(ctx), {
          dryRun, by: actorOf(ctx), guard: (id, body) => refuseBinding(items, ctx.principal, t, id, body),
        });
      },
    }),
    route({
      method: 'POST', path: `${type.path}/bulk-delete`, ...write, tag, params: type.params, body: BulkDeleteBody,
      response: BulkDeleteResult,
      summary: `Delete several records at once (at most ${BULK_MAX}) with their links`,
      description: 'All or none: a record others reference is a 409 naming them all (`referenced`), unless detach=true clears ' +
        'those references. Each record\'s history notes the bulk delete; one audit entry (brain.bulk_delete) lists the short IDs.',
      handler: (ctx) => bulkDelete(items, ctx.app.store, type.of(ctx), ctx.body.ids, ctx.body.detach === true, actorOf(ctx)),
    }),
    route({
      method: 'POST', path: `${type.path}/bulk-tag`, ...write, tag, params: type.params, body: BulkTagBody,
      response: BulkTagResult,
      summary: `Add and remove tags on several records at once (at most ${BULK_MAX})`,
      description: `All or none: a record that would carry more than ${LIMITS.tags} tags is a 400 naming it. Each changed record's ` +
        'history notes the bulk tag; one audit entry (brain.bulk_tag).',
      handler: (ctx) => bulkTag(items, ctx.app.store, type.of(ctx), ctx.body.ids, ctx.body, actorOf(ctx)),
    }),
  ];
}

function typeFieldsDoc(items: ItemService, types: readonly BrainType[]): string {
  return types.map((t) => {
    const d = items.def(t);
    const refs = d.refs.map((r) => `${r.field} -> ${r.type}`).join(', ');
    return `${t} (${SHORT_ID_PREFIX[t]}): name, ${d.fields.join(', ')}${refs ? `; references ${refs}` : ''}`;
  }).join('. ');
}

export interface BrainRouteDeps { items: ItemService; links: LinkService; sessions: SessionSource; watch: Watch; seen: SeenAddresses }

export function brainRoutes({ items, links, sessions, watch, seen }: BrainRouteDeps): AnyRoute[] {
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
  const mayBind = (ctx: RequestCtx<{ type: string }, unknown, Record<string, unknown>>, id: string | null) =>
    refuseBinding(items, ctx.principal, ctx.params.type, id, ctx.body);
  const ExportQuery = ListQuery.omit({ limit: true, offset: true });
  const CredentialExportQuery = z.object({
    q: z.string().trim().min(1).max(200).optional(), tag: z.string().trim().min(1).max(50).optional(),
    kind: z.string().trim().min(1).max(50).optional(),
  });

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
      handler: (ctx) => { const r = items.resolve(ctx.params.sid); return { ...r, item: watch.shown(r.item) }; },
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
      summary: 'The monitors of an endpoint: those whose target is one of its addresses, and those linked to it',
      description: 'Each monitor once, by name, with its current status: `address` when its target is one of the endpoint\'s ' +
        'addresses (no link needed), `links` when linked (for targets given as names or URLs).',
      params: IdParams, response: listOf(MonitorLinkSchema),
      handler: (ctx) => listed(watch.monitorsOf(items.mustRow('endpoints', ctx.params.id))),
    }),

    route({
      method: 'GET', path: '/api/brain/applications/:id/monitors', scope: 'brain:read',
      summary: 'Monitors linked to an application, with their current status',
      params: IdParams, response: listOf(MonitorLinkSchema),
      handler: (ctx) => listed(watch.monitorsOf(items.mustRow('applications', ctx.params.id))),
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
      summary: 'The addresses inside a subnet: those the inventory knows, those discovery found alive, and the free ones',
      description: 'Addresses of endpoints inside the CIDR and the gateway, in numeric order (paged), each with the endpoints ' +
        'holding it, whether it lies in a DHCP range and when discovery last found it alive. `used` counts them; `size` is the ' +
        'usable addresses (an IPv4 block of /30 or larger without its network and broadcast addresses); `utilisation` is used / ' +
        `size. \`discovered\`: addresses discovery scans found alive that no endpoint has (at most ${DISCOVERED_MAX}); \`free\`: ` +
        `the usable addresses neither documented nor found alive, as ranges split at DHCP range edges (at most ${FREE_RANGES_MAX}).`,
      params: IdParams, query: z.object(paging(1000, 500)),
      response: z.object({
        cidr: z.string(), size: z.number(), used: z.number().int(), utilisation: z.number().nullable(),
        gateway: z.string().nullable(), dhcp_size: z.number(), endpoints: z.number().int(),
        items: z.array(z.object({
          address: z.string(), gateway: z.boolean(), dhcp: z.boolean(),
          endpoints: z.array(z.object({ id: z.string(), short_id: z.string(), name: z.string() })),
          last_seen: z.string().nullable(),
        })),
        total: z.number().int(),
        discovered: listOf(z.object({
          address: z.string(), mac: z.string().nullable(), hostname: z.string().nullable(), vendor: z.string().nullable(),
          dhcp: z.boolean(), first_seen: z.string(), last_seen: z.string(),
        })),
        free: z.object({
          size: z.number().describe('Free usable addresses'), total: z.number().int().describe('Free ranges'),
          ranges: z.array(z.object({ start: z.string(), end: z.string(), size: z.number(), dhcp: z.boolean() })),
        }),
      }),
      handler: (ctx) => subnetAddresses(ctx.app.store, items.mustRow('subnets', ctx.params.id), ctx.query, seen),
    }),

    ...listActions(items, watch, { path: '/api/brain/:type', params: GenericTypeParams, of: (ctx) => ctx.params.type as BrainType },
      { scope: 'brain:write' }, ExportQuery),
    ...listActions(items, watch, { path: '/api/brain/credentials', of: () => 'credentials' }, { admin: true }, CredentialExportQuery),

    route({
      method: 'GET', path: '/api/brain/:type', scope: 'brain:read',
      summary: 'List assets of a type',
      description: 'Sorted by name. `q` is a name substring; the other filters apply to the types named in their description ' +
        '(a filter of another type is a 400). Reference filters accept a UUID or a short ID; subnets `contains` takes an IP address.',
      params: GenericTypeParams, query: ListQuery, response: listOf(ItemSchema),
      handler: (ctx) => { const r = items.list(ctx.params.type, ctx.query); return { ...r, items: watch.shownAll(r.items) }; },
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
        return reply(201, watch.shown(await items.create(ctx.params.type, ctx.body, actorOf(ctx))));
      },
    }),

    route({
      method: 'GET', path: '/api/brain/:type/:id', scope: 'brain:read',
      summary: 'Get an asset (by UUID or short ID)',
      params: GenericTypeIdParams, response: ItemSchema,
      handler: (ctx) => watch.shown(items.get(ctx.params.type, ctx.params.id)),
    }),

    route({
      method: 'PUT', path: '/api/brain/:type/:id', scope: 'brain:write',
      summary: 'Update an asset (only the fields given change; null clears an optional field)',
      params: GenericTypeIdParams, body: z.record(z.string(), z.unknown()), response: ItemSchema,
      bodySchemaFor: (p) => items.typeDef(p.type!)?.update,
      handler: async (ctx) => {
        mayBind(ctx, ctx.params.id);
        return watch.shown(await items.update(ctx.params.type, ctx.params.id, ctx.body, actorOf(ctx)));
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
