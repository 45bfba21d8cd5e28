// LLDP-MIB (and LLDP-V2-MIB when an agent serves only that): the remote systems a device sees, on which
// local port, and the device's own chassis ID.
//
// Traps handled here (docs/discovery.md):
// - lldpRemTable's index starts with lldpRemTimeMark, which changes whenever the row changes (even between
//   two reads of one walk): rows are keyed on (LocalPortNum, RemIndex) only, and of two rows with the same
//   key the one with the later TimeMark wins column by column.
// - lldpRemLocalPortNum is not always an ifIndex (Dell OS10: 516 for the ifIndex 13 "ethernet1/1/1"; the
//   MIB says dot1dBasePort on bridges): see localPortResolver().
import type { RawVarbind } from '../../../snmp/contracts.js';
import { byIfIndex, interfaceName } from './interfaces.js';
import { resolvePort } from './port-names.js';
import { bridgePortMap } from './fdb.js';
import { LLDP, LLDP_REM, LLDP_V2, LLDP_V2_REM } from './roots.js';
import type { ChassisIdSubtype, Interface, Neighbour, PortIdSubtype } from './types.js';
import {
  addressOf, arcsOf, bitNames, bitsOf, bytesOf, intOf, ipFromBytes, macOf, scalarOf, tableOf, textOf,
  type Table,
} from './values.js';

const CHASSIS_SUBTYPES: Record<number, ChassisIdSubtype> = {
  1: 'chassisComponent', 2: 'interfaceAlias', 3: 'portComponent', 4: 'macAddress', 5: 'networkAddress', 6: 'interfaceName', 7: 'local',
};
const PORT_SUBTYPES: Record<number, PortIdSubtype> = {
  1: 'interfaceAlias', 2: 'portComponent', 3: 'macAddress', 4: 'networkAddress', 5: 'interfaceName', 6: 'agentCircuitId', 7: 'local',
};

/** LldpSystemCapabilitiesMap (LLDP-V2's adds bits 8–10), MSB of the first octet = bit 0. */
export const LLDP_CAPABILITIES = [
  'other', 'repeater', 'bridge', 'wlanAccessPoint', 'router', 'telephone', 'docsisCableDevice', 'station',
  'cVlan', 'sVlan', 'twoPortMacRelay',
] as const;

/**
 * A networkAddress ID: one octet of IANA address family (1 IPv4, 2 IPv6) then the address; agents also
 * send the bare 4 or 16 octets, or the address as text.
 */
function networkAddressOf(vb: RawVarbind | undefined): string | null {
  const b = bytesOf(vb);
  if ((b[0] === 1 && b.length === 5) || (b[0] === 2 && b.length === 17)) return ipFromBytes(b.subarray(1));
  return addressOf(vb);
}

/** A chassis or port ID rendered by its subtype: a MAC, an IP, otherwise the text. */
function idOf(vb: RawVarbind | undefined, kind: 'macAddress' | 'networkAddress' | 'text'): string | null {
  if (kind === 'macAddress') return macOf(vb) ?? textOf(vb);
  if (kind === 'networkAddress') return networkAddressOf(vb) ?? textOf(vb);
  return textOf(vb);
}

/** Dell OS10 fills absent TLVs with the words "Not Advertised": no value, not a name shared by every such neighbour. */
const advertised = (s: string | null) => (s && /^not advertised$/i.test(s) ? null : s);

const chassisKind = (s: ChassisIdSubtype | null) => (s === 'macAddress' || s === 'networkAddress' ? s : 'text');
const portKind = (s: PortIdSubtype | null) => (s === 'macAddress' || s === 'networkAddress' ? s : 'text');

/** The device's own chassis ID (LLDP-MIB, else LLDP-V2-MIB) and its subtype. */
export function parseLocalChassis(varbinds: readonly RawVarbind[]): { chassis_id: string | null; subtype: ChassisIdSubtype | null } {
  for (const [st, id] of [[LLDP.locChassisIdSubtype, LLDP.locChassisId], [LLDP_V2.locChassisIdSubtype, LLDP_V2.locChassisId]] as const) {
    const vb = scalarOf(varbinds, id);
    if (!vb) continue;
    const subtype = CHASSIS_SUBTYPES[intOf(scalarOf(varbinds, st)) ?? 0] ?? null;
    const chassis = idOf(vb, chassisKind(subtype));
    if (chassis) return { chassis_id: chassis, subtype };
  }
  return { chassis_id: null, subtype: null };
}

