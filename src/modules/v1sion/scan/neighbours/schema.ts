// The zod form of DeviceTables (types.ts), for responses described in OpenAPI (POST /api/v1sion/device/snmp).
// The assignment at the end fails to compile when the interfaces and this schema disagree.
import { z } from 'zod';
import type { DeviceTables } from './types.js';

const CHASSIS = ['chassisComponent', 'interfaceAlias', 'portComponent', 'macAddress', 'networkAddress', 'interfaceName', 'local',
  'cdpDeviceId'] as const;
const PORT = ['interfaceAlias', 'portComponent', 'macAddress', 'networkAddress', 'interfaceName', 'agentCircuitId', 'local',
  'cdpPortId'] as const;
const PROTOCOL = z.enum(['lldp', 'cdp']);

export const DeviceTablesOut = z.object({
  interfaces: z.array(z.object({
    if_index: z.number().int(), name: z.string().nullable(), descr: z.string().nullable(), alias: z.string().nullable(),
    mac: z.string().nullable(), type: z.number().int().nullable(),
  })),
  lldp_chassis_id: z.string().nullable(),
  lldp_chassis_id_subtype: z.enum(CHASSIS).nullable(),
  bridge_mac: z.string().nullable(),
  neighbours: z.array(z.object({
    protocol: PROTOCOL, protocols: z.array(PROTOCOL), local_port: z.string().nullable(), local_if_index: z.number().int().nullable(),
    remote: z.object({
      chassis_id: z.string().nullable(), chassis_id_subtype: z.enum(CHASSIS).nullable(), port: z.string().nullable(),
      port_subtype: z.enum(PORT).nullable(), port_descr: z.string().nullable(), sys_name: z.string().nullable(),
      sys_descr: z.string().nullable(), platform: z.string().nullable(), capabilities: z.array(z.string()),
      management_addresses: z.array(z.string()), device_id: z.string().nullable(), native_vlan: z.number().int().nullable(),
    }),
  })),
  fdb: z.array(z.object({
    mac: z.string(), vlan: z.number().int().nullable(), if_index: z.number().int().nullable(), port: z.string().nullable(),
    bridge_port: z.number().int(),
  })),
  arp: z.array(z.object({ ip: z.string(), mac: z.string(), if_index: z.number().int().nullable(), port: z.string().nullable() })),
  uplink_ports: z.array(z.object({
    if_index: z.number().int().nullable(), port: z.string().nullable(), bridge_port: z.number().int().nullable(),
    macs: z.number().int(), reasons: z.array(z.enum(['infrastructure-mac', 'mac-count', 'neighbour'])),
  })),
});

// Both ways: a field added to either side without the other fails here.
const _sameShape: [z.infer<typeof DeviceTablesOut>, DeviceTables] = [
  null as unknown as DeviceTables, null as unknown as z.infer<typeof DeviceTablesOut>,
];
