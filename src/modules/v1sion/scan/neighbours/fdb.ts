// The forwarding database: which MAC the switch learned on which port (BRIDGE-MIB dot1dTpFdbTable and
// Q-BRIDGE-MIB dot1qTpFdbTable), and which of its ports are uplinks rather than attachments.
//
// A bridge port is NOT an ifIndex (NX-OS: bridge port 4105 is ifIndex 369098761; a Linux bridge numbers
// its ports 1, 2, … too): every entry goes through dot1dBasePortIfIndex, and a bridge port that table
// does not list gets no interface (never its number taken as an ifIndex).
import type { RawVarbind } from '../../../snmp/contracts.js';
import { byIfIndex, interfaceName } from './interfaces.js';
import { BRIDGE, QBRIDGE } from './roots.js';
import type { FdbEntry, Interface, UplinkPort } from './types.js';
import { arcsOf, columnOf, intOf, macFromBytes, macOf, scalarOf } from './values.js';

/** dot1dTpFdbStatus / dot1qTpFdbStatus learned(3): other values are invalid, the switch's own, or static. */
const LEARNED = 3;

/** dot1dBaseBridgeAddress. */
export function parseBridgeMac(varbinds: readonly RawVarbind[]): string | null {
  return macOf(scalarOf(varbinds, BRIDGE.baseBridgeAddress));
}

/** dot1dBasePort → ifIndex. */
export function bridgePortMap(varbinds: readonly RawVarbind[]): Map<number, number> {
  const out = new Map<number, number>();
  for (const [k, vb] of columnOf(varbinds, BRIDGE.basePortIfIndex)) {
    const v = intOf(vb);
    if (/^\d+$/.test(k) && v != null && v > 0) out.set(Number(k), v);
  }
  return out;
}

/**
 * A MAC from the last six arcs of an index. Some agents (ArubaOS-CX) put a length arc before the MAC
 * ("6.0.10.247…"), so only the last six count; null when they are not octets.
 */
function macOfArcs(arcs: readonly number[]): string | null {
  if (arcs.length < 6) return null;
  const six = arcs.slice(-6);
  return six.every((x) => Number.isInteger(x) && x >= 0 && x <= 255) ? macFromBytes(Buffer.from(six)) : null;
}

/**
 * FdbId → VLAN from dot1qVlanFdbId [TimeMark.VlanIndex]. An FdbId shared by several VLANs (shared VLAN
 * learning) maps to null: the entry's VLAN is not known.
 */
function fdbVlans(varbinds: readonly RawVarbind[]): Map<number, number | null> | null {
  const col = columnOf(varbinds, QBRIDGE.vlanFdbId);
  if (col.size === 0) return null;
  const out = new Map<number, number | null>();
  for (const [k, vb] of col) {
    const arcs = arcsOf(k);
    const vlan = arcs[arcs.length - 1];
    const fdbId = intOf(vb);
    if (fdbId == null || vlan == null || !Number.isInteger(vlan)) continue;
    out.set(fdbId, out.has(fdbId) && out.get(fdbId) !== vlan ? null : vlan);
  }
  return out;
}

/**
 * Learned entries of both tables. Q-BRIDGE entries carry a VLAN: through dot1qVlanFdbId when the agent
 * serves it, else the FdbId itself when it is a valid VLAN ID (agents without that table number their
 * filtering databases by VLAN, as RouterOS does). A MAC and bridge port that Q-BRIDGE lists is not listed
 * again from BRIDGE-MIB. Entries on bridge port 0 (the switch itself, or unknown) are left out.
 */