interface RemRow {
  /** lldpRemLocalPortNum, or lldpV2RemLocalIfIndex. */
  localPort: number;
  /** The row's key: everything in the index but the TimeMark. */
  key: string;
  cols: Map<number, RawVarbind>;
}

/**
 * Rows of a remote table keyed on the index without its first arc (the TimeMark); columns of rows that
 * share a key merged, the later TimeMark winning.
 */
function remRows(table: Table, indexLength: number): RemRow[] {
  const rows = new Map<string, RemRow & { marks: Map<number, number> }>();
  for (const [col, cells] of table) {
    for (const [index, vb] of cells) {
      const arcs = arcsOf(index);
      if (arcs.length !== indexLength || arcs.some((a) => !Number.isInteger(a))) continue;
      const key = arcs.slice(1).join('.');
      let row = rows.get(key);
      if (!row) rows.set(key, (row = { localPort: arcs[1]!, key, cols: new Map(), marks: new Map() }));
      const mark = arcs[0]!;
      if ((row.marks.get(col) ?? -1) <= mark) {
        row.cols.set(col, vb);
        row.marks.set(col, mark);
      }
    }
  }
  return [...rows.values()].sort((a, b) => compareKeys(a.key, b.key));
}

function compareKeys(a: string, b: string): number {
  const x = arcsOf(a), y = arcsOf(b);
  for (let i = 0; i < Math.min(x.length, y.length); i++) if (x[i] !== y[i]) return x[i]! - y[i]!;
  return x.length - y.length;
}

/**
 * Management addresses per row key. Standard agents carry the address in the index
 * (… .AddrSubtype.AddrLen.Addr, any column); RouterOS serves columns 1 (subtype) and 2 (the address as a
 * value) under the bare remote-row index instead.
 */
function manAddrs(table: Table, keyLength: number): Map<string, string[]> {
  const out = new Map<string, string[]>();
  const add = (key: string, ip: string | null) => {
    if (!ip) return;
    const list = out.get(key) ?? [];
    if (!list.includes(ip)) list.push(ip);
    out.set(key, list);
  };
  for (const [col, cells] of table) {
    for (const [index, vb] of cells) {
      const arcs = arcsOf(index);
      // TimeMark + key, then AddrSubtype, AddrLen, address (or the address without its length octet).
      const head = 1 + keyLength;
      if (arcs.length > head + 1) {
        const key = arcs.slice(1, head).join('.');
        const subtype = arcs[head]!;
        let addr = arcs.slice(head + 1);
        // The length arc, unless the agent left it out (an IMPLIED-style index).
        if ((addr[0] === 4 || addr[0] === 16) && addr.length === addr[0] + 1) addr = addr.slice(1);
        if ((subtype === 1 && addr.length === 4) || (subtype === 2 && addr.length === 16)) {
          if (addr.every((x) => x >= 0 && x <= 255)) add(key, ipFromBytes(addr));
        }
      } else if (arcs.length === head && col === 2) {
        const key = arcs.slice(1).join('.');
        add(key, addressOf(vb));
      }
    }
  }
  return out;
}

export interface LocalPortResolution {
  if_index: number | null;
  name: string | null;
}

/**
 * Maps LLDP local port numbers to interfaces. In order: lldpLocPortTable's PortId, then PortDesc, naming an
 * interface (resolvePort); otherwise, per device, the number is an ifIndex when every local port number
 * seen is one, or a dot1dBasePort (through dot1dBasePortIfIndex) when every one is a bridge port and not
 * every one an ifIndex; when neither holds for all, each number on its own: ifIndex, else bridge port.
 */
