// Which networks a scan may sweep, and which of them are on the probe's own links. By default only the
// private and local ranges and the subnets the probe has an address in: the probe must never become a
// scanning relay for the public internet. `discovery.allowed_ranges` adds more.
import { isAllowed, localLinks, rangeNotAllowed, type LocalLink } from '../../../core/allowed-ranges.js';
import { invalid } from '../../../core/errors.js';
import { cidrContains, cidrSize, formatIp, parseCidr, parseIp, type Cidr } from '../../../core/ip.js';

export { DEFAULT_ALLOWED, localLinks, type LocalLink } from '../../../core/allowed-ranges.js';

/** An IPv6 prefix longer than this is swept address by address; a shorter one through the neighbour cache. */
export const V6_SWEEP_PREFIX = 120;

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
  if (!isAllowed(cidr, opts.allowed, opts.links ?? localLinks())) throw rangeNotAllowed(parsed.text, 'scans');
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
