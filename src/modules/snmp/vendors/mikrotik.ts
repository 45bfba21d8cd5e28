// MikroTik RouterOS. MIKROTIK-MIB has the board name, serial number, RouterOS version (mtxrLicVersion)
// and RouterBOOT firmware; health gauges come as legacy scalars (deci-volts, deci-degrees) and, on
// RouterOS 6.4x and later, as mtxrGaugeTable rows whose unit column says how to scale them.
import {
  cpuCard, hostResourcesCpu, hostResourcesMemory, interfacesCard, memoryCard, otherProducts, systemCard, withEntity
} from './common.js';
import type { IdentitySpec, VendorProfile } from './types.js';

const enterprises = ['enterprises.14988'];

const identity: IdentitySpec = {
  model: [{ get: 'mtxrBoardName.0' }, { get: 'sysDescr.0', pattern: /^\W*RouterOS (\S+)/ }],
  serial: [{ get: 'mtxrSerialNumber.0' }],
  version: [{ get: 'mtxrLicVersion.0' }, { entity: 'entPhysicalDescr', pattern: /\bRouterOS (\S+)/ }],
  firmware: [{ get: 'mtxrFirmwareVersion.0' }],
};

export const mikrotik: VendorProfile = {
  key: 'mikrotik',
  name: 'MikroTik RouterOS',
  kind: 'router',
  manufacturer: 'MikroTik',
  enterprises,
  description: 'MikroTik RouterBOARD and CHR routers running RouterOS.',
  variants: [
    { key: 'routeros', os: 'RouterOS', match: [{ sys_object_id: ['mikrotikExperimentalModule'] }, { sys_descr: [/^\W*RouterOS\b/] }] },
    otherProducts(enterprises, withEntity(identity)),
  ],
  identity,
  cards: [
    systemCard,
    cpuCard([...hostResourcesCpu, { key: 'frequency', label: 'CPU frequency', value: { get: 'mtxrHlProcessorFrequency.0' }, unit: 'MHz' }]),
    memoryCard([hostResourcesMemory]),
    {
      key: 'health',
      title: 'Health',
      items: [
        { key: 'voltage', label: 'Supply voltage', value: { get: 'mtxrHlVoltage.0' }, unit: 'V', scale: 0.1 },
        { key: 'temperature', label: 'Temperature', value: { get: 'mtxrHlTemperature.0' }, unit: '°C', scale: 0.1 },
        { key: 'cpu_temperature', label: 'CPU temperature', value: { get: 'mtxrHlProcessorTemperature.0' }, unit: '°C', scale: 0.1 },
        {
          key: 'gauges',
          label: 'Gauges',
          rows: {
            label: 'mtxrGaugeName',
            value: 'mtxrGaugeValue',
            unit_column: 'mtxrGaugeUnit',
            units: {
              celsius: { unit: '°C' }, rpm: { unit: 'rpm' }, dV: { unit: 'V', scale: 0.1 },
              dA: { unit: 'A', scale: 0.1 }, dW: { unit: 'W', scale: 0.1 }, status: { unit: '' },
            },
          },
        },
      ],
    },
    interfacesCard,
  ],
};
