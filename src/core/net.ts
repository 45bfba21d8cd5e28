// Network facts about a request's peer, shared by the HTTP core and authentication. A leaf: imports
// nothing of the core.
import type { IncomingMessage } from 'node:http';

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
 * A URL's origin (scheme, host and port, the default port omitted), or null when `url` is not a URL
 * with one. Stored secrets are bound to it: an update that moves a webhook or monitor elsewhere drops them.
 */
export function originOf(url: string): string | null {
  try {
    const o = new URL(url).origin;
    return o === 'null' ? null : o;
  } catch {
    return null;
  }
}
