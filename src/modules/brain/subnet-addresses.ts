// What a subnet holds: the addresses inside it that the inventory knows (endpoints' addresses and the
// subnet's gateway), each with the endpoints that have it and when discovery last found it alive, and its
// utilisation: addresses in use of the usable addresses (an IPv4 block without its network and broadcast
// addresses, except /31 and /32). Beside them: the addresses discovery found alive that nobody documented,
// and the free ones (neither documented nor seen), as ranges, split where a DHCP range starts or ends.
import { cidrContains, cidrSize, formatIp, parseIp, type Cidr, type Ip } from '../../core/ip.js';
import type { Store } from '../../core/store/types.js';
import { parseData, shortIdOf, type ItemRow } from './items.js';
import type { SeenAddress, SeenAddresses } from './seen.js';
import { subnetCidr } from './types.js';

export interface SubnetAddress {
  address: string;
  endpoints: { id: string; short_id: string; name: string }[];
  gateway: boolean;
  dhcp: boolean;
  /** When discovery last found it alive (null: never, or not since the inventory keeps such times). */
  last_seen: string | null;
}

/** An address discovery found alive that no endpoint has and that is not the gateway. */
export interface DiscoveredAddress {
  address: string; mac: string | null; hostname: string | null; vendor: string | null; dhcp: boolean;
  first_seen: string; last_seen: string;
}

/** A run of free addresses: from start to end, inside a DHCP range or not. */
export interface FreeRange { start: string; end: string; size: number; dhcp: boolean }

/** Discovered addresses and free ranges listed at most (the counts cover them all). */
export const DISCOVERED_MAX = 1000;
export const FREE_RANGES_MAX = 256;

export interface SubnetAddresses {
  cidr: string;
  /** Usable addresses (a number: an IPv6 block's is only approximate). */
  size: number;
  used: number;
  /** used / size, 0..1; null when the subnet has no valid CIDR. */
  utilisation: number | null;
  gateway: string | null;
  dhcp_size: number;
  endpoints: number;
  items: SubnetAddress[];
  total: number;
  discovered: { items: DiscoveredAddress[]; total: number };
  free: { size: number; ranges: FreeRange[]; total: number };
}

/** Usable addresses of a block: an IPv4 /30 or larger loses its network and broadcast addresses. */
export function usableSize(c: Cidr): bigint {
  const n = cidrSize(c);
  return c.family === 4 && c.prefix <= 30 ? n - 2n : n;
}

