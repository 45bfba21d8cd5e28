// The lab's shape as data: which namespaces exist, how they are cabled, their addresses, MACs and
// what each runs. Pure: nothing here touches the system. docs/lab.md draws the same picture.
//
// The lab range 10.77.0.0/16 is cut into 16 slots of a /20 each, one per running lab, so two labs
// (tests run two at a time) never share a name or an address. Slot s owns 10.77.(16s).0/20:
//   lan   10.77.(16s).0/24    the probe's own subnet: 16 live hosts (7 answer SNMP, 1 advertises itself
//                             over mDNS/SSDP) on two switches
//   far   10.77.(16s+1).0/24  behind the router: one server
//   corp  10.77.(16s+2).0/24  behind the router: one simulated agent per recording of the shared
//                             corpus (one namespace, one address each); empty without the corpus
// and the rest of its /20 is routed into the lab too, where the router drops it (a blackhole route):
// a sweep of the /20 meets a fast silence there. In every subnet .100-.199 is never used.
import { fileURLToPath } from 'node:url';
import type { Expected } from '../../test/helpers/snmp-recordings.js';

export const LAB_NET = '10.77.0.0/16';
/** Documentation range tests use for refusals: routed to "unreachable" while any lab runs. */
export const REFUSED_NET = '198.51.100.0/24';
export const SLOTS = 16;
export const DOMAIN = 'lab.test';
/** Host numbers never used in any lab subnet: silent addresses, in every subnet. */
export const SILENT_HOSTS = { first: 100, last: 199 } as const;
/** First host number of the corpus agents in corp, and how many fit before the silent range. */
const CORP_FIRST = 10;
export const CORP_MAX = SILENT_HOSTS.first - CORP_FIRST;

export type Role = 'switch' | 'router' | 'ssh' | 'silent' | 'dns' | 'server' | 'agent' | 'simulator' | 'plain' | 'printer' | 'corp';
export type SubnetName = 'lan' | 'far' | 'corp';

export interface IfacePlan {
  name: string;
  mac: string;
  /** Address with prefix length (10.77.0.2/24), if the interface has one. */
  cidr?: string;
  /** More addresses on the same interface (the corp namespace: one per simulated agent). */
  more?: string[];
  /** The bridge this interface is a port of (switch ports). */
  master?: string;
  bridge?: true;
}

/** Which of the lab's SNMP credentials an agent answers: exactly one. */
export type SnmpCredential = 'community' | 'community2' | 'v3';

/** What a Debian snmpd agent says about itself. */
export interface SnmpIdentity {
  descr: string; objectId: string; services: number; model: string; serial: string;
  /** Default 'community'. */
  credential?: SnmpCredential;
  /** What the project's identify() must make of it. */
  expect: Expected | null;
}

/** One simulated agent: the project's snmprec simulator serving a recording on `address`, UDP 161. */
export interface SimPlan { name: string; address: string; file: string }

/** A CDP neighbour row served statically by a switch's snmpd (cdpCacheTable). */
export interface CdpPlan { localPort: string; device: string; devicePort: string }

export interface RoutePlan { to: string; via?: string; type?: 'blackhole' }

export interface HostPlan {
  name: string;
  role: Role;
  ns: string;
  ifaces: IfacePlan[];
  routes: RoutePlan[];
  /** sysctl settings inside the namespace. */
  sysctls: string[];
  /** TCP ports something listens on (besides what SNMP/LLDP need). */
  tcp: number[];
  /** Debian's snmpd with this identity. */
  snmp?: SnmpIdentity;
  /** The snmprec simulator instead (one process per namespace, one agent per entry). */
  sims?: SimPlan[];
  /** BRIDGE-MIB from the bridge's real forwarding table (snmpd pass_persist, bridge-mib.ts). */
  bridgeMib?: true;
  /** Static CISCO-CDP-MIB cache rows. */
  cdp?: CdpPlan[];
  /** lldpd runs here (switches send LLDP on their ports, the SSH host on its one link). */
  lldp: boolean;
}

export interface SubnetPlan {
  name: SubnetName;
  cidr: string;
  gateway: string;
  /** Never used: nothing answers there, ever. */
  silent: { first: string; last: string };
}

