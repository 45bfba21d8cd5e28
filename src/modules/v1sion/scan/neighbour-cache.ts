// Liveness and MAC addresses from the kernel's neighbour table. One empty UDP datagram to each address
// of a directly connected subnet makes the kernel resolve it (ARP, or ND for IPv6); `ip -j neigh`
// then lists every host that answered, including hosts that ignore ICMP and have every TCP port
// filtered, with no raw socket and no root. Datagrams go to the discard port (9); whatever the host
// does with them does not matter, only that it answered the kernel's resolution.
import { createSocket, type Socket } from 'node:dgram';
import { run } from '../../../core/exec.js';
import { canonicalIp, normaliseMac } from '../../../core/ip.js';
import { inCidr } from './ranges.js';
import type { ScanState } from './state.js';

export interface NeighbourEntry { ip: string; mac: string; iface: string; state: string }

/** States in which the kernel has seen the host answer recently (not just a stale memory of it). */
const CONFIRMED = new Set(['REACHABLE', 'PERMANENT', 'NOARP']);

/**
 * Pokes the addresses in chunks of 256 and reads the table after each chunk (`onRead`): each address
 * holds a neighbour-table entry while the kernel resolves it (512 soft, 1,024 hard), and a failed
 * resolution takes about 3 s to clear, so a /20 on one link must not be poked at once.
 */
export async function pokeAndRead(addresses: readonly string[], signal: AbortSignal, onRead: () => Promise<void>): Promise<void> {
  for (let i = 0; i < addresses.length && !signal.aborted; i += POKE_CHUNK) {
    await pokeAddresses(addresses.slice(i, i + POKE_CHUNK), signal);
    await sleep(WAIT_MS, signal);
    await onRead();
  }
}

const POKE_CHUNK = 256;
/** Live hosts answer ARP in well under a millisecond on a LAN; 400 ms leaves room for a slow one. */
const WAIT_MS = 400;

export function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) { resolve(); return; }
    const t = setTimeout(done, ms);
    function done() { clearTimeout(t); signal.removeEventListener('abort', done); resolve(); }
    signal.addEventListener('abort', done, { once: true });
  });
}

/** Sends one datagram to each address (paced, so a chunk does not burst); resolves when all are sent. */
export async function pokeAddresses(addresses: readonly string[], signal: AbortSignal): Promise<void> {
  if (addresses.length === 0) return;
  const sockets: Partial<Record<4 | 6, Socket>> = {};
  const socketFor = (a: string) => {
    const f = a.includes(':') ? 6 : 4;
    return (sockets[f] ??= createSocket(f === 6 ? 'udp6' : 'udp4').on('error', () => undefined));
  };
  const empty = Buffer.alloc(0);
  try {
    for (let i = 0; i < addresses.length && !signal.aborted; i++) {
      const a = addresses[i]!;
      await new Promise<void>((resolve) => socketFor(a).send(empty, 9, a, () => resolve()));
      // 64 datagrams per tick keeps a /20 under a second while leaving the event loop free.
      if (i % 64 === 63) await new Promise((r) => setImmediate(r));
    }
  } finally {
    for (const s of Object.values(sockets)) s?.close();
  }
}

/** The neighbour table; `confirmed` tells whether the host answered recently. */
export async function readNeighbourCache(signal: AbortSignal, program = 'ip'): Promise<(NeighbourEntry & { confirmed: boolean })[]> {
  const r = await run(program, ['-j', 'neigh', 'show'], { signal, timeoutMs: 5000, maxBytes: 4 * 1024 * 1024 });
  if (r.code !== 0) return [];
  let rows: unknown;
  try { rows = JSON.parse(r.stdout || '[]'); } catch { return []; }
  if (!Array.isArray(rows)) return [];
  const out: (NeighbourEntry & { confirmed: boolean })[] = [];
  for (const row of rows as { dst?: string; lladdr?: string; dev?: string; state?: string[] }[]) {
    const ip = row.dst ? canonicalIp(row.dst) : null;
    const mac = row.lladdr ? normaliseMac(row.lladdr) : null;
    if (!ip || !mac || mac === '00:00:00:00:00:00') continue;
    const state = (row.state ?? [])[0] ?? 'NONE';
    out.push({ ip, mac, iface: row.dev ?? '', state, confirmed: CONFIRMED.has(state) });
  }
  return out;
}

/** Pings ff02::1 on a link (two echo requests): every IPv6 node on it answers, and lands in the cache. */
export async function allNodesPing(iface: string, signal: AbortSignal): Promise<void> {
  await run('ping', ['-6', '-c', '2', '-i', '0.5', '-w', '2', `ff02::1%${iface}`], { signal, timeoutMs: 5000, maxBytes: 256 * 1024 });
}

/**
 * Reads the kernel's neighbour table into the scan: a confirmed entry (REACHABLE, PERMANENT) inside the
 * subnet proves a host; a STALE one only lends its MAC to a host another source found.
 */
export async function readNeighboursInto(state: ScanState, signal: AbortSignal): Promise<void> {
  for (const n of await readNeighbourCache(signal)) {
    if (!inCidr(state.plan.subnet, n.ip)) continue;
    const known = state.hosts.get(n.ip);
    if (n.confirmed) state.alive(n.ip, 'arp').mac ??= n.mac;
    else if (known) known.mac ??= n.mac;
  }
}
