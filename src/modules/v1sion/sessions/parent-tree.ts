// Monitor parents from a session's graph: the way from the probe to every node, and for each monitor whose
// address is a node, the nearest monitor toward the probe that says whether that way still works. Pure:
// the service (parent-proposals.ts) gives it the session, the monitors and where the probe is.
//
// - The root is the probe's own node (a node holding one of its addresses), else its gateway's node, else
//   a node a person names. The tree is the cheapest way from the root over the session's edges, walked
//   both ways: LLDP, CDP and manual edges cost 1 (a neighbour a device reports, or a cable a person drew),
//   forwarding-table edges 3 (a MAC learnt on a port: true, but a box in between may be unseen, so a way of
//   up to two more neighbour edges wins), routes 9 (layer 3: the hop is right, the way to it is not shown).
//   Ties go to the node id, so one session always gives the same tree.
// - A node answers for the way through it when it has a ping monitor (a ping says the box is reachable;
//   an HTTP or TCP monitor says a service answers, and a stopped web server must not hold back the alerts
//   of every host behind the switch). Its ping monitors are the parents of the monitors of the nodes
//   behind it, up to the next node that has one; a node without one is passed over, and the reason says so.
// - On a node with a ping monitor, its other monitors (a service on the host) get that ping as parent.
import { canonicalIp } from '../../../core/ip.js';

export type TreeEdgeSource = 'lldp' | 'cdp' | 'fdb' | 'manual' | 'route';

export interface TreeNode { id: string; label: string; addresses: readonly string[] }
export interface TreeEdge { from: string; to: string; from_port: string | null; to_port: string | null; source: TreeEdgeSource }
/** A monitor and the address it watches (canonical; null for a name), as monitorGlances() gives them. */
export interface TreeMonitor { id: string; name: string; check_type: string; address: string | null }

/** Where the probe is: its own addresses, its gateways (best first), or a node a person chose. */
export interface ProbePosition { addresses: readonly string[]; gateways: readonly string[]; node?: string | undefined }

export interface TreeRoot { node: string; label: string; why: string }

/**
 * One step of the way from the probe: `node`, reached from the step before it through `port` of that node
 * and `own_port` of this one (each when the edge says), by an edge of `source`.
 */
export interface TreeStep { node: string; label: string; port: string | null; own_port: string | null; source: TreeEdgeSource | null }

export interface ParentProposal {
  monitor: TreeMonitor;
  node: { id: string; label: string };
  /** The proposed parents (ids); empty: none to propose, `why` says why. */
  parents: TreeMonitor[];
  why: string;
  /** The way from the root to the node, root first. */
  path: TreeStep[];
}

export interface ParentTree {
  root: TreeRoot | null;
  /** Why there is no root (and so no proposal), when there is none. */
  problem: string | null;
  proposals: ParentProposal[];
  /** Monitors whose address is on no node of the session, or on more than one. */
  unmatched: { monitor: TreeMonitor; why: string }[];
}

const COST: Record<TreeEdgeSource, number> = { lldp: 1, cdp: 1, manual: 1, fdb: 3, route: 9 };
const SOURCE_TEXT: Record<TreeEdgeSource, string> = { lldp: 'LLDP', cdp: 'CDP', manual: 'drawn by hand', fdb: 'FDB', route: 'route' };
/** Check types that say a host is reachable at all. */
const REACHABILITY = new Set(['ping']);

const names = (ms: readonly TreeMonitor[]) => ms.map((m) => `"${m.name}"`).join(', ');

