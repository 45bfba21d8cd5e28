// One scan, stage by stage: liveness (ICMP, the neighbour table, TCP and SNMP, all at once), then each
// live host's identification (ports, name, MAC vendor, SNMP identity), then the neighbour tables of the
// SNMP devices and the topology built from them. Every stage streams: a `phase` message when it
// starts, a `host` message per host as soon as it is classified, a `link` message per link.
import { setMaxListeners } from 'node:events';
import type { AppContext } from '../../../core/context.js';
import type { JobControl } from '../../../core/jobs.js';
import { compareIps } from './order.js';
import { fpingSweep } from './fping.js';
import { identifyHost, type CredentialUseRecord } from './identify.js';
import { recordCredentialUse } from '../../brain/index.js';
import { allNodesPing, pokeAndRead, readNeighbourCache, sleep } from './neighbour-cache.js';
import { reverseNames } from './names.js';
import { ouiVendor } from './oui.js';
import { inCidr, type LocalLink } from './ranges.js';
import type { ScanCredential } from './request.js';
import type { LivenessSource, ScanCounts, ScanHost, ScanResult } from './result.js';
import { snmpSweep, type SweepAnswer } from './snmp-sweep.js';
import { pool } from './pool.js';
import { tcpSweep, tcpTry } from './tcp.js';
import { isLayer3, readLayer3Routes } from './routes-read.js';
import { buildTopology, readDeviceTables } from './topology.js';
import type { Cidr } from '../../../core/ip.js';

/** Ports a TCP liveness probe tries on every address that is not on one of the probe's links. */
const LIVENESS_PORTS = [80, 443, 22];
const TCP_TIMEOUT_MS = 1000;
const TCP_PARALLEL = 512;
const HOSTS_PARALLEL = 32;

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

/** What the pipeline keeps as it goes; the service reads it for a result while the scan runs. */
export class ScanState {
  readonly hosts = new Map<string, ScanHost>();
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
      h = { ip, alive_by: [], rtt_ms: null, mac: null, mac_vendor: null, hostname: null, open_ports: [], snmp: null, device_id: null };
      this.hosts.set(ip, h);
    }
    if (!h.alive_by.includes(source)) h.alive_by.push(source);
    return h;
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

export interface PipelineDeps {
  app: AppContext;
  tcpPorts: number[];
  reverseDns: boolean;
  dnsServers: string[];
  snmpTiming: { timeout_ms: number; retries: number };
}

