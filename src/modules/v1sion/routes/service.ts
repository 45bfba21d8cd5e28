// Documented routes: how a subnet is reached ({destination, next_hop, device, interface, metric, source,
// note}). Written only through the API, one route per request: routes read from devices (SNMP during a
// scan, SSH enrichment) are offered for import and written only when a person posts one, with source
// snmp or ssh (docs/discovery.md, "Routes"). The device is a node of a saved session or an inventory
// endpoint, and must exist when it is set. Every change is a 'sync' write with an audit entry.
import { randomUUID } from 'node:crypto';
import type { Actor } from '../../../core/audit/types.js';
import { iso } from '../../../core/clock.js';
import type { AppContext } from '../../../core/context.js';
import { HttpError, invalid, notFound, type FieldError } from '../../../core/errors.js';
import { canonicalIp, parseCidr, parseIp, type Family } from '../../../core/ip.js';
import type { SqlValue, Tx } from '../../../core/store/types.js';
import { brainServicesOf } from '../../brain/index.js';

export const ROUTE_SOURCES = ['manual', 'snmp', 'ssh'] as const;
export type RouteSource = (typeof ROUTE_SOURCES)[number];
export const ROUTE_LIMITS = { note: 2000, interface: 100, metric: 4_294_967_295 } as const;

/** A device as a request names it: a node of a saved session, or an inventory endpoint (UUID or EP-n). */
export type DeviceInput = { type: 'session_node'; session_id: string; node_id: string } | { type: 'endpoint'; id: string };

/** A device as the API shows it: the label or name as they are now, null when the node or endpoint is gone since. */
export type RouteDevice =
  | { type: 'session_node'; session_id: string; node_id: string; label: string | null }
  | { type: 'endpoint'; id: string; short_id: string | null; name: string | null };

export interface Route {
  id: string;
  destination: string;
  next_hop: string | null;
  device: RouteDevice | null;
  interface: string | null;
  metric: number | null;
  source: RouteSource;
  note: string;
  created_at: string;
  updated_at: string;
}

export interface RouteInput {
  destination: string;
  next_hop: string | null;
  device: DeviceInput | null;
  interface: string | null;
  metric: number | null;
  source: RouteSource;
  note: string;
}

/** PUT: only the fields given change. */
export type RoutePatch = { [K in keyof RouteInput]?: RouteInput[K] | undefined };

export interface RouteQuery {
  limit: number;
  offset: number;
  q?: string | undefined;
  contains?: string | undefined;
  source?: RouteSource | undefined;
  endpoint?: string | undefined;
  session_id?: string | undefined;
  node_id?: string | undefined;
}

interface RouteRow {
  id: string; destination: string; next_hop: string | null; device_type: 'session_node' | 'endpoint' | null;
  session_id: string | null; node_id: string | null; endpoint_id: string | null; interface: string | null;
  metric: number | null; source: RouteSource; note: string; created_at: number; updated_at: number;
}

const COLUMNS = 'id, destination, next_hop, device_type, session_id, node_id, endpoint_id, interface, metric, source, note, ' +
  'created_at, updated_at';
const ORDER = 'ORDER BY family, dest_first, prefix, next_hop IS NOT NULL, next_hop, id';

/** An address as fixed-width hex (8 digits for IPv4, 32 for IPv6): compared as text, ordered as numbers. */
const hexOf = (family: Family, v: bigint) => v.toString(16).padStart(family === 4 ? 8 : 32, '0');

/** What a route is stored as, checked and canonical. */
interface Checked {
  destination: string; family: Family; first: string; last: string; prefix: number; next_hop: string | null;
  device: DeviceInput | null; interface: string | null; metric: number | null; source: RouteSource; note: string;
}

/** The key that makes a route the same route: device, destination and next hop. */
const deviceKey = (d: DeviceInput | null) =>
  (!d ? '' : d.type === 'endpoint' ? `endpoint:${d.id}` : `node:${d.session_id}/${d.node_id}`);

export class RouteService {
  constructor(private readonly app: AppContext) {}

