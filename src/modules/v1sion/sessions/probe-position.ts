// Where the probe is, for the parent proposals (parent-tree.ts): its own addresses (a scan of its own
// subnet finds the probe itself, and the forwarding table of the switch it is plugged into puts it on a
// port) and its gateways from the kernel's IPv4 routes, default first. The probe's LLDP neighbour is not
// read: the appliance runs no lldpd, and the switch's forwarding table (or a person's root) says the same.
import { readFileSync } from 'node:fs';
import { localLinks } from '../../../core/allowed-ranges.js';
import type { ProbePosition } from './parent-tree.js';

/** Little-endian hex of /proc/net/route as a dotted quad. */
function hexToIpv4(hex: string): string {
  const n = parseInt(hex, 16);
  return [n & 255, (n >>> 8) & 255, (n >>> 16) & 255, (n >>> 24) & 255].join('.');
}

/** The gateways of /proc/net/route's routes (RTF_GATEWAY), the default routes' first, then by metric; each once. */
export function gatewaysOf(procNetRoute: string): string[] {
  const rows: { gw: string; isDefault: boolean; metric: number }[] = [];
  for (const line of procNetRoute.split('\n').slice(1)) {
    const f = line.trim().split(/\s+/);
    if (f.length < 8) continue;
    const [, dest, gw, flags, , , metric, mask] = f;
    if (!(parseInt(flags!, 16) & 0x2) || gw === '00000000') continue;
    rows.push({ gw: hexToIpv4(gw!), isDefault: dest === '00000000' && mask === '00000000', metric: Number(metric) || 0 });
  }
  rows.sort((a, b) => Number(b.isDefault) - Number(a.isDefault) || a.metric - b.metric);
  return [...new Set(rows.map((r) => r.gw))];
}

/** The probe's own addresses (no loopback) and its gateways, read now. */
export function probePosition(): ProbePosition {
  const addresses = localLinks().filter((l) => !l.iface.startsWith('lo')).map((l) => l.address);
  let gateways: string[] = [];
  try {
    gateways = gatewaysOf(readFileSync('/proc/net/route', 'utf8'));
  } catch { /* not Linux: addresses only */ }
  return { addresses, gateways };
}
