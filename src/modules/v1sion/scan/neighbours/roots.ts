// The OIDs a device scan reads for its interfaces, neighbours (LLDP, CDP), forwarding table and ARP
// table: column roots to walk (never whole MIBs, so a walk carries only what the parsers read) and the
// scalars to GET. The parsers read these same constants, so a root and its parser cannot drift apart.

/** IF-MIB ifTable / ifXTable columns [ifIndex]. */
export const IF = {
  descr: '1.3.6.1.2.1.2.2.1.2',
  type: '1.3.6.1.2.1.2.2.1.3',
  physAddress: '1.3.6.1.2.1.2.2.1.6',
  name: '1.3.6.1.2.1.31.1.1.1.1',
  alias: '1.3.6.1.2.1.31.1.1.1.18',
} as const;

/** LLDP-MIB (IEEE 802.1AB-2005). */
export const LLDP = {
  locChassisIdSubtype: '1.0.8802.1.1.2.1.3.1.0',
  locChassisId: '1.0.8802.1.1.2.1.3.2.0',
  /** lldpLocPortEntry [lldpLocPortNum]: 2 PortIdSubtype, 3 PortId, 4 PortDesc. */
  locPortEntry: '1.0.8802.1.1.2.1.3.7.1',
  /** lldpRemEntry [TimeMark.LocalPortNum.RemIndex]: 4 ChassisIdSubtype … 12 SysCapEnabled (1–3: index only). */
  remEntry: '1.0.8802.1.1.2.1.4.1.1',
  /** lldpRemManAddrEntry [TimeMark.LocalPortNum.RemIndex.AddrSubtype.AddrLen.Addr]: 3 IfSubtype, 4 IfId, 5 OID. */
  remManAddrEntry: '1.0.8802.1.1.2.1.4.2.1',
} as const;

/** lldpRemEntry columns read. */
export const LLDP_REM = {
  chassisIdSubtype: 4, chassisId: 5, portIdSubtype: 6, portId: 7, portDesc: 8, sysName: 9, sysDesc: 10, sysCapEnabled: 12,
} as const;

/** LLDP-V2-MIB (IEEE 802.1AB-2009): served alone by some agents. */
export const LLDP_V2 = {
  locChassisIdSubtype: '1.3.111.2.802.1.1.13.1.3.1.0',
  locChassisId: '1.3.111.2.802.1.1.13.1.3.2.0',
  /** lldpV2RemEntry [TimeMark.LocalIfIndex.LocalDestMACAddress.RemIndex]: 5 ChassisIdSubtype … 13 SysCapEnabled. */
  remEntry: '1.3.111.2.802.1.1.13.1.4.1.1',
  /** lldpV2RemManAddrEntry [TimeMark.LocalIfIndex.LocalDestMACAddress.RemIndex.AddrSubtype.AddrLen.Addr]: 3 IfSubtype. */
  remManAddrEntry: '1.3.111.2.802.1.1.13.1.4.2.1',
} as const;

/** lldpV2RemEntry columns read: LLDP-MIB's, shifted by one. */
export const LLDP_V2_REM = {
  chassisIdSubtype: 5, chassisId: 6, portIdSubtype: 7, portId: 8, portDesc: 9, sysName: 10, sysDesc: 11, sysCapEnabled: 13,
} as const;

/** CISCO-CDP-MIB cdpCacheEntry [ifIndex.DeviceIndex]. */
export const CDP = {
  cacheEntry: '1.3.6.1.4.1.9.9.23.1.2.1.1',
} as const;

/** cdpCacheEntry columns read. */
export const CDP_CACHE = {
  addressType: 3, address: 4, version: 5, deviceId: 6, devicePort: 7, platform: 8, capabilities: 9, nativeVlan: 11,
} as const;

/** BRIDGE-MIB. */
export const BRIDGE = {
  baseBridgeAddress: '1.3.6.1.2.1.17.1.1.0',
  /** dot1dBasePortIfIndex [dot1dBasePort]. */
  basePortIfIndex: '1.3.6.1.2.1.17.1.4.1.2',
  /** dot1dTpFdbPort [MAC as 6 decimals]. */
  tpFdbPort: '1.3.6.1.2.1.17.4.3.1.2',
  /** dot1dTpFdbStatus: 1 other, 2 invalid, 3 learned, 4 self, 5 mgmt. */
  tpFdbStatus: '1.3.6.1.2.1.17.4.3.1.3',
} as const;