  list(q: RouteQuery): { items: Route[]; total: number } {
    const where: string[] = [];
    const args: SqlValue[] = [];
    const errors: FieldError[] = [];
    if (q.q) {
      where.push(`instr(lower(destination || ' ' || ifnull(next_hop, '') || ' ' || ifnull(interface, '') || ' ' || note), lower(?)) > 0`);
      args.push(q.q);
    }
    if (q.contains !== undefined) {
      const text = canonicalIp(q.contains);
      const ip = text ? parseIp(text) : null;
      if (!ip) errors.push({ path: 'query.contains', message: `Not an IPv4 or IPv6 address: ${q.contains}` });
      else {
        const hex = hexOf(ip.family, ip.value);
        where.push('family = ? AND dest_first <= ? AND dest_last >= ?');
        args.push(ip.family, hex, hex);
      }
    }
    if (q.source) { where.push('source = ?'); args.push(q.source); }
    if (q.endpoint !== undefined) {
      // An endpoint that does not exist has no routes: an empty list, as the inventory's reference filters.
      where.push('endpoint_id = ?');
      args.push(brainServicesOf(this.app).items.findRow(q.endpoint, 'endpoints')?.id ?? q.endpoint);
    }
    if (q.session_id !== undefined) { where.push('session_id = ?'); args.push(q.session_id.toLowerCase()); }
    if (q.node_id !== undefined) {
      if (q.session_id === undefined) {
        errors.push({ path: 'query.node_id', message: 'A node is named within a session: give session_id too' });
      }
      where.push('node_id = ?');
      args.push(q.node_id);
    }
    if (errors.length) throw invalid('query', errors);
    const w = where.length ? `WHERE ${where.join(' AND ')}` : '';
    const total = this.app.store.get<{ n: number }>(`SELECT count(*) AS n FROM v1sion_routes ${w}`, args)?.n ?? 0;
    const rows = this.app.store.all<RouteRow>(`SELECT ${COLUMNS} FROM v1sion_routes ${w} ${ORDER} LIMIT ? OFFSET ?`,
      [...args, q.limit, q.offset]);
    return { items: rows.map((r) => this.out(r)), total };
  }

  get(id: string): Route {
    return this.out(this.row(id));
  }

  /**
   * The routes that can draw layer-3 edges on a session (sessions/l3-edges.ts): those whose device is a
   * node of this session, or an endpoint one of its nodes stands for.
   */
  forSession(sessionId: string, endpointIds: readonly string[] = []): Route[] {
    const ids = [...new Set(endpointIds.map((e) => e.toLowerCase()))];
    const byEndpoint = ids.length ? ` OR endpoint_id IN (${ids.map(() => '?').join(', ')})` : '';
    return this.app.store.all<RouteRow>(`SELECT ${COLUMNS} FROM v1sion_routes WHERE session_id = ?${byEndpoint} ${ORDER}`,
      [sessionId.toLowerCase(), ...ids]).map((r) => this.out(r));
  }

  async create(input: RouteInput, by: Actor): Promise<Route> {
    const c = this.check(input, null);
    const id = randomUUID();
    const now = this.app.clock.now();
    await this.app.store.write((tx) => {
      this.refuseDuplicate(tx, c, null);
      tx.run(`INSERT INTO v1sion_routes (id, destination, family, dest_first, dest_last, prefix, next_hop, device_type, session_id, node_id,
          endpoint_id, device_key, interface, metric, source, note, created_at, updated_at, created_by)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`, [id, ...this.values(c), now, now, by.actor]);
      this.app.audit.insert(tx, by.auditEntry('v1sion.route_create', c.destination, this.auditDetails(id, c)));
    }, 'sync');
    return this.get(id);
  }

