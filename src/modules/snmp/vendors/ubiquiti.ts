// Ubiquiti: EdgeOS routers (EdgeRouter), UniFi access points and switches, and EdgeSwitch. UniFi and
// EdgeSwitch firmware answer with Broadcom's FASTPATH sysObjectID (enterprise 4413) or Ubiquiti's own,
// so the variants are told apart by sysDescr; the small Realtek-based EdgeSwitch X models (ES-8XP,
// ES-10X) keep Realtek's sysObjectID and a chip name as sysDescr, and are recognised by the model name
// in their ENTITY-MIB chassis row (one extra read, only for that sysObjectID).
import {
  cpuCard, entityIdentity, hostResourcesCpu, hostResourcesMemory, interfacesCard, memoryCard, otherProducts, sysDescr, systemCard, ucdMemory
} from './common.js';
import type { VendorProfile } from './types.js';

const broadcomOrUbiquiti = ['enterprises.4413', 'ubnt'];

// Ubiquiti's own arc (41112), and Frogfoot's .1, which Ubiquiti's airOS and UniFi firmware answer with
// (the unifi-ap variant above already names it).
const enterprises = ['ubnt', 'enterprises.10002.1'];

export const ubiquiti: VendorProfile = {
  key: 'ubiquiti',
  name: 'Ubiquiti',
  kind: 'switch',
  manufacturer: 'Ubiquiti',
  enterprises,
  description: 'Ubiquiti EdgeOS routers, UniFi access points and switches, and EdgeSwitch.',
  variants: [
    {
      key: 'edgeos',
      os: 'EdgeOS',
      kind: 'router',
      match: [{ sys_descr: [/^\W*EdgeOS\b/] }, { sys_object_id: ['ubntEdgeMax'] }],
      identity: {
        model: [{ entity: 'entPhysicalModelName' }],
        version: [sysDescr(/\bEdgeOS v(\d+(?:\.\d+){1,2})/)],
        firmware: [sysDescr(/\bEdgeOS v(\S+)/)],
      },
    },
    {
      key: 'unifi-ap',
      os: 'UniFi',
      kind: 'wireless',
      match: [{ sys_object_id: ['ubnt', 'enterprises.10002.1', 'NET-SNMP-TC::linux'], sys_descr: [/^\W*(?:UAP|U6|U7|UniFi)\b/i] }],
      identity: {
        model: [{ get: 'unifiApSystemModel.0' }, sysDescr(/^\W*(\S+?),?\s/)],
        version: [{ get: 'unifiApSystemVersion.0' }, sysDescr(/\b(\d+\.\d+\.\d+(?:\.\d+)*)\b/)],
      },
    },
    {
      key: 'unifi-switch',
      os: 'UniFi',
      match: [{ sys_object_id: broadcomOrUbiquiti, sys_descr: [/^\W*(?:USW|US-\d|UBNT US)/i] }],
      identity: {
        model: [{ get: 'agentInventoryMachineModel.0' }, sysDescr(/^\W*(\S+?),/)],
        serial: [{ get: 'agentInventorySerialNumber.0' }],
        version: [{ get: 'agentInventorySoftwareVersion.0' }, sysDescr(/,\s*(\d+\.\d+\.\d+(?:\.\d+)*)/)],
      },
    },
    {
      key: 'edgeswitch',
      os: 'EdgeSwitch',
      match: [
        { sys_object_id: broadcomOrUbiquiti, sys_descr: [/^\W*(?:EdgeSwitch|EdgePoint)\b/i] },
        { sys_object_id: ['enterprises.27282'], probe: { oid: 'entPhysicalModelName', match: /^(?:ES|EP)-\d/ } },
      ],
      identity: {
        model: [{ get: 'agentInventoryMachineModel.0' }, ...entityIdentity.model, sysDescr(/^\W*EdgeSwitch (\S+)/i)],
        serial: [{ get: 'agentInventorySerialNumber.0' }, ...entityIdentity.serial],
        version: [{ get: 'agentInventorySoftwareVersion.0' }, ...entityIdentity.version, sysDescr(/,\s*(\d+\.\d+\.\d+(?:\.\d+)*)/)],
        firmware: entityIdentity.firmware,
      },
    },
    otherProducts(enterprises, entityIdentity),
  ],
  identity: entityIdentity,
  cards: [
    systemCard,
    cpuCard(hostResourcesCpu),
    memoryCard([hostResourcesMemory, ...ucdMemory]),
    interfacesCard,
  ],
};
