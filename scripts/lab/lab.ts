// Starting and stopping one lab: claim a slot, build its network, start its daemons in two phases,
// wait for LLDP to see every cable, describe the result. Any failure tears down what was built.
import { randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { startDaemon, waitReady, type DaemonSpec } from './daemons.js';
import { buildNetwork } from './network.js';
import { tryRun } from './run.js';
import { servicesFor } from './services.js';
import { claimSlot, releaseSlot, slotDir } from './slots.js';
import type { SshAccess } from './ssh.js';
import { addressesOf, DOMAIN, LAB_NET, macOfHost, plan, REFUSED_NET, type Plan, type Role } from './topology.js';

export interface LabHost {
  name: string;
  ns: string;
  role: Role;
  addresses: string[];
  mac: string;
  /** TCP ports that accept connections. */
  tcp: number[];
  /** Answers SNMP (v2c, `snmp.community`) on UDP 161. */
  snmp: boolean;
  /** Runs lldpd; for switches, `lldpSocket` is the control socket lldpcli needs (-u). */
  lldp: boolean;
  lldpSocket?: string;
  /** This host's files: configuration, logs (<daemon>.log), keys. */
  dir: string;
}

export interface LabInfo {
  slot: number;
  dir: string;
  /** The whole lab range (all slots) and the refusal range: "unreachable" in the root namespace. */
  labNet: string;
  refused: string;
  /** This lab's /20, routed into it. */
  range: string;
  probe: { ifname: string; address: string; mac: string };
  subnets: { name: 'lan' | 'far'; cidr: string; gateway: string }[];
  hosts: LabHost[];
  resolver: string;
  domain: string;
  snmp: { community: string; agents: string[] };
  ssh: SshAccess;
  /** Seconds after which every lab daemon ends by itself. */
  guardSeconds: number;
}

export interface UpOptions {
  /** 'manual' for a lab started by hand: kept until `down`, never reclaimed as stale. */
  owner?: 'process' | 'manual';
  slot?: number;
  guardSeconds?: number;
  /** Wait until each switch sees every LLDP neighbour it is cabled to (default true). */
  waitLldp?: boolean;
}

async function startPhase(items: { dir: string; ns: string; spec: DaemonSpec }[], guard: number): Promise<void> {
  await Promise.all(items.map(async ({ dir, ns, spec }) => {
    const d = startDaemon(dir, ns, spec.name, spec.argv, guard, spec.env);
    for (const r of spec.ready) await waitReady(d, r.patterns, 15_000, r.file);
  }));
}

/** The LLDP neighbours each switch should list: hosts running lldpd at the other end of its cables. */
function expectedNeighbours(p: Plan): Map<string, string[]> {
  const lldp = new Set(p.hosts.filter((h) => h.lldp).map((h) => h.name));
  const want = new Map<string, string[]>();
  for (const h of p.hosts.filter((x) => x.role === 'switch')) {
    const peers = p.cables.flatMap(([a, b]) => (a.host === h.name ? [b.host] : b.host === h.name ? [a.host] : []));
    want.set(h.name, peers.filter((x) => lldp.has(x)));
  }
  return want;
}

export function lldpNeighbours(ns: string, socket: string): string[] {
  const out = tryRun('ip', ['netns', 'exec', ns, 'lldpcli', '-u', socket, '-f', 'keyvalue', 'show', 'neighbors']).stdout;
  return [...out.matchAll(/^lldp\.[^.]+\.chassis\.name=(.*)$/gm)].map((m) => m[1]!);
}

async function waitLldp(p: Plan, socketOf: (host: string) => string, timeoutMs = 20_000): Promise<void> {
  const want = expectedNeighbours(p);
  // Ask every lldpd to send now rather than at its next interval.
  for (const sw of want.keys()) tryRun('ip', ['netns', 'exec', `${p.prefix}-${sw}`, 'lldpcli', '-u', socketOf(sw), 'update']);
  const until = Date.now() + timeoutMs;
  for (;;) {
    const missing = [...want].flatMap(([sw, peers]) => {
      const seen = lldpNeighbours(`${p.prefix}-${sw}`, socketOf(sw));
      return peers.filter((x) => !seen.includes(x)).map((x) => `${sw} does not see ${x}`);
    });
    if (missing.length === 0) return;
    if (Date.now() > until) throw new Error(`LLDP did not converge in ${timeoutMs} ms: ${missing.join('; ')}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

function describe(p: Plan, dir: string, community: string, ssh: SshAccess, guardSeconds: number): LabInfo {
  const hostDir = (name: string) => join(dir, name);
  return {
    slot: p.slot, dir, labNet: LAB_NET, refused: REFUSED_NET, range: p.range,
    probe: { ifname: p.probe.name, address: p.probe.cidr.split('/')[0]!, mac: p.probe.mac },
    subnets: p.subnets,
    hosts: p.hosts.map((h) => ({
      name: h.name, ns: h.ns, role: h.role, addresses: addressesOf(h), mac: macOfHost(h), tcp: h.tcp,
      snmp: Boolean(h.snmp), lldp: h.lldp, dir: hostDir(h.name),
      ...(h.role === 'switch' ? { lldpSocket: join(hostDir(h.name), 'lldpd.sock') } : {}),
    })),
    resolver: p.resolver, domain: DOMAIN,
    snmp: { community, agents: p.hosts.filter((h) => h.snmp).map((h) => h.name) },
    ssh, guardSeconds,
  };
}

export async function labUp(opts: UpOptions = {}): Promise<LabInfo> {
  const guardSeconds = opts.guardSeconds ?? 900;
  const slot = claimSlot(opts.owner ?? 'process', opts.slot);
  try {
    const p = plan(slot);
    buildNetwork(p);
    const community = `lab-${randomBytes(6).toString('hex')}`;
    const items: { dir: string; ns: string; spec: DaemonSpec }[] = [];
    let ssh: SshAccess | undefined;
    for (const h of p.hosts) {
      const dir = join(slotDir(slot), h.name);
      mkdirSync(dir, { mode: 0o755 });
      const s = servicesFor(p, h, dir, community);
      ssh ??= s.ssh;
      items.push(...s.specs.map((spec) => ({ dir, ns: h.ns, spec })));
    }
    await startPhase(items.filter((i) => i.spec.phase === 1), guardSeconds);
    await startPhase(items.filter((i) => i.spec.phase === 2), guardSeconds);
    if (opts.waitLldp ?? true) await waitLldp(p, (sw) => join(slotDir(slot), sw, 'lldpd.sock'));
    return describe(p, slotDir(slot), community, ssh!, guardSeconds);
  } catch (e) {
    releaseSlot(slot);
    throw e;
  }
}

/** Stops a lab and removes all it left; safe to call again, or for a slot that holds nothing. */
export function labDown(slot: number): void {
  releaseSlot(slot);
}
