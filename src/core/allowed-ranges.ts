// Which networks the probe may reach with discovery and stored credentials: the private and local ranges,
// the subnets it has an address in, and what `discovery.allowed_ranges` adds. The probe must never become a
// scanning (or credential-sending) relay for the internet. Discovery's scans and SSH, and every SNMP entry
// point, ask here.
import { networkInterfaces } from 'node:os';
import { HttpError } from './errors.js';
import { parseCidr, type Cidr } from './ip.js';

export const DEFAULT_ALLOWED = [
  '10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16', '100.64.0.0/10', '169.254.0.0/16', '127.0.0.0/8',
  'fc00::/7', 'fe80::/10',
] as const;

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

/** Whether the network (or one address as /32, /128) lies within the allowed ranges. */
export function isAllowed(cidr: Cidr, allowed: readonly string[], links: LocalLink[] = localLinks()): boolean {
  const ranges = [...DEFAULT_ALLOWED, ...allowed].flatMap((r) => {
    const c = parseCidr(r, { loose: true });
    return c.ok ? [c.cidr] : [];
  });
  return [...ranges, ...links.map((l) => l.cidr)].some((r) => within(cidr, r));
}

/** The 403 for a network or address outside the allowed ranges; `verb` says what the probe would do there. */
export function rangeNotAllowed(text: string, verb: 'scans' | 'reaches'): HttpError {
  return new HttpError(403, 'range_not_allowed',
    `${text} is outside the ranges this probe ${verb}: private and local networks and its own subnets. ` +
    'An administrator can allow more networks with the configuration key discovery.allowed_ranges',
    { extra: { config_key: 'discovery.allowed_ranges' } });
}
