// Cards and identity sources that read standard MIBs (SNMPv2-MIB, IF-MIB, ENTITY-MIB, ENTITY-SENSOR-MIB,
// HOST-RESOURCES-MIB, UCD-SNMP-MIB), shared by the profiles whose devices implement them.
import type { Card, CardItem, IdentitySpec, ValueSource, VendorVariant } from './types.js';

export const systemCard: Card = {
  key: 'system',
  title: 'System',
  items: [
    { key: 'name', label: 'Name', value: { get: 'sysName.0' } },
    { key: 'description', label: 'Description', value: { get: 'sysDescr.0' } },
    { key: 'uptime', label: 'Uptime', value: { get: 'sysUpTime.0' } },
    { key: 'contact', label: 'Contact', value: { get: 'sysContact.0' } },
    { key: 'location', label: 'Location', value: { get: 'sysLocation.0' } },
    { key: 'object_id', label: 'Object ID', value: { get: 'sysObjectID.0' } },
  ],
};

export const interfacesCard: Card = {
  key: 'interfaces',
  title: 'Interfaces',
  items: [
    { key: 'total', label: 'Interfaces', value: { walk: 'ifOperStatus', reduce: 'count' } },
    { key: 'oper_up', label: 'Up', value: { walk: 'ifOperStatus', reduce: 'count', where: { equals: 1 } } },
    { key: 'oper_down', label: 'Down', value: { walk: 'ifOperStatus', reduce: 'count', where: { equals: 2 } } },
    { key: 'admin_down', label: 'Administratively down', value: { walk: 'ifAdminStatus', reduce: 'count', where: { equals: 2 } } },
  ],
};

/** ENTITY-MIB's chassis row: what most vendors fill in. */
export const entityIdentity: Required<Pick<IdentitySpec, 'model' | 'serial' | 'version' | 'firmware'>> = {
  model: [{ entity: 'entPhysicalModelName' }],
  serial: [{ entity: 'entPhysicalSerialNum' }],
  version: [{ entity: 'entPhysicalSoftwareRev' }],
  firmware: [{ entity: 'entPhysicalFirmwareRev' }],
};

/** Text of sysDescr matched by `pattern` (its first group). */
export const sysDescr = (pattern: RegExp): ValueSource => ({ get: 'sysDescr.0', pattern });

const ramRows = { column: 'hrStorageType', equals: 'hrStorageRam' } as const;

export const hostResourcesCpu: CardItem[] = [
  { key: 'load_avg', label: 'CPU load (average of cores)', value: { walk: 'hrProcessorLoad', reduce: 'avg' }, unit: '%' },
  { key: 'load_max', label: 'CPU load (busiest core)', value: { walk: 'hrProcessorLoad', reduce: 'max' }, unit: '%' },
];

export const hostResourcesMemory: CardItem = {
  key: 'ram_used',
  label: 'RAM used',
  percent: { used: { walk: 'hrStorageUsed', where: ramRows }, total: { walk: 'hrStorageSize', where: ramRows } },
  unit: '%',
};

export const ucdMemory: CardItem[] = [
  { key: 'ucd_used', label: 'Memory used (net-snmp)',
    percent: { total: { get: 'memTotalReal.0' }, free: { get: 'memAvailReal.0' } }, unit: '%' },
  { key: 'ucd_total', label: 'Memory installed', value: { get: 'memTotalReal.0' } },
];

export const entitySensorTemperatures: CardItem = {
  key: 'sensors',
  label: 'Temperature sensors',
  rows: {
    label: 'entPhysicalName',
    value: 'entPhySensorValue',
    where: { column: 'entPhySensorType', equals: 8 },
    precision_column: 'entPhySensorPrecision',
  },
  unit: '°C',
};

export const cpuCard = (items: CardItem[]): Card => ({ key: 'cpu', title: 'CPU', items });
export const memoryCard = (items: CardItem[]): Card => ({ key: 'memory', title: 'Memory', items });
export const temperatureCard = (items: CardItem[]): Card => ({ key: 'temperature', title: 'Temperature', items });

/** The key of a maker's variant for products no product line's rule describes. */
export const OTHER_PRODUCTS = 'other';

/**
 * A maker's other products: any sysObjectID under the enterprise arcs it owns, tried after every
 * profile's product lines. Model and the rest come from the profile's sources and ENTITY-MIB's chassis
 * row; the OS is unknown, and what the device does is told by bridging and LLDP evidence.
 */
export function otherProducts(enterprises: string[], identity: IdentitySpec): VendorVariant {
  return { key: OTHER_PRODUCTS, os: null, kind: 'device', kind_from_evidence: true, fallback: 'enterprise',
    match: [{ sys_object_id: enterprises }], identity };
}

/** A profile's identity sources with ENTITY-MIB's chassis row after each field's own (for its other products). */
export function withEntity(identity: IdentitySpec): IdentitySpec {
  const out: IdentitySpec = { ...identity };
  for (const field of ['model', 'serial', 'version', 'firmware'] as const) {
    const own = identity[field] ?? [];
    const more = entityIdentity[field].filter((e) => !own.some((s) => JSON.stringify(s) === JSON.stringify(e)));
    out[field] = [...own, ...more];
  }
  return out;
}
