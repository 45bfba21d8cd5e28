// From hosts and their devices' tables to the picture a person wants: devices (one per box, however
// many addresses it answers on), and links between them from LLDP, CDP and forwarding tables.
//
// - One device, many addresses: hosts merge on engine ID, LLDP chassis ID, bridge base MAC, serial (per
//   vendor) and sysName (with the same sysObjectID, and not a factory default such as "localhost").
// - A neighbour is matched to a device only on a unique hit, in this order: host name, management
//   address, MAC, sysName. A neighbour that matches no scanned device becomes a device of its own
//   (seen: neighbour), so a map shows what is cabled even outside the subnet.
// - Forwarding tables: a switch port that carries another switch's MAC is an uplink, not an
//   attachment; a port with an LLDP/CDP neighbour is described by that neighbour instead.
import type { AppContext } from '../../../core/context.js';
import { snmpServicesOf } from '../../snmp/index.js';
import { kindOfCategory } from './advertised/facts.js';
import { ouiVendor } from './oui.js';
import { NEIGHBOUR_ROOTS, parseDeviceTables, samePort, uplinkPorts, type DeviceTables } from './neighbours/index.js';
import { compareIps } from './order.js';
import { pool } from './pool.js';
import { targetOf, type ScanCredential } from './request.js';
import type { DeviceKind, ScanDevice, ScanHost, ScanLink } from './result.js';

const MAX_VARBINDS = 20_000;
const WALKS_PARALLEL = 4;
const GENERIC_NAMES = new Set([
  '', 'localhost', 'localhost.localdomain', '(none)', 'router', 'switch', 'openwrt', 'unifi', 'mikrotik', 'ubnt',
]);

/** Walks the neighbour, bridge and ARP tables of each SNMP device (a few at once). */
export async function readDeviceTables(app: AppContext, agents: { ip: string; credential: ScanCredential }[],
  timing: { timeout_ms: number; retries: number }, signal: AbortSignal, warnings: string[]): Promise<Map<string, DeviceTables>> {
  const snmp = snmpServicesOf(app);
  const roots = [...new Set(Object.values(NEIGHBOUR_ROOTS).flat())];
  const out = new Map<string, DeviceTables>();
  await pool(agents, WALKS_PARALLEL, signal, async ({ ip, credential }) => {
    try {
      const walked = await snmp.reader.walk(targetOf(credential, ip, timing), roots, { max_varbinds: MAX_VARBINDS, signal });
      if (walked.truncated) warnings.push(`${ip}: neighbour tables cut at ${MAX_VARBINDS} values`);
      out.set(ip, parseDeviceTables(walked.varbinds));
    } catch (e) {
      if (!signal.aborted) warnings.push(`${ip}: neighbour tables not read (${e instanceof Error ? e.message : String(e)})`);
    }
  });
  return out;
}

class UnionFind {
  private readonly parent = new Map<string, string>();
  find(x: string): string {
    let p = this.parent.get(x) ?? x;
    if (p !== x) { p = this.find(p); this.parent.set(x, p); }
    return p;
  }
  union(a: string, b: string): void {
    const x = this.find(a);
    const y = this.find(b);
    if (x !== y) this.parent.set(compareIps(x, y) < 0 ? y : x, compareIps(x, y) < 0 ? x : y);
  }
}

const lower = (s: string | null | undefined) => (s ?? '').trim().toLowerCase();
const shortName = (s: string | null | undefined) => lower(s).split('.')[0] ?? '';

/**
 * A device identification left as a server or a plain host (a generic agent, a maker's other product:
 * no product line says what it is) that forwards frames is a switch: its forwarding table, read for the
 * topology anyway, is the evidence (identification asked only BRIDGE-MIB's scalars, which some agents
 * leave out while serving the table).
 */
export function bridgingFromTables(hosts: ScanHost[], tables: Map<string, DeviceTables>): void {
  for (const h of hosts) {
    const t = tables.get(h.ip);
    if (!h.snmp || !t?.fdb.length || (h.snmp.kind !== 'server' && h.snmp.kind !== 'host')) continue;
    h.snmp.kind = 'switch';
    const macs = new Set(t.fdb.map((e) => e.mac)).size;
    const why = `forwarding table: ${macs} MAC address${macs === 1 ? '' : 'es'} learned (BRIDGE-MIB/Q-BRIDGE-MIB)`;
    if (h.snmp.evidence) h.snmp.evidence = { ...h.snmp.evidence, kind: why };
  }
}

