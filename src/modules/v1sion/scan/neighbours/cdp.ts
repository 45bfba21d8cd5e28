// CISCO-CDP-MIB cdpCacheTable [ifIndex.DeviceIndex]: the CDP neighbours of a device. The first index arc
// is the local ifIndex (unlike LLDP's local port number).
import type { RawVarbind } from '../../../snmp/contracts.js';
import { byIfIndex, interfaceName } from './interfaces.js';
import { CDP, CDP_CACHE } from './roots.js';
import type { Interface, Neighbour } from './types.js';
import { addressOf, arcsOf, bytesOf, intOf, tableOf, textOf } from './values.js';

/**
 * CDP capability bits (the Capabilities TLV, a 32-bit value in network order), named as LLDP names the
 * same thing where there is one (Host → station, VoIP phone → telephone, Transparent Bridge → bridge).
 */
export const CDP_CAPABILITIES: readonly [number, string][] = [
  [0x001, 'router'], [0x002, 'bridge'], [0x004, 'sourceRouteBridge'], [0x008, 'switch'], [0x010, 'station'], [0x020, 'igmp'],
  [0x040, 'repeater'], [0x080, 'telephone'], [0x100, 'remotelyManaged'], [0x200, 'cvta'], [0x400, 'twoPortMacRelay'],
];

/** cdpCacheAddressType (CiscoNetworkProtocol): 1 ip (4 octets), 20 ipv6 (16 octets); other protocols ignored. */
function cdpAddressOf(type: number | null, vb: RawVarbind | undefined): string | null {
  const ip = type === 1 || type === 20 ? addressOf(vb) : null;
  return ip && ip.includes(':') === (type === 20) ? ip : null;
}

function capabilitiesOf(vb: RawVarbind | undefined): string[] {
  const b = bytesOf(vb);
  if (b.length === 0 || b.length > 4) return [];
  const v = b.reduce((acc, x) => acc * 256 + x, 0);
  return CDP_CAPABILITIES.filter(([bit]) => (v & bit) !== 0).map(([, name]) => name);
}

/** "core.example.com(SSI18110EXV)" → "core.example.com": some platforms append the serial number. */
export const cdpName = (deviceId: string | null) => deviceId?.replace(/\s*\([^()]*\)\s*$/, '').trim() || null;

export function parseCdp(varbinds: readonly RawVarbind[], interfaces: readonly Interface[]): Neighbour[] {
  const table = tableOf(varbinds, CDP.cacheEntry);
  const ifs = byIfIndex(interfaces);
  const indexes = new Set<string>();
  for (const cells of table.values()) for (const k of cells.keys()) if (/^\d+\.\d+$/.test(k)) indexes.add(k);
  const col = (c: number, k: string) => table.get(c)?.get(k);
  return [...indexes]
    .map((k) => ({ k, arcs: arcsOf(k) }))
    .sort((a, b) => a.arcs[0]! - b.arcs[0]! || a.arcs[1]! - b.arcs[1]!)
    .map(({ k, arcs }): Neighbour => {
      const ifIndex = arcs[0]!;
      const deviceId = textOf(col(CDP_CACHE.deviceId, k));
      const address = cdpAddressOf(intOf(col(CDP_CACHE.addressType, k)), col(CDP_CACHE.address, k));
      const vlan = intOf(col(CDP_CACHE.nativeVlan, k));
      const port = textOf(col(CDP_CACHE.devicePort, k));
      return {
        protocol: 'cdp',
        protocols: ['cdp'],
        local_port: interfaceName(ifs.get(ifIndex)),
        local_if_index: ifIndex,
        remote: {
          chassis_id: deviceId,
          chassis_id_subtype: deviceId ? 'cdpDeviceId' : null,
          port,
          port_subtype: port ? 'cdpPortId' : null,
          port_descr: null,
          sys_name: cdpName(deviceId),
          sys_descr: textOf(col(CDP_CACHE.version, k)),
          platform: textOf(col(CDP_CACHE.platform, k)),
          capabilities: capabilitiesOf(col(CDP_CACHE.capabilities, k)),
          management_addresses: address ? [address] : [],
          device_id: deviceId,
          native_vlan: vlan && vlan > 0 ? vlan : null,
        },
      };
    });
}
