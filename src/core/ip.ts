// IP addresses, CIDRs and MAC addresses: parsing, normalisation (IPv6 in the RFC 5952 canonical form,
// MACs as lowercase colon-separated pairs), containment and overlap. A leaf: no dependencies beyond
// node:net. The inventory, monitors' status badges and discovery share it.
import { isIP } from 'node:net';

export type Family = 4 | 6;

export interface Ip {
  family: Family;
  /** The address as an unsigned integer (32 or 128 bits). */
  value: bigint;
}

export interface Cidr {
  family: Family;
  prefix: number;
  /** First and last address of the block. */
  first: bigint;
  last: bigint;
}

const bits = (f: Family) => (f === 4 ? 32 : 128);

function parseV4(s: string): bigint | null {
  const parts = s.split('.');
  if (parts.length !== 4) return null;
  let v = 0n;
  for (const p of parts) {
    // Decimal only, no leading zeros (010 is octal to some tools and decimal to others: refuse it).
    if (!/^(0|[1-9]\d{0,2})$/.test(p)) return null;
    const n = Number(p);
    if (n > 255) return null;
    v = (v << 8n) | BigInt(n);
  }
  return v;
}

function parseV6(s: string): bigint | null {
  if (s.includes('%')) return null; // zone ids are interface-local: not an inventory address
  let head = s, tail = '';
  const dbl = s.indexOf('::');
  if (dbl >= 0) {
    if (s.indexOf('::', dbl + 1) >= 0) return null;
    head = s.slice(0, dbl);
    tail = s.slice(dbl + 2);
  }
  const groups = (part: string): number[] | null => {
    if (part === '') return [];
    const out: number[] = [];
    const items = part.split(':');
    for (let i = 0; i < items.length; i++) {
      const it = items[i]!;
      if (i === items.length - 1 && it.includes('.')) {
        const v4 = parseV4(it);
        if (v4 == null) return null;
        out.push(Number(v4 >> 16n), Number(v4 & 0xffffn));
        continue;
      }
      if (!/^[0-9a-fA-F]{1,4}$/.test(it)) return null;
      out.push(parseInt(it, 16));
    }
    return out;
  };
  const h = groups(head), t = groups(tail);
  if (!h || !t) return null;
  if (dbl >= 0 && h.length + t.length > 7) return null;
  if (dbl < 0 && h.length !== 8) return null;
  // A dotted quad may only end the address.
  if (dbl >= 0 && head.includes('.')) return null;
  const all = dbl >= 0 ? [...h, ...new Array<number>(8 - h.length - t.length).fill(0), ...t] : h;
  let v = 0n;
  for (const g of all) v = (v << 16n) | BigInt(g);
  return v;
}

/** Parses an IPv4 or IPv6 address (no zone id, no brackets); null when it is not one. */
export function parseIp(input: string): Ip | null {
  const s = input.trim();
  const fam = isIP(s);
  if (fam === 4) { const v = parseV4(s); return v == null ? null : { family: 4, value: v }; }
  if (fam === 6) { const v = parseV6(s); return v == null ? null : { family: 6, value: v }; }
  return null;
}

function formatV4(v: bigint): string {
  return [24n, 16n, 8n, 0n].map((sh) => String((v >> sh) & 0xffn)).join('.');
}

/** RFC 5952: lowercase, no leading zeros, the longest run (>= 2) of zero groups as ::, the first on a tie. */
function formatV6(v: bigint): string {
  const g: number[] = [];
  for (let i = 7; i >= 0; i--) g.push(Number((v >> BigInt(i * 16)) & 0xffffn));
  // IPv4-mapped addresses keep the dotted quad (RFC 5952 section 5).
  if (g.slice(0, 5).every((x) => x === 0) && g[5] === 0xffff) return `::ffff:${formatV4(v & 0xffffffffn)}`;
  let best = -1, bestLen = 0;
  for (let i = 0; i < 8;) {
    if (g[i] !== 0) { i++; continue; }
    let j = i;
    while (j < 8 && g[j] === 0) j++;
    if (j - i > bestLen) { best = i; bestLen = j - i; }
    i = j;
  }
  const hex = g.map((x) => x.toString(16));
  if (bestLen < 2) return hex.join(':');
  return `${hex.slice(0, best).join(':')}::${hex.slice(best + bestLen).join(':')}`;
}

export function formatIp(ip: Ip): string {
  return ip.family === 4 ? formatV4(ip.value) : formatV6(ip.value);
}

/** The canonical text of an address, or null when it is not one. */
export function normaliseIp(input: string): string | null {
  const ip = parseIp(input);
  return ip ? formatIp(ip) : null;
}