export function subnetAddresses(store: Pick<Store, 'all'>, row: ItemRow, page: { limit: number; offset: number },
  seen: Pick<SeenAddresses, 'inside'>): SubnetAddresses {
  const data = parseData(row.data);
  const cidr = subnetCidr(data);
  const empty = { cidr: String(data.cidr ?? ''), size: 0, used: 0, utilisation: null, gateway: null, dhcp_size: 0, endpoints: 0,
    items: [], total: 0, discovered: { items: [], total: 0 }, free: { size: 0, ranges: [], total: 0 } };
  if (!cidr) return empty;
  const inside = (text: unknown): Ip | null => {
    const ip = typeof text === 'string' ? parseIp(text) : null;
    return ip && cidrContains(cidr, ip) ? ip : null;
  };
  const ranges = (Array.isArray(data.dhcp_ranges) ? data.dhcp_ranges as { start: string; end: string }[] : [])
    .map((r) => [inside(r.start), inside(r.end)] as const)
    .filter((r): r is readonly [Ip, Ip] => r[0] !== null && r[1] !== null && r[0].value <= r[1].value);

  const inDhcp = (v: bigint) => ranges.some(([s, e]) => v >= s.value && v <= e.value);
  const live = new Map<bigint, SeenAddress>();
  for (const x of seen.inside(cidr)) { const ip = parseIp(x.address); if (ip) live.set(ip.value, x); }

  const byAddress = new Map<bigint, SubnetAddress>();
  const at = (ip: Ip): SubnetAddress => {
    let a = byAddress.get(ip.value);
    if (!a) {
      const t = live.get(ip.value)?.last_seen;
      a = { address: formatIp(ip), endpoints: [], gateway: false, dhcp: inDhcp(ip.value),
        last_seen: t == null ? null : new Date(t).toISOString() };
      byAddress.set(ip.value, a);
    }
    return a;
  };
  const endpoints = new Set<string>();
  const rows = store.all<{ id: string; seq: number; name: string; ip: string }>(
    `SELECT i.id AS id, i.seq AS seq, i.name AS name, j.value AS ip
       FROM brain_items i, json_each(i.data, '$.ip_addresses') j
      WHERE i.type = 'endpoints' ORDER BY i.name COLLATE NOCASE, i.seq`);
  for (const r of rows) {
    const ip = inside(r.ip);
    if (!ip) continue;
    const a = at(ip);
    if (!a.endpoints.some((e) => e.id === r.id)) a.endpoints.push({ id: r.id, short_id: shortIdOf('endpoints', r.seq), name: r.name });
    endpoints.add(r.id);
  }
  const gw = inside(data.gateway);
  if (gw) at(gw).gateway = true;

  const byValue = (a: [bigint, unknown], b: [bigint, unknown]) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0);
  const all = [...byAddress.entries()].sort(byValue).map(([, a]) => a);
  const discovered = [...live.entries()].filter(([v]) => !byAddress.has(v)).sort(byValue).map(([v, x]): DiscoveredAddress => ({
    address: x.address, mac: x.mac, hostname: x.hostname, vendor: x.vendor, dhcp: inDhcp(v),
    first_seen: new Date(x.first_seen).toISOString(), last_seen: new Date(x.last_seen).toISOString(),
  }));
  const size = usableSize(cidr);
  const dhcp = ranges.reduce((n, [s, e]) => n + (e.value - s.value + 1n), 0n);
  const taken = [...new Set([...byAddress.keys(), ...live.keys()])].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const free = freeRanges(cidr, taken, ranges);
  return {
    cidr: String(data.cidr), size: Number(size), used: all.length,
    utilisation: size > 0n ? Math.min(1, all.length / Number(size)) : null,
    gateway: gw ? formatIp(gw) : null, dhcp_size: Number(dhcp), endpoints: endpoints.size,
    items: all.slice(page.offset, page.offset + page.limit), total: all.length,
    discovered: { items: discovered.slice(0, DISCOVERED_MAX), total: discovered.length },
    free: { size: Number(free.size), ranges: free.ranges, total: free.total },
  };
}

/**
 * The usable addresses of a block that are not taken (sorted values), as ranges in numeric order, each split
 * where a DHCP range begins or ends. Walks the taken addresses and the range edges, never the block: an IPv6
 * /64 costs what its few known addresses cost.
 */
export function freeRanges(c: Cidr, taken: readonly bigint[], dhcp: readonly (readonly [Ip, Ip])[]):
  { size: bigint; ranges: FreeRange[]; total: number } {
  const edge = c.family === 4 && c.prefix <= 30 ? 1n : 0n;
  const first = c.first + edge, last = c.last - edge;
  // Cut points: a free run ends before each taken address and at each DHCP range's edges.
  const cuts = new Set<bigint>();
  for (const [s, e] of dhcp) { cuts.add(s.value); cuts.add(e.value + 1n); }
  const bounds = [...cuts].filter((v) => v > first && v <= last).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const inDhcp = (v: bigint) => dhcp.some(([s, e]) => v >= s.value && v <= e.value);
  const ranges: FreeRange[] = [];
  let size = 0n, total = 0;
  const add = (from: bigint, to: bigint) => {
    // A run split at the DHCP edges inside it.
    let start = from;
    for (const b of bounds) {
      if (b <= start || b > to) continue;
      push(start, b - 1n);
      start = b;
    }
    push(start, to);
  };
  const push = (from: bigint, to: bigint) => {
    size += to - from + 1n;
    total++;
    if (ranges.length < FREE_RANGES_MAX) {
      ranges.push({ start: formatIp({ family: c.family, value: from }), end: formatIp({ family: c.family, value: to }),
        size: Number(to - from + 1n), dhcp: inDhcp(from) });
    }
  };
  let next = first;
  for (const v of taken) {
    if (v < first || v > last) continue;
    if (v > next) add(next, v - 1n);
    next = v + 1n;
  }
  if (next <= last) add(next, last);
  return { size, ranges, total };
}
