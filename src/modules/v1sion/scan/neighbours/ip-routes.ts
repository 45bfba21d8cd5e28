// The routing table of a router or layer-3 switch, from whichever generation of the MIB the agent serves:
// IP-FORWARD-MIB's inetCidrRouteTable (RFC 4292, IPv4 and IPv6), its older ipCidrRouteTable (RFC 2096,
// IPv4) and RFC 1213's ipRouteTable (IPv4, one route per destination). Pure: walked varbinds in, routes out.
//
// - inetCidrRouteTable keeps everything in the index: DestType.DestLen.Dest.PfxLen.PolicyLen.Policy.
//   NextHopType.NextHopLen.NextHop. Net-SNMP fills Policy with 0.0.<ifIndex> (0.0 for some rows), so the
//   same route can show under two policies: rows are kept once per (destination, next hop, ifIndex).
//   Agents that leave the address lengths out of the index are read too.
// - ipCidrRouteTable: Dest.Mask.Tos.NextHop in the index; some agents (RouterOS) leave columns out of
//   some rows, so a row is any index one of the walked columns names.
// - ipRouteTable: the destination is the index, mask and next hop are columns; type invalid(2) is a
//   deleted row.
// - A next hop of 0.0.0.0 or :: (or type unknown with no address) is a directly connected route: null, as
//   is the next hop of a route of type local (direct): RFC 1213 and RFC 2096 put the agent's own address there.
//   A destination with host bits set is masked (agents write 10.0.0.5 / 255.255.255.0 too).
import type { RawVarbind } from '../../../snmp/contracts.js';
import { canonicalIp, parseCidr, type Cidr } from '../../../../core/ip.js';
import { byIfIndex, interfaceName } from './interfaces.js';
import { INET_CIDR_ROUTE, IP_CIDR_ROUTE, IP_ROUTE, ROUTE_COUNTS, ROUTES, type RouteTable } from './roots.js';
import type { Interface } from './types.js';
import { arcsOf, intOf, scalarOf, tableOf, type Table } from './values.js';

export { ROUTE_COUNTS, ROUTE_ROOTS, type RouteTable } from './roots.js';

/** inetCidrRouteType's values (ipCidrRouteType has the first four; ipRouteType's direct/indirect map to local/remote). */
export type RouteType = 'other' | 'reject' | 'local' | 'remote' | 'blackhole';

/** One row of a routing table. */
export interface IpRoute {
  /** The destination network, canonical ("10.1.0.0/24", "2001:db8::/32", "0.0.0.0/0"). */
  destination: string;
  /** The next hop, canonical; null for a directly connected route. */
  next_hop: string | null;
  /** The outgoing interface's ifIndex; null when the agent gives 0 or none. */
  if_index: number | null;
  /** The interface's name (ifName, else ifDescr) when the interfaces are known. */
  interface: string | null;
  /** Metric1; null when the agent gives -1 (unused) or none. */
  metric: number | null;
  /** How the route was learnt (IANAipRouteProtocol): local, netmgmt (static), ospf, bgp, …; the number for others. */
  protocol: string | null;
  type: RouteType | null;
}

/** IANAipRouteProtocol (and RFC 1213's ipRouteProto, its first 14). */
const PROTOCOLS: Record<number, string> = {
  1: 'other', 2: 'local', 3: 'netmgmt', 4: 'icmp', 5: 'egp', 6: 'ggp', 7: 'hello', 8: 'rip', 9: 'isIs', 10: 'esIs',
  11: 'ciscoIgrp', 12: 'bbnSpfIgp', 13: 'ospf', 14: 'bgp', 15: 'idpr', 16: 'ciscoEigrp', 17: 'dvmrp', 18: 'rpl', 19: 'dhcp', 20: 'ttdp',
};
/** inetCidrRouteType / ipCidrRouteType. */
const CIDR_TYPES: Record<number, RouteType> = { 1: 'other', 2: 'reject', 3: 'local', 4: 'remote', 5: 'blackhole' };
/** ipRouteType: other(1), invalid(2: a deleted row), direct(3), indirect(4). */
const IP_ROUTE_TYPES: Record<number, RouteType> = { 1: 'other', 3: 'local', 4: 'remote' };
const IP_ROUTE_INVALID = 2;