/**
 * One address, one spelling, for matching a host seen in different places (a monitor's target, a
 * discovered host): normaliseIp, brackets dropped, and an IPv4-mapped IPv6 address as its IPv4 address.
 */
export function canonicalIp(input: string): string | null {
  const ip = parseIp(input.trim().replace(/^\[(.*)\]$/, '$1'));
  if (!ip) return null;
  if (ip.family === 6 && ip.value >> 32n === 0xffffn) return formatV4(ip.value & 0xffffffffn);
  return formatIp(ip);
}

/** A failure may carry the network the text probably meant (host bits set), for a one-click fix. */
export type CidrResult = { ok: true; cidr: Cidr; text: string } | { ok: false; message: string; suggestion?: string };

/**
 * Parses `address/prefix`. Decision (docs/brain.md): a CIDR with host bits set is refused with the
 * network it probably meant, because "10.0.0.5/24" is as often a typo for the gateway as for the
 * network (`loose` masks the host bits instead). A bare address is a host route (/32 or /128).
 */
export function parseCidr(input: string, opts: { loose?: boolean } = {}): CidrResult {
  const s = input.trim();
  const slash = s.indexOf('/');
  const addr = slash >= 0 ? s.slice(0, slash) : s;
  const ip = parseIp(addr);
  if (!ip) return { ok: false, message: `Not an IPv4 or IPv6 network: ${input}` };
  const max = bits(ip.family);
  let prefix = max;
  if (slash >= 0) {
    const p = s.slice(slash + 1);
    if (!/^\d{1,3}$/.test(p) || Number(p) > max) return { ok: false, message: `Prefix length must be 0-${max}` };
    prefix = Number(p);
  }
  const hostBits = BigInt(max - prefix);
  const mask = ((1n << BigInt(max)) - 1n) ^ ((1n << hostBits) - 1n);
  const first = ip.value & mask;
  if (first !== ip.value && !opts.loose) {
    const network = `${formatIp({ family: ip.family, value: first })}/${prefix}`;
    return { ok: false, message: `${s} has host bits set: did you mean the network ${network}?`, suggestion: network };
  }
  const last = first | ((1n << hostBits) - 1n);
  return { ok: true, cidr: { family: ip.family, prefix, first, last }, text: `${formatIp({ family: ip.family, value: first })}/${prefix}` };
}

export function formatCidr(c: Cidr): string {
  return `${formatIp({ family: c.family, value: c.first })}/${c.prefix}`;
}

/** Whether the block holds the address (same family only: ::ffff:10.0.0.1 is not in 10.0.0.0/8). */
export function cidrContains(c: Cidr, ip: Ip): boolean {
  return c.family === ip.family && ip.value >= c.first && ip.value <= c.last;
}

/** Whether two blocks share at least one address. */
export function cidrOverlaps(a: Cidr, b: Cidr): boolean {
  return a.family === b.family && a.first <= b.last && b.first <= a.last;
}

/** Number of addresses in a block (a bigint: an IPv6 /64 does not fit a double exactly). */
export function cidrSize(c: Cidr): bigint {
  return c.last - c.first + 1n;
}

/**
 * A MAC address as `aa:bb:cc:dd:ee:ff`. Accepts colon or hyphen separated pairs (`AA-BB-...`), Cisco
 * dotted triplets (`aabb.ccdd.eeff`) and bare hex (`aabbccddeeff`). Null when it is none of those.
 */
export function normaliseMac(input: string): string | null {
  const s = input.trim().toLowerCase();
  let hex: string | null = null;
  if (/^[0-9a-f]{2}([:-])[0-9a-f]{2}(\1[0-9a-f]{2}){4}$/.test(s)) hex = s.replace(/[:-]/g, '');
  else if (/^[0-9a-f]{4}\.[0-9a-f]{4}\.[0-9a-f]{4}$/.test(s)) hex = s.replace(/\./g, '');
  else if (/^[0-9a-f]{12}$/.test(s)) hex = s;
  if (!hex) return null;
  return hex.match(/../g)!.join(':');
}

/**
 * Whether a subnet overlaps any of the networks of a saved topology session (the discovery module's
 * sessions hold the CIDRs they scanned; host bits are masked). Invalid CIDR texts are ignored.
 */
export function overlapsAny(subnet: Cidr, networks: readonly string[]): boolean {
  for (const n of networks) {
    const c = parseCidr(n, { loose: true });
    if (c.ok && cidrOverlaps(subnet, c.cidr)) return true;
  }
  return false;
}
