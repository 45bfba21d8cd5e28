// What a device does, from what its agent says beside the system group: BRIDGE-MIB or Q-BRIDGE-MIB
// answering (it bridges: a switch), and LLDP's enabled system capabilities (bridge, router, WLAN access
// point). Scalars only, asked in identification's one GET of the system group (readSystem), so a scan
// pays no round trip for them; an agent without one answers noSuchObject for it. docs/snmp.md, "Kind".
import { bytesOf } from './client/values.js';
import type { RawVarbind } from './contracts.js';
import { numberOf } from './sources.js';
import type { DeviceKind } from './vendors/types.js';

export const KIND_OIDS = {
  dot1dBaseBridgeAddress: '1.3.6.1.2.1.17.1.1.0',
  dot1dBaseNumPorts: '1.3.6.1.2.1.17.1.2.0',
  dot1qNumVlans: '1.3.6.1.2.1.17.7.1.1.4.0',
  lldpLocSysCapEnabled: '1.0.8802.1.1.2.1.3.6.0',
  lldpV2LocSysCapEnabled: '1.3.111.2.802.1.1.13.1.3.6.0',
} as const;

/** LLDP-MIB LldpSystemCapabilitiesMap: BITS, bit 0 the first octet's most significant. */
const LLDP_CAPS = ['other', 'repeater', 'bridge', 'wlanAccessPoint', 'router', 'telephone', 'docsisCableDevice', 'station',
  'cVlanComponent', 'sVlanComponent', 'twoPortMacRelay'] as const;

export interface KindEvidence { kind: DeviceKind; why: string }

const EXCEPTIONS = new Set(['Null', 'NoSuchObject', 'NoSuchInstance', 'EndOfMibView']);

/** The capabilities a BITS value has set, by LLDP-MIB's names. */
export function lldpCapabilities(vb: RawVarbind | undefined): string[] {
  if (!vb || EXCEPTIONS.has(vb.type) || vb.type !== 'OctetString') return [];
  const bytes = bytesOf(vb);
  return LLDP_CAPS.filter((_, i) => ((bytes[i >> 3] ?? 0) & (0x80 >> (i & 7))) !== 0);
}

const macText = (b: Buffer) => [...b].map((x) => x.toString(16).padStart(2, '0')).join(':');

/**
 * The kind these scalars show, and why, or null when they show nothing. A WLAN access point (it also
 * bridges), then bridging (BRIDGE-MIB's base group, Q-BRIDGE's VLAN count, LLDP's bridge capability),
 * then LLDP's router capability alone.
 */
export function kindEvidence(at: (oid: string) => RawVarbind | undefined): KindEvidence | null {
  const caps = [...new Set([KIND_OIDS.lldpLocSysCapEnabled, KIND_OIDS.lldpV2LocSysCapEnabled].flatMap((o) => lldpCapabilities(at(o))))];
  const capsText = `LLDP system capabilities enabled: ${caps.join(', ')}`;
  if (caps.includes('wlanAccessPoint')) return { kind: 'wireless', why: capsText };

  const address = at(KIND_OIDS.dot1dBaseBridgeAddress);
  const mac = address && !EXCEPTIONS.has(address.type) ? bytesOf(address) : Buffer.alloc(0);
  const ports = numberOf(at(KIND_OIDS.dot1dBaseNumPorts));
  const bridgeFacts = [
    ...(ports !== undefined && ports > 0 ? [`dot1dBaseNumPorts ${ports}`] : []),
    ...(mac.length === 6 && mac.some((b) => b !== 0) ? [`dot1dBaseBridgeAddress ${macText(mac)}`] : []),
  ];
  if (bridgeFacts.length) return { kind: 'switch', why: `BRIDGE-MIB answers (${bridgeFacts.join(', ')})` };
  const vlans = numberOf(at(KIND_OIDS.dot1qNumVlans));
  if (vlans !== undefined && vlans > 0) return { kind: 'switch', why: `Q-BRIDGE-MIB answers (dot1qNumVlans ${vlans})` };
  if (caps.includes('bridge')) return { kind: 'switch', why: capsText };
  if (caps.includes('router')) return { kind: 'router', why: capsText };
  return null;
}
