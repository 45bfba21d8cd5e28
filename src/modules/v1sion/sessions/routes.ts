// /api/v1sion/sessions: saved topology sessions (sessions/service.ts).
import { z } from 'zod';
import { actorOf, reply, route } from '../../../core/http/registry.js';
import { listOf, paging } from '../../../core/http/schemas.js';
import {
  EdgeInput, LIMITS, NodeInput, Position, SessionListItemSchema, SessionSchema,
} from '../schemas.js';
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
