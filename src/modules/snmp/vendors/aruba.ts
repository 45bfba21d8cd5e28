// HPE Aruba switches, one profile with the family's two operating systems: ArubaOS-CX (sysObjectID under
// ARUBAWIRED-NETWORKING-OID's wndDeviceIds, standard MIBs for the rest) and ProCurve / ArubaOS-Switch
// (sysObjectID under HP's hpEtherSwitch or stacking OIDs; sysDescr "..., revision KA.16.10.0010,
// ROM KA.16.01 ..."; CPU and memory from HP's STATISTICS-MIB and NETSWITCH-MIB). Aruba wireless
// (enterprise 14823) and HPE Comware switches (H3C, 25506) are other families.
import {
  cpuCard, entityIdentity, entitySensorTemperatures, hostResourcesCpu, hostResourcesMemory, interfacesCard, memoryCard, otherProducts,
  sysDescr, systemCard, temperatureCard
} from './common.js';
import type { VendorProfile } from './types.js';

// Aruba's arcs (14823, 47196): not HP's 11, which holds printers and servers as well as switches.
const enterprises = ['enterprises.14823', 'enterprises.47196'];

export const aruba: VendorProfile = {
  key: 'aruba',
  name: 'Aruba / HPE switches',
  kind: 'switch',
  manufacturer: 'HPE Aruba Networking',
  enterprises,
  description: 'HPE Aruba Networking switches: ArubaOS-CX, and ProCurve / ArubaOS-Switch.',
  variants: [
    {
      key: 'aos-cx',
      os: 'ArubaOS-CX',
      match: [{ sys_object_id: ['wndDeviceIds'] }, { sys_object_id: ['enterprises.47196'], sys_descr: [/\bArubaOS-CX\b/i] }],
      identity: {
        model: [...entityIdentity.model, sysDescr(/^\W*Aruba (\S+)/)],
        version: [sysDescr(/\b([A-Z]{2}\.\d{2}\.\d{2}\.\d{4})\b/), ...entityIdentity.version],
      },
    },
    {
      key: 'procurve',
      os: 'ArubaOS-Switch',
      match: [{
        sys_object_id: ['hpEtherSwitch', 'HP-ICF-OID::chassis'],
        sys_descr: [/\b(?:ProCurve|ArubaOS-Switch|Aruba)\b/i, /\brevision [A-Z]{1,2}\.\d{2}\.\d{2}/],
      }],
      exclude: [{ sys_descr: [/\bOfficeConnect\b/i, /\bComware\b/i] }],
      identity: {
        model: [
          ...entityIdentity.model,
          { walk: 'entPhysicalDescr', pattern: /\b([A-Z]{1,2}\d{3,4}[A-Z])\b/ },
          sysDescr(/\b([A-Z]{1,2}\d{3,4}[A-Z])\b/),
        ],
        serial: [...entityIdentity.serial, { get: 'hpHttpMgSerialNumber.0' }],
        version: [sysDescr(/\brevision ([A-Z]{1,2}\.\d{2}\.\d{2}\.\d{4})/)],
        firmware: [sysDescr(/\bROM ([A-Z]{1,2}\.\d{2}\.\d{2})/)],
      },
      cards: [
        cpuCard([{ key: 'cpu', label: 'CPU utilisation', value: { get: 'hpSwitchCpuStat.0' }, unit: '%' }]),
        memoryCard([
          {
            key: 'used',
            label: 'Memory used',
            percent: { total: { walk: 'hpLocalMemTotalBytes' }, free: { walk: 'hpLocalMemFreeBytes' } },
            unit: '%',
          },
          { key: 'total', label: 'Memory installed', value: { walk: 'hpLocalMemTotalBytes' }, unit: 'bytes' },
        ]),
        {
          key: 'sensors',
          title: 'Chassis sensors',
          items: [{ key: 'status', label: 'Sensor status', rows: { label: 'hpicfSensorDescr', value: 'hpicfSensorStatus' } }],
        },
      ],
    },
    otherProducts(enterprises, entityIdentity),
  ],
  identity: entityIdentity,
  cards: [
    systemCard,
    cpuCard(hostResourcesCpu),
    memoryCard([hostResourcesMemory]),
    temperatureCard([entitySensorTemperatures]),
    interfacesCard,
  ],
};
