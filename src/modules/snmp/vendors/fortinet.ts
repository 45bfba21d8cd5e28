// Fortinet FortiGate firewalls (FortiOS). The sysObjectID is the model under fgModel; FortiOS leaves
// sysDescr empty, so the model and serial come from the ENTITY-MIB chassis row (FORTINET-CORE-MIB's
// fnSysSerial as a fallback) and the version from fgSysVersion ("v6.4.8,build1914,211117 (GA)"). Other
// Fortinet products (FortiSwitch, FortiAP) are Fortinet's `other` products, by its enterprise number.
import {
  cpuCard, entityIdentity, interfacesCard, memoryCard, otherProducts, systemCard, temperatureCard, withEntity
} from './common.js';
import type { IdentitySpec, VendorProfile } from './types.js';

const enterprises = ['enterprises.12356'];

const identity: IdentitySpec = {
  model: entityIdentity.model,
  serial: [...entityIdentity.serial, { get: 'fnSysSerial.0' }],
  version: [{ get: 'fgSysVersion.0', pattern: /^v?(\d+\.\d+\.\d+)/ }],
  firmware: [{ get: 'fgSysVersion.0' }],
};

export const fortinet: VendorProfile = {
  key: 'fortinet',
  name: 'Fortinet FortiGate',
  kind: 'firewall',
  manufacturer: 'Fortinet',
  enterprises,
  description: 'Fortinet FortiGate firewalls running FortiOS.',
  variants: [
    { key: 'fortios', os: 'FortiOS', match: [{ sys_object_id: ['fgModel'] }] },
    otherProducts(enterprises, withEntity(identity)),
  ],
  identity,
  cards: [
    systemCard,
    cpuCard([{ key: 'cpu', label: 'CPU usage', value: { get: 'fgSysCpuUsage.0' }, unit: '%' }]),
    memoryCard([
      { key: 'used', label: 'Memory used', value: { get: 'fgSysMemUsage.0' }, unit: '%' },
      { key: 'capacity', label: 'Memory installed', value: { get: 'fgSysMemCapacity.0' }, unit: 'KB' },
      { key: 'disk_used', label: 'Disk used',
        percent: { used: { get: 'fgSysDiskUsage.0' }, total: { get: 'fgSysDiskCapacity.0' } }, unit: '%' },
    ]),
    temperatureCard([
      { key: 'sensors', label: 'Hardware sensors', rows: { label: 'fgHwSensorEntName', value: 'fgHwSensorEntValue' } },
    ]),
    {
      key: 'sessions',
      title: 'Sessions',
      items: [
        { key: 'ipv4', label: 'IPv4 sessions', value: { get: 'fgSysSesCount.0' } },
        { key: 'ipv6', label: 'IPv6 sessions', value: { get: 'fgSysSes6Count.0' } },
        { key: 'rate_1m', label: 'New sessions per second (1 minute)', value: { get: 'fgSysSesRate1.0' } },
      ],
    },
    interfacesCard,
  ],
};
