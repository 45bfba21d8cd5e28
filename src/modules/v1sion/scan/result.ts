// The shape of a scan result, once, as zod: hosts (one per live address), devices (hosts merged by
// identity, plus neighbours seen only through LLDP/CDP) and links between devices. The types below are
// inferred from it and the result route's OpenAPI schema is it. Credentials appear only as references
// (CredentialLabel): no secret is ever part of a result. Objects are strict so the contract test that
// parses a real result fails when a stage adds a field without declaring it here.
import { z } from 'zod';
import { SNMP_VERSIONS } from '../../snmp/contracts.js';

export const LIVENESS_SOURCES = ['icmp', 'arp', 'tcp', 'snmp'] as const;
export type LivenessSource = (typeof LIVENESS_SOURCES)[number];

const SnmpVersion = z.enum(SNMP_VERSIONS);

/** How a credential appears in a result: a reference, never a secret. */
export const CredentialLabel = z.union([
  z.strictObject({ credential_id: z.string(), short_id: z.string(), name: z.string(), version: SnmpVersion }),
  z.strictObject({ inline: z.literal(true), version: SnmpVersion, position: z.number().int() }),
]);
export type CredentialLabel = z.infer<typeof CredentialLabel>;

/** Which facts decided an identification (snmp/identify.ts IdentificationEvidence), as text for people. */
export const IdentificationEvidence = z.strictObject({
  manufacturer: z.string().nullable()
    .describe('Why this maker: the enterprise number it owns in the sysObjectID, a sysDescr pattern, or null'),
  variant: z.string().describe('What held of the vendor profile variant\'s rule: sysObjectID prefix, sysDescr pattern, probe'),
  model: z.string().nullable().describe('The OID the model was read from (null: model unknown)'),
  kind: z.string()
    .describe('Why this kind: bridging evidence (BRIDGE-MIB, Q-BRIDGE-MIB, a forwarding table), LLDP capabilities, or the product line'),
});
export type IdentificationEvidence = z.infer<typeof IdentificationEvidence>;

export const SnmpFacts = z.strictObject({
  credential: CredentialLabel.nullable(),
  version: SnmpVersion.nullable(),
  vendor_key: z.string().nullable(),
  vendor: z.string().nullable(),
  kind: z.string().nullable(),
  model: z.string().nullable(),
  os: z.string().nullable(),
  os_version: z.string().nullable(),
  serial: z.string().nullable(),
  sys_name: z.string().nullable(),
  sys_descr: z.string().nullable(),
  sys_object_id: z.string().nullable(),
  sys_location: z.string().nullable(),
  sys_services: z.number().int().nullable().optional()
    .describe('sysServices bits (2 layer 2, 4 layer 3, 64 applications), when the agent has it (absent in older results)'),
  engine_id: z.string().nullable(),
  note: z.string().nullable().describe('Why identification stopped short (an agent that answered the engine probe only, a read error)'),
  evidence: IdentificationEvidence.nullable().optional()
    .describe('Which facts decided manufacturer, variant, model and kind (null when not identified; absent in older results)'),
});
export type SnmpFacts = z.infer<typeof SnmpFacts>;

/** What a device says it is in mDNS/DNS-SD and SSDP (scan/advertised/): printers, NAS boxes, cameras, TVs. */
export const ADVERTISED_CATEGORIES = [
  'printer', 'scanner', 'storage', 'camera', 'media', 'computer', 'router', 'access_point', 'iot',
] as const;
export type AdvertisedCategory = (typeof ADVERTISED_CATEGORIES)[number];

export const AdvertisedService = z.strictObject({
  type: z.string().describe('The DNS-SD service type, as _ipp._tcp'),
  instance: z.string().describe('The service instance\'s name, as the device advertises it'),
  port: z.number().int().nullable().describe('From its SRV record (null: none came)'),
  txt: z.record(z.string(), z.string()).describe('Its TXT record: keys in lower case (at most 32), values cut at 200 characters'),
});
export type AdvertisedService = z.infer<typeof AdvertisedService>;

export const UpnpFacts = z.strictObject({
  server: z.string().nullable().describe('The SSDP answer\'s SERVER header'),
  location: z.string().nullable().describe('Where its description document is (LOCATION)'),
  device_types: z.array(z.string()).describe('UPnP device types it answered the search for, as Printer:1'),
  friendly_name: z.string().nullable(),
  manufacturer: z.string().nullable(),
  model_name: z.string().nullable(),
  model_number: z.string().nullable(),
  serial: z.string().nullable(),
}).describe('SSDP: the answer to M-SEARCH ssdp:all, and the root device\'s description when LOCATION could be read');
export type UpnpFacts = z.infer<typeof UpnpFacts>;

