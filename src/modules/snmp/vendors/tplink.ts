// TP-Link JetStream (and Omada) managed switches: TPLINK-SYSINFO-MIB names the hardware ("T1600G-28TS
// 3.0"), the software ("3.0.6 Build 20200805 Rel.55968") and the serial number; TPLINK-SYSMONITOR-MIB
// has CPU and memory per stack unit. Other TP-Link products (access points, routers, Omada gateways)
// share the enterprise number but not these sysDescr patterns: they are TP-Link's `other` products.
import { cpuCard, interfacesCard, memoryCard, otherProducts, systemCard, withEntity } from './common.js';
import type { IdentitySpec, VendorProfile } from './types.js';

const enterprises = ['tplink'];

const identity: IdentitySpec = {
  model: [{ get: 'tpSysInfoHwVersion.0', pattern: /^(\S+)/ }],
  serial: [{ get: 'tpSysInfoSerialNum.0' }],
  version: [{ get: 'tpSysInfoSwVersion.0', pattern: /^(\S+)/ }],
  firmware: [{ get: 'tpSysInfoSwVersion.0' }],
};

export const tplink: VendorProfile = {
  key: 'tplink',
  name: 'TP-Link JetStream',
  kind: 'switch',
  manufacturer: 'TP-Link',
  enterprises,
  description: 'TP-Link JetStream and Omada managed switches.',
  variants: [
    {
      key: 'jetstream',
      os: 'JetStream',
      match: [{ sys_object_id: ['tplink'], sys_descr: [/\bJetStream\b/i, /^\W*(?:T\d{4}[A-Z]*-|TL-S[GX]\d|S[GX]\d{4})/i] }],
    },
    otherProducts(enterprises, withEntity(identity)),
  ],
  identity,
  cards: [
    systemCard,
    cpuCard([
      { key: 'cpu_5s', label: 'CPU, 5 seconds', value: { walk: 'tpSysMonitorCpu5Seconds', reduce: 'avg' }, unit: '%' },
      { key: 'cpu_1m', label: 'CPU, 1 minute', value: { walk: 'tpSysMonitorCpu1Minute', reduce: 'avg' }, unit: '%' },
      { key: 'cpu_5m', label: 'CPU, 5 minutes', value: { walk: 'tpSysMonitorCpu5Minutes', reduce: 'avg' }, unit: '%' },
    ]),
    memoryCard([{ key: 'used', label: 'Memory used', value: { walk: 'tpSysMonitorMemoryUtilization', reduce: 'avg' }, unit: '%' }]),
    interfacesCard,
  ],
};
