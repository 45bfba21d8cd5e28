// A running scan's plan (what the request resolved to) and its state: the hosts found so far, the
// result as it stands, and what stages hand to later stages (the work). The service reads the state
// for a result while the scan runs.
import type { Cidr } from '../../../core/ip.js';
import type { SweepAnswer } from '../../snmp/index.js';
import type { LinkAnswers } from './advertised/ask.js';
import type { DeviceTables } from './neighbours/index.js';
import { compareIps } from './order.js';
import type { LocalLink } from './ranges.js';
import type { ScanCredential } from './request.js';
import type { LivenessSource, ScanCounts, ScanHost, ScanResult } from './result.js';

export interface ScanPlan {
  jobId: string;
  subnet: Cidr;
  subnetText: string;
  /** Addresses swept one by one (empty for a large IPv6 prefix: neighbour discovery only). */
  addresses: string[];
  /** The probe's links inside the subnet (neighbour discovery works there). */
  links: LocalLink[];
  credentials: ScanCredential[];
  snmpEnabled: boolean;
  startedAt: string;
  startedMs: number;
}

/** An SNMP agent identified with a credential: the neighbours stages read its tables with it. */
export interface ScanAgent { ip: string; credential: ScanCredential }

/** What stages hand to later stages without it being part of the result. */
export interface ScanWork {
  /** Which addresses answered the SNMP sweep, and to which credential. */
  answers: Map<string, SweepAnswer>;
  agents: ScanAgent[];
  /** Neighbour, bridge and ARP tables of each agent, by address. */
  tables: Map<string, DeviceTables>;
  /** What mDNS/DNS-SD and SSDP answered on the probe's links, by answering address (null: not asked). */
  advertised: LinkAnswers | null;
}

export class ScanState {
  readonly hosts = new Map<string, ScanHost>();
  readonly work: ScanWork = { answers: new Map(), agents: [], tables: new Map(), advertised: null };
  result: ScanResult;

  constructor(readonly plan: ScanPlan) {
    this.result = {
      job_id: plan.jobId, subnet: plan.subnetText, state: 'running', started_at: plan.startedAt, finished_at: null,
      duration_ms: null, counts: { addresses: plan.addresses.length, live: 0, snmp: 0, devices: 0, links: 0 },
      hosts: [], devices: [], links: [], routes: [], warnings: [],
    };
  }

  /** The host at this address, created (alive by `source`) when first seen. */
  alive(ip: string, source: LivenessSource): ScanHost {
    let h = this.hosts.get(ip);
    if (!h) {
      h = {
        ip, alive_by: [], rtt_ms: null, mac: null, mac_vendor: null, hostname: null, open_ports: [], snmp: null, device_id: null,
        advertised: null,
      };
      this.hosts.set(ip, h);
    }
    if (!h.alive_by.includes(source)) h.alive_by.push(source);
    return h;
  }

  /** The live hosts' addresses, in address order. */
  live(): string[] {
    return [...this.hosts.keys()].sort(compareIps);
  }

  counts(): ScanCounts {
    return {
      addresses: this.plan.addresses.length, live: this.hosts.size,
      snmp: [...this.hosts.values()].filter((h) => h.snmp?.vendor_key).length,
      devices: this.result.devices.length, links: this.result.links.length,
    };
  }

  /** The result as it stands, hosts in address order. */
  snapshot(): ScanResult {
    return { ...this.result, counts: this.counts(), hosts: [...this.hosts.values()].sort((a, b) => compareIps(a.ip, b.ip)) };
  }
}
