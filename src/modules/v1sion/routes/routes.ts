// /api/v1sion/routes: documented routes, one per request (routes/service.ts). Routes read from devices
// (SNMP during a scan, SSH enrichment) are offered for import: the client posts the ones a person chose,
// with source snmp or ssh; nothing writes a route on its own.
import { z } from 'zod';
import { actorOf, reply, route } from '../../../core/http/registry.js';
import { listOf, paging } from '../../../core/http/schemas.js';
import { ROUTE_LIMITS, ROUTE_SOURCES, type RouteService } from './service.js';

const IdParams = z.object({ id: z.uuid() });

/** A session node's id, as sessions name them (schemas.ts NodeInput). */
const NodeId = z.string().min(1).max(64).regex(/^[A-Za-z0-9._:@/-]+$/, 'Letters, digits and . _ : @ / - only');

const DeviceInput = z.discriminatedUnion('type', [
  z.object({ type: z.literal('session_node'), session_id: z.uuid(), node_id: NodeId }).strict(),
  z.object({ type: z.literal('endpoint'), id: z.string().min(1).max(64).describe('UUID or short ID (EP-n)') }).strict(),
]).describe('A node of a saved session, or an inventory endpoint; it must exist');

const fields = {
  destination: z.string().min(1).max(64).describe('The network reached, as a CIDR (a bare address is a host route); ' +
    'host bits set is a 400 naming the network it probably meant'),
  next_hop: z.string().min(1).max(64).nullable().describe('The gateway, an address of the destination\'s family; null: directly connected'),
  device: DeviceInput.nullable().describe('The device that holds the route; null: not said'),
  interface: z.string().max(ROUTE_LIMITS.interface).nullable().describe('The outgoing interface, as the device names it'),
  metric: z.number().int().min(0).max(ROUTE_LIMITS.metric).nullable(),
  source: z.enum(ROUTE_SOURCES).describe('manual (typed by a person), snmp or ssh (imported from what a device said)'),
  note: z.string().max(ROUTE_LIMITS.note),
};

const CreateBody = z.object({
  destination: fields.destination,
  next_hop: fields.next_hop.default(null),
  device: fields.device.default(null),
  interface: fields.interface.default(null),
  metric: fields.metric.default(null),
  source: fields.source.default('manual'),
  note: fields.note.default(''),
}).strict();

const UpdateBody = z.object({
  destination: fields.destination.optional(),
  next_hop: fields.next_hop.optional(),
  device: fields.device.optional(),
  interface: fields.interface.optional(),
  metric: fields.metric.optional(),
  source: fields.source.optional(),
  note: fields.note.optional(),
}).strict().refine((b) => Object.values(b).some((v) => v !== undefined), 'Give at least one field to change');

const RouteDevice = z.discriminatedUnion('type', [
  z.object({ type: z.literal('session_node'), session_id: z.string(), node_id: z.string(),
    label: z.string().nullable().describe('The node\'s label; null when the node is gone since') }),
  z.object({ type: z.literal('endpoint'), id: z.string(), short_id: z.string().nullable(),
    name: z.string().nullable().describe('The endpoint\'s name; null when it is deleted since') }),
]);

const RouteSchema = z.object({
  id: z.string(), destination: z.string(), next_hop: z.string().nullable(), device: RouteDevice.nullable(),
  interface: z.string().nullable(), metric: z.number().int().nullable(), source: z.enum(ROUTE_SOURCES), note: z.string(),
  created_at: z.string(), updated_at: z.string(),
});

const ListQuery = z.object({
  ...paging(500, 100),
  q: z.string().max(200).optional().describe('Text in the destination, next hop, interface or note'),
  contains: z.string().max(64).optional().describe('Routes whose destination holds this address (the longest prefixes last)'),
  source: z.enum(ROUTE_SOURCES).optional(),
  endpoint: z.string().max(64).optional().describe('Routes of this inventory endpoint (UUID or EP-n)'),
  session_id: z.uuid().optional().describe('Routes of the nodes of this session'),
  node_id: NodeId.optional().describe('With session_id: routes of this node'),
}).strict();

export function routeRoutes(svc: RouteService) {
  return [
    route({
      method: 'GET', path: '/api/v1sion/routes', scope: 'v1sion:read',
      summary: 'List routes',
      description: 'By address family, destination and prefix length. Filters: text, an address the destination holds, source, device.',
      query: ListQuery, response: listOf(RouteSchema),
      handler: (ctx) => svc.list(ctx.query),
    }),
    route({
      method: 'POST', path: '/api/v1sion/routes', scope: 'v1sion:write', status: 201,
      summary: 'Create a route',
      description: 'One route. To import a route a scan or SSH enrichment read from a device, post it with source snmp or ssh. ' +
        'The same device, destination and next hop twice is a 409 route_exists naming the route.',
      body: CreateBody, response: RouteSchema,
      handler: async (ctx) => reply(201, await svc.create(ctx.body, actorOf(ctx))),
    }),
    route({
      method: 'PUT', path: '/api/v1sion/routes/:id', scope: 'v1sion:write',
      summary: 'Update a route (only the fields given change)',
      params: IdParams, body: UpdateBody, response: RouteSchema,
      handler: (ctx) => svc.update(ctx.params.id, ctx.body, actorOf(ctx)),
    }),
    route({
      method: 'DELETE', path: '/api/v1sion/routes/:id', scope: 'v1sion:write',
      summary: 'Delete a route', params: IdParams,
      handler: async (ctx) => { await svc.remove(ctx.params.id, actorOf(ctx)); },
    }),
  ];
}
