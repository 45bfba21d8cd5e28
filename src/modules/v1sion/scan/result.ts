// The shape of a scan result: hosts (one per live address), devices (hosts merged by identity, plus
// neighbours seen only through LLDP/CDP) and links between devices. Credentials appear only as
// references (CredentialLabel): no secret is ever part of a result.
import type { CredentialLabel } from './request.js';

export const LIVENESS_SOURCES = ['icmp', 'arp', 'tcp', 'snmp'] as const;
export type LivenessSource = (typeof LIVENESS_SOURCES)[number];

export interface SnmpFacts {
  credential: CredentialLabel | null;
  version: 'v1' | 'v2c' | 'v3' | null;
  vendor_key: string | null;
  vendor: string | null;
  kind: string | null;
  model: string | null;
  os: string | null;
  os_version: string | null;
  serial: string | null;
  sys_name: string | null;
  sys_descr: string | null;
  sys_object_id: string | null;
  sys_location: string | null;
  /** sysServices bits (2 layer 2, 4 layer 3, 64 applications), when the agent has it (absent in older results). */
  sys_services?: number | null;
  engine_id: string | null;
  /** Why identification stopped short (an agent that answered the engine probe only, a read error). */
  note: string | null;
}

export interface ScanHost {
  ip: string;
  alive_by: LivenessSource[];
  rtt_ms: number | null;
  mac: string | null;
  mac_vendor: string | null;
  hostname: string | null;
  open_ports: number[];
  snmp: SnmpFacts | null;
  /** The device this address belongs to. */
  device_id: string | null;
}

export const DEVICE_KINDS = ['router', 'switch', 'firewall', 'access_point', 'server', 'host', 'unknown'] as const;
export type DeviceKind = (typeof DEVICE_KINDS)[number];

export interface ScanDevice {
  id: string;
  name: string;
  kind: DeviceKind;
  addresses: string[];
  macs: string[];
  vendor_key: string | null;
  vendor: string | null;
  model: string | null;
  serial: string | null;
  sys_name: string | null;
  engine_id: string | null;
  chassis_id: string | null;
  /** scan: it answered in the subnet; neighbour: only another device's LLDP/CDP table names it. */
  seen: 'scan' | 'neighbour';
  /** What merged its addresses into one device. */
  merged_by: string[];
}

export interface ScanLink {
  from: string;
  to: string;
  from_port: string | null;
  to_port: string | null;
  source: 'lldp' | 'cdp' | 'fdb';
}

/** A route read from a layer-3 device's table: offered for import (POST /api/v1sion/routes), never stored by the scan. */
export interface ScanRoute {
  device_id: string;
  /** The address the table was read from. */
  agent: string;
  table: string;
  destination: string;
  next_hop: string | null;
  interface: string | null;
  metric: number | null;
  protocol: string | null;
}

export interface ScanCounts { addresses: number; live: number; snmp: number; devices: number; links: number }

export interface ScanResult {
  job_id: string;
  subnet: string;
  state: 'running' | 'completed' | 'failed' | 'cancelled';
  started_at: string;
  finished_at: string | null;
  duration_ms: number | null;
  counts: ScanCounts;
  hosts: ScanHost[];
  devices: ScanDevice[];
  links: ScanLink[];
  /** Routes of layer-3 devices offered for import (absent in results kept by builds before routes). */
  routes?: ScanRoute[];
  warnings: string[];
}
