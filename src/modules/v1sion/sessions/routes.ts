// /api/v1sion/sessions: saved topology sessions (sessions/service.ts), and the monitor parents proposed from
// one (sessions/parent-proposals.ts).
import { z } from 'zod';
import { actorOf, reply, route } from '../../../core/http/registry.js';
import { listOf, paging } from '../../../core/http/schemas.js';
import {
  EdgeInput, LIMITS, NodeInput, Position, SessionListItemSchema, SessionSchema,
} from '../schemas.js';
import { PROPOSAL_STATUSES, type ParentProposals } from './parent-proposals.js';
import type { SessionService } from './service.js';

const IdParams = z.object({ id: z.uuid() });
const Name = z.string().trim().min(1).max(LIMITS.name);
const Notes = z.string().max(LIMITS.notes);
const Subnets = z.array(z.string().max(64)).max(LIMITS.subnets).describe('CIDRs the session covers (stored canonical)');

const CreateBody = z.object({
  name: Name,
  subnets: Subnets.default([]),
  scan_job_id: z.string().min(1).max(64).optional().describe('Build the session from this scan result'),
  notes: Notes.default(''),
  nodes: z.array(NodeInput).max(LIMITS.nodes).default([]),
  edges: z.array(EdgeInput).max(LIMITS.edges).default([]),
}).strict();

const UpdateBody = z.object({
  name: Name.optional(),
  notes: Notes.optional(),
  subnets: Subnets.optional(),
  positions: z.record(z.string().max(64), Position.nullable()).optional()
    .describe('Node id -> {x, y} (null: no position); only the nodes given move'),
  add_nodes: z.array(NodeInput).max(LIMITS.nodes).optional().describe('Manual nodes: kept by every merge of a newer scan'),
  remove_nodes: z.array(z.string().max(64)).max(LIMITS.nodes).optional().describe('Node ids; their edges go with them'),
  add_edges: z.array(EdgeInput).max(LIMITS.edges).optional().describe('Manual edges (source is always manual)'),
  remove_edges: z.array(z.string().max(64)).max(LIMITS.edges).optional().describe('Edge ids'),
  merge_scan_job_id: z.uuid().optional().describe(
    'Merge a newer kept scan: nodes it finds again are updated, new ones added and marked new, nodes it no longer sees ' +
    'kept and marked missing; manual nodes and edges are never changed. On its own, without other changes'),
}).strict().refine((b) => Object.keys(b).length > 0, 'Give at least one field to change')
  .refine((b) => b.merge_scan_job_id === undefined || Object.keys(b).length === 1,
    { path: ['merge_scan_job_id'], message: 'Merge a scan on its own, without other changes in the same request' });

const ListQuery = z.object({ ...paging(500, 100), q: z.string().max(200).optional().describe('Text in the name') }).strict();

export function sessionRoutes(svc: SessionService) {
  return [
    route({
      method: 'GET', path: '/api/v1sion/sessions', scope: 'v1sion:read',
      summary: 'List sessions',
      description: 'Newest change first; node and edge counts, not the graphs.',
      query: ListQuery, response: listOf(SessionListItemSchema),
      handler: (ctx) => svc.list(ctx.query),
    }),
    route({
      method: 'POST', path: '/api/v1sion/sessions', scope: 'v1sion:write', status: 201,
      summary: 'Save a session',
      description: 'From given nodes and edges, or from a scan result (scan_job_id; 404 when the scan is not kept). ' +
        'Node addresses and MACs are stored canonical; edges must join nodes of the session.',
      body: CreateBody, response: SessionSchema,
      handler: async (ctx) => reply(201, await svc.create(ctx.body, actorOf(ctx))),
    }),
    route({
      method: 'GET', path: '/api/v1sion/sessions/:id', scope: 'v1sion:read',
      summary: 'Get a session', params: IdParams, response: SessionSchema,
      handler: (ctx) => svc.get(ctx.params.id),
    }),
    route({
      method: 'PATCH', path: '/api/v1sion/sessions/:id', scope: 'v1sion:write',
      summary: 'Update a session',
      description: 'Name, notes, subnets, node positions; manual nodes and edges added or removed; or merge a newer scan ' +
        '(merge_scan_job_id). One write: all or nothing.',
      params: IdParams, body: UpdateBody, response: SessionSchema,
      handler: (ctx) => (ctx.body.merge_scan_job_id
        ? svc.mergeScan(ctx.params.id, ctx.body.merge_scan_job_id, actorOf(ctx))
        : svc.update(ctx.params.id, ctx.body, actorOf(ctx))),
    }),
    route({
      method: 'DELETE', path: '/api/v1sion/sessions/:id', scope: 'v1sion:write',
      summary: 'Delete a session', params: IdParams,
      handler: async (ctx) => { await svc.remove(ctx.params.id, actorOf(ctx)); },
    }),
  ];
}

