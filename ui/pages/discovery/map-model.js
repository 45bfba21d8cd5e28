// What the topology map needs that is not drawing: the graph's elements built from a session (nodes,
// LLDP/CDP/FDB/manual edges with their ports, layer-3 edges from documented routes), the comparison of the
// session with an earlier scan of its subnet (new and vanished nodes), the worst monitor status of a
// node's addresses, and the positions a drag changed. No browser imports: unit tests load it in Node.

/** Monitor statuses from worst to mildest, as the status-by-IP endpoint ranks them. */
export const STATUS_ORDER = ['down', 'degraded', 'unknown', 'up', 'paused'];

/** At most this many addresses per status question (the endpoint's limit). */
export const STATUS_BATCH = 256;

/** Node ids as a session made from a scan names its devices (sessions/from-scan.ts nodeIdOf). */
export function nodeIdOfDevice(d) {
  if (d.engine_id) return `e-${d.engine_id.slice(0, 60)}`;
  const mac = d.macs?.[0] ?? (d.chassis_id && /^([0-9a-f]{2}:){5}[0-9a-f]{2}$/.test(d.chassis_id) ? d.chassis_id : null);
  if (mac) return `m-${mac.replace(/:/g, '')}`;
  if (d.addresses?.[0]) return `ip-${d.addresses[0]}`;
  return `n-${(d.chassis_id ?? d.name).replace(/[^A-Za-z0-9._:@/-]/g, '_').slice(0, 60)}`;
}

/** The addresses whose monitors colour the map: each node's first few (the endpoint takes 256 a question). */
export function statusAddresses(nodes, perNode = 4) {
  const out = new Set();
  for (const n of nodes) for (const a of n.addresses.slice(0, perNode)) out.add(a);
  return [...out];
}

/** `[[a, b, ...256], ...]`: the addresses in questions the endpoint accepts. */
export function statusBatches(addresses, size = STATUS_BATCH) {
  const out = [];
  for (let i = 0; i < addresses.length; i += size) out.push(addresses.slice(i, i + size));
  return out;
}

/**
 * A node's badge: the worst status of the monitors on any of its addresses, with how many watch it;
 * null when none does. `byIp` maps an address to `{status, monitors}`.
 */
export function nodeStatus(node, byIp) {
  let worst = null;
  let monitors = 0;
  for (const a of node.addresses) {
    const s = byIp.get(a);
    if (!s || !s.status) continue;
    monitors += s.monitors;
    if (worst === null || STATUS_ORDER.indexOf(s.status) < STATUS_ORDER.indexOf(worst)) worst = s.status;
  }
  return worst ? { status: worst, monitors } : null;
}

/**
 * The session compared with an earlier scan's result: `marks` (node id -> 'new' for a node the scan did
 * not have) and `vanished` (the scan's devices the session no longer has, as ghost nodes). A device is
 * the same node by id, else by a shared address, else by its MAC, as a merge finds it.
 */
export function compareWithScan(session, result) {
  const byAddr = new Map();
  const byMac = new Map();
  for (const n of session.nodes) {
    for (const a of n.addresses) if (!byAddr.has(a)) byAddr.set(a, n.id);
    if (n.mac) byMac.set(n.mac, n.id);
  }
  const ids = new Set(session.nodes.map((n) => n.id));
  const found = new Set();
  const vanished = [];
  for (const d of result.devices ?? []) {
    const id = nodeIdOfDevice(d);
    const hit = ids.has(id) ? id : d.addresses.map((a) => byAddr.get(a)).find(Boolean) ?? (d.macs ?? []).map((m) => byMac.get(m)).find(Boolean);
    if (hit) { found.add(hit); continue; }
    vanished.push({ id: `gone:${id}`, label: d.name || d.addresses[0] || id, addresses: d.addresses ?? [], kind: d.kind ?? 'unknown',
      mac: d.macs?.[0] ?? null, vendor: d.vendor ?? null, model: d.model ?? null });
  }
  const marks = new Map();
  for (const n of session.nodes) if (!found.has(n.id) && !n.manual) marks.set(n.id, 'new');
  return { marks, vanished, job_id: result.job_id, started_at: result.started_at };
}

/** Marks from the session's own last merge: new and missing (drawn as vanished). */
export function mergeMarks(session) {
  const marks = new Map();
  for (const n of session.nodes) if (n.scan_state) marks.set(n.id, n.scan_state === 'missing' ? 'vanished' : 'new');
  return marks;
}