export function parseFdb(varbinds: readonly RawVarbind[], interfaces: readonly Interface[]): FdbEntry[] {
  const ports = bridgePortMap(varbinds);
  const ifs = byIfIndex(interfaces);
  const entry = (mac: string, vlan: number | null, bridgePort: number): FdbEntry => {
    const ifIndex = ports.get(bridgePort) ?? null;
    return { mac, vlan, if_index: ifIndex, port: ifIndex != null ? interfaceName(ifs.get(ifIndex)) : null, bridge_port: bridgePort };
  };
  const out: FdbEntry[] = [];
  const seen = new Set<string>();

  const qStatus = columnOf(varbinds, QBRIDGE.tpFdbStatus);
  const vlans = fdbVlans(varbinds);
  for (const [k, vb] of columnOf(varbinds, QBRIDGE.tpFdbPort)) {
    const arcs = arcsOf(k);
    const mac = macOfArcs(arcs);
    const port = intOf(vb);
    const status = intOf(qStatus.get(k));
    if (!mac || arcs.length < 7 || !port || port < 0 || (status != null && status !== LEARNED)) continue;
    const fdbId = arcs[0]!;
    const vlan = vlans ? (vlans.get(fdbId) ?? null) : fdbId >= 1 && fdbId <= 4094 ? fdbId : null;
    out.push(entry(mac, vlan, port));
    seen.add(`${mac}|${port}`);
  }

  const dStatus = columnOf(varbinds, BRIDGE.tpFdbStatus);
  for (const [k, vb] of columnOf(varbinds, BRIDGE.tpFdbPort)) {
    const mac = macOfArcs(arcsOf(k));
    const port = intOf(vb);
    const status = intOf(dStatus.get(k));
    if (!mac || !port || port < 0 || (status != null && status !== LEARNED) || seen.has(`${mac}|${port}`)) continue;
    out.push(entry(mac, null, port));
    seen.add(`${mac}|${port}`);
  }
  return out;
}

/** Default maxMacs of findUplinks() and uplinkPorts(): an access port with a phone, a PC and a few VMs stays under it. */
export const DEFAULT_MAX_MACS_PER_PORT = 16;

/**
 * The ports that lead to more network: those where a MAC of another switch or router was learned
 * (`infrastructureMacs`: their bridge MACs, chassis IDs, interface MACs), and those with more than
 * `maxMacs` distinct MACs. A MAC learned on such a port is not attached there. Ports known only by a
 * bridge port number (no interface) are listed with `bridge_port` set.
 */
export function findUplinks(entries: readonly FdbEntry[], infrastructureMacs: Iterable<string>,
  opts: { maxMacs?: number } = {}): UplinkPort[] {
  const max = opts.maxMacs ?? DEFAULT_MAX_MACS_PER_PORT;
  const infra = new Set([...infrastructureMacs].map((m) => m.toLowerCase()));
  const byPort = new Map<string, { e: FdbEntry; macs: Set<string>; infra: boolean }>();
  for (const e of entries) {
    const key = e.if_index != null ? `if:${e.if_index}` : `bp:${e.bridge_port}`;
    let p = byPort.get(key);
    if (!p) byPort.set(key, (p = { e, macs: new Set(), infra: false }));
    p.macs.add(e.mac);
    if (infra.has(e.mac)) p.infra = true;
  }
  const out: UplinkPort[] = [];
  for (const { e, macs, infra: hasInfra } of byPort.values()) {
    const reasons: UplinkPort['reasons'] = [];
    if (hasInfra) reasons.push('infrastructure-mac');
    if (macs.size > max) reasons.push('mac-count');
    if (reasons.length === 0) continue;
    out.push({ if_index: e.if_index, port: e.port, bridge_port: e.if_index != null ? null : e.bridge_port, macs: macs.size, reasons });
  }
  return out.sort(compareUplinks);
}

export const compareUplinks = (a: UplinkPort, b: UplinkPort) =>
  (a.if_index ?? Infinity) - (b.if_index ?? Infinity) || (a.bridge_port ?? 0) - (b.bridge_port ?? 0);

/** findUplinks() as the names of the ports (those that have one), to test an FdbEntry's `port` against. */
export function uplinkPorts(entries: readonly FdbEntry[], infrastructureMacs: Iterable<string>, opts: { maxMacs?: number } = {}): string[] {
  return findUplinks(entries, infrastructureMacs, opts).map((u) => u.port).filter((p): p is string => p != null);
}
