// The lab's shape as data: which namespaces exist, how they are cabled, their addresses, MACs and
// what each runs. Pure: nothing here touches the system. docs/lab.md draws the same picture.
//
// The lab range 10.77.0.0/16 is cut into 16 slots of a /20 each, one per running lab, so two labs
// (tests run two at a time) never share a name or an address. Slot s owns 10.77.(16s).0/20:
//   lan  10.77.(16s).0/24    the probe's own subnet: two switches, hosts, the router's inside leg
//   far  10.77.(16s+1).0/24  behind the router
// and the rest of its /20 is routed into the lab too (the router answers "unreachable" for it).

export const LAB_NET = '10.77.0.0/16';
/** Documentation range tests use for refusals: routed to "unreachable" while any lab runs. */
export const REFUSED_NET = '198.51.100.0/24';
export const SLOTS = 16;
export const DOMAIN = 'lab.test';

export type Role = 'switch' | 'router' | 'ssh' | 'silent' | 'dns' | 'server';

export interface IfacePlan {
  name: string;
  mac: string;
  /** Address with prefix length (10.77.0.2/24), if the interface has one. */
  cidr?: string;
  /** The bridge this interface is a port of (switch ports). */
  master?: string;
  bridge?: true;
}

export interface SnmpIdentity { descr: string; objectId: string; services: number; model: string; serial: string }

export interface HostPlan {
  name: string;
  role: Role;
  ns: string;
  ifaces: IfacePlan[];
  routes: { to: string; via: string }[];
  /** sysctl settings inside the namespace. */
  sysctls: string[];
  /** TCP ports something listens on (besides what SNMP/LLDP need). */
  tcp: number[];
  snmp?: SnmpIdentity;
  /** lldpd runs here (switches send LLDP on their ports, the SSH host on its one link). */
  lldp: boolean;
}

export interface Plan {
  slot: number;
  /** Prefix of every name this lab creates: namespaces `npl3-sw1`, the root veth `npl3`. */
  prefix: string;
  /** The slot's /20, routed from the root namespace into the lab. */
  range: string;
  subnets: { name: 'lan' | 'far'; cidr: string; gateway: string }[];
  /** The root namespace's end: where the service under test sits. */
  probe: IfacePlan & { cidr: string };
  /** Routes the root namespace gets for this lab. */
  probeRoutes: { to: string; via: string }[];
  hosts: HostPlan[];
  /** Veth cables: host 'probe' is the root namespace. */
  cables: [{ host: string; ifname: string }, { host: string; ifname: string }][];
  resolver: string;
}

const hex = (n: number) => n.toString(16).padStart(2, '0');
/** Locally administered, unique per slot, host and interface: 02:4e:50 ("NP"), slot, host, interface. */
export const macOf = (slot: number, host: number, iface: number) => `02:4e:50:${hex(slot)}:${hex(host)}:${hex(iface)}`;

export function slotPrefix(slot: number): string {
  return `npl${slot}`;
}

export function plan(slot: number): Plan {
  if (!Number.isInteger(slot) || slot < 0 || slot >= SLOTS) throw new Error(`lab slot ${slot} is outside 0..${SLOTS - 1}`);
  const prefix = slotPrefix(slot);
  const b = slot * 16;
  const lan = (h: number) => `10.77.${b}.${h}`;
  const far = (h: number) => `10.77.${b + 1}.${h}`;
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
  const switchPorts = (n: number) => Array.from({ length: n }, (_, k) => ({ name: `swp${k + 1}`, master: 'br0' }));
  const linux = '.1.3.6.1.4.1.8072.3.2.10'; // NET-SNMP-TC linux: what these agents really are

  const hosts: HostPlan[] = [
    host('sw1', 'switch', [{ name: 'br0', bridge: true, cidr: `${lan(2)}/24` }, ...switchPorts(4)], {
      routes: viaRouter, lldp: true,
      snmp: { descr: 'netprobe lab switch sw1 (Linux bridge, lldpd, Net-SNMP)', objectId: linux, services: 2,
        model: 'NPL-SW4', serial: `NPL${slot}SW1` },
    }),
    host('sw2', 'switch', [{ name: 'br0', bridge: true, cidr: `${lan(3)}/24` }, ...switchPorts(3)], {
      routes: viaRouter, lldp: true,
      snmp: { descr: 'netprobe lab switch sw2 (Linux bridge, lldpd, Net-SNMP)', objectId: linux, services: 2,
        model: 'NPL-SW3', serial: `NPL${slot}SW2` },
    }),
    host('router', 'router', [{ name: 'eth0', cidr: `${lan(254)}/24` }, { name: 'eth1', cidr: `${far(1)}/24` }], {
      sysctls: ['net.ipv4.ip_forward=1'],
      snmp: { descr: 'netprobe lab router (Linux, Net-SNMP)', objectId: linux, services: 4, model: 'NPL-RT2', serial: `NPL${slot}RT` },
    }),
    host('ssh', 'ssh', [{ name: 'eth0', cidr: `${lan(22)}/24` }], { routes: viaRouter, tcp: [22], lldp: true }),
    // Ignores ICMP echo (per-namespace sysctl) but answers ARP and TCP: found only by ARP or TCP.
    host('silent', 'silent', [{ name: 'eth0', cidr: `${lan(20)}/24` }], {
      routes: viaRouter, tcp: [80], sysctls: ['net.ipv4.icmp_echo_ignore_all=1'],
    }),
    host('dns', 'dns', [{ name: 'eth0', cidr: `${lan(53)}/24` }], { routes: viaRouter, tcp: [53] }),
    host('srv', 'server', [{ name: 'eth0', cidr: `${far(10)}/24` }], { routes: [{ to: range, via: far(1) }], tcp: [80] }),
  ];

  return {
    slot, prefix, range,
    subnets: [{ name: 'lan', cidr: `10.77.${b}.0/24`, gateway: lan(254) }, { name: 'far', cidr: `10.77.${b + 1}.0/24`, gateway: far(1) }],
    probe: { name: prefix, mac: macOf(slot, 0, 0), cidr: `${lan(1)}/24` },
    probeRoutes: viaRouter,
    hosts,
    cables: [
      [{ host: 'probe', ifname: prefix }, { host: 'sw1', ifname: 'swp1' }],
      [{ host: 'sw1', ifname: 'swp2' }, { host: 'sw2', ifname: 'swp1' }],
      [{ host: 'sw1', ifname: 'swp3' }, { host: 'dns', ifname: 'eth0' }],
      [{ host: 'sw1', ifname: 'swp4' }, { host: 'silent', ifname: 'eth0' }],
      [{ host: 'sw2', ifname: 'swp2' }, { host: 'ssh', ifname: 'eth0' }],
      [{ host: 'sw2', ifname: 'swp3' }, { host: 'router', ifname: 'eth0' }],
      [{ host: 'router', ifname: 'eth1' }, { host: 'srv', ifname: 'eth0' }],
    ],
    resolver: lan(53),
  };
}

/** Addresses without prefix length, in interface order. */
export function addressesOf(h: HostPlan): string[] {
  return h.ifaces.filter((f) => f.cidr).map((f) => f.cidr!.split('/')[0]!);
}

/** The MAC of the interface holding the host's first address (a switch's bridge). */
export function macOfHost(h: HostPlan): string {
  return h.ifaces.find((f) => f.cidr)!.mac;
}