const short = (list, max) => (list.length <= max ? list.join(', ') : `${list.slice(0, max).join(', ')} +${list.length - max}`);

/**
 * Cytoscape elements of a session. `marks` (node id -> 'new' | 'vanished'), `ghosts` (vanished devices
 * of a compared scan), `status` (node id -> {status, monitors} | null).
 */
export function elementsOf(session, { marks = new Map(), ghosts = [], status = new Map() } = {}) {
  const nodes = session.nodes.map((n) => {
    const s = status.get(n.id) ?? null;
    const mark = marks.get(n.id) ?? null;
    const classes = [`kind-${n.kind}`, mark ? `mark-${mark}` : '', n.manual ? 'manual' : '', s ? `status-${s.status}` : ''].filter(Boolean).join(' ');
    const el = {
      group: 'nodes', classes,
      data: { id: n.id, label: n.label, sub: n.addresses[0] ?? '', kind: n.kind, status: s?.status ?? null, mark, manual: n.manual, placed: !!n.position },
    };
    if (n.position) el.position = { x: n.position.x, y: n.position.y };
    return el;
  });
  const ids = new Set(session.nodes.map((n) => n.id));
  for (const g of ghosts) {
    nodes.push({ group: 'nodes', classes: `kind-${g.kind} mark-vanished ghost`, grabbable: false,
      data: { id: g.id, label: g.label, sub: g.addresses[0] ?? '', kind: g.kind, status: null, mark: 'vanished', ghost: true } });
  }
  const edges = session.edges.filter((e) => ids.has(e.from) && ids.has(e.to)).map((e) => ({
    group: 'edges', classes: `src-${e.source}`,
    data: { id: `edge:${e.id}`, edge: e.id, source: e.from, target: e.to, from_port: e.from_port ?? '', to_port: e.to_port ?? '', kind: e.source },
  }));
  for (const e of session.l3_edges ?? []) {
    if (!ids.has(e.from) || !ids.has(e.to)) continue;
    edges.push({ group: 'edges', classes: 'l3',
      data: { id: `l3:${e.id}`, source: e.from, target: e.to, label: e.label || short(e.destinations, 2), kind: 'route', from_port: '', to_port: '' } });
  }
  return [...nodes, ...edges];
}

/** The moved nodes whose position differs from the saved one (rounded to a tenth, as stored). */
export function changedPositions(saved, now) {
  const out = {};
  for (const [id, p] of Object.entries(now)) {
    const x = Math.round(p.x * 10) / 10;
    const y = Math.round(p.y * 10) / 10;
    const s = saved[id];
    if (!s || Math.abs(s.x - x) > 0.05 || Math.abs(s.y - y) > 0.05) out[id] = { x, y };
  }
  return out;
}

/** A new manual node's id: readable, unique in the session. */
export function manualNodeId(label, taken) {
  const base = `manual-${label.toLowerCase().replace(/[^a-z0-9._-]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 40) || 'node'}`;
  let id = base;
  for (let n = 2; taken.has(id); n++) id = `${base}-${n}`;
  return id;
}

/** The neighbours of a node on the map: the other end of each edge, with both ports. */
export function neighboursOf(session, id) {
  const labels = new Map(session.nodes.map((n) => [n.id, n.label]));
  const out = [];
  for (const e of session.edges) {
    if (e.from === id) out.push({ edge: e.id, node: e.to, label: labels.get(e.to) ?? e.to, port: e.from_port, remote_port: e.to_port, source: e.source });
    else if (e.to === id) out.push({ edge: e.id, node: e.from, label: labels.get(e.from) ?? e.from, port: e.to_port, remote_port: e.from_port, source: e.source });
  }
  for (const e of session.l3_edges ?? []) {
    if (e.from === id) out.push({ edge: e.id, node: e.to, label: labels.get(e.to) ?? e.to, port: null, remote_port: null, source: 'route', destinations: e.destinations });
    else if (e.to === id) out.push({ edge: e.id, node: e.from, label: labels.get(e.from) ?? e.from, port: null, remote_port: null, source: 'route', destinations: e.destinations });
  }
  return out;
}

/** The scan device a node stands for in a scan result (by id, then address, then MAC). */
export function deviceOfNode(result, node) {
  if (!result) return null;
  const devs = result.devices ?? [];
  return devs.find((d) => nodeIdOfDevice(d) === node.id)
    ?? devs.find((d) => d.addresses.some((a) => node.addresses.includes(a)))
    ?? (node.mac ? devs.find((d) => (d.macs ?? []).includes(node.mac)) : null) ?? null;
}