  async update(id: string, patch: RoutePatch, by: Actor): Promise<Route> {
    const cur = this.row(id);
    const was = inputOf(cur);
    const next: RouteInput = {
      destination: patch.destination ?? was.destination,
      next_hop: patch.next_hop === undefined ? was.next_hop : patch.next_hop,
      device: patch.device === undefined ? was.device : patch.device,
      interface: patch.interface === undefined ? was.interface : patch.interface,
      metric: patch.metric === undefined ? was.metric : patch.metric,
      source: patch.source ?? was.source,
      note: patch.note ?? was.note,
    };
    // The device it already has is not checked again: a note can still be edited after its node is gone.
    const c = this.check(next, was.device);
    await this.app.store.write((tx) => {
      if (!tx.get('SELECT 1 AS x FROM v1sion_routes WHERE id = ?', [cur.id])) throw notFound('Route');
      this.refuseDuplicate(tx, c, cur.id);
      tx.run(`UPDATE v1sion_routes SET destination = ?, family = ?, dest_first = ?, dest_last = ?, prefix = ?, next_hop = ?,
          device_type = ?, session_id = ?, node_id = ?, endpoint_id = ?, device_key = ?, interface = ?, metric = ?, source = ?, note = ?,
          updated_at = ?
        WHERE id = ?`, [...this.values(c), this.app.clock.now(), cur.id]);
      this.app.audit.insert(tx, by.auditEntry('v1sion.route_update', c.destination, {
        ...this.auditDetails(cur.id, c), changed: Object.keys(patch).filter((k) => patch[k as keyof RoutePatch] !== undefined).sort(),
      }));
    }, 'sync');
    return this.get(cur.id);
  }

  async remove(id: string, by: Actor): Promise<void> {
    const cur = this.row(id);
    await this.app.store.write((tx) => {
      if (tx.run('DELETE FROM v1sion_routes WHERE id = ?', [cur.id]).changes === 0) throw notFound('Route');
      this.app.audit.insert(tx, by.auditEntry('v1sion.route_delete', cur.destination, this.auditDetails(cur.id, {
        destination: cur.destination, next_hop: cur.next_hop, device: inputOf(cur).device, source: cur.source,
      })));
    }, 'sync');
  }

  private row(id: string): RouteRow {
    const r = this.app.store.get<RouteRow>(`SELECT ${COLUMNS} FROM v1sion_routes WHERE id = ?`, [id.toLowerCase()]);
    if (!r) throw notFound('Route');
    return r;
  }

  /** The route checked whole (every problem named at once) and made canonical; `keep` is a device not checked again. */
  private check(input: RouteInput, keep: DeviceInput | null): Checked {
    const errors: FieldError[] = [];
    const dest = parseCidr(input.destination);
    if (!dest.ok) errors.push({ path: 'destination', message: dest.message });
    let nextHop: string | null = null;
    if (input.next_hop !== null) {
      nextHop = canonicalIp(input.next_hop);
      const ip = nextHop ? parseIp(nextHop) : null;
      if (!ip) errors.push({ path: 'next_hop', message: `Not an IPv4 or IPv6 address: ${input.next_hop}` });
      else if (ip.value === 0n) {
        errors.push({ path: 'next_hop', message: `${nextHop} is no next hop: a directly connected route has next_hop null` });
      } else if (dest.ok && ip.family !== dest.cidr.family) {
        errors.push({ path: 'next_hop', message: `An IPv${ip.family} next hop for an IPv${dest.cidr.family} destination` });
      }
    }
    const device = this.checkDevice(input.device, keep, errors);
    if (errors.length || !dest.ok) throw invalid('route', errors);
    const iface = input.interface?.trim() || null;
    return {
      destination: dest.text, family: dest.cidr.family, first: hexOf(dest.cidr.family, dest.cidr.first),
      last: hexOf(dest.cidr.family, dest.cidr.last), prefix: dest.cidr.prefix, next_hop: nextHop, device, interface: iface,
      metric: input.metric, source: input.source, note: input.note,
    };
  }