const isOctet = (x: number | undefined): x is number => x !== undefined && Number.isInteger(x) && x >= 0 && x <= 255;

/** An address from 4 or 16 octets, canonical; the unspecified address is kept (a destination can be 0.0.0.0). */
function ipOfOctets(a: readonly number[]): string | null {
  if (!a.every(isOctet)) return null;
  if (a.length === 4) return a.join('.');
  if (a.length !== 16) return null;
  const groups: string[] = [];
  for (let i = 0; i < 16; i += 2) groups.push(((a[i]! << 8) | a[i + 1]!).toString(16));
  return canonicalIp(groups.join(':'));
}

const UNSPECIFIED = new Set(['0.0.0.0', '::']);
const nextHopOf = (ip: string | null) => (ip && !UNSPECIFIED.has(ip) ? ip : null);

/** A prefix length from a dotted netmask; null when the mask is not contiguous. */
function prefixOfMask(mask: string | null): number | null {
  const parts = mask?.split('.').map(Number);
  if (!parts || parts.length !== 4 || !parts.every(isOctet)) return null;
  const bits = parts.map((p) => p.toString(2).padStart(8, '0')).join('');
  if (!/^1*0*$/.test(bits)) return null;
  const zero = bits.indexOf('0');
  return zero < 0 ? 32 : zero;
}

/** "address/prefix" as a canonical network, host bits masked; null when it is not one. */
function networkOf(ip: string | null, prefix: number | null): string | null {
  if (!ip || prefix === null) return null;
  const c = parseCidr(`${ip}/${prefix}`, { loose: true });
  return c.ok ? c.text : null;
}

/** Octets of an InetAddress by its InetAddressType: ipv4 4, ipv6 16, ipv4z 8, ipv6z 20 (the zone dropped); unknown 0. */
const ADDRESS_SIZES: Record<number, { size: number; keep: number }> = {
  0: { size: 0, keep: 0 }, 1: { size: 4, keep: 4 }, 2: { size: 16, keep: 16 }, 3: { size: 8, keep: 4 }, 4: { size: 20, keep: 16 },
};

/** An InetAddressType + InetAddress pair read from `arcs` at `at`; `next` is where the index goes on. */
function readAddress(arcs: readonly number[], at: number, withLength: boolean):
  { type: number; ip: string | null; next: number } | null {
  const type = arcs[at];
  const sizes = type === undefined ? undefined : ADDRESS_SIZES[type];
  if (!sizes) return null;
  let i = at + 1;
  if (withLength) {
    if (arcs[i] !== sizes.size) return null;
    i++;
  }
  const octets = arcs.slice(i, i + sizes.size);
  if (octets.length !== sizes.size) return null;
  return { type: type!, ip: sizes.keep ? ipOfOctets(octets.slice(0, sizes.keep)) : null, next: i + sizes.size };
}

/** The destination, prefix length and next hop in an inetCidrRouteTable index; null when it is not one. */
function inetCidrIndex(arcs: readonly number[]): { destination: string; next_hop: string | null } | null {
  // The standard form (each address preceded by its length), then the one some agents send without them.
  for (const withLength of [true, false]) {
    const dest = readAddress(arcs, 0, withLength);
    if (!dest?.ip) continue;
    const prefix = arcs[dest.next];
    const policyLen = arcs[dest.next + 1];
    if (prefix === undefined || policyLen === undefined || prefix > (dest.type === 1 || dest.type === 3 ? 32 : 128)) continue;
    const hop = readAddress(arcs, dest.next + 2 + policyLen, withLength);
    if (!hop || hop.next !== arcs.length) continue;
    const destination = networkOf(dest.ip, prefix);
    if (destination) return { destination, next_hop: nextHopOf(hop.ip) };
  }
  return null;
}

