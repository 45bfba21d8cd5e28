// GET /api/host/info: what the probe is and where it sits: host name, OS and kernel, board model and
// serial, CPU, network interfaces with addresses and MACs, default gateways, DNS servers and time
// synchronisation. Read from /proc, /sys, /etc and `os` (asynchronously), kept once read, and read again
// on request (refresh=true). The only external program is `timedatectl`, and only on a host without
// systemd-timesyncd's flag file. `systeminformation` would spawn shells for most of these facts; it is not
// needed for any of them (docs/system.md).
import { access, readFile } from 'node:fs/promises';
import os from 'node:os';
import { run, which } from '../../../core/exec.js';
import { boardOf, parseCpuinfo } from './board.js';

export interface HostInterface {
  name: string;
  mac: string | null;
  internal: boolean;
  addresses: { address: string; family: 'IPv4' | 'IPv6'; prefix: number | null }[];
}

export interface HostInfo {
  hostname: string;
  os: { name: string; id: string | null; version: string | null; pretty_name: string | null };
  kernel: { release: string; version: string; architecture: string };
  board: { model: string | null; serial: string | null; revision: string | null };
  cpu: { model: string | null; cores: number; architecture: string };
  memory_total_bytes: number;
  interfaces: HostInterface[];
  default_gateway: { ipv4: { address: string; interface: string } | null; ipv6: { address: string; interface: string } | null };
  dns_servers: string[];
  time: { timezone: string; synchronized: boolean | null; source: 'systemd-timesyncd' | 'timedatectl' | null };
  collected_at: string;
}

export interface HostPaths { proc: string; etc: string; run: string }
const DEFAULT_PATHS: HostPaths = { proc: '/proc', etc: '/etc', run: '/run' };

async function text(path: string): Promise<string | null> {
  try { return await readFile(path, 'utf8'); } catch { return null; }
}

/** KEY=value lines of /etc/os-release, quotes removed. */
export function parseOsRelease(t: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of t.split('\n')) {
    const m = /^([A-Z_][A-Z0-9_]*)=(.*)$/.exec(line.trim());
    if (m) out[m[1]!] = m[2]!.replace(/^"(.*)"$/, '$1').replace(/^'(.*)'$/, '$1');
  }
  return out;
}

/** Little-endian hex of /proc/net/route as a dotted quad. */
function hexToIpv4(hex: string): string {
  const n = parseInt(hex, 16);
  return [n & 255, (n >>> 8) & 255, (n >>> 16) & 255, (n >>> 24) & 255].join('.');
}

/** The default IPv4 route with the lowest metric in /proc/net/route. */
export function parseRoute(t: string): { address: string; interface: string } | null {
  let best: { address: string; interface: string; metric: number } | null = null;
  for (const line of t.split('\n').slice(1)) {
    const f = line.trim().split(/\s+/);
    if (f.length < 8) continue;
    const [iface, dest, gw, flags, , , metric, mask] = f;
    if (dest !== '00000000' || mask !== '00000000' || !(parseInt(flags!, 16) & 0x2)) continue; // RTF_GATEWAY
    const m = Number(metric);
    if (!best || m < best.metric) best = { address: hexToIpv4(gw!), interface: iface!, metric: m };
  }
  return best ? { address: best.address, interface: best.interface } : null;
}

/** The default IPv6 route (::/0 through a gateway) with the lowest metric in /proc/net/ipv6_route. */
export function parseIpv6Route(t: string): { address: string; interface: string } | null {
  let best: { address: string; interface: string; metric: number } | null = null;
  for (const line of t.split('\n')) {
    const f = line.trim().split(/\s+/);
    if (f.length < 10) continue;
    const [dest, plen, , , gw, metricHex, , , flags, iface] = f;
    if (!/^0{32}$/.test(dest!) || plen !== '00' || /^0{32}$/.test(gw!) || !(parseInt(flags!, 16) & 0x2)) continue;
    const m = parseInt(metricHex!, 16);
    // The URL parser writes an IPv6 address in its canonical, compressed form.
    const address = new URL(`http://[${gw!.match(/.{4}/g)!.join(':')}]`).hostname.slice(1, -1);
    if (!best || m < best.metric) best = { address, interface: iface!, metric: m };
  }
  return best ? { address: best.address, interface: best.interface } : null;
}

/** nameserver lines of a resolv.conf. */
export function parseResolvConf(t: string): string[] {
  return [...t.matchAll(/^\s*nameserver\s+(\S+)/gm)].map((m) => m[1]!);
}

