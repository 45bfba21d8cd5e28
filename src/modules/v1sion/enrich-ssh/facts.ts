// What SSH enrichment learns about one device, whatever its platform: the record stored on the SSH target
// (`facts`) and on the session nodes it stands for. Every platform's parser fills the same shape; a field
// the platform cannot tell is null or an empty list. Lists are capped so one device (a router with a full
// routing table) cannot fill the in-memory database.

export const PLATFORMS = ['linux', 'cisco_ios', 'cisco_nxos', 'junos', 'routeros', 'arubaos_cx', 'fortios'] as const;
export type PlatformName = (typeof PLATFORMS)[number];
/** What a target may ask for: one platform, or `auto` (from the SSH banner, then `uname`, then `show version`). */
export const TARGET_PLATFORMS = ['auto', ...PLATFORMS] as const;
export type TargetPlatform = (typeof TARGET_PLATFORMS)[number];

export interface FactInterface {
  name: string;
  description: string | null;
  mac: string | null;
  /** up, down, or what the device says (unknown, dormant, admin-down ...). */
  state: string | null;
  mtu: number | null;
  /** CIDRs: `10.0.0.1/24`, `fe80::1/64`. */
  addresses: string[];
  /** The bridge or bond it belongs to (Linux `master`), when known. */
  master: string | null;
}

export interface FactRoute {
  destination: string;
  gateway: string | null;
  interface: string | null;
  /** kernel, static, connected, ospf, bgp ... as the device names it. */
  protocol: string | null;
  metric: number | null;
}

export interface FactNeighbour {
  address: string;
  mac: string | null;
  interface: string | null;
  state: string | null;
}

export interface FactLldpNeighbour {
  protocol: 'lldp' | 'cdp' | 'mndp';
  local_port: string | null;
  chassis_id: string | null;
  system_name: string | null;
  system_description: string | null;
  port_id: string | null;
  port_description: string | null;
  management_addresses: string[];
  /** Enabled capabilities, lower case: bridge, router, station, wlan ... */
  capabilities: string[];
  platform: string | null;
}

export interface FactService {
  protocol: 'tcp' | 'udp';
  address: string;
  port: number;
  process: string | null;
}

export interface FactMacEntry {
  mac: string;
  vlan: number | null;
  interface: string | null;
  type: string | null;
}

export interface FactInventoryItem {
  name: string;
  description: string | null;
  model: string | null;
  serial: string | null;
}

/** How one command of the platform's fixed list went. */
export interface CommandStatus {
  name: string;
  command: string;
  ok: boolean;
  ms: number | null;
  error: string | null;
  truncated: boolean;
}

export interface Facts {
  platform: PlatformName;
  /** configured (the target names it), banner (the SSH ident), probe (uname or show version). */
  platform_source: 'configured' | 'banner' | 'probe';
  /** The server's SSH ident, e.g. "SSH-2.0-OpenSSH_9.2p1 Debian-2+deb12u3". */
  ssh_banner: string | null;
  hostname: string | null;
  os: string | null;
  os_version: string | null;
  kernel: string | null;
  /** A stable identity of the installation (Linux /etc/machine-id), when the platform has one. */
  machine_id: string | null;
  vendor: string | null;
  model: string | null;
  serial: string | null;
  uptime_s: number | null;
  interfaces: FactInterface[];
  routes: FactRoute[];
  neighbours: FactNeighbour[];
  lldp: FactLldpNeighbour[];
  services: FactService[];
  mac_table: FactMacEntry[];
  inventory: FactInventoryItem[];
  commands: CommandStatus[];
  warnings: string[];
  collected_at: string;
  duration_ms: number;
}

/** What a parser returns: the facts without what the collector adds (commands, timing, platform source). */
export type ParsedFacts = Omit<Facts, 'platform' | 'platform_source' | 'ssh_banner' | 'commands' | 'collected_at' | 'duration_ms'>;

/** At most this many entries per list; more are dropped with a warning. */
export const FACT_LIMITS = {
  interfaces: 1024, routes: 2000, neighbours: 4096, lldp: 1024, services: 512, mac_table: 8192, inventory: 512, addresses: 64,
} as const;

export function emptyFacts(): ParsedFacts {
  return {
    hostname: null, os: null, os_version: null, kernel: null, machine_id: null, vendor: null, model: null, serial: null,
    uptime_s: null, interfaces: [], routes: [], neighbours: [], lldp: [], services: [], mac_table: [], inventory: [], warnings: [],
  };
}

/** Applies FACT_LIMITS, noting in `warnings` what was cut. */
export function capFacts<T extends ParsedFacts>(f: T): T {
  for (const [key, max] of Object.entries(FACT_LIMITS) as [keyof typeof FACT_LIMITS, number][]) {
    if (key === 'addresses') continue;
    const list = f[key] as unknown[];
    if (list.length > max) {
      f.warnings.push(`${key}: ${list.length} entries, the first ${max} kept`);
      list.length = max;
    }
  }
  for (const i of f.interfaces) if (i.addresses.length > FACT_LIMITS.addresses) i.addresses.length = FACT_LIMITS.addresses;
  return f;
}

/** The few fields a list shows (targets and session nodes carry the whole record). */
export interface FactsSummary {
  platform: PlatformName;
  hostname: string | null;
  os: string | null;
  os_version: string | null;
  vendor: string | null;
  model: string | null;
  serial: string | null;
  counts: { interfaces: number; routes: number; neighbours: number; lldp: number; services: number; mac_table: number };
  collected_at: string;
}

export function summarise(f: Facts): FactsSummary {
  return {
    platform: f.platform, hostname: f.hostname, os: f.os, os_version: f.os_version, vendor: f.vendor, model: f.model, serial: f.serial,
    counts: {
      interfaces: f.interfaces.length, routes: f.routes.length, neighbours: f.neighbours.length, lldp: f.lldp.length,
      services: f.services.length, mac_table: f.mac_table.length,
    },
    collected_at: f.collected_at,
  };
}
