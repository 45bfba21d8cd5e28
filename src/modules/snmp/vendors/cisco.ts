// Cisco IOS, IOS-XE and NX-OS. Model and serial from ENTITY-MIB (Cisco fills the chassis row), the
// version from sysDescr ("..., Version 15.2(7)E4, ..."), CPU from CISCO-PROCESS-MIB, memory from
// CISCO-MEMORY-POOL-MIB (IOS, IOS-XE) or CISCO-PROCESS-MIB's per-CPU memory (NX-OS), temperatures from
// CISCO-ENVMON-MIB.
import {
  cpuCard, entityIdentity, interfacesCard, memoryCard, otherProducts, sysDescr, systemCard, temperatureCard, withEntity
} from './common.js';
import type { IdentitySpec, VendorProfile } from './types.js';

const processorPool = { column: 'ciscoMemoryPoolName', match: /^Processor$/i } as const;

// Cisco's arcs: its own (9), and those of companies it bought that IANA lists under its name (Altiga,
// Cerent, Cisco Systems, Airespace, Meraki).
const enterprises = ['cisco', 'enterprises.3076', 'enterprises.3607', 'enterprises.5771', 'enterprises.14179', 'enterprises.29671'];

const identity: IdentitySpec = {
  model: entityIdentity.model,
  serial: entityIdentity.serial,
  version: [sysDescr(/\bVersion ([^\s,]+)/)],
  firmware: entityIdentity.firmware,
};

export const cisco: VendorProfile = {
  key: 'cisco',
  name: 'Cisco',
  kind: 'switch',
  manufacturer: 'Cisco',
  enterprises,
  description: 'Cisco switches and routers running IOS, IOS-XE or NX-OS.',
  variants: [
    { key: 'nx-os', os: 'NX-OS', match: [{ sys_object_id: ['cisco'], sys_descr: [/\bNX-OS\b/i] }] },
    { key: 'ios-xe', os: 'IOS-XE', match: [{ sys_object_id: ['cisco'], sys_descr: [/IOS[- ]?XE/i] }] },
    {
      key: 'ios',
      os: 'IOS',
      match: [{ sys_object_id: ['cisco'], sys_descr: [/\bCisco IOS Software\b/i, /\bCisco Internetwork Operating System\b/i] }],
      exclude: [{ sys_descr: [/\bIOS[ -]?XR\b/i] }],
    },
    otherProducts(enterprises, withEntity(identity)),
  ],
  identity,
  cards: [
    systemCard,
    cpuCard([
      { key: 'cpu_5s', label: 'CPU busy, 5 seconds', value: { walk: 'cpmCPUTotal5secRev', reduce: 'avg' }, unit: '%' },
      { key: 'cpu_1m', label: 'CPU busy, 1 minute', value: { walk: 'cpmCPUTotal1minRev', reduce: 'avg' }, unit: '%' },
      { key: 'cpu_5m', label: 'CPU busy, 5 minutes', value: { walk: 'cpmCPUTotal5minRev', reduce: 'avg' }, unit: '%' },
    ]),
    memoryCard([
      {
        key: 'used',
        label: 'Memory used',
        percent: [
          { used: { walk: 'ciscoMemoryPoolUsed', where: processorPool }, free: { walk: 'ciscoMemoryPoolFree', where: processorPool } },
          { used: { walk: 'cpmCPUMemoryUsed' }, free: { walk: 'cpmCPUMemoryFree' } },
        ],
        unit: '%',
      },
      { key: 'processor_pool_free', label: 'Processor pool free', value: { walk: 'ciscoMemoryPoolFree', where: processorPool } },
      { key: 'cpu_memory_free', label: 'CPU memory free', value: { walk: 'cpmCPUMemoryFree' } },
    ]),
    temperatureCard([
      {
        key: 'sensors',
        label: 'Temperature sensors',
        rows: { label: 'ciscoEnvMonTemperatureStatusDescr', value: 'ciscoEnvMonTemperatureStatusValue' },
        unit: '°C',
      },
    ]),
    interfacesCard,
  ],
};
