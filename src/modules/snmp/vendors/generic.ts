// Any SNMP agent: MIB-II and the standard MIBs most agents carry. The manufacturer is named from the
// sysObjectID's private enterprise number; net-snmp hosts (Linux, BSD) are told apart for their OS
// name and kernel version from sysDescr ("Linux host 6.1.0-18-amd64 #1 SMP ..."). What the device does
// is told by bridging and LLDP evidence (identify.ts): a net-snmp agent is a server only without it.
import {
  cpuCard, entityIdentity, entitySensorTemperatures, hostResourcesCpu, hostResourcesMemory, interfacesCard, memoryCard, sysDescr,
  systemCard, temperatureCard, ucdMemory
} from './common.js';
import type { VendorProfile } from './types.js';

export const generic: VendorProfile = {
  key: 'generic',
  name: 'Generic MIB-II',
  kind: 'device',
  description: 'Any SNMP agent: MIB-II, ENTITY-MIB, HOST-RESOURCES-MIB; net-snmp hosts (Linux, BSD) by name and kernel.',
  variants: [
    {
      key: 'net-snmp',
      os: 'net-snmp',
      kind: 'server',
      kind_from_evidence: true,
      match: [{ sys_object_id: ['netSnmpAgentOIDs'] }],
      identity: {
        os: [sysDescr(/^\W*(\S+)/)],
        version: [sysDescr(/^\W*\S+ \S+ (\S+)/)],
      },
    },
    { key: 'mib-2', os: null, kind_from_evidence: true, fallback: 'any', match: [{}] },
  ],
  identity: entityIdentity,
  cards: [
    systemCard,
    cpuCard(hostResourcesCpu),
    memoryCard([hostResourcesMemory, ...ucdMemory]),
    temperatureCard([entitySensorTemperatures]),
    interfacesCard,
  ],
};
