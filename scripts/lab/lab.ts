// Starting and stopping one lab: claim a slot, build its network, start its daemons in two phases,
// wait for LLDP to see every cable, describe the result. Any failure tears down what was built.
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { CORPUS_DIR, CORPUS_SKIP, knownRecordings, type Expected } from '../../test/helpers/snmp-recordings.js';
import { startDaemon, waitReady, type DaemonSpec } from './daemons.js';
import { buildNetwork } from './network.js';
import { tryRun } from './run.js';
import { servicesFor } from './services.js';
import { claimSlot, releaseSlot, slotDir } from './slots.js';
import { BRIDGE_MIB, type LabV3, type SnmpSecrets } from './snmp.js';
import type { SshAccess } from './ssh.js';
import {
  answersIcmp, CORP_MAX, DOMAIN, LAB_NET, macOfHost, namedAddresses, plan, REFUSED_NET, type HostPlan, type Plan, type Role,
  type SimPlan, type SubnetName, type SubnetPlan
} from './topology.js';

export type { LabV3 } from './snmp.js';
/** What the project's identify() says about an agent (test/helpers/snmp-recordings.ts). */
export type LabExpectation = Expected;

/** How a host answers SNMP on UDP 161: with exactly one credential of the lab's. */
export interface LabSnmp {
  /** Debian's snmpd, or the project's snmprec simulator serving a recording. */
  agent: 'snmpd' | 'simulator';
  version: 'v2c' | 'v3';
  /** v2c: the one community it answers (`snmp.community` or `snmp.community2`); every other gets no answer. */
  community?: string;
  /** v3: the one user it answers (`snmp.v3`); it gives v1 and v2c no answer. */
  v3?: LabV3;
  port: 161;
  /** What sysName.0, sysDescr.0 and sysObjectID.0 say (sysName null when the recording has none). */
  sys: { name: string | null; descr: string; objectId: string };
  /** The simulator's snmprec file. */
  recording?: string;
  /** What identify() must make of it; null for a recording without a recorded expectation. */
  expect: LabExpectation | null;
}

export interface LabHost {
  name: string;
  ns: string;
  role: Role;
  /** The subnet of its first address. */
  subnet: SubnetName;
  addresses: string[];
  mac: string;
  /** Answers ICMP echo (false: found only by ARP or TCP). */
  icmp: boolean;
  /** TCP ports that accept connections. */
  tcp: number[];
  /** Answers SNMP on UDP 161 (and how), or null. */
  snmp: LabSnmp | null;
  /** Runs lldpd; for switches, `lldpSocket` is the control socket lldpcli needs (-u). */
  lldp: boolean;
  lldpSocket?: string;
  /** This host's files: configuration, logs (<daemon>.log), keys. */
  dir: string;
}

export interface LabSubnet {
  name: SubnetName;
  cidr: string;
  gateway: string;
  /** A range where nothing ever answers (.100-.199 of every subnet). */
  silent: { first: string; last: string };
}

export interface LabCorpus {
  /** Where the shared corpus of real device recordings is looked for (<repo>/../shared/fixtures/snmprec). */
  dir: string;
  /** Why corp holds no agents (the reason tests skip with), or false. */
  skip: string | false;
  /** Host names of the corp agents, one per recording. */
  agents: string[];
}

