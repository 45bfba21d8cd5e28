// What the neighbour parsers make of one device's walked tables (see index.ts parseDeviceTables).

/** One row of IF-MIB: ifTable and ifXTable joined on ifIndex. */
export interface Interface {
  if_index: number;
  /** ifName; null when the agent does not serve ifXTable. */
  name: string | null;
  /** ifDescr. */
  descr: string | null;
  /** ifAlias (the description an operator typed). */
  alias: string | null;
  /** ifPhysAddress as aa:bb:cc:dd:ee:ff; null when empty, all zeros or not 6 octets. */
  mac: string | null;
  /** ifType (IANAifType: 6 ethernetCsmacd, 24 softwareLoopback, 53 propVirtual, 161 ieee8023adLag …). */
  type: number | null;
}

export type NeighbourProtocol = 'lldp' | 'cdp';

/** LLDP chassis ID subtypes by their MIB names, and CDP's Device-ID. */
export type ChassisIdSubtype =
  | 'chassisComponent' | 'interfaceAlias' | 'portComponent' | 'macAddress' | 'networkAddress' | 'interfaceName' | 'local'
  | 'cdpDeviceId';

/** LLDP port ID subtypes by their MIB names, and CDP's Port-ID (an interface name). */
export type PortIdSubtype =
  | 'interfaceAlias' | 'portComponent' | 'macAddress' | 'networkAddress' | 'interfaceName' | 'agentCircuitId' | 'local'
  | 'cdpPortId';

/** What the neighbour says about itself. */
export interface RemoteEnd {
  /** By subtype: macAddress → aa:bb:…, networkAddress → an IP, otherwise the text. */
  chassis_id: string | null;
  chassis_id_subtype: ChassisIdSubtype | null;
  /** The remote port ID (macAddress → aa:bb:…, networkAddress → an IP, otherwise text: usually a name). */
  port: string | null;
  port_subtype: PortIdSubtype | null;
  /** lldpRemPortDesc; often the port's name when the port ID is a MAC or a number (subtype local). */
  port_descr: string | null;
  /** lldpRemSysName, else CDP's Device-ID without its "(serial)" suffix. */
  sys_name: string | null;
  /** lldpRemSysDesc, else CDP's Version. */
  sys_descr: string | null;
  /** CDP Platform (LLDP has none). */
  platform: string | null;
  /** Enabled capabilities: LLDP's names (other, repeater, bridge, wlanAccessPoint, router, telephone,
   *  docsisCableDevice, station, cVlan, sVlan, twoPortMacRelay) and CDP's mapped onto them where they mean
   *  the same (Host → station, VoIP phone → telephone), plus CDP's own (switch, sourceRouteBridge, igmp,
   *  remotelyManaged, cvta). */
  capabilities: string[];
  /** IPv4 and IPv6 addresses, canonical, unspecified addresses dropped. */
  management_addresses: string[];
  /** CDP's raw Device-ID (it can carry a serial number: "core.example.com(SSI18110EXV)"). */
  device_id: string | null;
  /** CDP native VLAN of the remote port; null when not advertised (or 0). */
  native_vlan: number | null;
}

export interface Neighbour {
  /** 'lldp' when LLDP saw it (also when CDP did too), 'cdp' otherwise. */
  protocol: NeighbourProtocol;
  /** Every protocol that reported this neighbour on this port. */
  protocols: NeighbourProtocol[];
  /** The local interface's name (ifName, else ifDescr), else what LLDP calls the local port. */
  local_port: string | null;
  local_if_index: number | null;
  remote: RemoteEnd;
}

/** One forwarding-table entry the switch learned. */
export interface FdbEntry {
  mac: string;
  /** The VLAN (Q-BRIDGE); null for BRIDGE-MIB entries and FdbIds that map to no single VLAN. */
  vlan: number | null;
  /** The interface, through dot1dBasePortIfIndex; null when the bridge port maps to none. */
  if_index: number | null;
  /** The interface's name. */
  port: string | null;
  /** The bridge port number as the table gave it (not an ifIndex). */
  bridge_port: number;
}

export interface ArpEntry {
  ip: string;
  mac: string;
  if_index: number | null;
  port: string | null;
}

export type UplinkReason = 'infrastructure-mac' | 'mac-count' | 'neighbour';

/** A port that leads to more network (another switch, a router) rather than to one attached host. */
export interface UplinkPort {
  if_index: number | null;
  port: string | null;
  /** Set when the port is known only by its bridge port number (no ifIndex). */
  bridge_port: number | null;
  /** Distinct MACs learned on the port. */
  macs: number;
  reasons: UplinkReason[];
}

export interface DeviceTables {
  interfaces: Interface[];
  /** The device's own LLDP chassis ID (lldpLocChassisId, else lldpV2LocChassisId), rendered by subtype. */
  lldp_chassis_id: string | null;
  lldp_chassis_id_subtype: ChassisIdSubtype | null;
  /** dot1dBaseBridgeAddress. */
  bridge_mac: string | null;
  neighbours: Neighbour[];
  fdb: FdbEntry[];
  arp: ArpEntry[];
  uplink_ports: UplinkPort[];
}
