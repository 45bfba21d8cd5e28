// /api/v1sion/brain: the inventory bridge (brain/service.ts). Discovered devices against the inventory:
// diff, matches, auto-match, link, bulk-link, create, bulk-create, and light lists of endpoints and applications
// for the topology canvas's pickers.
//
// A discovered device is named the same way everywhere: the body names its source, exactly one of
// `scan_job_id` (a kept scan result) or `session_id` (a saved session), and `device_id` the device in
// it (a scan's device id such as "d3", or a session's node id). Besides the v1sion scope a route
// declares, these routes read (brain:read) or write (brain:write) the inventory, and check that too.
import { z } from 'zod';
import { denyReason, type Scope } from '../../../core/auth/scopes.js';
import { forbidden } from '../../../core/errors.js';
import { actorOf, reply, route, type RequestCtx } from '../../../core/http/registry.js';
import { listOf, paging } from '../../../core/http/schemas.js';
import { LIMITS } from '../schemas.js';
import { INVENTORY_TYPES, MATCH_REASONS } from './match.js';
import type { BridgeService } from './service.js';

const MAX_ITEMS = LIMITS.nodes;

const sourceFields = {
  scan_job_id: z.uuid().optional().describe('A kept scan result (GET /api/v1sion/scan/:job_id/result)'),
  session_id: z.uuid().optional().describe('A saved session (its nodes that a scan found)'),
};

/** A body with exactly one source. */
function withSource<T extends z.ZodRawShape>(shape: T) {
  return z.object({ ...sourceFields, ...shape }).strict().superRefine((body, ctx) => {
    const b = body as { scan_job_id?: string; session_id?: string };
    const given = (b.scan_job_id !== undefined ? 1 : 0) + (b.session_id !== undefined ? 1 : 0);
    if (given !== 1) {
      ctx.addIssue({ code: 'custom', path: [b.session_id !== undefined ? 'session_id' : 'scan_job_id'],
        message: 'Give exactly one of scan_job_id or session_id' });
    }
  });
}

const DeviceId = z.string().min(1).max(64).describe('The device in the source: a scan\'s device id (d3) or a session\'s node id');
const InventoryRef = z.object({
  type: z.enum(INVENTORY_TYPES), id: z.string().trim().min(1).max(64).describe('UUID or short ID (EP-12, AS-3)'),
}).strict();

const LinkFields = {
  device_id: DeviceId,
  inventory: InventoryRef.describe('The existing record the device is'),
  apply_fields: z.boolean().optional().describe(
    'Write the fields discovery owns that differ (default true); hand-set fields are never written'),
};
const CreateFields = {
  device_id: DeviceId,
  type: z.enum(INVENTORY_TYPES).optional().describe('endpoints (default) or assets'),
  name: z.string().trim().min(1).max(200).optional().describe('Default: the device\'s name'),
  role: z.string().trim().min(1).max(50).optional().describe('Endpoint role; default from the device\'s kind'),
  site_id: z.string().trim().min(1).max(64).optional().describe('Default: the site of the inventory subnet holding its address'),
  location_id: z.string().trim().min(1).max(64).optional(),
  force: z.boolean().optional().describe('Create even when the device matches a record (a possible duplicate)'),
};

const DiffBody = withSource({});
const AutoMatchBody = withSource({ apply: z.boolean().default(false).describe('Link the certain pairings') });
const LinkBody = withSource(LinkFields);
const BulkLinkBody = withSource({ items: z.array(z.object(LinkFields).strict()).min(1).max(MAX_ITEMS) });
const CreateBody = withSource(CreateFields);
const BulkCreateBody = withSource({ items: z.array(z.object(CreateFields).strict()).min(1).max(MAX_ITEMS) });

const MatchesQuery = withSource({});

const PickerQuery = z.object({
  ...paging(500, 50),
  q: z.string().trim().max(200).optional().describe('Text in the name, short ID or host name; an address prefix; a MAC (empty: all)'),
  session_id: z.uuid().optional().describe('linked_node: the node of this session (default: the most recently changed session)'),
}).strict();

// ---- responses (OpenAPI) ----------------------------------------------------------------------------