/** Q-BRIDGE-MIB. */
export const QBRIDGE = {
  /** dot1qTpFdbPort [FdbId.MAC]. */
  tpFdbPort: '1.3.6.1.2.1.17.7.1.2.2.1.2',
  /** dot1qTpFdbStatus, the same values as dot1dTpFdbStatus. */
  tpFdbStatus: '1.3.6.1.2.1.17.7.1.2.2.1.3',
  /** dot1qVlanFdbId [TimeMark.VlanIndex] → FdbId. */
  vlanFdbId: '1.3.6.1.2.1.17.7.1.4.2.1.3',
} as const;

/** IP-MIB address translation tables. */
export const ARP = {
  /** ipNetToPhysicalEntry [ifIndex.AddrType.AddrLen.Addr]: 4 PhysAddress, 6 Type, 7 State. */
  physPhysAddress: '1.3.6.1.2.1.4.35.1.4',
  physType: '1.3.6.1.2.1.4.35.1.6',
  physState: '1.3.6.1.2.1.4.35.1.7',
  /** ipNetToMediaEntry [ifIndex.a.b.c.d]: 2 PhysAddress, 4 Type. */
  mediaPhysAddress: '1.3.6.1.2.1.4.22.1.2',
  mediaType: '1.3.6.1.2.1.4.22.1.4',
} as const;

const columns = (entry: string, cols: readonly number[]) => cols.map((c) => `${entry}.${c}`);
/** The object of a scalar instance ("….0" → "…"): walking it returns the instance, in one round trip. */
const object = (instance: string) => instance.replace(/\.0$/, '');

/**
 * The roots to walk, per table family: table columns, and the objects of the scalars the parsers read
 * (NEIGHBOUR_SCALARS), so that walking these roots alone gives the parsers everything.
 */
export const NEIGHBOUR_ROOTS = {
  interfaces: [IF.descr, IF.type, IF.physAddress, IF.name, IF.alias],
  lldp: [
    object(LLDP.locChassisIdSubtype), object(LLDP.locChassisId),
    ...columns(LLDP.locPortEntry, [2, 3, 4]),
    ...columns(LLDP.remEntry, Object.values(LLDP_REM)),
    // The whole (small) entry: its standard columns carry the address in the index only, and some agents
    // (RouterOS) serve columns 1 and 2 (subtype, address) as values instead.
    LLDP.remManAddrEntry,
  ],
  /** Walked only when LLDP-MIB has no remote rows (the parser ignores it otherwise). */
  lldpV2: [
    object(LLDP_V2.locChassisIdSubtype), object(LLDP_V2.locChassisId),
    ...columns(LLDP_V2.remEntry, Object.values(LLDP_V2_REM)), LLDP_V2.remManAddrEntry,
  ],
  cdp: columns(CDP.cacheEntry, Object.values(CDP_CACHE)),
  bridge: [object(BRIDGE.baseBridgeAddress), BRIDGE.basePortIfIndex, BRIDGE.tpFdbPort, BRIDGE.tpFdbStatus],
  qbridge: [QBRIDGE.tpFdbPort, QBRIDGE.tpFdbStatus, QBRIDGE.vlanFdbId],
  arp: [ARP.physPhysAddress, ARP.physType, ARP.physState, ARP.mediaPhysAddress, ARP.mediaType],
} as const satisfies Record<string, readonly string[]>;

export type NeighbourFamily = keyof typeof NEIGHBOUR_ROOTS;

/**
 * The scalars the parsers read: the local LLDP chassis ID (both MIBs) and the bridge's MAC. Their objects
 * are among NEIGHBOUR_ROOTS already; a caller that GETs these instead may leave those roots out.
 */
