// Request and response schemas of the discovery API shared inside the module.
import { z } from 'zod';

export const NODE_KINDS = ['router', 'switch', 'firewall', 'access_point', 'server', 'host', 'unknown'] as const;
export type NodeKind = (typeof NODE_KINDS)[number];
export const EDGE_SOURCES = ['lldp', 'cdp', 'fdb', 'manual'] as const;
export type EdgeSource = (typeof EDGE_SOURCES)[number];
/** Inventory records a topology node may stand for. */
export const INVENTORY_TYPES = ['assets', 'endpoints'] as const;

export const LIMITS = { nodes: 5000, edges: 20000, addresses: 64, subnets: 64, name: 200, notes: 10_000 } as const;

const NodeId = z.string().min(1).max(64).regex(/^[A-Za-z0-9._:@/-]+$/, 'Letters, digits and . _ : @ / - only');
const Port = z.string().min(1).max(100).nullable().default(null);
const Coordinate = z.number().min(-1e6).max(1e6);
export const Position = z.object({ x: Coordinate, y: Coordinate }).strict();

export const NodeInput = z.object({
  id: NodeId,
  label: z.string().min(1).max(LIMITS.name),
  addresses: z.array(z.string().max(64)).max(LIMITS.addresses).default([]).describe('IP addresses (stored canonical)'),
  mac: z.string().max(32).nullable().default(null),
  vendor_key: z.string().min(1).max(64).nullable().default(null).describe('The SNMP vendor profile that identified it'),
  kind: z.enum(NODE_KINDS).default('unknown'),
  inventory: z.object({ type: z.enum(INVENTORY_TYPES), id: z.string().min(1).max(64) }).strict().nullable().default(null)
    .describe('The inventory record the node stands for'),
  position: Position.nullable().default(null),
}).strict();
export type NodeInput = z.output<typeof NodeInput>;

export const EdgeInput = z.object({
  from: NodeId, to: NodeId, from_port: Port, to_port: Port,
  source: z.enum(EDGE_SOURCES).default('manual').describe('lldp, cdp, fdb (forwarding table) or manual'),
}).strict();
export type EdgeInput = z.output<typeof EdgeInput>;

export const SCAN_STATES = ['new', 'missing'] as const;
export const NodeSchema = NodeInput.extend({
  manual: z.boolean().describe('Added by a person, kept by every merge'),
  scan_state: z.enum(SCAN_STATES).nullable().describe(
    'What the last merged scan said: new (it found the node), missing (it did not see it again); null: seen, or manual'),
  facts: z.record(z.string(), z.unknown()).nullable().optional().describe(
    'What the last SSH enrichment of the device learned (hostname, OS, model, serial, interfaces, routes, neighbours, LLDP, ' +
    'services; docs/discovery.md) with ssh_target_id; null when never enriched'),
});
export const EdgeSchema = EdgeInput.extend({ id: z.string() });
export type SessionNode = z.output<typeof NodeSchema>;
export type SessionEdge = z.output<typeof EdgeSchema>;

const common = {
  id: z.string(), name: z.string(), subnets: z.array(z.string()), scan_job_id: z.string().nullable(), notes: z.string(),
  created_at: z.string(), updated_at: z.string(),
};
/** A layer-3 edge drawn from documented routes (GET only, never stored): from reaches destinations through to. */
export const L3EdgeSchema = z.object({
  id: z.string(), from: z.string(), to: z.string(), destinations: z.array(z.string()), label: z.string(),
  route_ids: z.array(z.string()), source: z.literal('route'),
});
export const SessionSchema = z.object({
  ...common, nodes: z.array(NodeSchema), edges: z.array(EdgeSchema),
  l3_edges: z.array(L3EdgeSchema).describe('Layer-3 edges from the documented routes of the nodes (/api/v1sion/routes)'),
});
export const SessionListItemSchema = z.object({ ...common, node_count: z.number().int(), edge_count: z.number().int() });
export type Session = z.output<typeof SessionSchema>;
export type SessionListItem = z.output<typeof SessionListItemSchema>;