export function buildTopology(hosts: ScanHost[], tables: Map<string, DeviceTables>): { devices: ScanDevice[]; links: ScanLink[] } {
  bridgingFromTables(hosts, tables);
  // ---- merge hosts into devices ---------------------------------------------------------------------
  const uf = new UnionFind();
  const reasons = new Map<string, Set<string>>();
  const byKey = new Map<string, string>();
  const key = (ip: string, k: string | null, why: string) => {
    if (!k) return;
    const seen = byKey.get(`${why}:${k}`);
    if (seen === undefined) { byKey.set(`${why}:${k}`, ip); return; }
    uf.union(seen, ip);
    for (const a of [seen, ip]) (reasons.get(a) ?? reasons.set(a, new Set()).get(a)!).add(why);
  };
  for (const h of hosts) {
    const t = tables.get(h.ip);
    key(h.ip, h.snmp?.engine_id ?? null, 'engine_id');
    key(h.ip, t?.lldp_chassis_id ?? null, 'lldp_chassis_id');
    key(h.ip, t?.bridge_mac ?? null, 'bridge_mac');
    key(h.ip, h.snmp?.serial ? `${h.snmp.vendor_key}/${h.snmp.serial}` : null, 'serial');
    const name = lower(h.snmp?.sys_name);
    key(h.ip, name && !GENERIC_NAMES.has(name) ? `${h.snmp?.sys_object_id}/${name}` : null, 'sys_name');
  }
  const groups = new Map<string, ScanHost[]>();
  for (const h of [...hosts].sort((a, b) => compareIps(a.ip, b.ip))) {
    const root = uf.find(h.ip);
    (groups.get(root) ?? groups.set(root, []).get(root)!).push(h);
  }

  const devices: ScanDevice[] = [];
  const deviceOfIp = new Map<string, ScanDevice>();
  const tablesOf = new Map<ScanDevice, DeviceTables[]>();
  for (const members of groups.values()) {
    const lead = members.find((m) => m.snmp?.vendor_key) ?? members[0]!;
    const ts = members.map((m) => tables.get(m.ip)).filter((t): t is DeviceTables => !!t);
    const macs = new Set<string>();
    for (const m of members) if (m.mac) macs.add(m.mac);
    for (const t of ts) {
      if (t.bridge_mac) macs.add(t.bridge_mac);
      for (const i of t.interfaces) if (i.mac) macs.add(i.mac);
    }
    const s = lead.snmp;
    // What a member advertises (mDNS/SSDP) names and places a box that no SNMP agent describes.
    const adv = members.find((m) => m.advertised)?.advertised ?? null;
    const d: ScanDevice = {
      id: `d${devices.length + 1}`,
      name: s?.sys_name || adv?.name || lead.hostname || lead.ip,
      kind: (s?.kind as DeviceKind | null) ?? kindOfCategory(adv?.category ?? null) ?? 'host',
      addresses: members.map((m) => m.ip),
      macs: [...macs].sort(),
      vendor_key: s?.vendor_key ?? null, vendor: s?.vendor ?? adv?.vendor ?? (lead.mac_vendor ?? null),
      model: s?.model ?? adv?.model ?? null,
      serial: s?.serial ?? null, sys_name: s?.sys_name ?? null, engine_id: s?.engine_id ?? null,
      chassis_id: ts.find((t) => t.lldp_chassis_id)?.lldp_chassis_id ?? null,
      seen: 'scan',
      merged_by: [...new Set(members.flatMap((m) => [...(reasons.get(m.ip) ?? [])]))].sort(),
      ...(adv?.category ? { category: adv.category } : {}),
    };
    devices.push(d);
    tablesOf.set(d, ts);
    for (const m of members) { m.device_id = d.id; deviceOfIp.set(m.ip, d); }
  }

  // Hosts behind routers: MACs from the routers' ARP tables.
  for (const t of tables.values()) {
    for (const a of t.arp) {
      const h = hosts.find((x) => x.ip === a.ip);
      if (h && !h.mac) { h.mac = a.mac; h.mac_vendor = ouiVendor(a.mac)?.vendor ?? null; deviceOfIp.get(h.ip)?.macs.push(a.mac); }
    }
  }

  // ---- neighbours -------------------------------------------------------------------------------
  const scanned = [...devices];
  const unique = <T>(xs: T[]) => (xs.length === 1 ? xs[0] : undefined);
  const hostNames = (d: ScanDevice) => hosts.filter((h) => h.device_id === d.id).map((h) => shortName(h.hostname)).filter(Boolean);
  const matchRemote = (r: DeviceTables['neighbours'][number]['remote']): ScanDevice | undefined => {
    const name = shortName(r.sys_name);
    return (name ? unique(scanned.filter((d) => hostNames(d).includes(name))) : undefined)
      ?? unique(scanned.filter((d) => r.management_addresses.some((a) => d.addresses.includes(a))))
      ?? (r.chassis_id && /^([0-9a-f]{2}:){5}[0-9a-f]{2}$/.test(r.chassis_id) ? unique(scanned.filter((d) => d.macs.includes(r.chassis_id!))) : undefined)
      ?? (name ? unique(scanned.filter((d) => shortName(d.sys_name) === name)) : undefined);
  };
  const outsiders = new Map<string, ScanDevice>();
  const links: ScanLink[] = [];
  const addLink = (l: ScanLink) => {
    const dup = links.find((x) => (x.from === l.from && x.to === l.to && samePort(x.from_port, l.from_port))
      || (x.from === l.to && x.to === l.from && samePort(x.from_port, l.to_port) && samePort(x.to_port, l.from_port)));
    if (dup) {
      dup.to_port ??= l.from === dup.to ? l.from_port : l.to_port;
      return;
    }
    links.push(l);
  };
  const described = new Map<ScanDevice, string[]>();
  for (const d of scanned) {
    for (const t of tablesOf.get(d) ?? []) {
      for (const n of t.neighbours) {
        let to = matchRemote(n.remote);
        if (to === d) continue;
        if (!to) {
          const k = n.remote.chassis_id ?? n.remote.sys_name ?? `${d.id}/${n.local_port}`;
          to = outsiders.get(k);
          if (!to) {
            to = {
              id: `d${devices.length + 1}`, name: n.remote.sys_name ?? n.remote.chassis_id ?? 'unknown neighbour',
              kind: kindFromCapabilities(n.remote.capabilities),
              addresses: [...n.remote.management_addresses].sort(compareIps),
              macs: n.remote.chassis_id && /^([0-9a-f]{2}:){5}[0-9a-f]{2}$/.test(n.remote.chassis_id) ? [n.remote.chassis_id] : [],
              vendor_key: null, vendor: n.remote.platform ?? null, model: null, serial: null, sys_name: n.remote.sys_name ?? null,
              engine_id: null, chassis_id: n.remote.chassis_id ?? null, seen: 'neighbour', merged_by: [],
            };
            outsiders.set(k, to);
            devices.push(to);
          }
        }
        (described.get(d) ?? described.set(d, []).get(d)!).push(n.local_port ?? '');
        addLink({ from: d.id, to: to.id, from_port: n.local_port, to_port: n.remote.port, source: n.protocols?.[0] ?? n.protocol });
      }
    }
  }

  // ---- forwarding tables: where hosts attach --------------------------------------------------------
  const infrastructure = new Set(scanned.filter((d) => d.kind !== 'host' && d.vendor_key).flatMap((d) => d.macs));
  for (const d of scanned) {
    for (const t of tablesOf.get(d) ?? []) {
      const uplinks = new Set(uplinkPorts(t.fdb, infrastructure));
      for (const e of t.fdb) {
        if (!e.port || uplinks.has(e.port) || (described.get(d) ?? []).some((p) => samePort(p, e.port))) continue;
        const target = unique(scanned.filter((x) => x !== d && x.macs.includes(e.mac)));
        if (!target || links.some((l) => l.source === 'fdb' && l.from === d.id && l.to === target.id)) continue;
        const vlan = e.vlan != null ? { vlan: e.vlan } : {};
        addLink({ from: d.id, to: target.id, from_port: e.port, to_port: null, source: 'fdb', ...vlan });
      }
    }
  }
  return { devices, links };
}

function kindFromCapabilities(caps: readonly string[]): DeviceKind {
  if (caps.includes('router')) return 'router';
  if (caps.includes('bridge')) return 'switch';
  if (caps.includes('wlanAccessPoint')) return 'access_point';
  if (caps.includes('station') || caps.includes('telephone')) return 'host';
  return 'unknown';
}
