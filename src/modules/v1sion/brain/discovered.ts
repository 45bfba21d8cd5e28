// Discovered devices as the inventory bridge sees them, from either source: a kept scan result (its
// devices, with the facts of their hosts) or a saved session (its nodes, enriched from the session's
// newest merged scan while that result is kept). Devices that are one box seen twice (a shared engine
// ID, serial or MAC: a host answering on several addresses without SNMP is several devices in a scan)
// are merged into one, so a box is matched, linked and created once. Pure: no store, no I/O.
import type { ScanDevice, ScanResult } from '../scan/result.js';
import type { Session, SessionNode } from '../schemas.js';
import { graphOf } from '../sessions/from-scan.js';
import { compareIps } from '../scan/order.js';

export interface DiscoveredDevice {
  /** The id a request names the device by: the scan's device id, or the session's node id (the first, when merged). */
  device_id: string;
  /** Every device (or node) id merged into this one; any of them names it. */
  device_ids: string[];
  name: string;
  kind: string;
  addresses: string[];
  macs: string[];
  /** Reverse DNS names of its addresses and its sysName, as found. */
  hostnames: string[];
  vendor: string | null;
  /** The vendor is only the MAC's registrant (no SNMP identity): it fills an empty field, never replaces one. */
  vendor_from_mac: boolean;
  model: string | null;
  serial: string | null;
  /** ENTITY-MIB entPhysicalAssetID where a source provides it (scans do not yet). */
  asset_tag: string | null;
  os: string | null;
  os_version: string | null;
  engine_id: string | null;
  chassis_id: string | null;
  sys_name: string | null;
  /** scan: it answered in the scanned subnet; neighbour: only another device's LLDP/CDP table names it. */
  seen: 'scan' | 'neighbour';
  /** A session node's inventory link (session source only). */
  inventory: { type: 'endpoints' | 'assets'; id: string } | null;
}

export interface DiscoveredSource {
  type: 'scan' | 'session';
  id: string;
  name: string | null;
  /** The networks the source covers: an inventory endpoint inside them that nothing matches is missing. */
  subnets: string[];
  /** When the devices were seen (the scan's end; for a session, its newest merged scan's end, else its last change). */
  seen_at: string;
  /** The scan result that gave the facts (a session's, null when it is no longer kept or there is none). */
  scan_job_id: string | null;
  devices: DiscoveredDevice[];
}

const MAC = /^([0-9a-f]{2}:){5}[0-9a-f]{2}$/;
/** MACs that move between boxes (VRRP, HSRP, GLBP virtual routers): never an identity. */
const VIRTUAL_MAC = /^(00:00:5e:00:0[12]|00:00:0c:07:ac|00:00:0c:9f:f|00:07:b4:00:0)/;
/** Serials that are placeholders, not identities. */
const JUNK_SERIAL = /^(0+|1234567890?|123456789|n\/?a|none|null|unknown|not (available|specified|applicable)|to be filled by o\.e\.m\.|default string|system serial number|0123456789|x+|-+)$/i;
/** A MAC shared by more devices than this is a proxy-ARP answer or a gateway's MAC seen through, not one box. */
const MAX_SHARED_MAC = 8;

export const isIdentityMac = (mac: string): boolean => MAC.test(mac) && !VIRTUAL_MAC.test(mac) && mac !== '00:00:00:00:00:00'
  && mac !== 'ff:ff:ff:ff:ff:ff';
export const usableSerial = (s: string | null | undefined): string | null => {
  const v = s?.trim();
  return v && v.length >= 3 && !JUNK_SERIAL.test(v) ? v : null;
};

// eslint-disable-next-line no-control-regex -- control characters in SNMP strings become spaces
const CONTROL = /[\u0000-\u001f\u007f]/g;
const clean = (s: string | null | undefined, max = 100): string | null => {
  const v = s?.replace(CONTROL, ' ').trim();
  return v ? v.slice(0, max) : null;
};

/**
 * The keys that say "this is the same box" across scans and sessions, strongest first: engine ID,
 * serial, LLDP chassis ID, MACs. Addresses are not identities (DHCP hands them on): a device with none
 * of these keys is remembered only on the session node it was linked through.
 */
export function identityKeys(d: Pick<DiscoveredDevice, 'engine_id' | 'serial' | 'chassis_id' | 'macs'>): string[] {
  const keys: string[] = [];
  if (d.engine_id) keys.push(`engine:${d.engine_id.toLowerCase()}`);
  const serial = usableSerial(d.serial);
  if (serial) keys.push(`serial:${serial.toLowerCase()}`);
  if (d.chassis_id && !MAC.test(d.chassis_id)) keys.push(`chassis:${d.chassis_id.toLowerCase().slice(0, 200)}`);
  for (const m of d.macs) if (isIdentityMac(m)) keys.push(`mac:${m}`);
  return keys;
}

// ---- from a scan result ------------------------------------------------------------------------------

