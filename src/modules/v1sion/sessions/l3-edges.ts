// Layer-3 edges of a session, drawn from documented routes (routes/service.ts): a route held by node A
// whose next hop is an address of node B is an edge A → B labelled with the networks A reaches through B.
// Computed when a session is read, never stored: a route changed or deleted changes the map at once. Pure.
import { canonicalIp } from '../../../core/ip.js';

/** What of a session node the edges need (SessionNode has it). */
export interface L3Node {
  id: string;
  addresses: readonly string[];
  inventory: { type: string; id: string } | null;
}

/** What of a route the edges need (routes/service.ts Route has it). */
export interface L3Route {
  id: string;
  destination: string;
  next_hop: string | null;
  device: { type: 'session_node'; session_id: string; node_id: string } | { type: 'endpoint'; id: string } | null;
}

export interface L3Edge {
  /** `l3:<from>-><to>`: stable while both nodes are there. */
  id: string;
  from: string;
  to: string;
  /** The destinations `from` reaches through `to`, in the routes' order, each once. */
  destinations: string[];
  /** The destinations for a map: up to three, then how many more ("10.1.0.0/16, 10.2.0.0/16 +3"). */
  label: string;
  route_ids: string[];
  source: 'route';
}

const LABEL_MAX = 3;

/**
 * Edges between the nodes from routes whose device is a node (of this session, when `sessionId` is given;
 * else any session's node of the same id) or an endpoint exactly one node stands for, and whose next hop
 * is an address of exactly one other node. Routes without a device or next hop, or whose ends are not
 * both found, draw nothing; a node is never joined to itself. One edge per (from, to), in first-seen order.
 */
export function layer3Edges(nodes: readonly L3Node[], routes: readonly L3Route[], sessionId?: string): L3Edge[] {
  const byId = new Map(nodes.map((n) => [n.id, n]));
  const holders = new Map<string, string[]>();
  const endpoints = new Map<string, string[]>();
  for (const n of nodes) {
    for (const a of n.addresses) {
      const ip = canonicalIp(a);
      if (ip) add(holders, ip, n.id);
    }
    if (n.inventory?.type === 'endpoints') add(endpoints, n.inventory.id.toLowerCase(), n.id);
  }
  const only = (ids: string[] | undefined) => (ids?.length === 1 ? ids[0] : undefined);

  const edges = new Map<string, L3Edge>();
  for (const r of routes) {
    if (!r.device || !r.next_hop) continue;
    let from: string | undefined;
    if (r.device.type === 'session_node') {
      if (sessionId !== undefined && r.device.session_id.toLowerCase() !== sessionId.toLowerCase()) continue;
      from = byId.has(r.device.node_id) ? r.device.node_id : undefined;
    } else {
      from = only(endpoints.get(r.device.id.toLowerCase()));
    }
    const hop = canonicalIp(r.next_hop);
    const to = hop ? only(holders.get(hop)) : undefined;
    if (!from || !to || from === to) continue;
    const id = `l3:${from}->${to}`;
    let e = edges.get(id);
    if (!e) edges.set(id, (e = { id, from, to, destinations: [], label: '', route_ids: [], source: 'route' }));
    if (!e.destinations.includes(r.destination)) e.destinations.push(r.destination);
    e.route_ids.push(r.id);
  }
  for (const e of edges.values()) {
    const more = e.destinations.length - LABEL_MAX;
    e.label = e.destinations.slice(0, LABEL_MAX).join(', ') + (more > 0 ? ` +${more}` : '');
  }
  return [...edges.values()];
}

function add(m: Map<string, string[]>, key: string, id: string): void {
  const list = m.get(key);
  if (!list) m.set(key, [id]);
  else if (!list.includes(id)) list.push(id);
}
