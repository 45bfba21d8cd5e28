// Which way the probe's kernel sends packets to an address: through a gateway (and which route), straight
// onto a subnet it is on, or to itself. The path check's segments (path-segments.ts) start from it: the
// LAN ends at that gateway. Read from /proc/net/route and /proc/net/ipv6_route (the main table; a probe with
// policy routing may use another), longest prefix first, then the lowest metric, as the kernel chooses. The
// file is read at most every 10 s, not once per check, so many path monitors cost one read.
import { readFile } from 'node:fs/promises';
import os from 'node:os';
import { parseIp, type Ip } from '../../../core/ip.js';

/** How the probe reaches an address; `route` says which route ("default route on eth0", "10.77.0.0/20 on npl0"). */
export type RouteToward =
  | { kind: 'gateway'; gateway: string; route: string }
  | { kind: 'direct'; route: string }
  | { kind: 'local' };

const RTF_GATEWAY = 0x2;
const RTF_REJECT = 0x200;
const RTF_LOCAL = 0x80000000;

interface Row { net: bigint; prefix: number; gw: bigint; flags: number; metric: number; iface: string }

/** /proc/net/route's little-endian hex as a number. */
const le32 = (hex: string): bigint => BigInt(`0x${(hex.match(/../g) ?? ['0']).reverse().join('')}`);
const v4Text = (v: bigint) => [24n, 16n, 8n, 0n].map((s) => Number((v >> s) & 255n)).join('.');
const maskPrefix = (mask: bigint): number => { let p = 0; for (let b = 31n; b >= 0n && (mask >> b) & 1n; b--) p++; return p; };

function rows4(text: string): Row[] {
  return text.split('\n').slice(1).flatMap((line) => {
    const f = line.trim().split(/\s+/);
    if (f.length < 8) return [];
    const [iface, dest, gw, flags, , , metric, mask] = f;
    return [{ net: le32(dest!), prefix: maskPrefix(le32(mask!)), gw: le32(gw!), flags: parseInt(flags!, 16), metric: Number(metric) || 0,
      iface: iface! }];
  });
}

function rows6(text: string): Row[] {
  return text.split('\n').flatMap((line) => {
    const f = line.trim().split(/\s+/);
    if (f.length < 10) return [];
    const [dest, plen, , , gw, metric, , , flags, iface] = f;
    return [{ net: BigInt(`0x${dest}`), prefix: parseInt(plen!, 16), gw: BigInt(`0x${gw}`), flags: parseInt(flags!, 16) >>> 0,
      metric: parseInt(metric!, 16) >>> 0, iface: iface! }];
  });
}

const v6Text = (v: bigint): string => new URL(`http://[${v.toString(16).padStart(32, '0').match(/.{4}/g)!.join(':')}]`).hostname.slice(1, -1);

/** The route the kernel picks for `ip` from a table's text (v4: /proc/net/route, v6: /proc/net/ipv6_route); null: none. */
export function routeFromTable(table: string, ip: Ip): RouteToward | null {
  const bits = ip.family === 4 ? 32 : 128;
  const rows = ip.family === 4 ? rows4(table) : rows6(table);
  const match = rows.filter((r) => r.prefix === 0 || (ip.value >> BigInt(bits - r.prefix)) === (r.net >> BigInt(bits - r.prefix)))
    .sort((a, b) => b.prefix - a.prefix || a.metric - b.metric)[0];
  if (!match || match.flags & RTF_REJECT) return null;
  if (ip.family === 6 && match.flags & RTF_LOCAL) return { kind: 'local' };
  const text = ip.family === 4 ? v4Text : v6Text;
  const route = `${match.prefix === 0 ? 'default route' : `${text(match.net)}/${match.prefix}`} on ${match.iface}`;
  if (match.flags & RTF_GATEWAY && match.gw !== 0n) return { kind: 'gateway', gateway: text(match.gw), route };
  return { kind: 'direct', route };
}

/** Whether the address is the probe's own (loopback, or one of its interfaces'). */
export function isOwnAddress(address: string): boolean {
  if (/^127\./.test(address) || address === '::1') return true;
  return Object.values(os.networkInterfaces()).some((list) => list?.some((a) => a.address === address));
}

let cache: { at: number; v4: string | null; v6: string | null } | null = null;
const read = (p: string) => readFile(p, 'utf8').catch(() => null);

/** How the probe reaches `address` now; null when it cannot tell (not Linux, no route, not an address). */
export async function routeToward(address: string): Promise<RouteToward | null> {
  const ip = parseIp(address);
  if (!ip) return null;
  if (isOwnAddress(address)) return { kind: 'local' };
  if (!cache || Date.now() - cache.at > 10_000) {
    const [v4, v6] = await Promise.all([read('/proc/net/route'), read('/proc/net/ipv6_route')]);
    cache = { at: Date.now(), v4, v6 };
  }
  const table = ip.family === 4 ? cache.v4 : cache.v6;
  return table ? routeFromTable(table, ip) : null;
}

/** Forgets the cached tables (a test that changes routes between checks). */
export function forgetRoutes(): void { cache = null; }
