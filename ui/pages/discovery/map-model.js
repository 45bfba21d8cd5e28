// What the topology map needs that is not drawing: the graph's elements built from a session (nodes,
// LLDP/CDP/FDB/manual edges with their ports, layer-3 edges from documented routes), the comparison of the
// session with an earlier scan of its subnet (new and vanished nodes), what the monitors on a node's
// addresses say (whether the host answers, apart from how many services on it fail), the inventory names
// of nodes, where the automatic layout starts (the same on every visit), and the positions a drag
// changed. No browser imports: unit tests load it in Node.

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
 * What the monitors on a node's addresses say, or null when none watches them. `byIp` maps an address
 * to the by-ip answer. `status` and `monitors`: the worst status of them all and how many. Apart from
 * it: `reachability` (reachable when any address answered, unreachable when one does not answer ping
 * and none answered, else null) and `services` ({total, down, failing, degraded, maintenance}: the monitors other
 * than ping; those a maintenance window holds count as maintenance, not as down),
 * so a host that answers is not drawn down because one service on it fails.
 */
export function nodeStatus(node, byIp) {
  let worst = null;
  let monitors = 0;
  let reachable = false;
  let unreachable = false;
  const services = { total: 0, down: 0, failing: 0, degraded: 0, maintenance: 0 };
  for (const a of node.addresses) {
    const s = byIp.get(a);
    if (!s || !s.status) continue;
    monitors += s.monitors;
    if (worst === null || STATUS_ORDER.indexOf(s.status) < STATUS_ORDER.indexOf(worst)) worst = s.status;
    if (s.reachability === 'reachable') reachable = true;
    else if (s.reachability === 'unreachable') unreachable = true;
    services.total += s.services?.total ?? 0;
    services.down += s.services?.down ?? 0;
    services.failing += s.services?.failing ?? 0;
    services.degraded += s.services?.degraded ?? 0;
    services.maintenance += s.services?.maintenance ?? 0;
  }
  if (!worst) return null;
  return { status: worst, monitors, reachability: reachable ? 'reachable' : unreachable ? 'unreachable' : null, services };
}

/**
 * The badge a node's services earn: the count of those down (else failing, else degraded, else in maintenance),
 * 'up' when all answer, null without any.
 */
export function serviceBadge(status) {
  const sv = status?.services;
  if (!sv?.total) return null;
  if (sv.down) return { tone: 'down', count: sv.down };
  if (sv.failing) return { tone: 'failing', count: sv.failing };
  if (sv.degraded) return { tone: 'degraded', count: sv.degraded };
  if (sv.maintenance) return { tone: 'maintenance', count: sv.maintenance };
  return { tone: 'up', count: 0 };
}

/** "2 of 9 services down, 1 failing, 1 degraded" (or "3 services, all answering"); null without services. */
export function servicesText(status) {
  const sv = status?.services;
  if (!sv?.total) return null;
  const of = sv.total === 1 ? '1 service' : `${sv.total} services`;
  const parts = [['down', sv.down], ['failing', sv.failing ?? 0], ['degraded', sv.degraded], ['in maintenance', sv.maintenance ?? 0]]
    .filter(([, n]) => n);
  if (!parts.length) return sv.total === 1 ? '1 service, answering' : `${of}, all answering`;
  // The total once, with the first (worst) count: "2 of 9 services down, 1 failing".
  return parts.map(([word, n], i) => (i ? `${n} ${word}` : `${n} of ${of} ${word}`)).join(', ');
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
 * The data of a node that follows its monitors and inventory name without a redraw: its label (the
 * inventory record's name when one stands for it, else its own), the worst status, reachability and
 * the badge of its services. `status` {status, reachability, services} | null; `record` a matches item | undefined.
 */
export function liveData(n, status, record) {
  const badge = serviceBadge(status);
  return {
    label: record?.inventory?.name ?? n.label, inventory: record ? (record.linked ? 'linked' : 'matched') : null,
    status: status?.status ?? null, reach: status?.reachability ?? null, badge: badge ? `${badge.tone}:${badge.count}` : null,
  };
}

/** node id -> the matches item naming it (GET /api/v1sion/brain/matches): every id of a merged device. */
export function namesByNode(matches) {
  const out = new Map();
  for (const it of matches?.items ?? []) for (const id of it.device_ids ?? [it.device_id]) out.set(id, it);
  return out;
}

/**
 * Cytoscape elements of a session. `marks` (node id -> 'new' | 'vanished'), `ghosts` (vanished devices
 * of a compared scan), `status` (node id -> nodeStatus() | null), `names` (node id -> matches item).
 */
export function elementsOf(session, { marks = new Map(), ghosts = [], status = new Map(), names = new Map() } = {}) {
  const nodes = session.nodes.map((n) => {
    const mark = marks.get(n.id) ?? null;
    const classes = [`kind-${n.kind}`, mark ? `mark-${mark}` : '', n.manual ? 'manual' : ''].filter(Boolean).join(' ');
    const el = {
      group: 'nodes', classes,
      data: { id: n.id, sub: n.addresses[0] ?? '', kind: n.kind, mark, manual: n.manual, placed: !!n.position,
        ...liveData(n, status.get(n.id) ?? null, names.get(n.id)) },
    };
    if (n.position) el.position = { x: n.position.x, y: n.position.y };
    return el;
  });
  const ids = new Set(session.nodes.map((n) => n.id));
  for (const g of ghosts) {
    nodes.push({ group: 'nodes', classes: `kind-${g.kind} mark-vanished ghost`, grabbable: false,
      data: { id: g.id, label: g.label, sub: g.addresses[0] ?? '', kind: g.kind, status: null, reach: null, badge: null, mark: 'vanished', ghost: true } });
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

/** Rings of the concentric layout and the order seeds are laid in: infrastructure first. */
export const KIND_RING = { router: 4, firewall: 4, switch: 3, access_point: 2, server: 1, host: 0, unknown: 0 };

/**
 * Where the automatic layout starts each node, the same on every visit: the nodes in a fixed order
 * (infrastructure first, then by id) on a sunflower spiral, so no two start at one point (the force
 * layout would push those apart at random). `nodes`: [{id, kind}]; returns id -> {x, y}.
 */
export function seedPositions(nodes) {
  const order = [...nodes].sort((a, b) => (KIND_RING[b.kind] ?? 0) - (KIND_RING[a.kind] ?? 0) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  const golden = Math.PI * (3 - Math.sqrt(5));
  return Object.fromEntries(order.map((n, i) => [n.id, {
    x: Math.round(60 * Math.sqrt(i + 0.5) * Math.cos(i * golden) * 100) / 100,
    y: Math.round(60 * Math.sqrt(i + 0.5) * Math.sin(i * golden) * 100) / 100,
  }]));
}

/**
 * The box the automatic layout spreads n nodes over: about 130 px of room each, 4:3. Fixed by the count
 * alone, so the layout does not depend on the window it is drawn in.
 */
export function layoutBox(n) {
  const w = Math.round(Math.max(160, 150 * Math.sqrt(n)));
  return { x1: 0, y1: 0, w, h: Math.round(w * 0.75) };
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