/** Every row index any walked column of the table names, in walk order. */
function rowsOf(table: Table, cols: readonly number[]): string[] {
  const out = new Set<string>();
  for (const c of cols) for (const k of table.get(c)?.keys() ?? []) out.add(k);
  return [...out];
}

const intAt = (table: Table, col: number, row: string) => intOf(table.get(col)?.get(row));
const valueAt = (table: Table, col: number, row: string) => {
  const v = table.get(col)?.get(row)?.value;
  return typeof v === 'string' ? v : null;
};

function routeOf(ifs: Map<number, Interface>, destination: string, nextHop: string | null, cols: {
  ifIndex: number | null; metric: number | null; proto: number | null; type: RouteType | null;
}): IpRoute {
  const ifIndex = cols.ifIndex !== null && cols.ifIndex > 0 ? cols.ifIndex : null;
  return {
    // A local (direct) route's next hop is the agent's own address on the link (RFC 1213, RFC 2096) or
    // nothing (RFC 4292): either way no next hop.
    destination, next_hop: cols.type === 'local' ? null : nextHop,
    if_index: ifIndex, interface: ifIndex !== null ? interfaceName(ifs.get(ifIndex)) : null,
    metric: cols.metric !== null && cols.metric >= 0 ? cols.metric : null,
    protocol: cols.proto === null ? null : (PROTOCOLS[cols.proto] ?? String(cols.proto)),
    type: cols.type,
  };
}

/** Sorted by family, destination address, prefix length and next hop; one row per (destination, next hop, ifIndex). */
function tidy(routes: IpRoute[]): IpRoute[] {
  const seen = new Set<string>();
  const keyed: { r: IpRoute; c: Cidr }[] = [];
  for (const r of routes) {
    const k = `${r.destination}|${r.next_hop}|${r.if_index}`;
    const c = parseCidr(r.destination);
    if (seen.has(k) || !c.ok) continue;
    seen.add(k);
    keyed.push({ r, c: c.cidr });
  }
  return keyed.sort(({ r: a, c: ca }, { r: b, c: cb }) => ca.family - cb.family
    || (ca.first === cb.first ? 0 : ca.first < cb.first ? -1 : 1)
    || ca.prefix - cb.prefix
    || (a.next_hop ?? '').localeCompare(b.next_hop ?? '') || (a.if_index ?? 0) - (b.if_index ?? 0)).map((x) => x.r);
}

/** inetCidrRouteTable (IPv4 and IPv6). */
export function parseInetCidrRoutes(varbinds: readonly RawVarbind[], interfaces: readonly Interface[] = []): IpRoute[] {
  const t = tableOf(varbinds, ROUTES.inetCidrRouteEntry);
  const ifs = byIfIndex(interfaces);
  const out: IpRoute[] = [];
  for (const row of rowsOf(t, Object.values(INET_CIDR_ROUTE))) {
    const ix = inetCidrIndex(arcsOf(row));
    if (!ix) continue;
    const type = intAt(t, INET_CIDR_ROUTE.type, row);
    out.push(routeOf(ifs, ix.destination, ix.next_hop, {
      ifIndex: intAt(t, INET_CIDR_ROUTE.ifIndex, row), metric: intAt(t, INET_CIDR_ROUTE.metric1, row),
      proto: intAt(t, INET_CIDR_ROUTE.proto, row), type: type === null ? null : (CIDR_TYPES[type] ?? 'other'),
    }));
  }
  return tidy(out);
}

