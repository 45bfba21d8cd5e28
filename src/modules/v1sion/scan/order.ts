// Address order for results: numeric, IPv4 before IPv6.
import { parseIp } from '../../../core/ip.js';

export function compareIps(a: string, b: string): number {
  const x = parseIp(a);
  const y = parseIp(b);
  if (!x || !y) return a < b ? -1 : a > b ? 1 : 0;
  if (x.family !== y.family) return x.family - y.family;
  return x.value < y.value ? -1 : x.value > y.value ? 1 : 0;
}
