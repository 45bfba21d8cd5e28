// One device's walked tables (NEIGHBOUR_ROOTS, NEIGHBOUR_SCALARS) → its interfaces, LLDP/CDP neighbours,
// forwarding table, ARP table and uplink ports. Pure: no I/O, the varbinds in, the tables out.
import type { RawVarbind } from '../../../snmp/contracts.js';
import { parseArp } from './arp.js';
import { parseCdp } from './cdp.js';
import { compareUplinks, DEFAULT_MAX_MACS_PER_PORT, findUplinks, parseBridgeMac, parseFdb } from './fdb.js';
import { byIfIndex, interfaceName, parseInterfaces } from './interfaces.js';
import { parseLldp, parseLocalChassis } from './lldp.js';
import { mergeNeighbours } from './merge.js';
import type { DeviceTables, Neighbour, UplinkPort } from './types.js';

export type * from './types.js';
export { parseArp } from './arp.js';
export { CDP_CAPABILITIES, cdpName, parseCdp } from './cdp.js';
export { bridgePortMap, DEFAULT_MAX_MACS_PER_PORT, findUplinks, parseBridgeMac, parseFdb, uplinkPorts } from './fdb.js';
export { interfaceName, parseInterfaces } from './interfaces.js';
export {
  parseInetCidrRoutes, parseIpCidrRoutes, parseIpRouteTable, parseRoutes, ROUTE_COUNTS, ROUTE_PARSERS, ROUTE_ROOTS, ROUTE_TABLES,
  routeTableSize, type IpRoute, type RouteCounts, type RouteTable, type RouteType,
} from './ip-routes.js';
export { LLDP_CAPABILITIES, parseLldp, parseLocalChassis, type LldpResult } from './lldp.js';
export { mergeNeighbours } from './merge.js';
export { normalisePortName, resolvePort, samePort } from './port-names.js';
export { NEIGHBOUR_ROOTS, NEIGHBOUR_SCALARS, neighbourRoots, neighbourScalars, type NeighbourFamily } from './roots.js';
export { bytesOf } from './values.js';

/** Capabilities that make a neighbour part of the network rather than an attached host. */
const INFRASTRUCTURE = new Set(['bridge', 'router', 'switch', 'repeater', 'wlanAccessPoint', 'twoPortMacRelay', 'cVlan', 'sVlan']);

const isInfrastructure = (n: Neighbour) => n.remote.capabilities.some((c) => INFRASTRUCTURE.has(c));

/** The MACs an infrastructure neighbour goes by: a MAC chassis ID, a MAC port ID. */
export function neighbourMacs(neighbours: readonly Neighbour[]): string[] {
  const out = new Set<string>();
  for (const n of neighbours) {
    if (!isInfrastructure(n)) continue;
    if (n.remote.chassis_id_subtype === 'macAddress' && n.remote.chassis_id) out.add(n.remote.chassis_id);
    if (n.remote.port_subtype === 'macAddress' && n.remote.port) out.add(n.remote.port);
  }
  return [...out];
}

export interface ParseOptions {
  /** A port with more distinct MACs than this is an uplink (default DEFAULT_MAX_MACS_PER_PORT). */
  maxMacsPerPort?: number;
  /** MACs of other switches and routers known to the scan (bridge MACs, chassis IDs), beyond this device's neighbours'. */
  infrastructureMacs?: Iterable<string>;
}

/**
 * Everything the neighbour tables say about one device. Uplink ports are those findUplinks() finds in the
 * FDB (with the MACs of this device's switch/router neighbours, and any given) and the ports on which LLDP
 * or CDP sees a switch, router or access point.
 */
export function parseDeviceTables(varbinds: readonly RawVarbind[], opts: ParseOptions = {}): DeviceTables {
  const interfaces = parseInterfaces(varbinds);
  const chassis = parseLocalChassis(varbinds);
  const neighbours = mergeNeighbours(parseLldp(varbinds, interfaces).neighbours, parseCdp(varbinds, interfaces));
  const fdb = parseFdb(varbinds, interfaces);
  const arp = parseArp(varbinds, interfaces);

  const infra = [...neighbourMacs(neighbours), ...(opts.infrastructureMacs ?? [])];
  const uplinks: UplinkPort[] = findUplinks(fdb, infra, { maxMacs: opts.maxMacsPerPort ?? DEFAULT_MAX_MACS_PER_PORT });
  const ifs = byIfIndex(interfaces);
  for (const n of neighbours) {
    if (!isInfrastructure(n) || n.local_if_index == null) continue;
    const known = uplinks.find((u) => u.if_index === n.local_if_index);
    if (known) {
      if (!known.reasons.includes('neighbour')) known.reasons.push('neighbour');
    } else {
      const macs = new Set(fdb.filter((e) => e.if_index === n.local_if_index).map((e) => e.mac)).size;
      const port = interfaceName(ifs.get(n.local_if_index)) ?? n.local_port;
      uplinks.push({ if_index: n.local_if_index, port, bridge_port: null, macs, reasons: ['neighbour'] });
    }
  }
  uplinks.sort(compareUplinks);

  return {
    interfaces,
    lldp_chassis_id: chassis.chassis_id,
    lldp_chassis_id_subtype: chassis.subtype,
    bridge_mac: parseBridgeMac(varbinds),
    neighbours,
    fdb,
    arp,
    uplink_ports: uplinks,
  };
}