// ---- parent proposals --------------------------------------------------------------------------------

const Root = z.string().min(1).max(64).optional()
  .describe('The node where the probe is; by default the node holding one of the probe\'s addresses, else its gateway');
const ProposalsQuery = z.object({ root: Root }).strict();
const ApplyBody = z.object({
  monitor_ids: z.union([z.array(z.uuid()).min(1).max(LIMITS.nodes), z.literal('all')])
    .describe('The monitors whose proposal to apply, or "all": every proposal that is new or changed'),
  root: Root,
}).strict();

const MonitorRef = z.object({ id: z.string(), name: z.string() });
const TreeMonitor = z.object({ id: z.string(), name: z.string(), check_type: z.string(), address: z.string().nullable() });
const Proposal = z.object({
  monitor: TreeMonitor.describe('The monitor and the address it watches'),
  node: z.object({ id: z.string(), label: z.string() }).describe('The session node holding that address'),
  parents: z.array(MonitorRef).describe('The proposed parents (empty: nothing to propose; why says why)'),
  current: z.object({
    parents: z.array(MonitorRef),
    set_by: z.enum(['person', 'proposal']).nullable().describe('Who set the parents it has now; null: it has none'),
  }),
  status: z.enum(PROPOSAL_STATUSES).describe(
    'new: it has no parents, applying sets them; changed: an earlier proposal set other parents, applying replaces them; ' +
    'applied: it has these parents; conflict: a person set other parents, which applying never replaces; none: nothing to apply'),
  why: z.string().describe('Why these parents: where the node is behind, and whose monitor is the nearest toward the probe'),
  path: z.array(z.object({
    node_id: z.string(), label: z.string(), port: z.string().nullable(), own_port: z.string().nullable(), source: z.string().nullable(),
  })).describe('The way from the probe\'s node to this one: each step reached through port (of the step before) and own_port ' +
    '(its own), by an edge of source (lldp, cdp, fdb, manual, route)'),
});
const ProposalsSchema = z.object({
  session_id: z.string(),
  root: z.object({ node_id: z.string(), label: z.string(), why: z.string() }).nullable().describe('Where the probe is in the session'),
  problem: z.string().nullable().describe('Why nothing is proposed (the probe is not in the session), or null'),
  proposals: z.array(Proposal),
  unmatched: z.array(z.object({ monitor: TreeMonitor, why: z.string() })).describe('Monitors whose address two nodes hold'),
  counts: z.object({
    new: z.number().int(), changed: z.number().int(), applied: z.number().int(), conflict: z.number().int(), none: z.number().int(),
    not_in_session: z.number().int().describe('Monitors whose address is on no node of the session (or a name)'),
  }),
});
const ApplySchema = z.object({
  applied: z.number().int(),
  results: z.array(z.object({
    monitor_id: z.string(),
    outcome: z.enum(['applied', 'unchanged', 'kept', 'refused', 'not_proposed']).describe(
      'kept: a person set its parents; refused: a parent is gone or it would be a cycle; not_proposed: no proposal for it here'),
    message: z.string().nullable(),
  })),
});

export function parentProposalRoutes(svc: ParentProposals) {
  return [
    route({
      method: 'GET', path: '/api/v1sion/sessions/:id/parent-proposals', scope: 'v1sion:read',
      summary: 'Monitor parents proposed from a session',
      description: 'For every monitor whose address is a node of the session: the monitors of the nearest node toward the ' +
        'probe that has a ping monitor, why, and how that compares with the parents it has now. Needs monitors:read too ' +
        '(docs/discovery.md, "Monitor parents from the topology").',
      params: IdParams, query: ProposalsQuery, response: ProposalsSchema, alsoScope: 'monitors:read',
      handler: (ctx) => svc.list(ctx.params.id, ctx.query.root),
    }),
    route({
      method: 'POST', path: '/api/v1sion/sessions/:id/parent-proposals/apply', scope: 'monitors:write',
      summary: 'Apply proposed monitor parents',
      description: 'Sets the proposed parents of the monitors given (or of every new or changed proposal), never over parents ' +
        'a person set. Needs v1sion:read too; audited (monitors.parents_proposed) and in each monitor\'s event log.',
      params: IdParams, body: ApplyBody, response: ApplySchema, alsoScope: 'v1sion:read',
      handler: (ctx) => svc.apply(ctx.params.id, ctx.body.monitor_ids, ctx.body.root, actorOf(ctx)),
    }),
  ];
}