export interface LabInfo {
  slot: number;
  dir: string;
  /** The whole lab range (all slots) and the refusal range: "unreachable" in the root namespace. */
  labNet: string;
  refused: string;
  /** This lab's /20, routed into it. */
  range: string;
  /** The part of `range` outside the three subnets: the router drops it without a word (a fast silence). */
  outside: { first: string; last: string };
  probe: { ifname: string; address: string; mac: string };
  subnets: LabSubnet[];
  /** Every host with an address, one entry per identity (the corp agents share one namespace). */
  hosts: LabHost[];
  /** Every namespace the lab created (the corp one even when it holds no agent). */
  namespaces: string[];
  /** Veth cables as built: host 'probe' is the root namespace, 'corp' the corp agents' namespace. */
  cables: [{ host: string; ifname: string }, { host: string; ifname: string }][];
  resolver: string;
  domain: string;
  snmp: {
    community: string;
    /** The second community: only `snmp2` answers it, and it answers nothing else. */
    community2: string;
    /** The SNMPv3 user (authPriv, SHA, AES-128) of `v3only`, in V3Params' shape. */
    v3: LabV3;
    /** Names of every host answering SNMP. */
    agents: string[];
  };
  corpus: LabCorpus;
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
  /** Serve the shared corpus in corp when it is there (default true; false leaves corp empty). */
  corpus?: boolean;
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

/** The shared corpus: its recordings, or why there are none. */
function findCorpus(wanted: boolean): { files: string[]; skip: string | false } {
  if (!wanted) return { files: [], skip: 'this lab was started without the corpus (startLab({ corpus: false }))' };
  if (CORPUS_SKIP) return { files: [], skip: CORPUS_SKIP };
  const files = readdirSync(CORPUS_DIR).filter((f) => f.endsWith('.snmprec')).sort().map((f) => join(CORPUS_DIR, f));
  if (files.length === 0) return { files, skip: `the shared snmprec corpus at ${CORPUS_DIR} holds no recordings` };
  if (files.length > CORP_MAX) process.emitWarning(`lab: corp serves the first ${CORP_MAX} of ${files.length} corpus recordings`);
  return { files, skip: false };
}

const SYS = { descr: '1.3.6.1.2.1.1.1.0', objectId: '1.3.6.1.2.1.1.2.0', name: '1.3.6.1.2.1.1.5.0' } as const;

/** The system group of a recording, read from its lines (snmprec: OID|TAG|VALUE, TAG with x for hex). */
function recordedSystem(file: string): LabSnmp['sys'] {
  const found = new Map<string, string>();
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    const [oid, tag, ...rest] = line.replace(/\r$/, '').split('|');
    const key = oid?.replace(/^\./, '');
    if (!key || !tag || !Object.values(SYS).includes(key as never)) continue;
    const raw = rest.join('|');
    found.set(key, tag.endsWith('x') ? Buffer.from(raw, 'hex').toString('utf8') : raw);
  }
  return { name: found.get(SYS.name) ?? null, descr: found.get(SYS.descr) ?? '', objectId: (found.get(SYS.objectId) ?? '').replace(/^\./, '') };
}

function snmpOf(h: HostPlan, sim: SimPlan | undefined, secrets: SnmpSecrets, expectOf: Map<string, Expected>): LabSnmp | null {
  if (sim) {
    return {
      agent: 'simulator', version: 'v2c', community: secrets.community, port: 161, sys: recordedSystem(sim.file),
      recording: sim.file, expect: expectOf.get(sim.file) ?? null,
    };
  }
  if (!h.snmp) return null;
  const id = h.snmp;
  const credential = id.credential ?? 'community';
  return {
    agent: 'snmpd', port: 161, sys: { name: h.name, descr: id.descr, objectId: id.objectId.replace(/^\./, '') },
    expect: id.expect,
    ...(credential === 'v3' ? { version: 'v3', v3: secrets.v3 }
      : { version: 'v2c', community: credential === 'community2' ? secrets.community2 : secrets.community }),
  };
}

function subnetOf(subnets: SubnetPlan[], address: string): SubnetName {
  const net = address.split('.').slice(0, 3).join('.');
  const s = subnets.find((x) => x.cidr.startsWith(`${net}.`));
  if (!s) throw new Error(`lab address ${address} is in no subnet`);
  return s.name;
}