export const NEIGHBOUR_SCALARS = {
  lldp: [LLDP.locChassisIdSubtype, LLDP.locChassisId],
  lldpV2: [LLDP_V2.locChassisIdSubtype, LLDP_V2.locChassisId],
  bridge: [BRIDGE.baseBridgeAddress],
} as const satisfies Partial<Record<NeighbourFamily, readonly string[]>>;

/** Every root of the given families (all by default), in the order above. */
export function neighbourRoots(families: readonly NeighbourFamily[] = Object.keys(NEIGHBOUR_ROOTS) as NeighbourFamily[]): string[] {
  return families.flatMap((f) => [...NEIGHBOUR_ROOTS[f]]);
}

/** Every scalar of the given families (all by default). */
export function neighbourScalars(families: readonly NeighbourFamily[] = Object.keys(NEIGHBOUR_ROOTS) as NeighbourFamily[]): string[] {
  return families.flatMap((f) => [...((NEIGHBOUR_SCALARS as Partial<Record<NeighbourFamily, readonly string[]>>)[f] ?? [])]);
}

// ---- The family `routes`: the routing table (scan/ip-routes.ts readRoutes, parser ip-routes.ts) -----------
// Deliberately NOT a family of NEIGHBOUR_ROOTS (a scan walks every family there): a router can hold a full
// internet table, so its size is read first (ROUTE_COUNTS) and a table over the limit is not walked at all.

/** IP-FORWARD-MIB (RFC 4292, RFC 2096) and RFC 1213's ipRouteTable: three generations of the same table. */
export const ROUTES = {
  /** inetCidrRouteNumber (Gauge32): rows of inetCidrRouteTable. */
  inetCidrRouteNumber: '1.3.6.1.2.1.4.24.6.0',
  /** ipCidrRouteNumber (Gauge32): rows of ipCidrRouteTable. */
  ipCidrRouteNumber: '1.3.6.1.2.1.4.24.3.0',
  /** inetCidrRouteEntry [DestType.DestLen.Dest.PfxLen.PolicyLen.Policy.NextHopType.NextHopLen.NextHop]. */
  inetCidrRouteEntry: '1.3.6.1.2.1.4.24.7.1',
  /** ipCidrRouteEntry [Dest(4).Mask(4).Tos.NextHop(4)], IPv4 only. */
  ipCidrRouteEntry: '1.3.6.1.2.1.4.24.4.1',
  /** ipRouteEntry [Dest(4)], IPv4 only, one route per destination. */
  ipRouteEntry: '1.3.6.1.2.1.4.21.1',
} as const;

/** inetCidrRouteEntry columns read (1-6 are index only). */
export const INET_CIDR_ROUTE = { ifIndex: 7, type: 8, proto: 9, metric1: 12 } as const;
/** ipCidrRouteEntry columns read (destination, mask and next hop come from the index). */
export const IP_CIDR_ROUTE = { ifIndex: 5, type: 6, proto: 7, metric1: 11 } as const;
/** ipRouteEntry columns read. */
export const IP_ROUTE = { ifIndex: 2, metric1: 3, nextHop: 7, type: 8, proto: 9, mask: 11 } as const;

export type RouteTable = 'inetCidrRouteTable' | 'ipCidrRouteTable' | 'ipRouteTable';

/** The column roots of each route table, in the order a reader tries them (newest MIB first). */
export const ROUTE_ROOTS = {
  inetCidrRouteTable: columns(ROUTES.inetCidrRouteEntry, Object.values(INET_CIDR_ROUTE)),
  ipCidrRouteTable: columns(ROUTES.ipCidrRouteEntry, Object.values(IP_CIDR_ROUTE)),
  ipRouteTable: columns(ROUTES.ipRouteEntry, Object.values(IP_ROUTE)),
} as const satisfies Record<RouteTable, readonly string[]>;

/** The scalars that count a table's rows, GET before walking it (RFC 1213's ipRouteTable has none). */
export const ROUTE_COUNTS = {
  inetCidrRouteTable: ROUTES.inetCidrRouteNumber,
  ipCidrRouteTable: ROUTES.ipCidrRouteNumber,
} as const satisfies Partial<Record<RouteTable, string>>;