const Ref = z.object({ type: z.enum(INVENTORY_TYPES), id: z.string(), short_id: z.string(), name: z.string() });
const Reason = z.enum(MATCH_REASONS);
const Device = z.object({
  device_id: z.string(), device_ids: z.array(z.string()), name: z.string(), kind: z.string(), addresses: z.array(z.string()),
  macs: z.array(z.string()), hostnames: z.array(z.string()), vendor: z.string().nullable(), vendor_from_mac: z.boolean(),
  model: z.string().nullable(), serial: z.string().nullable(), asset_tag: z.string().nullable(), os: z.string().nullable(),
  os_version: z.string().nullable(), engine_id: z.string().nullable(), chassis_id: z.string().nullable(),
  sys_name: z.string().nullable(), seen: z.enum(['scan', 'neighbour']),
  inventory: z.object({ type: z.enum(INVENTORY_TYPES), id: z.string() }).nullable(),
});
const PairingSchema = z.object({
  device_id: z.string(), inventory: Ref, reason: Reason, matched_on: z.string(), confidence: z.number(), certain: z.boolean(),
  agrees: z.array(Reason), conflicts: z.array(z.string()), related: z.array(Ref),
});
const CandidateSchema = Ref.extend({ reason: Reason, matched_on: z.string(), note: z.string().nullable() });
const FieldChangeSchema = z.object({
  field: z.string(), inventory: z.unknown(), discovered: z.unknown(), hand_set: z.boolean(), writes: z.boolean(),
});
const SourceSchema = z.object({
  type: z.enum(['scan', 'session']), id: z.string(), name: z.string().nullable(), subnets: z.array(z.string()),
  seen_at: z.string(), scan_job_id: z.string().nullable(), devices: z.number().int(),
});
const DiffResponse = z.object({
  source: SourceSchema,
  counts: z.object({ new: z.number(), changed: z.number(), unchanged: z.number(), missing: z.number(), certain: z.number(),
    candidates: z.number() }),
  items: z.array(z.object({
    status: z.enum(['new', 'changed', 'unchanged']), device: Device, linked: z.boolean(), match: PairingSchema.nullable(),
    candidates: z.array(CandidateSchema), changes: z.array(FieldChangeSchema),
  })),
  missing: z.array(z.object({ inventory: Ref, addresses: z.array(z.string()), last_seen: z.string().nullable(), linked: z.boolean() })),
});
const ItemResultSchema = z.object({
  device_id: z.string().describe('As the request named it'), device_ids: z.array(z.string()).describe('Every id of that device'),
  status: z.enum(['linked', 'created', 'skipped']), inventory: Ref.nullable(),
  written: z.array(FieldChangeSchema), kept: z.array(FieldChangeSchema), relinked_from: Ref.nullable(),
  code: z.string().optional(), reason: z.string().optional(),
  errors: z.array(z.object({ path: z.string(), message: z.string() })).optional(),
  record: z.record(z.string(), z.unknown()).optional().describe('The record made (create)'),
});
const BulkResponse = z.object({
  source: SourceSchema, counts: z.object({ linked: z.number(), created: z.number(), skipped: z.number() }),
  items: z.array(ItemResultSchema),
});
const AutoMatchResponse = z.object({
  source: SourceSchema, apply: z.boolean(),
  counts: z.object({ certain: z.number(), left: z.number(), unmatched: z.number(), linked: z.number(), skipped: z.number() }),
  items: z.array(PairingSchema.extend({ linked: z.boolean(), result: ItemResultSchema.nullable() })),
  left: z.array(PairingSchema.extend({ linked: z.boolean() })),
});
const MatchesResponse = z.object({
  source: SourceSchema,
  items: z.array(z.object({
    device_id: z.string(), device_ids: z.array(z.string()), addresses: z.array(z.string()), inventory: Ref,
    linked: z.boolean().describe('Tied to the record (by identity, or on the session node); false: matched only, for a person to confirm'),
    reason: Reason, matched_on: z.string(), confidence: z.number(), certain: z.boolean(),
  })).describe('Only the devices a record stands for; for a session also its linked nodes that are not discovered devices'),
});
const LinkedNode = z.object({ session_id: z.string(), node_id: z.string() }).nullable();
const EndpointPick = z.object({
  id: z.string(), short_id: z.string(), name: z.string(), hostname: z.string().nullable(), role: z.string().nullable(),
  addresses: z.array(z.string()), macs: z.array(z.string()), linked_node: LinkedNode, last_seen: z.string().nullable(),
});
const ApplicationPick = z.object({
  id: z.string(), short_id: z.string(), name: z.string(), url: z.string().nullable(), criticality: z.string().nullable(),
  endpoints: z.array(z.object({ id: z.string(), short_id: z.string(), name: z.string() })),
  addresses: z.array(z.string()), macs: z.array(z.string()), linked_node: LinkedNode,
});

/** The inventory scope these routes need besides their own (a v1sion-only key must not write the inventory). */
function needInventory(ctx: RequestCtx, scope: Extract<Scope, 'brain:read' | 'brain:write'>): void {
  const why = ctx.principal ? denyReason(ctx.principal, { scope }) : `needs ${scope}`;
  if (why) throw forbidden(`${why}: the inventory bridge ${scope === 'brain:read' ? 'reads' : 'writes'} the inventory (${scope})`);
}

const src = (b: { scan_job_id?: string | undefined; session_id?: string | undefined }) =>
  ({ scan_job_id: b.scan_job_id, session_id: b.session_id });

