// Juniper Junos (EX, MX, QFX, SRX). JUNIPER-MIB's jnxBox* scalars name the chassis and its serial;
// the version is in sysDescr ("... kernel JUNOS 21.4R3 ...") or, where an operator replaced sysDescr,
// in HOST-RESOURCES' installed software ("JUNOS Software Release [12.1X46-D86]"). CPU, memory and
// temperatures come from jnxOperatingTable, whose Routing Engine rows carry the control plane.
import {
  cpuCard, entityIdentity, interfacesCard, memoryCard, otherProducts, sysDescr, systemCard, temperatureCard, withEntity
} from './common.js';
import type { IdentitySpec, VendorProfile } from './types.js';

const routingEngine = { column: 'jnxOperatingDescr', match: /Routing Engine/i } as const;

// Juniper's arcs: its own (2636), NetScreen's (3224) and Unisphere's (4874), as IANA lists them.
const enterprises = ['juniperMIB', 'enterprises.3224', 'enterprises.4874'];

const identity: IdentitySpec = {
  model: [
    { get: 'jnxBoxDescr.0', pattern: /^(?:Juniper(?: Networks)?\s+)?(\S+)/i },
    ...entityIdentity.model,
    sysDescr(/^\W*Juniper Networks, Inc\. (\S+)/i),
  ],
  serial: [{ get: 'jnxBoxSerialNo.0' }, ...entityIdentity.serial],
  version: [sysDescr(/\bJUNOS ([0-9][^\s,]*)/i), { walk: 'hrSWInstalledName', pattern: /\bJUNOS\b[^[]*\[([^\]]+)\]/i }],
  firmware: [{ get: 'jnxBoxRevision.0' }],
};

export const juniper: VendorProfile = {
  key: 'juniper',
  name: 'Juniper',
  kind: 'router',
  manufacturer: 'Juniper Networks',
  enterprises,
  description: 'Juniper Networks routers, switches and SRX firewalls running Junos.',
  variants: [
    {
      key: 'junos',
      os: 'Junos',
      match: [{ sys_object_id: ['jnxProducts'] }, { sys_object_id: ['juniperMIB'], sys_descr: [/\bJUNOS\b/i] }],
    },
    otherProducts(enterprises, withEntity(identity)),
  ],
  identity,
  cards: [
    systemCard,
    cpuCard([
      { key: 're_cpu', label: 'Routing Engine CPU', value: { walk: 'jnxOperatingCPU', where: routingEngine, reduce: 'max' }, unit: '%' },
      { key: 're_load_1m', label: 'Routing Engine load, 1 minute',
        value: { walk: 'jnxOperating1MinLoadAvg', where: routingEngine, reduce: 'max' } },
    ]),
    memoryCard([
      { key: 're_buffer', label: 'Routing Engine memory used',
        value: { walk: 'jnxOperatingBuffer', where: routingEngine, reduce: 'max' }, unit: '%' },
      { key: 're_dram', label: 'Routing Engine DRAM',
        value: { walk: 'jnxOperatingDRAMSize', where: routingEngine, reduce: 'max' }, unit: 'bytes' },
    ]),
    temperatureCard([
      {
        key: 'sensors',
        label: 'Component temperatures',
        rows: { label: 'jnxOperatingDescr', value: 'jnxOperatingTemp', where: { equals: 0, not: true } },
        unit: '°C',
      },
    ]),
    interfacesCard,
  ],
};