  private checkDevice(d: DeviceInput | null, keep: DeviceInput | null, errors: FieldError[]): DeviceInput | null {
    if (!d) return null;
    if (d.type === 'endpoint') {
      if (keep?.type === 'endpoint' && keep.id === d.id.toLowerCase()) return keep;
      const row = brainServicesOf(this.app).items.findRow(d.id, 'endpoints');
      if (!row) errors.push({ path: 'device.id', message: `No inventory endpoint ${d.id}` });
      return { type: 'endpoint', id: row?.id ?? d.id };
    }
    const out = { type: 'session_node' as const, session_id: d.session_id.toLowerCase(), node_id: d.node_id };
    if (keep?.type === 'session_node' && keep.session_id === out.session_id && keep.node_id === out.node_id) return out;
    // The session's tables, read only: the same module's.
    if (!this.app.store.get('SELECT 1 AS x FROM v1sion_sessions WHERE id = ?', [out.session_id])) {
      errors.push({ path: 'device.session_id', message: `No session ${d.session_id}` });
    } else if (!this.app.store.get('SELECT 1 AS x FROM v1sion_session_nodes WHERE session_id = ? AND id = ?',
      [out.session_id, out.node_id])) {
      errors.push({ path: 'device.node_id', message: `No node "${d.node_id}" in session ${out.session_id}` });
    }
    return out;
  }

  private refuseDuplicate(tx: Tx, c: Checked, self: string | null): void {
    const same = tx.get<{ id: string }>(`SELECT id FROM v1sion_routes WHERE device_key = ? AND destination = ? AND ifnull(next_hop, '') = ?
      AND id <> ?`, [deviceKey(c.device), c.destination, c.next_hop ?? '', self ?? '']);
    if (same) {
      throw new HttpError(409, 'route_exists',
        `This route is documented already: ${c.destination} via ${c.next_hop ?? 'the link itself'} on the same device (route ${same.id})`,
        { extra: { route_id: same.id } });
    }
  }

  /** The stored columns from destination to note, in the INSERT's order. */
  private values(c: Checked): SqlValue[] {
    const d = c.device;
    return [
      c.destination, c.family, c.first, c.last, c.prefix, c.next_hop, d?.type ?? null,
      d?.type === 'session_node' ? d.session_id : null, d?.type === 'session_node' ? d.node_id : null, d?.type === 'endpoint' ? d.id : null,
      deviceKey(d), c.interface, c.metric, c.source, c.note,
    ];
  }

  private auditDetails(id: string, c: Pick<Checked, 'destination' | 'next_hop' | 'device' | 'source'>): Record<string, unknown> {
    return { id, destination: c.destination, next_hop: c.next_hop, device: c.device, source: c.source };
  }

  private out(r: RouteRow): Route {
    let device: RouteDevice | null = null;
    if (r.device_type === 'endpoint' && r.endpoint_id) {
      const row = brainServicesOf(this.app).items.findRow(r.endpoint_id, 'endpoints');
      const s = row ? brainServicesOf(this.app).items.summary(row) : null;
      device = { type: 'endpoint', id: r.endpoint_id, short_id: s?.short_id ?? null, name: s?.name ?? null };
    } else if (r.device_type === 'session_node' && r.session_id && r.node_id) {
      const node = this.app.store.get<{ label: string }>('SELECT label FROM v1sion_session_nodes WHERE session_id = ? AND id = ?',
        [r.session_id, r.node_id]);
      device = { type: 'session_node', session_id: r.session_id, node_id: r.node_id, label: node?.label ?? null };
    }
    return {
      id: r.id, destination: r.destination, next_hop: r.next_hop, device, interface: r.interface, metric: r.metric, source: r.source,
      note: r.note, created_at: iso(r.created_at), updated_at: iso(r.updated_at),
    };
  }
}

function inputOf(r: RouteRow): RouteInput {
  const device: DeviceInput | null = r.device_type === 'endpoint' && r.endpoint_id ? { type: 'endpoint', id: r.endpoint_id }
    : r.device_type === 'session_node' && r.session_id && r.node_id ? { type: 'session_node', session_id: r.session_id, node_id: r.node_id }
      : null;
  return {
    destination: r.destination, next_hop: r.next_hop, device, interface: r.interface, metric: r.metric, source: r.source, note: r.note,
  };
}