/** Runs the scan; resolves with the state's final result (also when cancelled: what was found so far). */
export async function runPipeline(deps: PipelineDeps, state: ScanState, ctl: JobControl): Promise<void> {
  const { plan } = state;
  const { signal } = ctl;
  // Every connect and lookup in flight listens for the cancel: hundreds at once, by design.
  setMaxListeners(4096, signal);
  const progress = (pct: number) => ctl.progress(pct, { counts: state.counts() });

  // ---- 1. liveness: four sources at once -----------------------------------------------------------
  ctl.emit('phase', { phase: 'liveness', message: `Looking for hosts in ${plan.subnetText} (${plan.addresses.length} addresses)` });
  const onLink = plan.addresses.filter((a) => plan.links.some((l) => inCidr(l.cidr, a)));
  const routed = plan.addresses.filter((a) => !plan.links.some((l) => inCidr(l.cidr, a)));
  const neighbourRead = async () => {
    for (const n of await readNeighbourCache(signal)) {
      if (!inCidr(plan.subnet, n.ip)) continue;
      const known = state.hosts.get(n.ip);
      if (n.confirmed) state.alive(n.ip, 'arp').mac ??= n.mac;
      else if (known) known.mac ??= n.mac;
    }
  };
  const answers = new Map<string, SweepAnswer>();
  const sweepSnmpOf = async (addresses: string[], timing = deps.snmpTiming) => {
    if (!plan.snmpEnabled || !addresses.length) return;
    try {
      const got = await snmpSweep(addresses, plan.credentials, timing, signal, (ip) => { state.alive(ip, 'snmp'); });
      for (const [ip, a] of got) answers.set(ip, a);
    } catch (e) {
      if (!signal.aborted) state.result.warnings.push(`SNMP sweep: ${errorText(e)}`);
    }
  };
  await Promise.all([
    fpingSweep(plan.addresses, {
      signal,
      onAlive: (ip, rtt) => {
        const h = state.alive(ip, 'icmp');
        h.rtt_ms = h.rtt_ms === null ? rtt : Math.min(h.rtt_ms, rtt);
      },
      onChunk: (done) => progress(Math.round((done / Math.max(1, plan.addresses.length)) * 35)),
    }).catch((e: unknown) => { if (!signal.aborted) state.result.warnings.push(`ICMP sweep: ${errorText(e)}`); }),
    // On the probe's own links every host answers ARP, so the neighbour table knows them all; SNMP then
    // goes only to those. Sent to silent addresses there, SNMP datagrams would wait in the kernel for an
    // ARP answer that never comes, filling the socket's send buffer and holding up the live hosts'. These
    // hosts have just answered the kernel on the same wire, so one try each: a retry would only make every
    // host without an agent (most of them) cost a second timeout, the scan's longest path on a LAN.
    (async () => {
      if (!plan.links.length) return;
      if (plan.addresses.length) {
        await pokeAndRead(onLink, signal, neighbourRead);
      } else {
        // An IPv6 prefix too large to sweep: every node on the link answers an all-nodes echo request.
        await Promise.all(plan.links.map((l) => allNodesPing(l.iface, signal)));
        await sleep(400, signal);
        await neighbourRead();
      }
      await sweepSnmpOf([...state.hosts.keys()].filter((ip) => plan.links.some((l) => inCidr(l.cidr, ip))),
        { ...deps.snmpTiming, retries: 0 });
    })().catch((e: unknown) => { if (!signal.aborted) state.result.warnings.push(`neighbour table: ${errorText(e)}`); }),
    tcpSweep(routed, LIVENESS_PORTS, {
      timeoutMs: TCP_TIMEOUT_MS, limit: TCP_PARALLEL, signal,
      onResult: (ip, port, outcome) => {
        if (outcome === 'silent') return;
        const h = state.alive(ip, 'tcp');
        if (outcome === 'open' && !h.open_ports.includes(port)) h.open_ports.push(port);
      },
    }),
    sweepSnmpOf(routed),
  ]);
  // A second read: hosts fping or TCP made the kernel resolve meanwhile, and MACs for all of them.
  if (plan.links.length) await neighbourRead().catch(() => undefined);
  if (signal.aborted) return;
  progress(40);

  // ---- 2. identification of each live host ----------------------------------------------------------
  const live = [...state.hosts.keys()].sort(compareIps);
  ctl.emit('phase', { phase: 'identify', message: `${live.length} hosts alive; identifying them` });
  const names = deps.reverseDns ? reverseNames(live, deps.dnsServers, signal) : Promise.resolve(new Map<string, string | null>());
  let classified = 0;
  const uses: CredentialUseRecord[] = [];
  const agents: { ip: string; credential: ScanCredential }[] = [];
  await pool(live, HOSTS_PARALLEL, signal, async (ip) => {
    const h = state.hosts.get(ip)!;
    const extra = deps.tcpPorts.filter((p) => !h.open_ports.includes(p));
    await Promise.all([
      pool(extra, extra.length, signal, async (port) => {
        const o = await tcpTry(ip, port, TCP_TIMEOUT_MS, signal);
        if (o !== 'silent' && !h.alive_by.includes('tcp')) h.alive_by.push('tcp');
        if (o === 'open') h.open_ports.push(port);
      }),
      (async () => {
        if (!plan.snmpEnabled) return;
        const r = await identifyHost(deps.app, ip, answers.get(ip), plan.credentials, deps.snmpTiming, signal);
        h.snmp = r.facts;
        uses.push(...r.uses);
        if (r.credential && r.facts?.vendor_key) agents.push({ ip, credential: r.credential });
      })(),
    ]);
    h.open_ports.sort((a, b) => a - b);
    if (h.mac) h.mac_vendor = ouiVendor(h.mac)?.vendor ?? null;
    h.hostname = (await names).get(ip) ?? null;
    if (signal.aborted) return;
    classified++;
    ctl.progress(40 + Math.round((classified / live.length) * 40), { counts: state.counts() });
    ctl.emit('host', { host: h });
    deps.app.bus.emit('v1sion.device.discovered', { job_id: plan.jobId, subnet: plan.subnetText, host: h });
  });
  recordUses(deps.app, uses);
  if (signal.aborted) return;

  // ---- 3. neighbours and topology -----------------------------------------------------------------
  ctl.emit('phase', { phase: 'neighbours', message: `Reading neighbours and forwarding tables of ${agents.length} SNMP devices` });
  const tables = await readDeviceTables(deps.app, agents, deps.snmpTiming, signal, state.result.warnings);
  if (signal.aborted) return;
  const routes = await readLayer3Routes(deps.app, agents.filter((a) => isLayer3(state.hosts.get(a.ip)!)), tables, deps.snmpTiming,
    signal, state.result.warnings);
  if (signal.aborted) return;
  const topo = buildTopology([...state.hosts.values()], tables);
  state.result.devices = topo.devices;
  state.result.links = topo.links;
  state.result.routes = routes.map((r) => ({ ...r, device_id: state.hosts.get(r.agent)?.device_id ?? '' }));
  for (const link of topo.links) ctl.emit('link', { link });
  progress(99);
}

/** Where each stored credential worked or failed, written once per scan (not per host). */
function recordUses(app: AppContext, uses: CredentialUseRecord[]) {
  if (!uses.length) return;
  void app.store.write((tx) => {
    for (const u of uses) {
      const use = { target: u.target, protocol: 'snmp', outcome: u.outcome, detail: u.detail };
      recordCredentialUse(tx, u.credentialId, use, app.clock.now());
    }
  }, 'sync').catch((e: unknown) => app.log.warn('could not record credential uses', { err: e }));
}

export function errorText(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}