export const AdvertisedFacts = z.strictObject({
  name: z.string().nullable()
    .describe('The name it gives itself: TXT fn, UPnP friendlyName, a service instance\'s name, or its mDNS host name'),
  host_name: z.string().nullable().describe('Its mDNS host name, without .local'),
  category: z.enum(ADVERTISED_CATEGORIES).nullable()
    .describe('What its services make it (docs/discovery.md says which service makes what)'),
  vendor: z.string().nullable().describe('UPnP manufacturer, or TXT usb_MFG / manufacturer'),
  model: z.string().nullable().describe('UPnP modelName, or TXT ty / usb_MDL / md / model'),
  services: z.array(AdvertisedService),
  upnp: UpnpFacts.nullable(),
});
export type AdvertisedFacts = z.infer<typeof AdvertisedFacts>;

export const ScanHost = z.strictObject({
  ip: z.string(),
  alive_by: z.array(z.enum(LIVENESS_SOURCES)).describe('The liveness sources that found it'),
  rtt_ms: z.number().nullable(),
  mac: z.string().nullable(),
  mac_vendor: z.string().nullable(),
  hostname: z.string().nullable(),
  open_ports: z.array(z.number().int()),
  snmp: SnmpFacts.nullable(),
  device_id: z.string().nullable().describe('The device this address belongs to'),
  advertised: AdvertisedFacts.nullable().optional()
    .describe('What it advertises over mDNS/DNS-SD and SSDP on the probe\'s own links '
      + '(null: nothing, or not on one of them; absent in older results)'),
});
export type ScanHost = z.infer<typeof ScanHost>;

export const DEVICE_KINDS = ['router', 'switch', 'firewall', 'access_point', 'server', 'host', 'unknown'] as const;
export type DeviceKind = (typeof DEVICE_KINDS)[number];

export const ScanDevice = z.strictObject({
  id: z.string(),
  name: z.string(),
  kind: z.enum(DEVICE_KINDS),
  addresses: z.array(z.string()),
  macs: z.array(z.string()),
  vendor_key: z.string().nullable(),
  vendor: z.string().nullable(),
  model: z.string().nullable(),
  serial: z.string().nullable(),
  sys_name: z.string().nullable(),
  engine_id: z.string().nullable(),
  chassis_id: z.string().nullable(),
  seen: z.enum(['scan', 'neighbour'])
    .describe('scan: it answered in the subnet; neighbour: only another device\'s LLDP/CDP table names it'),
  merged_by: z.array(z.string()).describe('What merged its addresses into one device'),
  category: z.enum(ADVERTISED_CATEGORIES).nullable().optional()
    .describe('What its advertised services make it (printer, storage, camera, media...), when it advertises any; absent in older results'),
});
export type ScanDevice = z.infer<typeof ScanDevice>;

export const ScanLink = z.strictObject({
  from: z.string(),
  to: z.string(),
  from_port: z.string().nullable(),
  to_port: z.string().nullable(),
  source: z.enum(['lldp', 'cdp', 'fdb']),
  vlan: z.number().int().nullable().optional().describe('fdb: the VLAN the switch learnt the address in, when it says'),
});
export type ScanLink = z.infer<typeof ScanLink>;

export const ScanRoute = z.strictObject({
  device_id: z.string(),
  agent: z.string().describe('The address the table was read from'),
  table: z.string(),
  destination: z.string(),
  next_hop: z.string().nullable(),
  interface: z.string().nullable(),
  metric: z.number().nullable(),
  protocol: z.string().nullable(),
}).describe('A route read from a layer-3 device\'s table: offered for import (POST /api/v1sion/routes), never stored by the scan');
export type ScanRoute = z.infer<typeof ScanRoute>;

export const ScanCounts = z.strictObject({
  addresses: z.number().int(), live: z.number().int(), snmp: z.number().int(), devices: z.number().int(), links: z.number().int(),
});
export type ScanCounts = z.infer<typeof ScanCounts>;

export const SCAN_STATES = ['running', 'completed', 'failed', 'cancelled'] as const;

export const ScanResult = z.strictObject({
  job_id: z.string(),
  subnet: z.string(),
  state: z.enum(SCAN_STATES),
  started_at: z.string(),
  finished_at: z.string().nullable(),
  duration_ms: z.number().nullable(),
  counts: ScanCounts,
  hosts: z.array(ScanHost).describe('One per live address, in address order'),
  devices: z.array(ScanDevice),
  links: z.array(ScanLink),
  routes: z.array(ScanRoute).optional()
    .describe('Routes of layer-3 devices offered for import (absent in results kept by builds before routes)'),
  warnings: z.array(z.string()),
});
export type ScanResult = z.infer<typeof ScanResult>;
