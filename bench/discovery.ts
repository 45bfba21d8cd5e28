// Discovery against the test lab (docs/lab.md), side by side with the tools a person would otherwise
// use: the compiled service's full scan of the lab's /24 (16 live hosts, 7 SNMP agents: liveness,
// identification, neighbours, topology), `nmap -sn -n` (host discovery alone; as root on a LAN it
// ARP-pings) and `fping -a -g` with its defaults, each run --runs times; then one scan of the lab's
// whole /20; SSH enrichment of the lab's SSH host (enrich.ts); then the inventory diff of a 1,000-device
// session against 1,000 endpoints (diff.ts). Prints wall time, CPU time and peak RSS of each (for the service: the CPU its process and
// the programs it ran spent during the scan, and how far its RSS rose above idle).
//
//   sudo node --import tsx bench/discovery.ts [--runs 3] [--no-20]
//
// Needs root (the lab), Debian's nmap, fping and time, and what the lab needs (./build.sh test installs
// them). Every packet stays in the lab: the service and the tools scan only lab subnets.
import { spawnSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { labDown, labUp, type LabInfo } from '../scripts/lab/lab.js';
import { benchInventoryDiff, formatInventoryDiff } from './discovery/diff.js';
import { benchEnrichment, formatEnrichment } from './discovery/enrich.js';
import { cpuTimes, memory } from './monitors/proc.js';
import { adminKey, ensureBuilt, startServiceProc, type ServiceProc } from './monitors/service.js';
import { freePort, sleep } from './monitors/util.js';

const argv = process.argv.slice(2);
const RUNS = Number(argv[argv.indexOf('--runs') + 1] ?? 3) || 3;
const WITH_20 = !argv.includes('--no-20');

interface Figure { wall_ms: number; cpu_ms: number; rss_mib: number; found: number; note?: string }

/** A program under GNU time: wall, user+sys CPU and peak RSS, and how many hosts it reported alive. */
function timed(cmd: string, args: string[], count: (stdout: string) => number): Figure {
  const r = spawnSync('/usr/bin/time', ['-f', '@@ %e %U %S %M', cmd, ...args], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  if (r.error) throw r.error;
  const m = /@@ ([\d.]+) ([\d.]+) ([\d.]+) (\d+)/.exec(r.stderr);
  if (!m) throw new Error(`${cmd}: no timing (${r.stderr.slice(0, 300)})`);
  return { wall_ms: Number(m[1]) * 1000, cpu_ms: (Number(m[2]) + Number(m[3])) * 1000, rss_mib: Number(m[4]) / 1024, found: count(r.stdout) };
}

async function scan(svc: ServiceProc, key: string, subnet: string, community: string): Promise<Figure & { snmp: number; links: number }> {
  const headers = { 'x-api-key': key, 'content-type': 'application/json' };
  const cpu0 = (await cpuTimes(svc.pid))!;
  const mem0 = (await memory(svc.pid))!;
  const t0 = performance.now();
  const r = await fetch(`${svc.base}/api/v1sion/scan`, { method: 'POST', headers, body: JSON.stringify({ subnet, community }) });
  const started = await r.json() as { job_id: string };
  if (r.status !== 202) throw new Error(`scan: ${r.status} ${JSON.stringify(started)}`);
  // Follow the stream to its final message, sampling RSS meanwhile.
  let peakKb = mem0.rssKb;
  const sampler = setInterval(() => { void memory(svc.pid).then((m) => { if (m) peakKb = Math.max(peakKb, m.rssKb); }); }, 20);
  const stream = await fetch(`${svc.base}/api/v1sion/scan/${started.job_id}/stream`, { headers });
  await stream.text();
  const wall = performance.now() - t0;
  clearInterval(sampler);
  const cpu1 = (await cpuTimes(svc.pid))!;
  let result: { counts: { live: number; snmp: number; links: number }; state: string } | undefined;
  for (let i = 0; i < 100 && !result; i++) {
    const res = await fetch(`${svc.base}/api/v1sion/scan/${started.job_id}/result`, { headers });
    if (res.status === 200) result = await res.json() as typeof result;
    else { await res.arrayBuffer(); await sleep(50); }
  }
  if (!result) throw new Error('scan result not kept');
  return {
    wall_ms: wall, cpu_ms: (cpu1.self + cpu1.children) - (cpu0.self + cpu0.children), rss_mib: (peakKb - mem0.rssKb) / 1024,
    found: result.counts.live, snmp: result.counts.snmp, links: result.counts.links, note: result.state,
  };
}

const med = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const row = (name: string, fs: Figure[], extra = '') =>
  `${name.padEnd(34)} ${`${(med(fs.map((f) => f.wall_ms)) / 1000).toFixed(2)} s`.padStart(9)} ` +
  `${`${Math.round(med(fs.map((f) => f.cpu_ms)))} ms`.padStart(9)} ${`${med(fs.map((f) => f.rss_mib)).toFixed(1)} MiB`.padStart(10)} ` +
  `${String(med(fs.map((f) => f.found))).padStart(6)}  ${extra}`;

async function main(): Promise<void> {
  if (process.getuid?.() !== 0) throw new Error('bench/discovery needs root (the lab creates network namespaces)');
  for (const p of ['/usr/bin/time', '/usr/bin/nmap', '/usr/bin/fping']) {
    if (spawnSync('test', ['-x', p]).status !== 0) throw new Error(`${p} is missing (apt-get install time nmap fping)`);
  }
  const built = ensureBuilt();
  const lab: LabInfo = await labUp({ corpus: false });
  const dir = await mkdtemp(join(tmpdir(), 'netprobe-bench-discovery-'));
  let svc: ServiceProc | undefined;
  try {
    const lan = lab.subnets.find((s) => s.name === 'lan')!;
    const live = lab.hosts.filter((h) => h.subnet === 'lan').length + 1;
    const agents = lab.hosts.filter((h) => h.subnet === 'lan' && h.snmp).length;
    await writeFile(join(dir, 'config.yaml'), `discovery:\n  dns_servers: [${lab.resolver}]\n`);
    svc = await startServiceProc(dir, await freePort(), join(dir, 'service.log'));
    const key = await adminKey(svc.base, dir);
    // Stored credentials for the agents on the second community and on SNMPv3, saved as the discovery
    // credentials, so one scan request identifies all seven agents.
    const headers = { 'x-api-key': key, 'content-type': 'application/json' };
    const post = async (path: string, body: unknown) => {
      const r = await fetch(svc!.base + path, { method: 'POST', headers, body: JSON.stringify(body) });
      const j = await r.json() as { id?: string };
      if (r.status >= 300) throw new Error(`${path}: ${r.status} ${JSON.stringify(j)}`);
      return j;
    };
    await post('/api/brain/vault/setup', { passphrase: 'bench passphrase long enough' });
    const c2 = await post('/api/brain/credentials', { name: 'second', kind: 'snmp_v2c', community: lab.snmp.community2 });
    const v3 = await post('/api/brain/credentials', {
      name: 'v3', kind: 'snmp_v3', username: lab.snmp.v3.username, snmpv3_level: 'authPriv', snmpv3_auth_protocol: 'sha',
      snmpv3_auth_key: lab.snmp.v3.auth_key, snmpv3_priv_protocol: 'aes', snmpv3_priv_key: lab.snmp.v3.priv_key,
    });
    await post('/api/v1sion/credentials', { credentials: [{ credential_id: c2.id }, { credential_id: v3.id }] });
    await sleep(2000); // idle RSS settles after start-up
    const idle = (await memory(svc.pid))!;

    console.log(`bench/discovery: the lab's ${lan.cidr} (${live} live addresses incl. the probe, ${agents} SNMP agents), ` +
      `${RUNS} runs each, medians (dist/ ${built}; service idle RSS ${(idle.rssKb / 1024).toFixed(1)} MiB)`);
    console.log(`${'what'.padEnd(34)} ${'wall'.padStart(9)} ${'CPU'.padStart(9)} ${'RSS'.padStart(10)} ${'found'.padStart(6)}`);
    const full: (Figure & { snmp: number; links: number })[] = [];
    const nmap: Figure[] = [];
    const fping: Figure[] = [];
    for (let i = 0; i < RUNS; i++) {
      full.push(await scan(svc, key, lan.cidr, lab.snmp.community));
      nmap.push(timed('nmap', ['-sn', '-n', '-oG', '-', lan.cidr], (o) => (o.match(/Status: Up/g) ?? []).length));
      fping.push(timed('fping', ['-a', '-q', '-g', lan.cidr], (o) => o.split('\n').filter(Boolean).length));
    }
    console.log(row('netprobe scan (identify+neighbours)', full, `(RSS: rise over idle) snmp ${med(full.map((f) => f.snmp))}, ` +
      `links ${med(full.map((f) => f.links))}`));
    console.log(row('nmap -sn -n (host discovery only)', nmap));
    console.log(row('fping -a -g (defaults)', fping));
    const ratio = med(full.map((f) => f.wall_ms)) / med(nmap.map((f) => f.wall_ms));
    console.log(`scan / nmap -sn wall: ${ratio.toFixed(2)}x (target at most 1.5x); scan CPU ${Math.round(med(full.map((f) => f.cpu_ms)))} ms ` +
      `(target < 500 ms); RSS rise ${med(full.map((f) => f.rss_mib)).toFixed(1)} MiB (target < 25 MiB)`);
    if (WITH_20) {
      const big = await scan(svc, key, lab.range, lab.snmp.community);
      console.log(row(`netprobe scan of ${lab.range}`, [big], `state ${big.note}, snmp ${big.snmp}, links ${big.links} (target < 30 s)`));
    }
    // SSH enrichment of the lab's SSH host (bench/discovery/enrich.ts).
    console.log(formatEnrichment(await benchEnrichment({ base: svc.base, key, pid: svc.pid, lab, runs: RUNS,
      vaultPassphrase: 'bench passphrase long enough' })));
  } finally {
    await svc?.stop();
    await labDown(lab.slot);
    await rm(dir, { recursive: true, force: true });
  }
  // Reconciliation: no network, the service in-process (bench/discovery/diff.ts).
  console.log(formatInventoryDiff(await benchInventoryDiff({ devices: 1000, endpoints: 1000 })));
}

main().catch((e: unknown) => { console.error(e instanceof Error ? e.stack ?? e.message : e); process.exitCode = 1; });