export function parentTree(nodes: readonly TreeNode[], edges: readonly TreeEdge[], monitors: readonly TreeMonitor[],
  position: ProbePosition): ParentTree {
  const byId = new Map(nodes.map((n) => [n.id, n]));
  const holders = new Map<string, string[]>();
  for (const n of nodes) {
    for (const a of n.addresses) {
      const ip = canonicalIp(a);
      if (!ip) continue;
      const list = holders.get(ip) ?? holders.set(ip, []).get(ip)!;
      if (!list.includes(n.id)) list.push(n.id);
    }
  }

  // Monitors by node; those on no node, or on an address two nodes claim, are unmatched.
  const onNode = new Map<string, TreeMonitor[]>();
  const unmatched: ParentTree['unmatched'] = [];
  for (const m of monitors) {
    const at = m.address ? holders.get(m.address) : undefined;
    if (!at?.length) continue; // not a node of this graph: not listed (the service counts them)
    if (at.length > 1) { unmatched.push({ monitor: m, why: `${m.address} is an address of ${at.length} nodes of the session` }); continue; }
    (onNode.get(at[0]!) ?? onNode.set(at[0]!, []).get(at[0]!)!).push(m);
  }

  const root = findRoot(byId, holders, position);
  if ('problem' in root) {
    return { root: null, problem: root.problem, proposals: [], unmatched };
  }

  // Cheapest ways from the root (Dial's buckets: costs are small integers).
  type Adjacent = { to: string; port: string | null; own_port: string | null; source: TreeEdgeSource };
  const adjacent = new Map<string, Adjacent[]>();
  const link = (a: string, b: string, port: string | null, own: string | null, source: TreeEdgeSource) => {
    if (!byId.has(a) || !byId.has(b) || a === b) return;
    (adjacent.get(a) ?? adjacent.set(a, []).get(a)!).push({ to: b, port, own_port: own, source });
  };
  for (const e of edges) {
    link(e.from, e.to, e.from_port, e.to_port, e.source);
    link(e.to, e.from, e.to_port, e.from_port, e.source);
  }
  for (const list of adjacent.values()) list.sort((x, y) => COST[x.source] - COST[y.source] || (x.to < y.to ? -1 : x.to > y.to ? 1 : 0));
  const dist = new Map<string, number>([[root.node, 0]]);
  const prev = new Map<string, { from: string; port: string | null; own_port: string | null; source: TreeEdgeSource }>();
  const buckets: string[][] = [[root.node]];
  for (let d = 0; d < buckets.length; d++) {
    const bucket = (buckets[d] ?? []).sort();
    for (const n of bucket) {
      if (dist.get(n) !== d) continue;
      for (const a of adjacent.get(n) ?? []) {
        const nd = d + COST[a.source];
        const old = dist.get(a.to);
        if (old !== undefined && old <= nd) continue;
        dist.set(a.to, nd);
        prev.set(a.to, { from: n, port: a.port, own_port: a.own_port, source: a.source });
        (buckets[nd] ??= []).push(a.to);
      }
    }
  }

  const pathTo = (id: string): TreeStep[] => {
    const steps: TreeStep[] = [];
    for (let at: string | undefined = id; at !== undefined; at = prev.get(at)?.from) {
      const p = prev.get(at);
      steps.unshift({ node: at, label: byId.get(at)!.label, port: p?.port ?? null, own_port: p?.own_port ?? null,
        source: p?.source ?? null });
    }
    return steps;
  };
  const pings = (id: string) => (onNode.get(id) ?? []).filter((m) => REACHABILITY.has(m.check_type));

  const proposals: ParentProposal[] = [];
  for (const [nodeId, ms] of [...onNode].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    const node = byId.get(nodeId)!;
    const where = (m: TreeMonitor) => `${m.address} (${node.label})`;
    if (!dist.has(nodeId)) {
      for (const m of ms) {
        proposals.push({ monitor: m, node: { id: nodeId, label: node.label }, parents: [], path: [],
          why: `${where(m)} is not joined to ${root.label} by any LLDP, CDP, FDB, hand-drawn edge or route of this session: ` +
            'no way to tell what it is behind (draw its cable on the map)' });
      }
      continue;
    }
    const path = pathTo(nodeId);
    // The nearest node toward the probe with a ping monitor, and the nodes passed over on the way.
    let upIndex = -1;
    for (let i = path.length - 2; i >= 0 && upIndex < 0; i--) if (pings(path[i]!.node).length) upIndex = i;
    const up = upIndex >= 0 ? pings(path[upIndex]!.node) : [];
    const passed = path.slice(Math.max(upIndex, 0) + 1, -1).map((s) => s.label);
    const hop = path.length > 1 ? path[path.length - 1]! : null;
    const before = path[path.length - 2]?.label;
    const behind = !hop ? `is ${root.label}, where the probe is`
      : hop.port ? `is behind ${before} port ${hop.port} (${SOURCE_TEXT[hop.source!]})`
        : `is behind ${before}${hop.own_port ? `, on its own port ${hop.own_port}` : ''} (${SOURCE_TEXT[hop.source!]})`;
    const passedText = passed.length ? `; passed over, without a ping monitor: ${passed.join(', ')}` : '';
    const own = pings(nodeId);
    for (const m of ms) {
      const base = { monitor: m, node: { id: nodeId, label: node.label }, path };
      if (!REACHABILITY.has(m.check_type) && own.length) {
        proposals.push({ ...base, parents: own,
          why: `${where(m)} is watched by ping ${names(own)} too, which says whether the host answers at all` });
      } else if (up.length) {
        proposals.push({ ...base, parents: up,
          why: `${where(m)} ${behind}; ${path[upIndex]!.label}'s ping ${names(up)} is the nearest monitor toward the probe` +
            ` (${root.label})${passedText}` });
      } else {
        proposals.push({ ...base, parents: [],
          why: `${where(m)} ${behind}: no ping monitor lies between it and the probe (${root.label})${passedText}` });
      }
    }
  }
  return { root, problem: null, proposals, unmatched };
}

function findRoot(byId: Map<string, TreeNode>, holders: Map<string, string[]>, position: ProbePosition): TreeRoot | { problem: string } {
  if (position.node !== undefined) {
    const n = byId.get(position.node);
    if (!n) return { problem: `No node "${position.node}" in this session` };
    return { node: n.id, label: n.label, why: 'the node chosen as the probe\'s place' };
  }
  const one = (ip: string) => {
    const at = holders.get(canonicalIp(ip) ?? '');
    return at?.length === 1 ? byId.get(at[0]!)! : undefined;
  };
  for (const a of position.addresses) {
    const n = one(a);
    if (n) return { node: n.id, label: n.label, why: `the probe's own address ${a} is this node` };
  }
  for (const g of position.gateways) {
    const n = one(g);
    if (n) return { node: n.id, label: n.label, why: `the probe's gateway ${g} is this node` };
  }
  return {
    problem: 'The probe is not in this session: none of its addresses' +
      (position.gateways.length ? ' nor its gateway' : '') + ' is a node of it. Choose the node where the probe is.',
  };
}