export function bridgeRoutes(svc: BridgeService) {
  return [
    route({
      method: 'POST', path: '/api/v1sion/brain/diff', scope: 'v1sion:write',
      summary: 'Discovered devices against the inventory',
      description: 'Every device of the source is new, changed (the owned fields that differ, inventory value beside discovered ' +
        'value, hand-set ones marked) or unchanged; every inventory endpoint inside the source\'s subnets that nothing matched is ' +
        'missing, with when discovery last saw it. Writes nothing. Needs brain:read too.',
      body: DiffBody, response: DiffResponse,
      handler: (ctx) => { needInventory(ctx, 'brain:read'); return svc.diff(src(ctx.body)); },
    }),
    route({
      method: 'GET', path: '/api/v1sion/brain/matches', scope: 'v1sion:read',
      summary: 'The inventory record each discovered device stands for',
      description: 'For each device of the source (scan_job_id or session_id) that a record stands for: the record (name, short ' +
        'ID), whether it is linked or only matched (with the reason, the value and the confidence), and its addresses. Names a ' +
        'map\'s nodes and a scan\'s hosts by their inventory names; the diff compares the fields. Writes nothing. Needs brain:read too.',
      query: MatchesQuery, response: MatchesResponse,
      handler: (ctx) => { needInventory(ctx, 'brain:read'); return svc.matches(src(ctx.query)); },
    }),
    route({
      method: 'POST', path: '/api/v1sion/brain/auto-match', scope: 'v1sion:write',
      summary: 'Certain pairings of discovered devices and inventory records',
      description: 'Pairings by existing link, asset tag or serial, MAC, engine ID, management address, name (unique hits only), ' +
        'each with its reason and confidence; the certain ones in items, the rest in left for a person. apply: true links the ' +
        'certain ones (writing the owned fields that are not hand-set). Needs brain:read, and brain:write to apply.',
      body: AutoMatchBody, response: AutoMatchResponse,
      handler: (ctx) => {
        needInventory(ctx, ctx.body.apply ? 'brain:write' : 'brain:read');
        return svc.autoMatch(src(ctx.body), ctx.body.apply, actorOf(ctx));
      },
    }),
    route({
      method: 'POST', path: '/api/v1sion/brain/link', scope: 'v1sion:write',
      summary: 'Link a discovered device to an inventory record',
      description: 'Ties the device to an existing endpoint or asset (by its identity, and on the session\'s node) and writes the ' +
        'owned fields that differ, never a hand-set one. 404 for an unknown source, device or record. Needs brain:write.',
      body: LinkBody, response: ItemResultSchema,
      handler: (ctx) => {
        needInventory(ctx, 'brain:write');
        return svc.link(src(ctx.body), ctx.body, actorOf(ctx));
      },
    }),
    route({
      method: 'POST', path: '/api/v1sion/brain/bulk-link', scope: 'v1sion:write',
      summary: 'Link many discovered devices',
      description: 'One answer per item, in order: linked, or skipped with a code and reason (an unknown device or record); ' +
        'an item is written whole or not at all. Needs brain:write.',
      body: BulkLinkBody, response: BulkResponse,
      handler: (ctx) => { needInventory(ctx, 'brain:write'); return svc.bulkLink(src(ctx.body), ctx.body.items, actorOf(ctx)); },
    }),
    route({
      method: 'POST', path: '/api/v1sion/brain/create', scope: 'v1sion:write', status: 201,
      summary: 'Make an inventory record from a discovered device',
      description: 'An endpoint (default) or asset with the device\'s addresses, MACs, vendor, model, serial and OS and the site ' +
        'of its subnet, linked to the device. 409 already_linked, or possible_duplicate when it matches a record (force: true ' +
        'creates anyway). Needs brain:write.',
      body: CreateBody, response: ItemResultSchema,
      handler: async (ctx) => {
        needInventory(ctx, 'brain:write');
        return reply(201, await svc.create(src(ctx.body), ctx.body, actorOf(ctx)));
      },
    }),
    route({
      method: 'POST', path: '/api/v1sion/brain/bulk-create', scope: 'v1sion:write',
      summary: 'Make inventory records from many discovered devices',
      description: 'One answer per item, in order: created, or skipped with a code and reason (already linked, a possible ' +
        'duplicate, an invalid override); an item is written whole or not at all. Needs brain:write.',
      body: BulkCreateBody, response: BulkResponse,
      handler: (ctx) => { needInventory(ctx, 'brain:write'); return svc.bulkCreate(src(ctx.body), ctx.body.items, actorOf(ctx)); },
    }),
    route({
      method: 'GET', path: '/api/v1sion/brain/endpoints', scope: 'v1sion:read',
      summary: 'Endpoints for a picker',
      description: 'id, short ID, name, addresses, MACs and the session node linked to each; q searches, sorted by name. ' +
        'Needs brain:read too.',
      query: PickerQuery, response: listOf(EndpointPick),
      handler: (ctx) => { needInventory(ctx, 'brain:read'); return svc.endpoints(ctx.query); },
    }),
    route({
      method: 'GET', path: '/api/v1sion/brain/applications', scope: 'v1sion:read',
      summary: 'Applications for a picker',
      description: 'id, short ID, name, URL, the endpoints each runs on with their addresses and MACs, and a session node ' +
        'linked to one of them; q searches, sorted by name. Needs brain:read too.',
      query: PickerQuery, response: listOf(ApplicationPick),
      handler: (ctx) => { needInventory(ctx, 'brain:read'); return svc.applications(ctx.query); },
    }),
  ];
}