function describe(p: Plan, dir: string, secrets: SnmpSecrets, ssh: SshAccess, guardSeconds: number, corpus: LabCorpus): LabInfo {
  const hostDir = (name: string) => join(dir, name);
  const expectOf = new Map(knownRecordings().map((r) => [r.file, r.expect]));
  const hosts: LabHost[] = p.hosts.flatMap((h) => namedAddresses(h).map((n) => {
    const sim = h.sims?.find((s) => s.name === n.name);
    return {
      name: n.name, ns: h.ns, role: h.role === 'corp' ? 'simulator' as const : h.role, subnet: subnetOf(p.subnets, n.addresses[0]!),
      addresses: n.addresses, mac: macOfHost(h), icmp: answersIcmp(h), tcp: h.tcp, snmp: snmpOf(h, sim, secrets, expectOf),
      lldp: h.lldp, dir: hostDir(h.name),
      ...(h.role === 'switch' ? { lldpSocket: join(hostDir(h.name), 'lldpd.sock') } : {}),
    };
  }));
  return {
    slot: p.slot, dir, labNet: LAB_NET, refused: REFUSED_NET, range: p.range, outside: p.outside,
    probe: { ifname: p.probe.name, address: p.probe.cidr.split('/')[0]!, mac: p.probe.mac },
    subnets: p.subnets, hosts, namespaces: p.hosts.map((h) => h.ns), cables: p.cables,
    resolver: p.resolver, domain: DOMAIN,
    snmp: { ...secrets, agents: hosts.filter((h) => h.snmp).map((h) => h.name) },
    corpus, ssh, guardSeconds,
  };
}

/**
 * Starts the switches' BRIDGE-MIB programs now (snmpd starts a pass_persist program at its first request,
 * and a scan's first request should not wait for node), and checks that each answers.
 */
async function warmBridgeMib(p: Plan, community: string): Promise<void> {
  await Promise.all(p.hosts.filter((h) => h.bridgeMib && h.snmp).map(async (h) => {
    const r = await promisify(execFile)('ip', ['netns', 'exec', h.ns, 'snmpget', '-v2c', '-c', community, '-t', '5', '-r', '0',
      '-On', '-Oqv', '127.0.0.1', `${BRIDGE_MIB}.1.2.0`], { env: { ...process.env, MIBS: '' }, timeout: 10_000 })
      .catch((e: Error & { stderr?: string }) => ({ stdout: '', stderr: e.stderr ?? e.message }));
    if (!/^\d+$/.test(r.stdout.trim())) throw new Error(`BRIDGE-MIB on ${h.name} does not answer: ${r.stdout}${r.stderr}`);
  }));
}

export async function labUp(opts: UpOptions = {}): Promise<LabInfo> {
  const guardSeconds = opts.guardSeconds ?? 900;
  const slot = claimSlot(opts.owner ?? 'process', opts.slot);
  try {
    const found = findCorpus(opts.corpus ?? true);
    const p = plan(slot, { corpus: found.files });
    buildNetwork(p);
    const secret = () => randomBytes(9).toString('base64url');
    const secrets: SnmpSecrets = {
      community: `lab-${randomBytes(6).toString('hex')}`,
      community2: `lab2-${randomBytes(6).toString('hex')}`,
      v3: { username: 'labv3', level: 'authPriv', auth_protocol: 'sha', auth_key: secret(), priv_protocol: 'aes', priv_key: secret() },
    };
    const items: { dir: string; ns: string; spec: DaemonSpec }[] = [];
    let ssh: SshAccess | undefined;
    for (const h of p.hosts) {
      const dir = join(slotDir(slot), h.name);
      mkdirSync(dir, { mode: 0o755 });
      const s = servicesFor(p, h, dir, secrets, guardSeconds);
      ssh ??= s.ssh;
      items.push(...s.specs.map((spec) => ({ dir, ns: h.ns, spec })));
    }
    await startPhase(items.filter((i) => i.spec.phase === 1), guardSeconds);
    await Promise.all([
      startPhase(items.filter((i) => i.spec.phase === 2), guardSeconds)
        .then(() => (opts.waitLldp ?? true) ? waitLldp(p, (sw) => join(slotDir(slot), sw, 'lldpd.sock')) : undefined),
      warmBridgeMib(p, secrets.community),
    ]);
    const corpus: LabCorpus = {
      dir: CORPUS_DIR, skip: found.skip,
      agents: p.hosts.filter((h) => h.role === 'corp').flatMap((h) => (h.sims ?? []).map((s) => s.name)),
    };
    return describe(p, slotDir(slot), secrets, ssh!, guardSeconds, corpus);
  } catch (e) {
    releaseSlot(slot);
    throw e;
  }
}

/** Stops a lab and removes all it left; safe to call again, or for a slot that holds nothing. */
export function labDown(slot: number): void {
  releaseSlot(slot);
}
