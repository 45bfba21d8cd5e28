// Which networks a scan may sweep, and which of them are on the probe's own links. By default only the
// private and local ranges and the subnets the probe has an address in: the probe must never become a
// scanning relay for the public internet. `discovery.allowed_ranges` adds more.
import { networkInterfaces } from 'node:os';
import { HttpError, invalid } from '../../../core/errors.js';
import { cidrContains, cidrSize, formatIp, parseCidr, parseIp, type Cidr } from '../../../core/ip.js';

export const DEFAULT_ALLOWED = [
  '10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16', '100.64.0.0/10', '169.254.0.0/16', '127.0.0.0/8',
  'fc00::/7', 'fe80::/10',
] as const;

/** An IPv6 prefix longer than this is swept address by address; a shorter one through the neighbour cache. */
export const V6_SWEEP_PREFIX = 120;

/** A network the probe has an address in: where neighbour discovery (ARP/ND) reaches hosts directly. */
export interface LocalLink { iface: string; cidr: Cidr; address: string }

/** The probe's own subnets, from its interfaces (loopback included). */
export function localLinks(): LocalLink[] {
  const out: LocalLink[] = [];
  for (const [iface, addrs] of Object.entries(networkInterfaces())) {
    for (const a of addrs ?? []) {
      if (!a.cidr) continue;
      const c = parseCidr(a.cidr, { loose: true });
      if (c.ok) out.push({ iface, cidr: c.cidr, address: a.address });
    }
  }
  return out;
}

const within = (inner: Cidr, outer: Cidr) =>
  inner.family === outer.family && inner.first >= outer.first && inner.last <= outer.last;

/**
 * The subnet to scan, checked: a CIDR (or one address), within the allowed ranges (403 naming
 * `discovery.allowed_ranges`) and no larger than the configured prefix (400 naming `subnet`).
 */
export function checkSubnet(input: string, opts: { allowed: readonly string[]; maxPrefixV4: number; links?: LocalLink[] }): Cidr {
  const parsed = parseCidr(input.trim());
  if (!parsed.ok) throw invalid('scan request', [{ path: 'subnet', message: parsed.message }]);
  const cidr = parsed.cidr;
  if (cidr.family === 4 && cidr.prefix < opts.maxPrefixV4) {
    throw invalid('scan request', [{ path: 'subnet', message:
      `/${cidr.prefix} is larger than this probe scans (/${opts.maxPrefixV4} at most, ${2 ** (32 - opts.maxPrefixV4)} addresses; ` +
      'discovery.max_prefix_v4 allows up to /16)' }]);
  }
  if (cidr.family === 6 && cidr.prefix < 64) {
    throw invalid('scan request', [{ path: 'subnet', message: 'an IPv6 scan covers one link: a /64 or longer prefix' }]);
  }
  const ranges = [...DEFAULT_ALLOWED, ...opts.allowed].flatMap((r) => {
    const c = parseCidr(r, { loose: true });
    return c.ok ? [c.cidr] : [];
  });
  const own = (opts.links ?? localLinks()).map((l) => l.cidr);
  if (![...ranges, ...own].some((r) => within(cidr, r))) {
    throw new HttpError(403, 'range_not_allowed',
      `${parsed.text} is outside the ranges this probe scans: private and local networks and its own subnets. ` +
      'An administrator can allow more networks with the configuration key discovery.allowed_ranges',
      { extra: { config_key: 'discovery.allowed_ranges' } });
  }
  return cidr;
}

/** The addresses a scan sweeps one by one: every host address (not the network and broadcast of IPv4 /8-/30). */
export function sweepAddresses(cidr: Cidr): string[] {
  if (cidr.family === 6 && cidr.prefix < V6_SWEEP_PREFIX) return [];
  let first = cidr.first;
  let last = cidr.last;
  if (cidr.family === 4 && cidr.prefix <= 30) { first += 1n; last -= 1n; }
  const out: string[] = [];
  for (let v = first; v <= last; v++) out.push(formatIp({ family: cidr.family, value: v }));
  return out;
}

/** The probe's links that overlap the scanned network (neighbour discovery works there). */
export function linksIn(cidr: Cidr, links: LocalLink[]): LocalLink[] {
  return links.filter((l) => l.cidr.family === cidr.family && l.cidr.first <= cidr.last && cidr.first <= l.cidr.last
    && !l.iface.startsWith('lo'));
}

/** Whether an address is in the network. */
export function inCidr(cidr: Cidr, address: string): boolean {
  const ip = parseIp(address);
  return !!ip && cidrContains(cidr, ip);
}

export const sizeOf = (c: Cidr) => Number(cidrSize(c));
