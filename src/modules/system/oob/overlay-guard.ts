// The cut-off guard: taking an overlay down (ZeroTier leave, toggle off or forget; tailscale down) while
// the request itself travels over it would lock the person out of the probe. A request is "over the
// overlay" when its client address, its socket's peer or the socket's local address falls inside one of
// the overlay's ranges; then the action needs {"confirm": true}.
import { BlockList, isIP } from 'node:net';
import type { IncomingMessage } from 'node:http';
import { HttpError } from '../../../core/errors.js';

/** Tailscale's fixed ranges: CGNAT 100.64.0.0/10 for IPv4, its ULA fd7a:115c:a1e0::/48 for IPv6. */
export const TAILSCALE_RANGES = ['100.64.0.0/10', 'fd7a:115c:a1e0::/48'];

/** "::ffff:10.0.0.1" as 10.0.0.1; a zone index dropped; anything not an address as null. */
export function plainAddress(a: string | undefined | null): string | null {
  if (!a) return null;
  let s = a.trim();
  const zone = s.indexOf('%');
  if (zone >= 0) s = s.slice(0, zone);
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(s);
  if (mapped) s = mapped[1]!;
  return isIP(s) ? s : null;
}

/** Parses "10.147.17.5/24", "fd00::1/88" or a bare address (a host route); null for anything else. */
export function parseRange(r: string): { address: string; prefix: number; family: 'ipv4' | 'ipv6' } | null {
  const [addr, len, extra] = r.trim().split('/');
  if (extra !== undefined) return null;
  const address = plainAddress(addr);
  if (!address) return null;
  const family = isIP(address) === 4 ? 'ipv4' : 'ipv6';
  const max = family === 'ipv4' ? 32 : 128;
  const prefix = len === undefined ? max : /^\d{1,3}$/.test(len) ? Number(len) : NaN;
  if (!(prefix >= 0 && prefix <= max)) return null;
  return { address, prefix, family };
}

/** The addresses of the request: where it comes from (as the HTTP core saw it and on the socket) and where it arrived. */
export function requestAddresses(req: IncomingMessage, clientIp: string): string[] {
  const all = [clientIp, req.socket.remoteAddress, req.socket.localAddress].map(plainAddress).filter((a): a is string => !!a);
  return [...new Set(all)];
}

/** The first of `addresses` inside one of `ranges`, with that range; null when none is. */
export function matchOverlay(addresses: string[], ranges: string[]): { address: string; range: string } | null {
  for (const range of ranges) {
    const p = parseRange(range);
    if (!p) continue;
    const list = new BlockList();
    list.addSubnet(p.address, p.prefix, p.family);
    for (const a of addresses) {
      if (list.check(a, isIP(a) === 4 ? 'ipv4' : 'ipv6')) return { address: a, range };
    }
  }
  return null;
}

/** 409 unless confirmed, when the request travels over the overlay about to go down. */
export function guardCutOff(opts: {
  what: string; addresses: string[]; ranges: string[]; confirm: boolean | undefined;
}): void {
  if (opts.confirm) return;
  const hit = matchOverlay(opts.addresses, opts.ranges);
  if (!hit) return;
  throw new HttpError(409, 'would_cut_off',
    `This request arrives over ${opts.what} (${hit.address} is in ${hit.range}): taking it down would cut this connection ` +
    'and may leave nobody able to reach the probe. Send the request again with "confirm": true to go ahead, or use another way in first.',
    { extra: { address: hit.address, range: hit.range, confirm_with: { confirm: true } } });
}
