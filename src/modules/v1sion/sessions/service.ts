// Saved topology sessions: what a person keeps of a scan (or draws by hand), with node positions, manual
// nodes and edges, and notes. Nodes and edges are rows (v1sion_session_nodes/edges), so moving nodes
// writes only their positions. Every change is a 'sync' write. The inventory lists the sessions that
// overlap a subnet through the SessionSource this service provides.
import { randomUUID } from 'node:crypto';
import type { Actor } from '../../../core/audit/types.js';
import type { AppContext } from '../../../core/context.js';
import { invalid, notFound, type FieldError } from '../../../core/errors.js';
import { canonicalIp, cidrOverlaps, formatCidr, normaliseMac, parseCidr, type Cidr } from '../../../core/ip.js';
import type { Tx } from '../../../core/store/types.js';
import { iso } from '../../../core/clock.js';
import { brainServicesOf, type SessionSummary } from '../../brain/index.js';
import {
  LIMITS, type EdgeInput, type NodeInput, type Session, type SessionEdge, type SessionListItem, type SessionNode,
} from '../schemas.js';

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
}
interface EdgeRow {
  id: string; from_node: string; to_node: string; from_port: string | null; to_port: string | null; source: SessionEdge['source'];
}

const SESSION_COLUMNS = 'id, name, subnets, scan_job_id, notes, created_at, updated_at';

export class SessionService {
  constructor(private readonly app: AppContext) {}

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
    return { ...sessionOut(row), nodes: nodes.map(nodeOut), edges: edges.map(edgeOut) };
  }

  async create(body: CreateSession, by: Actor): Promise<Session> {
    if (body.scan_job_id !== undefined) {
      // Scans keep their results (the newest 20); none is known here yet.
      throw notFound(`Scan result ${body.scan_job_id}`);
    }
    const errors: FieldError[] = [];
    const subnets = canonicalSubnets(body.subnets, 'subnets', errors);
    const nodes = this.checkNodes(body.nodes, 'nodes', new Set(), errors);
    const ids = new Set(nodes.map((n) => n.id));
    const edges = checkEdges(body.edges, 'edges', ids, errors);
    if (errors.length) throw invalid('session', errors);
    const id = randomUUID();
    const now = this.app.clock.now();
    await this.app.store.write((tx) => {
      tx.run(`INSERT INTO v1sion_sessions (id, name, subnets, scan_job_id, notes, created_at, updated_at, created_by)
        VALUES (?, ?, ?, NULL, ?, ?, ?, ?)`, [id, body.name, JSON.stringify(subnets), body.notes, now, now, by.actor]);
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

  async remove(id: string, by: Actor): Promise<void> {
    const cur = this.get(id);
    await this.app.store.write((tx) => {
      tx.run('DELETE FROM v1sion_session_edges WHERE session_id = ?', [cur.id]);
      tx.run('DELETE FROM v1sion_session_nodes WHERE session_id = ?', [cur.id]);
      tx.run('DELETE FROM v1sion_sessions WHERE id = ?', [cur.id]);
      this.app.audit.insert(tx, by.auditEntry('v1sion.session_delete', cur.name, { id: cur.id }));
    }, 'sync');
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

function insertNode(tx: Tx, sessionId: string, n: NodeInput, manual: boolean): void {
  tx.run(`INSERT INTO v1sion_session_nodes
      (session_id, id, label, addresses, mac, vendor_key, kind, inventory_type, inventory_id, x, y, manual)
    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`, [sessionId, n.id, n.label, JSON.stringify(n.addresses), n.mac, n.vendor_key, n.kind,
    n.inventory?.type ?? null, n.inventory?.id ?? null, n.position?.x ?? null, n.position?.y ?? null, manual ? 1 : 0]);
}

function insertEdge(tx: Tx, sessionId: string, id: string, e: EdgeInput): void {
  tx.run(`INSERT INTO v1sion_session_edges (session_id, id, from_node, to_node, from_port, to_port, source) VALUES (?, ?, ?, ?, ?, ?, ?)`,
    [sessionId, id, e.from, e.to, e.from_port, e.to_port, e.source]);
}

function sessionOut(r: SessionRow): Omit<Session, 'nodes' | 'edges'> {
  return { id: r.id, name: r.name, subnets: JSON.parse(r.subnets) as string[], scan_job_id: r.scan_job_id, notes: r.notes,
    created_at: iso(r.created_at), updated_at: iso(r.updated_at) };
}

function nodeOut(r: NodeRow): SessionNode {
  return {
    id: r.id, label: r.label, addresses: JSON.parse(r.addresses) as string[], mac: r.mac, vendor_key: r.vendor_key, kind: r.kind,
    inventory: r.inventory_type && r.inventory_id ? { type: r.inventory_type, id: r.inventory_id } : null,
    position: r.x === null || r.y === null ? null : { x: r.x, y: r.y }, manual: r.manual === 1,
  };
}

function edgeOut(r: EdgeRow): SessionEdge {
  return { id: r.id, from: r.from_node, to: r.to_node, from_port: r.from_port, to_port: r.to_port, source: r.source };
}
