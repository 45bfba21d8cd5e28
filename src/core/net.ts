// Network facts about a request's peer, shared by the HTTP core and authentication. A leaf: imports
// nothing of the core.
import type { IncomingMessage } from 'node:http';
import { isIP } from 'node:net';

/** An address as people write it: IPv4-mapped IPv6 (::ffff:10.0.0.1) shown as the IPv4 address. */
export function normaliseAddress(a: string | undefined): string {
  const s = a ?? '';
  return s.startsWith('::ffff:') ? s.slice(7) : s;
}

/** The client's address: the socket's peer, or the first X-Forwarded-For hop behind a trusted proxy. */
export function clientIp(req: IncomingMessage, trustProxy: boolean): string {
  let ip = req.socket.remoteAddress ?? '';
  if (trustProxy) {
    const fwd = String(req.headers['x-forwarded-for'] ?? '').split(',')[0]!.trim();
    if (fwd) ip = fwd;
  }
  return normaliseAddress(ip);
}

/**
 * An IP address in one canonical text form (IPv6 compressed and lower case, IPv4-mapped shown as IPv4,
 * brackets dropped), so that two spellings of one address compare equal; null when it is not an IP.
 */
export function canonicalIp(input: string): string | null {
  const s = input.trim().replace(/^\[(.*)\]$/, '$1');
  if (isIP(s) === 4) return /(^|\.)0\d/.test(s) ? null : s; // "010.0.0.1" is octal to some parsers: refuse it
  if (isIP(s) !== 6) return null;
  const [addr, zone] = s.split('%') as [string, string | undefined];
  let out = new URL(`http://[${addr}]/`).hostname.slice(1, -1);
  const mapped = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(out);
  if (mapped) {
    const hi = parseInt(mapped[1]!, 16), lo = parseInt(mapped[2]!, 16);
    out = `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;
  }
  return zone === undefined ? out : `${out}%${zone}`;
}