export function interfacesOf(ifaces: NodeJS.Dict<os.NetworkInterfaceInfo[]>): HostInterface[] {
  return Object.entries(ifaces).map(([name, list = []]) => {
    const mac = list.find((a) => a.mac && a.mac !== '00:00:00:00:00:00')?.mac ?? null;
    return {
      name, mac, internal: list.some((a) => a.internal),
      addresses: list.map((a) => ({ address: a.address, family: a.family, prefix: a.cidr ? Number(a.cidr.split('/')[1]) : null })),
    };
  }).sort((a, b) => Number(a.internal) - Number(b.internal) || a.name.localeCompare(b.name));
}

export class HostService {
  private cached: HostInfo | null = null;
  private reading: Promise<HostInfo> | null = null;

  constructor(private readonly paths: HostPaths = DEFAULT_PATHS) {}

  /** The cached facts, read on first use; `refresh` reads them again (requests meanwhile share the read). */
  async info(refresh = false): Promise<HostInfo> {
    if (this.cached && !refresh) return this.cached;
    this.reading ??= this.read().finally(() => { this.reading = null; });
    this.cached = await this.reading;
    return this.cached;
  }

  private async read(): Promise<HostInfo> {
    const { proc, etc, run: runDir } = this.paths;
    const [osRelease, model, cpuinfo, route4, route6, resolv, resolvedUpstream, time] = await Promise.all([
      text(`${etc}/os-release`).then((t) => t ?? text('/usr/lib/os-release')),
      text(`${proc}/device-tree/model`),
      text(`${proc}/cpuinfo`),
      text(`${proc}/net/route`),
      text(`${proc}/net/ipv6_route`),
      text(`${etc}/resolv.conf`),
      text(`${runDir}/systemd/resolve/resolv.conf`),
      this.timeSync(runDir),
    ]);
    const rel = osRelease ? parseOsRelease(osRelease) : {};
    const cpu = cpuinfo ? parseCpuinfo(cpuinfo) : { model: null, serial: null, revision: null, board: null };
    // Behind systemd-resolved, resolv.conf names only its stub (127.0.0.53): the servers it asks are the ones that matter.
    let dns = resolv ? parseResolvConf(resolv) : [];
    if (resolvedUpstream && dns.every((d) => d.startsWith('127.0.0.5'))) dns = parseResolvConf(resolvedUpstream);
    return {
      hostname: os.hostname(),
      os: {
        name: rel.NAME ?? os.type(), id: rel.ID ?? null, version: rel.VERSION_ID ?? rel.VERSION ?? null,
        pretty_name: rel.PRETTY_NAME ?? null,
      },
      kernel: { release: os.release(), version: os.version(), architecture: os.machine() },
      board: { model: boardOf(model, cpu), serial: cpu.serial, revision: cpu.revision },
      cpu: { model: cpu.model ?? os.cpus()[0]?.model ?? null, cores: os.availableParallelism(), architecture: os.arch() },
      memory_total_bytes: os.totalmem(),
      interfaces: interfacesOf(os.networkInterfaces()),
      default_gateway: { ipv4: route4 ? parseRoute(route4) : null, ipv6: route6 ? parseIpv6Route(route6) : null },
      dns_servers: dns,
      time: { timezone: Intl.DateTimeFormat().resolvedOptions().timeZone, ...time },
      collected_at: new Date().toISOString(),
    };
  }

  /** systemd-timesyncd touches /run/systemd/timesync/synchronized once the clock is synchronised. */
  private async timeSync(runDir: string): Promise<{ synchronized: boolean | null; source: HostInfo['time']['source'] }> {
    if (await access(`${runDir}/systemd/timesync/synchronized`).then(() => true, () => false)) {
      return { synchronized: true, source: 'systemd-timesyncd' };
    }
    const timedatectl = await which('timedatectl');
    if (!timedatectl) return { synchronized: null, source: null };
    try {
      const r = await run(timedatectl, ['show', '-p', 'NTPSynchronized', '--value'], { timeoutMs: 3000, maxBytes: 1024 });
      const v = r.stdout.trim();
      if (r.code === 0 && (v === 'yes' || v === 'no')) return { synchronized: v === 'yes', source: 'timedatectl' };
    } catch { /* no systemd here (a container): unknown */ }
    return { synchronized: null, source: null };
  }
}