/** ipCidrRouteTable (IPv4). */
export function parseIpCidrRoutes(varbinds: readonly RawVarbind[], interfaces: readonly Interface[] = []): IpRoute[] {
  const t = tableOf(varbinds, ROUTES.ipCidrRouteEntry);
  const ifs = byIfIndex(interfaces);
  const out: IpRoute[] = [];
  for (const row of rowsOf(t, Object.values(IP_CIDR_ROUTE))) {
    const arcs = arcsOf(row);
    if (arcs.length !== 13 || !arcs.every(isOctet)) continue;
    const destination = networkOf(ipOfOctets(arcs.slice(0, 4)), prefixOfMask(arcs.slice(4, 8).join('.')));
    if (!destination) continue;
    const type = intAt(t, IP_CIDR_ROUTE.type, row);
    out.push(routeOf(ifs, destination, nextHopOf(ipOfOctets(arcs.slice(9, 13))), {
      ifIndex: intAt(t, IP_CIDR_ROUTE.ifIndex, row), metric: intAt(t, IP_CIDR_ROUTE.metric1, row),
      proto: intAt(t, IP_CIDR_ROUTE.proto, row), type: type === null ? null : (CIDR_TYPES[type] ?? 'other'),
    }));
  }
  return tidy(out);
}

/** RFC 1213 ipRouteTable (IPv4); rows of type invalid(2) and rows without a usable mask are left out. */
export function parseIpRouteTable(varbinds: readonly RawVarbind[], interfaces: readonly Interface[] = []): IpRoute[] {
  const t = tableOf(varbinds, ROUTES.ipRouteEntry);
  const ifs = byIfIndex(interfaces);
  const out: IpRoute[] = [];
  for (const row of rowsOf(t, Object.values(IP_ROUTE))) {
    const arcs = arcsOf(row);
    const type = intAt(t, IP_ROUTE.type, row);
    if (arcs.length !== 4 || type === IP_ROUTE_INVALID) continue;
    const destination = networkOf(ipOfOctets(arcs), prefixOfMask(valueAt(t, IP_ROUTE.mask, row)));
    if (!destination) continue;
    const hop = valueAt(t, IP_ROUTE.nextHop, row);
    out.push(routeOf(ifs, destination, nextHopOf(hop ? canonicalIp(hop) : null), {
      ifIndex: intAt(t, IP_ROUTE.ifIndex, row), metric: intAt(t, IP_ROUTE.metric1, row),
      proto: intAt(t, IP_ROUTE.proto, row), type: type === null ? null : (IP_ROUTE_TYPES[type] ?? 'other'),
    }));
  }
  return tidy(out);
}

export const ROUTE_PARSERS: Record<RouteTable, (varbinds: readonly RawVarbind[], interfaces?: readonly Interface[]) => IpRoute[]> = {
  inetCidrRouteTable: parseInetCidrRoutes,
  ipCidrRouteTable: parseIpCidrRoutes,
  ipRouteTable: parseIpRouteTable,
};

/** The order tables are tried in: the newest MIB first (the others describe the same table, less well). */
export const ROUTE_TABLES: readonly RouteTable[] = ['inetCidrRouteTable', 'ipCidrRouteTable', 'ipRouteTable'];

/** The routes of the first table (newest MIB first) that has any. */
export function parseRoutes(varbinds: readonly RawVarbind[], interfaces: readonly Interface[] = []):
  { table: RouteTable | null; routes: IpRoute[] } {
  for (const table of ROUTE_TABLES) {
    const routes = ROUTE_PARSERS[table](varbinds, interfaces);
    if (routes.length) return { table, routes };
  }
  return { table: null, routes: [] };
}

/** What the agent says its tables hold (inetCidrRouteNumber, ipCidrRouteNumber); null when it does not say. */
export type RouteCounts = Record<keyof typeof ROUTE_COUNTS, number | null>;

/** The row counts from a GET of ROUTE_COUNTS (exceptions and non-integers are null). */
export function routeTableSize(varbinds: readonly RawVarbind[]): RouteCounts {
  const count = (oid: string) => {
    const n = intOf(scalarOf(varbinds, oid));
    return n !== null && n >= 0 ? n : null;
  };
  return { inetCidrRouteTable: count(ROUTE_COUNTS.inetCidrRouteTable), ipCidrRouteTable: count(ROUTE_COUNTS.ipCidrRouteTable) };
}