export interface Plan {
  slot: number;
  /** Prefix of every name this lab creates: namespaces `npl3-sw1`, the root veth `npl3`. */
  prefix: string;
  /** The slot's /20, routed from the root namespace into the lab. */
  range: string;
  /** The part of the /20 outside the subnets, where the router drops everything. */
  outside: { first: string; last: string };
  subnets: SubnetPlan[];
  /** The root namespace's end: where the service under test sits. */
  probe: IfacePlan & { cidr: string };
  /** Routes the root namespace gets for this lab. */
  probeRoutes: { to: string; via: string }[];
  hosts: HostPlan[];
  /** Veth cables: host 'probe' is the root namespace. */
  cables: [{ host: string; ifname: string }, { host: string; ifname: string }][];
  resolver: string;
}

export interface PlanOptions {
  /** Recordings of the shared corpus, one corp agent each (empty: corp holds only the router). */
  corpus?: string[];
}

const hex = (n: number) => n.toString(16).padStart(2, '0');
/** Locally administered, unique per slot, host and interface: 02:4e:50 ("NP"), slot, host, interface. */
export const macOf = (slot: number, host: number, iface: number) => `02:4e:50:${hex(slot)}:${hex(host)}:${hex(iface)}`;

export function slotPrefix(slot: number): string {
  return `npl${slot}`;
}

/**
 * What identify() makes of a lab snmpd: the generic profile's net-snmp variant (sysObjectID linux), which
 * reads OS and version as sysDescr's first and third words ("netprobe lab switch ..." gives "netprobe",
 * "switch": these sysDescrs are not shaped like Linux's), model and serial from the ENTITY-MIB row. A
 * switch is a switch by what it does: both switches answer BRIDGE-MIB (their lldpd also says "bridge" in
 * LLDP-MIB's lldpLocSysCapEnabled); the other agents show no such evidence and stay net-snmp's default, server.
 */
const netSnmp = (model: string, serial: string, version: string, kind: Expected['kind'] = 'server'): Expected => ({
  vendor_key: 'generic', variant: 'net-snmp', kind, os: 'netprobe', manufacturer: 'net-snmp', model, serial, version, firmware: null,
});

/** The project's own recordings (test/fixtures/snmprec), which the lan simulator hosts serve. */
export const FIXTURES_DIR = fileURLToPath(new URL('../../test/fixtures/snmprec', import.meta.url));

/** The simulator hosts on the lan: named as their recording's sysName says, as on a real network. */
export const LAN_SIMS = [
  { name: 'access-sw1', recording: 'cisco-ios-c2960x' },
  { name: 'ap-lobby', recording: 'ubnt-unifi-uap-ac-pro' },
] as const;

