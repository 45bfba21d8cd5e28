// The discovery stages, in order: one line per stage. Inside a phase a stage starts once the earlier
// stages that add what it needs have finished (stages/types.ts); the phases run one after another.
import { advertised } from './advertised.js';
import { advertisedAsk } from './advertised-ask.js';
import { deviceTables } from './device-tables.js';
import { hostname } from './hostname.js';
import { icmp } from './icmp.js';
import { layer3Routes } from './layer3-routes.js';
import { macVendor } from './mac-vendor.js';
import { neighbourMacs } from './neighbour-macs.js';
import { neighbourTable } from './neighbour-table.js';
import { ports } from './ports.js';
import { snmpIdentity } from './snmp-identity.js';
import { snmpOnLink } from './snmp-on-link.js';
import { snmpRouted } from './snmp-routed.js';
import { tcpLiveness } from './tcp-liveness.js';
import { topology } from './topology.js';
import type { Stage } from './types.js';

export const STAGES: readonly Stage[] = [
  icmp,
  neighbourTable,
  tcpLiveness,
  snmpRouted,
  snmpOnLink,
  neighbourMacs,
  advertisedAsk,
  ports,
  snmpIdentity,
  macVendor,
  hostname,
  advertised,
  deviceTables,
  topology,
  layer3Routes,
];