function fromScanDevice(result: ScanResult, d: ScanDevice): DiscoveredDevice {
  const hosts = result.hosts.filter((h) => h.device_id === d.id);
  const snmp = hosts.find((h) => h.snmp?.vendor_key)?.snmp ?? hosts.find((h) => h.snmp)?.snmp ?? null;
  const names = new Set<string>();
  for (const h of hosts) if (h.hostname) names.add(h.hostname.toLowerCase().replace(/\.$/, ''));
  if (d.sys_name) names.add(d.sys_name.toLowerCase());
  const vendor = clean(snmp?.vendor ?? d.vendor);
  return {
    device_id: d.id, device_ids: [d.id], name: clean(d.name, 200) ?? d.id, kind: d.kind,
    addresses: [...d.addresses], macs: [...new Set(d.macs)].filter((m) => MAC.test(m)),
    hostnames: [...names], vendor, vendor_from_mac: !!vendor && !snmp?.vendor && d.seen === 'scan',
    model: clean(snmp?.model ?? d.model), serial: clean(snmp?.serial ?? d.serial), asset_tag: null,
    os: clean(snmp?.os), os_version: clean(snmp?.os_version), engine_id: d.engine_id ?? snmp?.engine_id ?? null,
    chassis_id: d.chassis_id, sys_name: d.sys_name, seen: d.seen, inventory: null,
  };
}

export function fromScan(result: ScanResult): DiscoveredSource {
  return {
    type: 'scan', id: result.job_id, name: null, subnets: [result.subnet], seen_at: result.finished_at ?? result.started_at,
    scan_job_id: result.job_id, devices: mergeSameBox(result.devices.map((d) => fromScanDevice(result, d))),
  };
}

// ---- from a session ----------------------------------------------------------------------------------

/**
 * A session's devices: its nodes that a scan found and the last merged scan saw again (a node a person
 * drew, or one the last scan did not see, is not a discovered device). Each node takes the facts of its
 * device in the session's newest merged scan (found as a merge finds it: the same node id, else a unique
 * shared address, else the MAC) while that result is kept.
 */
export function fromSession(session: Session, result: ScanResult | undefined): DiscoveredSource {
  const facts = new Map<string, DiscoveredDevice>();
  if (result) {
    const graph = graphOf(result);
    const unique = <T>(xs: T[]) => (xs.length === 1 ? xs[0] : undefined);
    const used = new Set<string>();
    result.devices.forEach((d, i) => {
      const g = graph.nodes[i];
      if (!g) return;
      const node = session.nodes.find((n) => n.id === g.id)
        ?? unique(session.nodes.filter((n) => !used.has(n.id) && n.addresses.some((a) => g.addresses.includes(a))))
        ?? (g.mac ? unique(session.nodes.filter((n) => !used.has(n.id) && n.mac === g.mac)) : undefined);
      if (!node || used.has(node.id)) return;
      used.add(node.id);
      facts.set(node.id, fromScanDevice(result, d));
    });
  }
  const devices = session.nodes.filter((n) => !n.manual && n.scan_state !== 'missing').map((n) => fromNode(n, facts.get(n.id)));
  return {
    type: 'session', id: session.id, name: session.name, subnets: [...session.subnets],
    seen_at: result?.finished_at ?? result?.started_at ?? session.updated_at, scan_job_id: result?.job_id ?? null,
    devices: mergeSameBox(devices),
  };
}

/** What SSH enrichment stored on a node (enrich-ssh/facts.ts), read field by field: only strings count. */
function sshFacts(n: SessionNode): Record<'hostname' | 'os' | 'os_version' | 'vendor' | 'model' | 'serial', string | null> {
  const raw = (n as { facts?: unknown }).facts;
  const f = raw && typeof raw === 'object' ? raw as Record<string, unknown> : {};
  const s = (k: string) => (typeof f[k] === 'string' ? clean(f[k]) : null);
  return { hostname: s('hostname'), os: s('os'), os_version: s('os_version'), vendor: s('vendor'), model: s('model'), serial: s('serial') };
}

/**
 * A node as a device: the node's addresses and MAC with its scan device's facts; what SSH enrichment
 * learnt on the device itself fills the gaps, and its OS (more exact than SNMP's) comes first.
 */
function fromNode(n: SessionNode, f: DiscoveredDevice | undefined): DiscoveredDevice {
  const macs = [...new Set([...(n.mac ? [n.mac] : []), ...(f?.macs ?? [])])];
  const addresses = [...new Set([...n.addresses, ...(f?.addresses ?? [])])].sort(compareIps);
  const ssh = sshFacts(n);
  const sshOs = ssh.os !== null;
  const hostnames = [...new Set([...(ssh.hostname ? [ssh.hostname.toLowerCase()] : []), ...(f?.hostnames ?? [])])];
  const vendor = f?.vendor && !f.vendor_from_mac ? f.vendor : ssh.vendor ?? f?.vendor ?? null;
  return {
    device_id: n.id, device_ids: [n.id], name: clean(n.label, 200) ?? n.id, kind: n.kind, addresses, macs,
    hostnames, vendor, vendor_from_mac: vendor !== null && vendor === f?.vendor && f.vendor_from_mac, model: f?.model ?? ssh.model,
    serial: f?.serial ?? ssh.serial, asset_tag: f?.asset_tag ?? null,
    os: sshOs ? ssh.os : f?.os ?? null, os_version: sshOs ? ssh.os_version : f?.os_version ?? null,
    engine_id: f?.engine_id ?? (n.id.startsWith('e-') && n.id.length < 62 ? n.id.slice(2) : null), chassis_id: f?.chassis_id ?? null,
    sys_name: f?.sys_name ?? null, seen: f?.seen ?? 'scan', inventory: n.inventory,
  };
}

