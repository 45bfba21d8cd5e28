// A scan result as session nodes and edges: one node per device, one edge per link. Node ids are
// derived from what identifies a device across scans (engine ID, then a MAC, then its first address),
// so merging a newer scan finds the same node again.
import type { EdgeInput, NodeInput, NodeKind } from '../schemas.js';
import type { ScanDevice, ScanResult } from '../scan/result.js';

const KINDS = new Set<NodeKind>(['router', 'switch', 'firewall', 'access_point', 'server', 'host', 'unknown']);

export function nodeIdOf(d: ScanDevice): string {
  if (d.engine_id) return `e-${d.engine_id.slice(0, 60)}`;
  const mac = d.macs[0] ?? (d.chassis_id && /^([0-9a-f]{2}:){5}[0-9a-f]{2}$/.test(d.chassis_id) ? d.chassis_id : null);
  if (mac) return `m-${mac.replace(/:/g, '')}`;
  if (d.addresses[0]) return `ip-${d.addresses[0]}`;
  return `n-${(d.chassis_id ?? d.name).replace(/[^A-Za-z0-9._:@/-]/g, '_').slice(0, 60)}`;
}

export function graphOf(result: ScanResult): { nodes: NodeInput[]; edges: EdgeInput[] } {
  const ids = new Map<string, string>();
  const nodes: NodeInput[] = [];
  for (const d of result.devices) {
    let id = nodeIdOf(d);
    for (let n = 2; nodes.some((x) => x.id === id); n++) id = `${nodeIdOf(d).slice(0, 58)}-${n}`;
    ids.set(d.id, id);
    nodes.push({
      id, label: d.name.slice(0, 200) || id, addresses: d.addresses.slice(0, 64), mac: d.macs[0] ?? null,
      vendor_key: d.vendor_key, kind: KINDS.has(d.kind as NodeKind) ? (d.kind as NodeKind) : 'unknown', inventory: null, position: null,
    });
  }
  const edges: EdgeInput[] = result.links.flatMap((l) => {
    const from = ids.get(l.from);
    const to = ids.get(l.to);
    const port = (p: string | null) => p?.slice(0, 100) ?? null;
    return from && to ? [{ from, to, from_port: port(l.from_port), to_port: port(l.to_port), source: l.source }] : [];
  });
  return { nodes, edges };
}
