// One device's routing table over SNMP: the row counts first (inetCidrRouteNumber, ipCidrRouteNumber), a
// table over the limit (1,000 routes by default, as LibreNMS does) is not walked at all, otherwise the first
// table that has rows, newest MIB first (inetCidrRouteTable, ipCidrRouteTable, RFC 1213 ipRouteTable).
// Routes read here are offered for import (docs/discovery.md, "Routes"); nothing here writes a route.
import { parseCidr } from '../../../core/ip.js';
import type { RawVarbind, SnmpReader, SnmpTarget } from '../../snmp/contracts.js';
import {
  NEIGHBOUR_ROOTS, parseInterfaces, ROUTE_COUNTS, ROUTE_PARSERS, ROUTE_ROOTS, ROUTE_TABLES, routeTableSize,
  type Interface, type IpRoute, type RouteCounts, type RouteTable,
} from './neighbours/index.js';

/** Tables with more rows than this are not read (a router with a full BGP table has ~1,000,000). */
export const ROUTE_LIMIT = 1000;
/** A bound on the interface walk that names the routes' interfaces. */
const MAX_INTERFACE_VARBINDS = 20_000;

export interface RoutesRead {
  /** The table the routes were read from; null when none had rows, or the table was over the limit. */
  table: RouteTable | null;
  /** What the agent says its tables hold; null where it does not say (ipRouteTable never does). */
  counts: RouteCounts;
  routes: IpRoute[];
  /** True when a table was over the limit and so not read. */
  skipped: boolean;
  warnings: string[];
}

export interface ReadRoutesOptions {
  /** Default ROUTE_LIMIT. */
  limit?: number;
  /** The device's interfaces when already walked (a scan has them): names the routes' interfaces without another walk. */
  interfaces?: readonly Interface[];
}

const over = (host: string, n: number | string, limit: number) =>
  `${host}: the routing table holds ${n} routes, more than ${limit}: not read`;

/**
 * Reads the routing table of one agent. Errors of the agent (timeout, wrong credential) are thrown as the
 * SNMP reader throws them; an aborted signal stops between requests and during walks.
 */
export async function readRoutes(reader: SnmpReader, target: SnmpTarget, signal?: AbortSignal,
  opts: ReadRoutesOptions = {}): Promise<RoutesRead> {
  const limit = opts.limit ?? ROUTE_LIMIT;
  const out: RoutesRead = {
    table: null, counts: { inetCidrRouteTable: null, ipCidrRouteTable: null }, routes: [], skipped: false, warnings: [],
  };
  signal?.throwIfAborted();
  out.counts = routeTableSize(await reader.get(target, Object.values(ROUTE_COUNTS)));
  signal?.throwIfAborted();
  // The counts describe the same routing table: one over the limit means all of them are.
  const biggest = Math.max(out.counts.inetCidrRouteTable ?? 0, out.counts.ipCidrRouteTable ?? 0);
  if (biggest > limit) {
    out.skipped = true;
    out.warnings.push(over(target.host, biggest, limit));
    return out;
  }
  for (const table of ROUTE_TABLES) {
    // A table the agent counts as empty is not walked; one it does not count (or ipRouteTable) is.
    if ((out.counts as Partial<Record<RouteTable, number | null>>)[table] === 0) continue;
    const roots = [...ROUTE_ROOTS[table]];
    // Each row has at most one value per column: more values than that is more rows than the limit.
    const walked = await reader.walk(target, roots, { max_varbinds: roots.length * limit + 1, signal });
    signal?.throwIfAborted();
    const routes = ROUTE_PARSERS[table](walked.varbinds);
    if (walked.truncated || routes.length > limit) {
      out.skipped = true;
      out.warnings.push(over(target.host, walked.truncated ? `over ${limit}` : routes.length, limit));
      return out;
    }
    if (routes.length === 0) continue;
    out.table = table;
    out.routes = await named(reader, target, signal, table, walked.varbinds, routes, opts.interfaces, out.warnings);
    return out;
  }
  const counted = out.counts.inetCidrRouteTable || out.counts.ipCidrRouteTable;
  if (counted) out.warnings.push(`${target.host}: the agent counts ${counted} routes but none of the route tables gave a row`);
  return out;
}

/** The routes with their interfaces' names: from the interfaces given, else from a walk of IF-MIB. */
async function named(reader: SnmpReader, target: SnmpTarget, signal: AbortSignal | undefined, table: RouteTable,
  varbinds: readonly RawVarbind[], routes: IpRoute[], interfaces: readonly Interface[] | undefined,
  warnings: string[]): Promise<IpRoute[]> {
  if (interfaces) return ROUTE_PARSERS[table](varbinds, interfaces);
  if (!routes.some((r) => r.if_index !== null)) return routes;
  try {
    const ifs = await reader.walk(target, [...NEIGHBOUR_ROOTS.interfaces], { max_varbinds: MAX_INTERFACE_VARBINDS, signal });
    return ROUTE_PARSERS[table](varbinds, parseInterfaces(ifs.varbinds));
  } catch (e) {
    signal?.throwIfAborted();
    warnings.push(`${target.host}: interface names not read (${e instanceof Error ? e.message : String(e)})`);
    return routes;
  }
}

const NOT_OFFERED = ['127.0.0.0/8', '224.0.0.0/4', '255.255.255.255/32', '::1/128', 'ff00::/8', 'fe80::/10']
  .map((s) => parseCidr(s)).flatMap((c) => (c.ok ? [c.cidr] : []));

/**
 * Whether a route read from a device is worth offering for import: not a reject or blackhole route, not
 * one that leads nowhere (no next hop and no interface: Net-SNMP shows a Linux blackhole route so, as type
 * local on ifIndex 0), not loopback, multicast, broadcast or IPv6 link-local, and not one of the device's
 * own addresses (a host route of type local without a next hop).
 */
export function offered(r: IpRoute): boolean {
  if (r.type === 'reject' || r.type === 'blackhole') return false;
  if (r.next_hop === null && r.if_index === null) return false;
  const c = parseCidr(r.destination);
  if (!c.ok) return false;
  if (NOT_OFFERED.some((n) => n.family === c.cidr.family && c.cidr.first >= n.first && c.cidr.last <= n.last)) return false;
  const host = c.cidr.prefix === (c.cidr.family === 4 ? 32 : 128);
  return !(host && r.type === 'local' && r.next_hop === null);
}