// ---- one box seen as several devices -------------------------------------------------------------------

/**
 * Merges devices that are one box: the same engine ID, usable serial or identity MAC (a MAC shared by
 * more than a handful of devices is proxy ARP, not a box). Devices whose engine IDs or serials differ
 * are never merged, whatever else they share. The merged device keeps the first device's id and lists
 * the others in device_ids.
 */
export function mergeSameBox(devices: DiscoveredDevice[]): DiscoveredDevice[] {
  const parent = devices.map((_, i) => i);
  const find = (i: number): number => { while (parent[i] !== i) { parent[i] = parent[parent[i]!]!; i = parent[i]!; } return i; };
  const engine = (i: number) => devices[i]!.engine_id?.toLowerCase() ?? null;
  const serial = (i: number) => usableSerial(devices[i]!.serial)?.toLowerCase() ?? null;
  // Members of each group, to refuse a union that would put two different engine IDs or serials together.
  const members = new Map<number, number[]>(devices.map((_, i) => [i, [i]]));
  const compatible = (a: number, b: number) => {
    const all = [...members.get(a)!, ...members.get(b)!];
    const engines = new Set(all.map(engine).filter(Boolean));
    const serials = new Set(all.map(serial).filter(Boolean));
    return engines.size <= 1 && serials.size <= 1;
  };
  const union = (a: number, b: number) => {
    const x = find(a), y = find(b);
    if (x === y || !compatible(x, y)) return;
    const [keep, drop] = x < y ? [x, y] : [y, x];
    parent[drop] = keep;
    members.get(keep)!.push(...members.get(drop)!);
    members.delete(drop);
  };
  const byKey = new Map<string, number[]>();
  devices.forEach((d, i) => {
    const keys = [engine(i) && `e:${engine(i)}`, serial(i) && `s:${serial(i)}`, ...d.macs.filter(isIdentityMac).map((m) => `m:${m}`)];
    for (const k of keys) if (k) (byKey.get(k) ?? byKey.set(k, []).get(k)!).push(i);
  });
  for (const [k, idx] of byKey) {
    if (idx.length < 2 || (k.startsWith('m:') && idx.length > MAX_SHARED_MAC)) continue;
    for (const i of idx.slice(1)) union(idx[0]!, i);
  }
  const out: DiscoveredDevice[] = [];
  for (const [lead, idx] of members) {
    if (idx.length === 1) { out.push(devices[lead]!); continue; }
    out.push(combine(idx.sort((a, b) => a - b).map((i) => devices[i]!)));
  }
  return out; // in the order of each group's first device (members keeps insertion order; the lead is the smallest index)
}

function combine(ds: DiscoveredDevice[]): DiscoveredDevice {
  // The lead is the member with an SNMP identity (a vendor not from the MAC), else the first.
  const lead = ds.find((d) => d.vendor && !d.vendor_from_mac) ?? ds[0]!;
  const first = <K extends keyof DiscoveredDevice>(k: K) => lead[k] ?? ds.find((d) => d[k] != null)?.[k] ?? null;
  const inv = ds.map((d) => d.inventory).filter((x) => x !== null);
  return {
    device_id: ds[0]!.device_id, device_ids: ds.flatMap((d) => d.device_ids),
    name: lead.name, kind: ds.find((d) => d.kind !== 'host' && d.kind !== 'unknown')?.kind ?? lead.kind,
    addresses: [...new Set(ds.flatMap((d) => d.addresses))].sort(compareIps),
    macs: [...new Set(ds.flatMap((d) => d.macs))].sort(),
    hostnames: [...new Set(ds.flatMap((d) => d.hostnames))],
    vendor: first('vendor') as string | null,
    vendor_from_mac: lead.vendor ? lead.vendor_from_mac : ds.every((d) => !d.vendor || d.vendor_from_mac),
    model: first('model') as string | null, serial: first('serial') as string | null, asset_tag: first('asset_tag') as string | null,
    os: first('os') as string | null, os_version: first('os_version') as string | null,
    engine_id: first('engine_id') as string | null, chassis_id: first('chassis_id') as string | null,
    sys_name: first('sys_name') as string | null, seen: ds.some((d) => d.seen === 'scan') ? 'scan' : 'neighbour',
    inventory: inv.length && inv.every((x) => x.id === inv[0]!.id) ? inv[0]! : null,
  };
}

/** The device a request names (by any of its merged ids), or undefined. */
export function deviceOf(source: DiscoveredSource, deviceId: string): DiscoveredDevice | undefined {
  return source.devices.find((d) => d.device_ids.includes(deviceId));
}
