// What a subnet holds: the addresses inside it that the inventory knows (endpoints' addresses and the
// subnet's gateway), each with the endpoints that have it, and its utilisation: addresses in use of the
// usable addresses (an IPv4 block without its network and broadcast addresses, except /31 and /32).
import { cidrContains, cidrSize, formatIp, parseIp, type Cidr, type Ip } from '../../core/ip.js';
import type { Store } from '../../core/store/types.js';
import { parseData, shortIdOf, type ItemRow } from './items.js';
import { subnetCidr } from './types.js';

export interface SubnetAddress {
  address: string;
  endpoints: { id: string; short_id: string; name: string }[];
  gateway: boolean;
  dhcp: boolean;
}

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
}

/** Usable addresses of a block: an IPv4 /30 or larger loses its network and broadcast addresses. */
export function usableSize(c: Cidr): bigint {
  const n = cidrSize(c);
  return c.family === 4 && c.prefix <= 30 ? n - 2n : n;
}

export function subnetAddresses(store: Pick<Store, 'all'>, row: ItemRow, page: { limit: number; offset: number }): SubnetAddresses {
  const data = parseData(row.data);
  const cidr = subnetCidr(data);
  const empty = { cidr: String(data.cidr ?? ''), size: 0, used: 0, utilisation: null, gateway: null, dhcp_size: 0, endpoints: 0,
    items: [], total: 0 };
  if (!cidr) return empty;
  const inside = (text: unknown): Ip | null => {
    const ip = typeof text === 'string' ? parseIp(text) : null;
    return ip && cidrContains(cidr, ip) ? ip : null;
  };
  const ranges = (Array.isArray(data.dhcp_ranges) ? data.dhcp_ranges as { start: string; end: string }[] : [])
    .map((r) => [inside(r.start), inside(r.end)] as const)
    .filter((r): r is readonly [Ip, Ip] => r[0] !== null && r[1] !== null && r[0].value <= r[1].value);

  const byAddress = new Map<bigint, SubnetAddress>();
  const at = (ip: Ip): SubnetAddress => {
    let a = byAddress.get(ip.value);
    if (!a) {
      const dhcp = ranges.some(([s, e]) => ip.value >= s.value && ip.value <= e.value);
      a = { address: formatIp(ip), endpoints: [], gateway: false, dhcp };
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

  const all = [...byAddress.entries()].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0)).map(([, a]) => a);
  const size = usableSize(cidr);
  const dhcp = ranges.reduce((n, [s, e]) => n + (e.value - s.value + 1n), 0n);
  return {
    cidr: String(data.cidr), size: Number(size), used: all.length,
    utilisation: size > 0n ? Math.min(1, all.length / Number(size)) : null,
    gateway: gw ? formatIp(gw) : null, dhcp_size: Number(dhcp), endpoints: endpoints.size,
    items: all.slice(page.offset, page.offset + page.limit), total: all.length,
  };
}