/** A DNS-safe host name for a recording file (`ios_c3560.snmprec` -> `ios-c3560`). */
export function corpusHostName(file: string): string {
  return file.replace(/^.*\//, '').replace(/\.snmprec$/, '').toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '');
}

export function plan(slot: number, opts: PlanOptions = {}): Plan {
  if (!Number.isInteger(slot) || slot < 0 || slot >= SLOTS) throw new Error(`lab slot ${slot} is outside 0..${SLOTS - 1}`);
  const prefix = slotPrefix(slot);
  const b = slot * 16;
  const lan = (h: number) => `10.77.${b}.${h}`;
  const far = (h: number) => `10.77.${b + 1}.${h}`;
  const corp = (h: number) => `10.77.${b + 2}.${h}`;
  const range = `10.77.${b}.0/20`;
  const viaRouter = [{ to: range, via: lan(254) }];
  let index = 0;

  const host = (name: string, role: Role, ifaces: Omit<IfacePlan, 'mac'>[], extra: Partial<HostPlan> = {}): HostPlan => {
    const i = ++index;
    return {
      name, role, ns: `${prefix}-${name}`,
      ifaces: ifaces.map((f, n) => ({ ...f, mac: macOf(slot, i, n) })),
      routes: [], sysctls: [], tcp: [], lldp: false, ...extra,
    };
  };
  const eth0 = (address: string) => [{ name: 'eth0', cidr: `${address}/24` }];
  const switchPorts = (n: number) => Array.from({ length: n }, (_, k) => ({ name: `swp${k + 1}`, master: 'br0' }));
  const linux = '.1.3.6.1.4.1.8072.3.2.10'; // NET-SNMP-TC linux: what these agents really are
  const noEcho = 'net.ipv4.icmp_echo_ignore_all=1';
  const corpus = (opts.corpus ?? []).slice(0, CORP_MAX);

  // Host numbers (the MAC's fifth byte) follow this order: new hosts go at the end, so MACs stay put.
  const hosts: HostPlan[] = [
    host('sw1', 'switch', [{ name: 'br0', bridge: true, cidr: `${lan(2)}/24` }, ...switchPorts(9)], {
      routes: viaRouter, lldp: true, bridgeMib: true,
      snmp: { descr: 'netprobe lab switch sw1 (Linux bridge, lldpd, Net-SNMP)', objectId: linux, services: 2,
        model: 'NPL-SW4', serial: `NPL${slot}SW1`, expect: netSnmp('NPL-SW4', `NPL${slot}SW1`, 'switch', 'switch') },
    }),
    host('sw2', 'switch', [{ name: 'br0', bridge: true, cidr: `${lan(3)}/24` }, ...switchPorts(8)], {
      routes: viaRouter, lldp: true, bridgeMib: true, cdp: [{ localPort: 'swp3', device: 'router', devicePort: 'eth0' }],
      snmp: { descr: 'netprobe lab switch sw2 (Linux bridge, lldpd, Net-SNMP)', objectId: linux, services: 2,
        model: 'NPL-SW3', serial: `NPL${slot}SW2`, expect: netSnmp('NPL-SW3', `NPL${slot}SW2`, 'switch', 'switch') },
    }),
    host('router', 'router', [{ name: 'eth0', cidr: `${lan(254)}/24` }, { name: 'eth1', cidr: `${far(1)}/24` },
      { name: 'eth2', cidr: `${corp(1)}/24` }], {
      sysctls: ['net.ipv4.ip_forward=1'],
      // The rest of the slot's /20 ends here, silently (the subnets' own routes are more specific).
      routes: [{ to: range, type: 'blackhole' }],
      snmp: { descr: 'netprobe lab router (Linux, Net-SNMP)', objectId: linux, services: 4, model: 'NPL-RT2', serial: `NPL${slot}RT`,
        expect: netSnmp('NPL-RT2', `NPL${slot}RT`, 'router') },
    }),
    host('ssh', 'ssh', eth0(lan(22)), { routes: viaRouter, tcp: [22], lldp: true }),
    // Ignores ICMP echo (per-namespace sysctl) but answers ARP and TCP: found only by ARP or TCP.
    host('silent', 'silent', eth0(lan(20)), { routes: viaRouter, tcp: [80], sysctls: [noEcho] }),
    host('dns', 'dns', eth0(lan(53)), { routes: viaRouter, tcp: [53] }),
    host('srv', 'server', eth0(far(10)), { routes: [{ to: range, via: far(1) }], tcp: [80] }),
    // The second ICMP-silent host: one TCP port.
    host('tcponly', 'silent', eth0(lan(21)), { routes: viaRouter, tcp: [8080], sysctls: [noEcho] }),
    host('snmp2', 'agent', eth0(lan(30)), {
      routes: viaRouter,
      snmp: { descr: 'netprobe lab host snmp2 (Linux, Net-SNMP, second community)', objectId: linux, services: 72,
        model: 'NPL-HOST', serial: `NPL${slot}SNMP2`, credential: 'community2', expect: netSnmp('NPL-HOST', `NPL${slot}SNMP2`, 'host') },
    }),
    host('v3only', 'agent', eth0(lan(31)), {
      routes: viaRouter,
      snmp: { descr: 'netprobe lab host v3only (Linux, Net-SNMP, SNMPv3 only)', objectId: linux, services: 72,
        model: 'NPL-HOST', serial: `NPL${slot}V3`, credential: 'v3', expect: netSnmp('NPL-HOST', `NPL${slot}V3`, 'host') },
    }),
    ...LAN_SIMS.map((s, k) => host(s.name, 'simulator', eth0(lan(40 + k)), {
      routes: viaRouter, sims: [{ name: s.name, address: lan(40 + k), file: `${FIXTURES_DIR}/${s.recording}.snmprec` }],
    })),
    // .63 is a printer that says what it is over mDNS/DNS-SD and SSDP (advertiser.ts), and serves HTTP.
    ...[1, 2, 3, 4, 5].map((k) => (k === 4
      ? host('printer', 'printer', eth0(lan(63)), { routes: viaRouter, tcp: [80] })
      : host(`plain${k}`, 'plain', eth0(lan(59 + k)), { routes: viaRouter }))),
    // One namespace for all corpus agents, one address each; without the corpus, an empty segment.
    host('corp', 'corp', [{ name: 'eth0', more: corpus.map((_, k) => `${corp(CORP_FIRST + k)}/24`) }], {
      routes: corpus.length ? [{ to: range, via: corp(1) }] : [],
      sims: corpus.map((file, k) => ({ name: corpusHostName(file), address: corp(CORP_FIRST + k), file })),
    }),
  ];

  const silent = (net: number) => ({ first: `10.77.${net}.${SILENT_HOSTS.first}`, last: `10.77.${net}.${SILENT_HOSTS.last}` });
  return {
    slot, prefix, range, outside: { first: `10.77.${b + 3}.0`, last: `10.77.${b + 15}.255` },
    subnets: [
      { name: 'lan', cidr: `10.77.${b}.0/24`, gateway: lan(254), silent: silent(b) },
      { name: 'far', cidr: `10.77.${b + 1}.0/24`, gateway: far(1), silent: silent(b + 1) },
      { name: 'corp', cidr: `10.77.${b + 2}.0/24`, gateway: corp(1), silent: silent(b + 2) },
    ],
    probe: { name: prefix, mac: macOf(slot, 0, 0), cidr: `${lan(1)}/24` },
    probeRoutes: viaRouter,
    hosts,
    cables: [
      [{ host: 'probe', ifname: prefix }, { host: 'sw1', ifname: 'swp1' }],
      [{ host: 'sw1', ifname: 'swp2' }, { host: 'sw2', ifname: 'swp1' }],
      [{ host: 'sw1', ifname: 'swp3' }, { host: 'dns', ifname: 'eth0' }],
      [{ host: 'sw1', ifname: 'swp4' }, { host: 'silent', ifname: 'eth0' }],
      [{ host: 'sw1', ifname: 'swp5' }, { host: 'tcponly', ifname: 'eth0' }],
      [{ host: 'sw1', ifname: 'swp6' }, { host: 'snmp2', ifname: 'eth0' }],
      [{ host: 'sw1', ifname: 'swp7' }, { host: 'v3only', ifname: 'eth0' }],
      [{ host: 'sw1', ifname: 'swp8' }, { host: 'plain1', ifname: 'eth0' }],
      [{ host: 'sw1', ifname: 'swp9' }, { host: 'plain2', ifname: 'eth0' }],
      [{ host: 'sw2', ifname: 'swp2' }, { host: 'ssh', ifname: 'eth0' }],
      [{ host: 'sw2', ifname: 'swp3' }, { host: 'router', ifname: 'eth0' }],
      [{ host: 'sw2', ifname: 'swp4' }, { host: 'access-sw1', ifname: 'eth0' }],
      [{ host: 'sw2', ifname: 'swp5' }, { host: 'ap-lobby', ifname: 'eth0' }],
      [{ host: 'sw2', ifname: 'swp6' }, { host: 'plain3', ifname: 'eth0' }],
      [{ host: 'sw2', ifname: 'swp7' }, { host: 'printer', ifname: 'eth0' }],
      [{ host: 'sw2', ifname: 'swp8' }, { host: 'plain5', ifname: 'eth0' }],
      [{ host: 'router', ifname: 'eth1' }, { host: 'srv', ifname: 'eth0' }],
      [{ host: 'router', ifname: 'eth2' }, { host: 'corp', ifname: 'eth0' }],
    ],
    resolver: lan(53),
  };
}

/** Addresses without prefix length, in interface order. */
export function addressesOf(h: HostPlan): string[] {
  return h.ifaces.flatMap((f) => [f.cidr, ...(f.more ?? [])]).filter((c): c is string => Boolean(c)).map((c) => c.split('/')[0]!);
}

/** The MAC of the interface holding the host's first address (a switch's bridge). */
export function macOfHost(h: HostPlan): string {
  return (h.ifaces.find((f) => f.cidr || f.more?.length) ?? h.ifaces[0]!).mac;
}

/** Whether the host answers ICMP echo. */
export const answersIcmp = (h: HostPlan) => !h.sysctls.includes('net.ipv4.icmp_echo_ignore_all=1');

/**
 * Every name the lab's DNS and LabInfo know, with its addresses: a host's own name, or for a namespace
 * of simulated agents (corp) one name per agent.
 */
export function namedAddresses(h: HostPlan): { name: string; addresses: string[] }[] {
  if (h.role === 'corp') return (h.sims ?? []).map((s) => ({ name: s.name, addresses: [s.address] }));
  return [{ name: h.name, addresses: addressesOf(h) }];
}
