// The discovery test lab for tests: startLab() builds the routed network of namespaces described in
// docs/lab.md (scripts/lab/ does the work) and returns what is in it; stop() removes all of it. Each
// lab takes its own slot (names npl<slot>-*, addresses 10.77.<16*slot>.0/20), so the two test files
// that run at once, or two labs in one test, never collide. A lab this process did not stop is torn
// down by the exit hook; one left by a killed process is cleaned by the next startLab() anywhere.
//
//   const skip = labSkipReason();
//   describe('...', { skip: skip ?? false }, () => { let lab: Lab; before(async () => { lab = await startLab(); }); ... });
import { existsSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { run, type RunResult } from '../../src/core/exec.js';
import { labDown, labUp, type LabHost, type LabInfo, type UpOptions } from '../../scripts/lab/lab.js';
import { tryRun } from '../../scripts/lab/run.js';
import type { SubnetName } from '../../scripts/lab/topology.js';

export type { LabCorpus, LabExpectation, LabHost, LabInfo, LabSnmp, LabSubnet, LabV3 } from '../../scripts/lab/lab.js';
export type { SubnetName } from '../../scripts/lab/topology.js';

/** One address that answers something (ICMP, ARP, TCP or SNMP), and who holds it. */
export interface LiveAddress { address: string; host: string; icmp: boolean }

export interface Lab extends LabInfo {
  /** A host by name (throws for an unknown one). */
  host(name: string): LabHost;
  /** Runs a program inside a lab namespace, given by host name or namespace name; never throws for an exit code. */
  exec(nsOrHost: string, cmd: string, args: string[], opts?: { timeoutMs?: number; input?: string }): Promise<RunResult>;
  /**
   * Every address of a subnet that answers anything: the hosts', the router's leg and, on lan, the probe's
   * own (host 'probe'). A scan of the subnet must find exactly these; every other address is silent.
   */
  liveIn(subnet: SubnetName): LiveAddress[];
  /** `lldpcli` on a switch, with its control socket. */
  lldpcli(switchName: string, args: string[]): Promise<RunResult>;
  stop(): Promise<void>;
}

/** Programs the lab runs, and the Debian package of each. */
const PROGRAMS: Record<string, string> = {
  ip: 'iproute2', bridge: 'iproute2', snmpd: 'snmpd', snmpget: 'snmp', snmpwalk: 'snmp', lldpd: 'lldpd', lldpcli: 'lldpd',
  sshd: 'openssh-server', 'ssh-keygen': 'openssh-client', ssh: 'openssh-client', dnsmasq: 'dnsmasq-base',
  fping: 'fping', timeout: 'coreutils', openssl: 'openssl', unshare: 'util-linux', mount: 'mount',
};

function onPath(program: string): boolean {
  const dirs = [...(process.env.PATH ?? '').split(delimiter), '/usr/sbin', '/sbin'];
  return dirs.some((d) => d && existsSync(join(d, program)));
}

let skipReason: string | null | undefined;

/** Why the lab cannot run here (not root, no network namespaces, a program missing), or null. */
export function labSkipReason(): string | null {
  if (skipReason !== undefined) return skipReason;
  skipReason = findSkipReason();
  return skipReason;
}

function findSkipReason(): string | null {
  if (process.platform !== 'linux') return 'the test lab needs Linux network namespaces';
  if (process.getuid?.() !== 0) return 'the test lab creates network namespaces: run the tests as root';
  const missing = Object.entries(PROGRAMS).filter(([p]) => !onPath(p));
  if (missing.length > 0) {
    const pkgs = [...new Set(missing.map(([, pkg]) => pkg))];
    return `the test lab needs ${missing.map(([p]) => p).join(', ')} (apt-get install ${pkgs.join(' ')}; ./build.sh test does)`;
  }
  const probe = `npl-check-${process.pid}`;
  const add = tryRun('ip', ['netns', 'add', probe]);
  if (add.code !== 0) return `cannot create a network namespace here (ip netns add: ${add.stderr.trim()})`;
  tryRun('ip', ['netns', 'del', probe]);
  return null;
}

const live = new Set<number>();
let exitHook = false;

function hookExit(): void {
  if (exitHook) return;
  exitHook = true;
  // Synchronous teardown: the last chance when a test failed before stop() or never called it.
  process.on('exit', () => { for (const slot of live) labDown(slot); });
}

export async function startLab(opts: Omit<UpOptions, 'owner'> = {}): Promise<Lab> {
  hookExit();
  const info = await labUp({ ...opts, owner: 'process' });
  live.add(info.slot);
  const host = (name: string): LabHost => {
    const h = info.hosts.find((x) => x.name === name || x.ns === name);
    if (!h) throw new Error(`no lab host ${name} (hosts: ${info.hosts.map((x) => x.name).join(', ')})`);
    return h;
  };
  const exec: Lab['exec'] = (nsOrHost, cmd, args, o = {}) =>
    run('ip', ['netns', 'exec', host(nsOrHost).ns, cmd, ...args], { timeoutMs: o.timeoutMs ?? 10_000, input: o.input });
  const liveIn = (subnet: SubnetName): LiveAddress[] => {
    const net = info.subnets.find((x) => x.name === subnet)!.cidr.split('.').slice(0, 3).join('.') + '.';
    const all = [{ address: info.probe.address, host: 'probe', icmp: true },
      ...info.hosts.flatMap((h) => h.addresses.map((address) => ({ address, host: h.name, icmp: h.icmp })))];
    return all.filter((a) => a.address.startsWith(net));
  };
  return {
    ...info, host, exec, liveIn,
    lldpcli: (sw, args) => {
      const h = host(sw);
      if (!h.lldpSocket) throw new Error(`${sw} is not a switch with an lldpd control socket`);
      return exec(sw, 'lldpcli', ['-u', h.lldpSocket, ...args]);
    },
    async stop() {
      if (!live.delete(info.slot)) return;
      labDown(info.slot);
    },
  };
}
