// Saved topology sessions: what a person keeps of a scan (or draws by hand), with node positions, manual
// nodes and edges, and notes. Nodes and edges are rows (v1sion_session_nodes/edges), so moving nodes
// writes only their positions. Every change is a 'sync' write. The inventory lists the sessions that
// overlap a subnet through the SessionSource this service provides.
import { randomUUID } from 'node:crypto';
import type { Actor } from '../../../core/audit/types.js';
import type { AppContext } from '../../../core/context.js';
import { invalid, notFound, type FieldError } from '../../../core/errors.js';
import { canonicalIp, cidrContains, cidrOverlaps, formatCidr, normaliseMac, parseCidr, parseIp, type Cidr } from '../../../core/ip.js';
import type { Tx } from '../../../core/store/types.js';
import { iso } from '../../../core/clock.js';
import { brainServicesOf, type SessionSummary } from '../../brain/index.js';
import {
  LIMITS, type EdgeInput, type NodeInput, type Session, type SessionEdge, type SessionListItem, type SessionNode,
} from '../schemas.js';
import type { ScanResult } from '../scan/result.js';
import { graphOf } from './from-scan.js';
import { layer3Edges, type L3Route } from './l3-edges.js';

export interface CreateSession {
  name: string;
  subnets: string[];
  scan_job_id?: string | undefined;
  notes: string;
  nodes: NodeInput[];
  edges: EdgeInput[];
}

export interface UpdateSession {
  name?: string | undefined;
  notes?: string | undefined;
  subnets?: string[] | undefined;
  positions?: Record<string, { x: number; y: number } | null> | undefined;
  add_nodes?: NodeInput[] | undefined;
  remove_nodes?: string[] | undefined;
  add_edges?: EdgeInput[] | undefined;
  remove_edges?: string[] | undefined;
}

interface SessionRow {
  id: string; name: string; subnets: string; scan_job_id: string | null; notes: string; created_at: number; updated_at: number;
}
interface NodeRow {
  id: string; label: string; addresses: string; mac: string | null; vendor_key: string | null; kind: SessionNode['kind'];
  inventory_type: 'assets' | 'endpoints' | null; inventory_id: string | null; x: number | null; y: number | null; manual: number;
  scan_state: 'new' | 'missing' | null; facts?: string | null;
}
interface EdgeRow {
  id: string; from_node: string; to_node: string; from_port: string | null; to_port: string | null; source: SessionEdge['source'];
}

/** What a merge did: nodes added as new, not seen (of which newly so), found again changed, links added. */
export interface MergeCounts {
  new_nodes: number; missing_nodes: number; newly_missing: number; updated_nodes: number; added_edges: number;
  /** Whether anything was written (a quiet merge that changed nothing writes nothing). */
  wrote: boolean;
}

const SESSION_COLUMNS = 'id, name, subnets, scan_job_id, notes, created_at, updated_at';

/** Where kept scan results are read (the scan service). */
export interface ScanResultSource { load(jobId: string): Promise<ScanResult | undefined> }

export class SessionService {
  constructor(private readonly app: AppContext, private readonly scans: ScanResultSource,
    private readonly routesOf: (sessionId: string, endpointIds: string[]) => L3Route[] = () => []) {}

  list(q: { limit: number; offset: number; q?: string | undefined }): { items: SessionListItem[]; total: number } {
    const where = q.q ? 'WHERE instr(lower(s.name), lower(?)) > 0' : '';
    const args = q.q ? [q.q] : [];
    const total = this.app.store.get<{ n: number }>(`SELECT count(*) AS n FROM v1sion_sessions s ${where}`, args)?.n ?? 0;
    const rows = this.app.store.all<SessionRow & { node_count: number; edge_count: number }>(
      `SELECT ${SESSION_COLUMNS.split(', ').map((c) => `s.${c}`).join(', ')},
         (SELECT count(*) FROM v1sion_session_nodes n WHERE n.session_id = s.id) AS node_count,
         (SELECT count(*) FROM v1sion_session_edges e WHERE e.session_id = s.id) AS edge_count
       FROM v1sion_sessions s ${where} ORDER BY s.updated_at DESC, s.id LIMIT ? OFFSET ?`, [...args, q.limit, q.offset]);
    return { items: rows.map((r) => ({ ...sessionOut(r), node_count: r.node_count, edge_count: r.edge_count })), total };
  }