export function localPortResolver(varbinds: readonly RawVarbind[], interfaces: readonly Interface[], portNums: readonly number[]) {
  const loc = tableOf(varbinds, LLDP.locPortEntry);
  const locId = loc.get(3) ?? new Map<string, RawVarbind>();
  const locSubtype = loc.get(2) ?? new Map<string, RawVarbind>();
  const locDesc = loc.get(4) ?? new Map<string, RawVarbind>();
  const ifs = byIfIndex(interfaces);
  const bridge = bridgePortMap(varbinds);
  const unnamed = portNums.filter((n) => !byName(n));
  const allIf = unnamed.every((n) => ifs.has(n));
  const allBridge = bridge.size > 0 && unnamed.every((n) => bridge.has(n));
  const viaBridge = allBridge && !allIf;

  function byName(n: number): Interface | null {
    const k = String(n);
    const subtype = PORT_SUBTYPES[intOf(locSubtype.get(k)) ?? 0] ?? null;
    if (subtype === 'macAddress') {
      const mac = macOf(locId.get(k));
      const hits = mac ? interfaces.filter((i) => i.mac === mac) : [];
      if (hits.length === 1) return hits[0]!;
    } else {
      const hit = resolvePort(textOf(locId.get(k)), interfaces);
      if (hit) return hit;
    }
    return resolvePort(textOf(locDesc.get(k)), interfaces);
  }

  return (n: number): LocalPortResolution => {
    const named = byName(n);
    let iface: Interface | undefined = named ?? undefined;
    let ifIndex: number | null = named?.if_index ?? null;
    if (!named) {
      const b = bridge.get(n);
      if (viaBridge && b != null) ifIndex = b;
      else if (ifs.has(n)) ifIndex = n;
      else if (b != null) ifIndex = b;
      iface = ifIndex != null ? ifs.get(ifIndex) : undefined;
    }
    const k = String(n);
    const idIsMac = PORT_SUBTYPES[intOf(locSubtype.get(k)) ?? 0] === 'macAddress';
    const fallback = textOf(locDesc.get(k)) ?? (idIsMac ? null : textOf(locId.get(k)));
    return { if_index: ifIndex, name: interfaceName(iface) ?? fallback };
  };
}

function neighbourOf(cols: Map<number, RawVarbind>, c: typeof LLDP_REM | typeof LLDP_V2_REM, mgmt: string[],
  local: LocalPortResolution): Neighbour {
  const chassisSubtype = CHASSIS_SUBTYPES[intOf(cols.get(c.chassisIdSubtype)) ?? 0] ?? null;
  const portSubtype = PORT_SUBTYPES[intOf(cols.get(c.portIdSubtype)) ?? 0] ?? null;
  return {
    protocol: 'lldp',
    protocols: ['lldp'],
    local_port: local.name,
    local_if_index: local.if_index,
    remote: {
      chassis_id: idOf(cols.get(c.chassisId), chassisKind(chassisSubtype)),
      chassis_id_subtype: chassisSubtype,
      port: idOf(cols.get(c.portId), portKind(portSubtype)),
      port_subtype: portSubtype,
      port_descr: advertised(textOf(cols.get(c.portDesc))),
      sys_name: advertised(textOf(cols.get(c.sysName))),
      sys_descr: advertised(textOf(cols.get(c.sysDesc))),
      platform: null,
      capabilities: bitNames(bitsOf(cols.get(c.sysCapEnabled)), LLDP_CAPABILITIES),
      management_addresses: mgmt,
      device_id: null,
      native_vlan: null,
    },
  };
}

export interface LldpResult {
  neighbours: Neighbour[];
  /** Which MIB the rows came from (null when neither had any). */
  mib: 'LLDP-MIB' | 'LLDP-V2-MIB' | null;
}

/**
 * The LLDP neighbours: LLDP-MIB's lldpRemTable, or LLDP-V2-MIB's lldpV2RemTable when LLDP-MIB has no rows
 * (never both, so an agent serving both does not list every neighbour twice).
 */
export function parseLldp(varbinds: readonly RawVarbind[], interfaces: readonly Interface[]): LldpResult {
  const v1 = remRows(tableOf(varbinds, LLDP.remEntry), 3);
  if (v1.length > 0) {
    const mgmt = manAddrs(tableOf(varbinds, LLDP.remManAddrEntry), 2);
    const resolve = localPortResolver(varbinds, interfaces, [...new Set(v1.map((r) => r.localPort))]);
    return { mib: 'LLDP-MIB', neighbours: v1.map((r) => neighbourOf(r.cols, LLDP_REM, mgmt.get(r.key) ?? [], resolve(r.localPort))) };
  }
  const v2 = remRows(tableOf(varbinds, LLDP_V2.remEntry), 4);
  if (v2.length > 0) {
    const mgmt = manAddrs(tableOf(varbinds, LLDP_V2.remManAddrEntry), 3);
    const ifs = byIfIndex(interfaces);
    // LLDP-V2's local port is an ifIndex by definition.
    const local = (n: number): LocalPortResolution => ({ if_index: n, name: interfaceName(ifs.get(n)) });
    return { mib: 'LLDP-V2-MIB', neighbours: v2.map((r) => neighbourOf(r.cols, LLDP_V2_REM, mgmt.get(r.key) ?? [], local(r.localPort))) };
  }
  return { mib: null, neighbours: [] };
}