  get(id: string): Session {
    const row = this.app.store.get<SessionRow>(`SELECT ${SESSION_COLUMNS} FROM v1sion_sessions WHERE id = ?`, [id.toLowerCase()]);
    if (!row) throw notFound('Session');
    const nodes = this.app.store.all<NodeRow>('SELECT * FROM v1sion_session_nodes WHERE session_id = ? ORDER BY id', [row.id]);
    const edges = this.app.store.all<EdgeRow>('SELECT * FROM v1sion_session_edges WHERE session_id = ? ORDER BY id', [row.id]);
    const out = nodes.map(nodeOut);
    const endpoints = out.flatMap((n) => (n.inventory?.type === 'endpoints' ? [n.inventory.id] : []));
    return {
      ...sessionOut(row), nodes: out, edges: edges.map(edgeOut),
      l3_edges: layer3Edges(out, this.routesOf(row.id, endpoints), row.id),
    };
  }

  exists(id: string): boolean {
    return !!this.app.store.get('SELECT 1 AS x FROM v1sion_sessions WHERE id = ?', [id.toLowerCase()]);
  }

  async create(body: CreateSession, by: Actor): Promise<Session> {
    let given = { nodes: body.nodes, edges: body.edges, subnets: body.subnets };
    if (body.scan_job_id !== undefined) {
      // The kept result (the newest scans are kept) as the graph; nodes and edges given beside it are added.
      const result = await this.scans.load(body.scan_job_id);
      if (!result) throw notFound(`Scan result ${body.scan_job_id}`);
      const graph = graphOf(result);
      const taken = new Set(body.nodes.map((n) => n.id));
      given = {
        nodes: [...graph.nodes.filter((n) => !taken.has(n.id)), ...body.nodes],
        edges: [...graph.edges, ...body.edges],
        subnets: [...new Set([result.subnet, ...body.subnets])],
      };
    }
    const errors: FieldError[] = [];
    const subnets = canonicalSubnets(given.subnets, 'subnets', errors);
    const nodes = this.checkNodes(given.nodes, 'nodes', new Set(), errors);
    const ids = new Set(nodes.map((n) => n.id));
    const edges = checkEdges(given.edges, 'edges', ids, errors);
    if (nodes.length > LIMITS.nodes) errors.push({ path: 'nodes', message: `A session holds at most ${LIMITS.nodes} nodes` });
    if (edges.length > LIMITS.edges) errors.push({ path: 'edges', message: `A session holds at most ${LIMITS.edges} edges` });
    if (errors.length) throw invalid('session', errors);
    const id = randomUUID();
    const now = this.app.clock.now();
    await this.app.store.write((tx) => {
      tx.run(`INSERT INTO v1sion_sessions (id, name, subnets, scan_job_id, notes, created_at, updated_at, created_by)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
      [id, body.name, JSON.stringify(subnets), body.scan_job_id ?? null, body.notes, now, now, by.actor]);
      for (const n of nodes) insertNode(tx, id, n, false);
      edges.forEach((e, i) => insertEdge(tx, id, `e${i + 1}`, e));
      this.app.audit.insert(tx, by.auditEntry('v1sion.session_create', body.name, { id, nodes: nodes.length, edges: edges.length }));
    }, 'sync');
    return this.get(id);
  }

  async update(id: string, patch: UpdateSession, by: Actor): Promise<Session> {
    const cur = this.get(id);
    const errors: FieldError[] = [];
    const subnets = patch.subnets === undefined ? undefined : canonicalSubnets(patch.subnets, 'subnets', errors);
    const removeNodes = new Set(patch.remove_nodes ?? []);
    (patch.remove_nodes ?? []).forEach((n, i) => {
      if (!cur.nodes.some((x) => x.id === n)) errors.push({ path: `remove_nodes.${i}`, message: `No node "${n}" in this session` });
    });
    const kept = new Set(cur.nodes.filter((n) => !removeNodes.has(n.id)).map((n) => n.id));
    const added = this.checkNodes(patch.add_nodes ?? [], 'add_nodes', kept, errors);
    const nodeIds = new Set([...kept, ...added.map((n) => n.id)]);
    const removeEdges = new Set(patch.remove_edges ?? []);
    (patch.remove_edges ?? []).forEach((e, i) => {
      if (!cur.edges.some((x) => x.id === e)) errors.push({ path: `remove_edges.${i}`, message: `No edge "${e}" in this session` });
    });
    const addEdges = checkEdges((patch.add_edges ?? []).map((e) => ({ ...e, source: 'manual' as const })), 'add_edges', nodeIds, errors);
    for (const nodeId of Object.keys(patch.positions ?? {})) {
      if (!nodeIds.has(nodeId)) errors.push({ path: `positions.${nodeId}`, message: `No node "${nodeId}" in this session` });
    }
    if (nodeIds.size > LIMITS.nodes) errors.push({ path: 'add_nodes', message: `A session holds at most ${LIMITS.nodes} nodes` });
    const edgeCount = cur.edges.filter((e) => !removeEdges.has(e.id)).length + addEdges.length;
    if (edgeCount > LIMITS.edges) errors.push({ path: 'add_edges', message: `A session holds at most ${LIMITS.edges} edges` });
    if (errors.length) throw invalid('session update', errors);

    let next = cur.edges.reduce((m, e) => Math.max(m, Number(/^e(\d+)$/.exec(e.id)?.[1] ?? 0)), 0);
    const now = this.app.clock.now();
    await this.app.store.write((tx) => {
      if (!tx.get('SELECT 1 AS x FROM v1sion_sessions WHERE id = ?', [cur.id])) throw notFound('Session');
      tx.run(`UPDATE v1sion_sessions SET name = ?, notes = ?, subnets = ?, updated_at = ? WHERE id = ?`, [
        patch.name ?? cur.name, patch.notes ?? cur.notes, JSON.stringify(subnets ?? cur.subnets), now, cur.id]);
      for (const n of removeNodes) {
        tx.run('DELETE FROM v1sion_session_nodes WHERE session_id = ? AND id = ?', [cur.id, n]);
        // Edges of a removed node go with it.
        tx.run('DELETE FROM v1sion_session_edges WHERE session_id = ? AND (from_node = ? OR to_node = ?)', [cur.id, n, n]);
      }
      for (const e of removeEdges) tx.run('DELETE FROM v1sion_session_edges WHERE session_id = ? AND id = ?', [cur.id, e]);
      for (const n of added) insertNode(tx, cur.id, n, true);
      for (const e of addEdges) insertEdge(tx, cur.id, `e${++next}`, e);
      for (const [nodeId, p] of Object.entries(patch.positions ?? {})) {
        tx.run('UPDATE v1sion_session_nodes SET x = ?, y = ? WHERE session_id = ? AND id = ?',
          [p?.x ?? null, p?.y ?? null, cur.id, nodeId]);
      }
      const structural = removeNodes.size + removeEdges.size + added.length + addEdges.length;
      if (structural || patch.name !== undefined || patch.subnets !== undefined) {
        this.app.audit.insert(tx, by.auditEntry('v1sion.session_update', patch.name ?? cur.name, {
          id: cur.id, added_nodes: added.length, removed_nodes: removeNodes.size,
          added_edges: addEdges.length, removed_edges: removeEdges.size,
        }));
      }
    }, 'sync');
    return this.get(cur.id);
  }

  /**
   * Merges a newer scan into the session: nodes it finds again get the scan's addresses, MAC, vendor and
   * kind (what discovery owns; labels, positions and inventory links stay); nodes it finds that the
   * session lacks are added as `new`; nodes from earlier scans it does not see are kept and marked
   * `missing`. Manual nodes and edges are never changed or dropped. New links are added.
   */
  async mergeScan(id: string, jobId: string, by: Actor): Promise<Session> {
    const result = await this.scans.load(jobId);
    if (!result) throw notFound(`Scan result ${jobId}`);
    await this.mergeResult(id, result, by);
    return this.get(id);
  }

  /**
   * mergeScan() of a result in hand, writing only what changed: a node found again as it was is not
   * rewritten, one already missing is not marked again. `within`: only nodes with an address in these
   * networks can turn missing (a profile scanning several subnets merges each on its own). `quiet`: a merge
   * that changes nothing writes nothing but the session's newest scan, unaudited (scheduled runs).
   */
  async mergeResult(id: string, result: ScanResult, by: Actor, opts: { within?: Cidr[]; quiet?: boolean } = {}): Promise<MergeCounts> {
    const jobId = result.job_id;
    const cur = this.get(id);
    const graph = graphOf(result);
    const idMap = new Map<string, string>();
    const matched = new Set<string>();
    const added: NodeInput[] = [];
    const updated: NodeInput[] = [];
    const taken = new Set(cur.nodes.map((n) => n.id));
    const unique = <T>(xs: T[]) => (xs.length === 1 ? xs[0] : undefined);
    const sameList = (a: string[], b: string[]) => a.length === b.length && a.every((x, i) => x === b[i]);
    for (const sn of graph.nodes) {
      const hit = cur.nodes.find((n) => n.id === sn.id)
        ?? unique(cur.nodes.filter((n) => !matched.has(n.id) && n.addresses.some((a) => sn.addresses.includes(a))))
        ?? (sn.mac ? unique(cur.nodes.filter((n) => !matched.has(n.id) && n.mac === sn.mac)) : undefined);
      if (hit) {
        matched.add(hit.id);
        idMap.set(sn.id, hit.id);
        const changed = !sameList(hit.addresses, sn.addresses) || hit.mac !== sn.mac || hit.vendor_key !== sn.vendor_key
          || hit.kind !== sn.kind || hit.scan_state !== null;
        if (!hit.manual && changed) {
          updated.push({ ...hit, addresses: sn.addresses, mac: sn.mac, vendor_key: sn.vendor_key, kind: sn.kind });
        }
        continue;
      }
      let nid = sn.id;
      for (let n = 2; taken.has(nid); n++) nid = `${sn.id.slice(0, 58)}-${n}`;
      taken.add(nid);
      idMap.set(sn.id, nid);
      added.push({ ...sn, id: nid });
    }
    const inScope = (n: SessionNode) => !opts.within
      || n.addresses.some((a) => { const ip = parseIp(a); return !!ip && opts.within!.some((c) => cidrContains(c, ip)); });
    const missing = cur.nodes.filter((n) => !n.manual && !matched.has(n.id) && inScope(n));
    const newlyMissing = missing.filter((n) => n.scan_state !== 'missing').map((n) => n.id);
    const same = (a: { from: string; to: string; from_port: string | null; to_port: string | null }, b: typeof a) =>
      (a.from === b.from && a.to === b.to && a.from_port === b.from_port && a.to_port === b.to_port)
      || (a.from === b.to && a.to === b.from && a.from_port === b.to_port && a.to_port === b.from_port);
    const newEdges = graph.edges.map((e) => ({ ...e, from: idMap.get(e.from)!, to: idMap.get(e.to)! }))
      .filter((e, i, all) => !cur.edges.some((x) => same(x, e)) && all.findIndex((y) => same(y, e)) === i);
    const nodeCount = cur.nodes.length + added.length;
    if (nodeCount > LIMITS.nodes) {
      throw invalid('session merge', [{ path: 'merge_scan_job_id',
        message: `the merged session would hold ${nodeCount} nodes (at most ${LIMITS.nodes})` }]);
    }
    const counts: MergeCounts = {
      new_nodes: added.length, missing_nodes: missing.length, newly_missing: newlyMissing.length, updated_nodes: updated.length,
      added_edges: newEdges.length, wrote: false,
    };
    const changes = added.length + newlyMissing.length + updated.length + newEdges.length;
    let next = cur.edges.reduce((m, e) => Math.max(m, Number(/^e(\d+)$/.exec(e.id)?.[1] ?? 0)), 0);
    const subnets = [...new Set([...cur.subnets, result.subnet])];
    if (opts.quiet && !changes && cur.scan_job_id === jobId && subnets.length === cur.subnets.length) return counts;
    await this.app.store.write((tx) => {
      if (!tx.get('SELECT 1 AS x FROM v1sion_sessions WHERE id = ?', [cur.id])) throw notFound('Session');
      tx.run('UPDATE v1sion_sessions SET scan_job_id = ?, subnets = ?, updated_at = ? WHERE id = ?',
        [jobId, JSON.stringify(subnets), this.app.clock.now(), cur.id]);
      for (const n of updated) {
        tx.run(`UPDATE v1sion_session_nodes SET addresses = ?, mac = ?, vendor_key = ?, kind = ?, scan_state = NULL
                WHERE session_id = ? AND id = ?`, [JSON.stringify(n.addresses), n.mac, n.vendor_key, n.kind, cur.id, n.id]);
      }
      for (const nid of newlyMissing) {
        tx.run(`UPDATE v1sion_session_nodes SET scan_state = 'missing' WHERE session_id = ? AND id = ?`, [cur.id, nid]);
      }
      for (const n of added) insertNode(tx, cur.id, n, false, 'new');
      for (const e of newEdges) insertEdge(tx, cur.id, `e${++next}`, e);
      if (!opts.quiet || changes) {
        this.app.audit.insert(tx, by.auditEntry('v1sion.session_merge', cur.name, {
          id: cur.id, scan_job_id: jobId, new_nodes: added.length, missing_nodes: missing.length, added_edges: newEdges.length,
        }));
      }
    }, 'sync');
    counts.wrote = true;
    return counts;
  }

  async remove(id: string, by: Actor): Promise<void> {
    const cur = this.get(id);
    await this.app.store.write((tx) => {
      tx.run('DELETE FROM v1sion_session_edges WHERE session_id = ?', [cur.id]);
      tx.run('DELETE FROM v1sion_session_nodes WHERE session_id = ?', [cur.id]);
      tx.run('DELETE FROM v1sion_sessions WHERE id = ?', [cur.id]);
      this.app.audit.insert(tx, by.auditEntry('v1sion.session_delete', cur.name, { id: cur.id }));
    }, 'sync');
  }

  /**
   * Links a node to an inventory record (null unlinks it) inside the caller's write: the inventory
   * bridge (brain/service.ts) links the node of the device it ties to a record, in the same transaction
   * as its own link rows. False when the session has no such node. The record is the caller's to check.
   */
  setNodeInventory(tx: Tx, sessionId: string, nodeId: string, inventory: { type: 'assets' | 'endpoints'; id: string } | null): boolean {
    const changed = tx.run('UPDATE v1sion_session_nodes SET inventory_type = ?, inventory_id = ? WHERE session_id = ? AND id = ?',
      [inventory?.type ?? null, inventory?.id ?? null, sessionId, nodeId]).changes > 0;
    if (changed) tx.run('UPDATE v1sion_sessions SET updated_at = ? WHERE id = ?', [this.app.clock.now(), sessionId]);
    return changed;
  }

  /**
   * Nodes linked to inventory records: record UUID -> the node, in one session (undefined when it does
   * not exist), or without one, in the most recently changed session that links the record.
   */
  linkedNodes(sessionId?: string): Map<string, { session_id: string; node_id: string }> | undefined {
    if (sessionId !== undefined && !this.app.store.get('SELECT 1 AS x FROM v1sion_sessions WHERE id = ?', [sessionId.toLowerCase()])) {
      return undefined;
    }
    const rows = this.app.store.all<{ session_id: string; id: string; inventory_id: string }>(
      `SELECT n.session_id, n.id, n.inventory_id FROM v1sion_session_nodes n JOIN v1sion_sessions s ON s.id = n.session_id
        WHERE n.inventory_id IS NOT NULL ${sessionId !== undefined ? 'AND n.session_id = ?' : ''}
        ORDER BY s.updated_at DESC, s.id, n.id`, sessionId !== undefined ? [sessionId.toLowerCase()] : []);
    const out = new Map<string, { session_id: string; node_id: string }>();
    for (const r of rows) if (!out.has(r.inventory_id)) out.set(r.inventory_id, { session_id: r.session_id, node_id: r.id });
    return out;
  }

  /**
   * Stores what SSH enrichment learned about a node's device (enrich-ssh/service.ts) inside the caller's
   * write, which also updates the SSH target. False when the session has no such node.
   */
  setNodeFacts(tx: Tx, sessionId: string, nodeId: string, facts: Record<string, unknown>): boolean {
    const changed = tx.run('UPDATE v1sion_session_nodes SET facts = ? WHERE session_id = ? AND id = ?',
      [JSON.stringify(facts), sessionId, nodeId]).changes > 0;
    if (changed) tx.run('UPDATE v1sion_sessions SET updated_at = ? WHERE id = ?', [this.app.clock.now(), sessionId]);
    return changed;
  }

  /** Sessions whose subnets overlap `subnet` (GET /api/brain/subnets/:id/v1sion-sessions). */
  overlapping(subnet: Cidr): SessionSummary[] {
    const out: SessionSummary[] = [];
    for (const r of this.app.store.all<SessionRow>(`SELECT ${SESSION_COLUMNS} FROM v1sion_sessions ORDER BY updated_at DESC, id`)) {
      const subnets = JSON.parse(r.subnets) as string[];
      if (!subnets.some((s) => { const c = parseCidr(s); return c.ok && cidrOverlaps(subnet, c.cidr); })) continue;
      out.push({ id: r.id, name: r.name, networks: subnets, scan_job_id: r.scan_job_id, updated_at: iso(r.updated_at) });
    }
    return out;
  }

  /** Nodes with canonical addresses and MAC, ids unique (also against `taken`), inventory records that exist. */
  private checkNodes(nodes: NodeInput[], field: string, taken: ReadonlySet<string>, errors: FieldError[]): NodeInput[] {
    const seen = new Set(taken);
    return nodes.map((n, i) => {
      const at = `${field}.${i}`;
      if (seen.has(n.id)) errors.push({ path: `${at}.id`, message: `Node id "${n.id}" is used twice` });
      seen.add(n.id);
      const addresses = [...new Set(n.addresses.map((a, j) => {
        const ip = canonicalIp(a);
        if (!ip) errors.push({ path: `${at}.addresses.${j}`, message: `"${a}" is not an IP address` });
        return ip ?? a;
      }))];
      let mac = n.mac;
      if (mac !== null) {
        mac = normaliseMac(mac);
        if (!mac) errors.push({ path: `${at}.mac`, message: `"${n.mac}" is not a MAC address` });
      }
      let inventory = n.inventory;
      if (inventory) {
        const row = brainServicesOf(this.app).items.findRow(inventory.id, inventory.type);
        if (!row) errors.push({ path: `${at}.inventory.id`, message: `No ${inventory.type} record ${inventory.id}` });
        else inventory = { type: inventory.type, id: row.id };
      }
      return { ...n, addresses, mac, inventory };
    });
  }
}

function checkEdges(edges: EdgeInput[], field: string, nodes: ReadonlySet<string>, errors: FieldError[]): EdgeInput[] {
  edges.forEach((e, i) => {
    if (!nodes.has(e.from)) errors.push({ path: `${field}.${i}.from`, message: `No node "${e.from}" in this session` });
    if (!nodes.has(e.to)) errors.push({ path: `${field}.${i}.to`, message: `No node "${e.to}" in this session` });
  });
  return edges;
}

function canonicalSubnets(list: string[], field: string, errors: FieldError[]): string[] {
  const out = new Set<string>();
  list.forEach((s, i) => {
    const c = parseCidr(s);
    if (c.ok) out.add(formatCidr(c.cidr));
    else errors.push({ path: `${field}.${i}`, message: c.message });
  });
  return [...out];
}

function insertNode(tx: Tx, sessionId: string, n: NodeInput, manual: boolean, scanState: 'new' | null = null): void {
  tx.run(`INSERT INTO v1sion_session_nodes
      (session_id, id, label, addresses, mac, vendor_key, kind, inventory_type, inventory_id, x, y, manual, scan_state)
    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`, [sessionId, n.id, n.label, JSON.stringify(n.addresses), n.mac, n.vendor_key, n.kind,
    n.inventory?.type ?? null, n.inventory?.id ?? null, n.position?.x ?? null, n.position?.y ?? null, manual ? 1 : 0, scanState]);
}

function insertEdge(tx: Tx, sessionId: string, id: string, e: EdgeInput): void {
  tx.run(`INSERT INTO v1sion_session_edges (session_id, id, from_node, to_node, from_port, to_port, source) VALUES (?, ?, ?, ?, ?, ?, ?)`,
    [sessionId, id, e.from, e.to, e.from_port, e.to_port, e.source]);
}

function sessionOut(r: SessionRow): Omit<Session, 'nodes' | 'edges' | 'l3_edges'> {
  return { id: r.id, name: r.name, subnets: JSON.parse(r.subnets) as string[], scan_job_id: r.scan_job_id, notes: r.notes,
    created_at: iso(r.created_at), updated_at: iso(r.updated_at) };
}

function nodeOut(r: NodeRow): SessionNode {
  return {
    id: r.id, label: r.label, addresses: JSON.parse(r.addresses) as string[], mac: r.mac, vendor_key: r.vendor_key, kind: r.kind,
    inventory: r.inventory_type && r.inventory_id ? { type: r.inventory_type, id: r.inventory_id } : null,
    position: r.x === null || r.y === null ? null : { x: r.x, y: r.y }, manual: r.manual === 1,
    scan_state: r.scan_state ?? null, facts: r.facts ? JSON.parse(r.facts) as Record<string, unknown> : null,
  };
}

function edgeOut(r: EdgeRow): SessionEdge {
  return { id: r.id, from: r.from_node, to: r.to_node, from_port: r.from_port, to_port: r.to_port, source: r.source };
}
