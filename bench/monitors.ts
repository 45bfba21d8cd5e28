// Monitors at scale: runs the real (compiled) service, with the node flags and environment of systemd/netprobe.service,
// with 1,000 and then 2,000 monitors (by default 40 % http, 25 % tcp, 20 % dns, 15 % ping, all against
// loopback peers) at a 60 s interval, after seeding 24 h of history, and prints what issue 13 asks of it:
// bytes written per minute (checkpoints included, and projected over a checkpoint period), RSS and VmHWM,
// CPU per check, GET /api/monitors latency, scheduling lag (p50, p99, max; also while the list is
// answered and while a checkpoint runs) and the start-up time. Prints figures, asserts nothing.
//
//   node --import tsx bench/monitors.ts                              # 30 min x 1,000 and 2,000 (~75 min)
//   node --import tsx bench/monitors.ts --minutes 3 --counts 1000    # while iterating (~6 min)
//   node --import tsx bench/monitors.ts --minutes 3 --counts 1000 --mix ping   # ping monitors only
//   options: --minutes N (window, default 30), --counts A,B (default 1000,2000), --mix mixed|http|ping,
//            --poll-s S (a GET /api/monitors every S s, default 2), --burst-s S (then S s of back-to-back
//            lists, default 20), --checkpoint-minutes M (then a run of M minutes with a checkpoint every
//            minute, default 3; 0 skips it), --keep (keep the data directories and service.log),
//            --profile DIR (the measured run writes a V8 CPU profile into DIR: it inflates the figures),
//            --rollup-days N (hour and day rollups of N days, 1-365, as a probe that ran N days holds under the default retention; default 1),
//            --hour-rollup-days N (hour rollups of N days whatever the retention, up to --rollup-days: a probe upgraded from a build
//            that kept them longer; the service's first retention pass, a minute into the window, deletes them),
//            --node-flags "F ..." (more node flags for the measured run and the checkpoint run, e.g. --trace-gc: its lines
//            go to service.log),
//            --env "K=V ..." (environment over the unit's Environment= for every run; K= unsets K)
//
// Per count, in a fresh data directory:
//   1. start the service, create an admin API key and the monitors through the API; wait until every
//      monitor has been checked once (up), stop the service;
//   2. seed 24 h of history (bench/monitors/seed.ts: the monitors module's own result path);
//   3. start the service on the seeded data (start-up time: to its first answer; it reads the whole results
//      channel, as after an upgrade or a crash with no start-up image) and measure for N minutes: RSS and a
//      GET /api/monitors every poll (timed by a client in a process of its own, bench/monitors/client.ts, as a
//      browser is), the scheduler's lag records (bench/monitors/lag.ts), /proc CPU and I/O
//      at both ends; then the burst of lists; stop it (which writes the start-up image), start it again
//      (the restart's start-up time, from the image) and stop it;
//   4. the checkpoint run: store.checkpoint_age_minutes 1 and a snapshot budget that lets it apply, so that
//      the lag of the slots inside checkpoints can be measured; stop it;
//   5. read the window's results back from the monitors channel to count checks by type.
// Peers: an HTTP server and 8 TCP listeners in a child process (bench/monitors/peers.ts), dnsmasq on
// 127.0.0.1:<free port>, ping targets 127.0.x.y (loopback only; fping). Their CPU is printed apart.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { JOURNAL_FILE, openStore, SNAPSHOT_FILE } from '../src/core/store/index.js';
import { MIGRATIONS } from '../src/main.js';
import { MONITOR_SERIES } from '../src/modules/monitors/service.js';
import { decodeMessage } from '../src/modules/monitors/storage/channel.js';
import { startDnsmasq, DNS_NAMES, type Dnsmasq } from './monitors/dnsmasq.js';
import { checkpointsIn, LagCollector, lagFigures, retentionIn, type Interval } from './monitors/lag.js';
import { cpuTimes, io, memory, type CpuTimes } from './monitors/proc.js';
import { report, type Figures, type FileSizes } from './monitors/report.js';
import { seedHistory, HISTORY_HOURS } from './monitors/seed.js';
import {
  adminKey, ClientProc, createMonitor, ensureBuilt, listMonitors, startServiceProc, unitEnvironment, unitNodeFlags,
  type MonitorBody, type ServiceProc,
} from './monitors/service.js';
import { fmtMs, freePort, int, mib, percentile, sleep } from './monitors/util.js';

// ---- options -----------------------------------------------------------------------------------

function option(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : undefined;
}
const MINUTES = Number(option('minutes') ?? 30);
const COUNTS = (option('counts') ?? '1000,2000').split(',').map((s) => Number(s.trim()));
const MIX = option('mix') ?? 'mixed';
const POLL_MS = Number(option('poll-s') ?? 2) * 1000;
const BURST_MS = Number(option('burst-s') ?? 20) * 1000;
const CHECKPOINT_MIN = Number(option('checkpoint-minutes') ?? 3);
/** Days of hour and day rollups the probe holds (raw history is 24 h either way): 30 is a probe a month old. */
const ROLLUP_DAYS = Number(option('rollup-days') ?? 1);
const HOUR_ROLLUP_DAYS = option('hour-rollup-days') === undefined ? undefined : Number(option('hour-rollup-days'));
const KEEP = process.argv.includes('--keep');
const PROFILE = option('profile');
/** Extra node flags for the measured and checkpoint runs, e.g. `--node-flags "--trace-gc"` (its lines go to service.log). */
const NODE_FLAGS = (option('node-flags') ?? '').split(/\s+/).filter(Boolean);
/** Environment over the unit's for every run, e.g. `--env "GLIBC_TUNABLES="` (empty: unset) to measure without it. */
const EXTRA_ENV = Object.fromEntries((option('env') ?? '').split(/\s+/).filter(Boolean).map((kv) => {
  const eq = kv.indexOf('=');
  return eq > 0 ? [kv.slice(0, eq), kv.slice(eq + 1)] : [kv, ''];
}));
/** The scheduler's ring holds the latest 8,192 starts: polled well before 2,000 monitors fill it. */
const LAG_POLL_MS = 5_000;
const TCP_LISTENERS = 8;
if (!(MINUTES > 0) || COUNTS.some((n) => !Number.isInteger(n) || n < 1) || !(POLL_MS > 0) || !['mixed', 'http', 'ping'].includes(MIX)
  || !(BURST_MS >= 0) || !(CHECKPOINT_MIN >= 0) || !Number.isInteger(ROLLUP_DAYS) || ROLLUP_DAYS < 1 || ROLLUP_DAYS > 365
  || (HOUR_ROLLUP_DAYS !== undefined && !(Number.isInteger(HOUR_ROLLUP_DAYS) && HOUR_ROLLUP_DAYS >= 1 && HOUR_ROLLUP_DAYS <= ROLLUP_DAYS))) {
  console.error('usage: node --import tsx bench/monitors.ts [--minutes N] [--counts 1000,2000] [--mix mixed|http|ping] [--poll-s 2] ' +
    '[--burst-s 20] [--checkpoint-minutes 3] [--rollup-days 1] [--hour-rollup-days N] [--keep] [--profile DIR] [--node-flags "F ..."] [--env "K=V ..."]');
  process.exit(2);
}

// ---- clean-up, also on failure and on Ctrl-C ---------------------------------------------------

const cleanups: (() => Promise<void>)[] = [];
async function cleanupAll(): Promise<void> {
  while (cleanups.length) await cleanups.pop()!().catch((e: unknown) => console.error('clean-up:', e));
}
for (const sig of ['SIGINT', 'SIGTERM'] as const) {
  process.once(sig, () => { console.error(`\n${sig}: cleaning up`); void cleanupAll().finally(() => process.exit(130)); });
}

// ---- peers ---------------------------------------------------------------------------------------

interface Peers { httpPort: number; tcpPorts: number[]; dns: Dnsmasq; proc: ChildProcess }

async function startPeers(): Promise<Peers> {
  const proc = spawn(process.execPath, ['--import', 'tsx', join(process.cwd(), 'bench/monitors/peers.ts'), String(TCP_LISTENERS)],
    { stdio: ['pipe', 'pipe', 'inherit'] });
  cleanups.push(async () => {
    if (proc.exitCode !== null || proc.signalCode !== null) return;
    const gone = new Promise((r) => proc.once('exit', r));
    proc.kill('SIGTERM');
    await gone;
  });
  const first = await new Promise<string>((resolve, reject) => {
    const rl = createInterface({ input: proc.stdout! });
    rl.once('line', (l) => { rl.close(); resolve(l); });
    proc.once('exit', (c) => reject(new Error(`peers exited (${c})`)));
  });
  const ports = JSON.parse(first) as { http: number; tcp: number[] };
  const dns = await startDnsmasq();
  cleanups.push(() => dns.stop());
  return { httpPort: ports.http, tcpPorts: ports.tcp, dns, proc };
}

/** The type of monitor i: the mix (40 % http, 25 % tcp, 20 % dns, 15 % ping, interleaved), or one type. */
function typeOf(i: number): MonitorBody['check_type'] {
  if (MIX !== 'mixed') return MIX as MonitorBody['check_type'];
  const slot = i % 20;
  return slot < 8 ? 'http' : slot < 13 ? 'tcp' : slot < 17 ? 'dns' : 'ping';
}

function monitorBody(i: number, peers: Peers, counters: Record<string, number>): MonitorBody {
  const type = typeOf(i);
  const j = counters[type] = (counters[type] ?? 0) + 1;
  const name = `bench-${String(i + 1).padStart(5, '0')}-${type}`;
  const tags = ['bench', type];
  switch (type) {
    case 'http': return { name, tags, check_type: type, target: `http://127.0.0.1:${peers.httpPort}/m/${i + 1}` };
    case 'tcp': return { name, tags, check_type: type, target: `127.0.0.1:${peers.tcpPorts[j % peers.tcpPorts.length]}` };
    case 'dns': return { name, tags, check_type: type, target: DNS_NAMES[j % DNS_NAMES.length]!,
      settings: { resolver: '127.0.0.1', port: peers.dns.port, record_type: 'A' } };
    default: {
      // 127.0.0.1-127.0.0.250, then 127.0.1.1-... : loopback addresses, one per ping monitor.
      const k = j - 1;
      return { name, tags, check_type: 'ping', target: `127.0.${Math.floor(k / 250)}.${1 + (k % 250)}` };
    }
  }
}

// ---- one count -----------------------------------------------------------------------------------

async function fileSizes(dir: string): Promise<FileSizes> {
  const s = async (f: string) => { try { return await stat(join(dir, f)); } catch { return null; } };
  const db = await s(SNAPSHOT_FILE), j = await s(JOURNAL_FILE);
  return { db: db?.size ?? 0, journal: j?.size ?? 0 };
}

const cpuSum = (c: CpuTimes | null) => (c ? c.self + c.children : NaN);
/** Defaults, except that the service listens on loopback only (its default is 0.0.0.0). */
const CONFIG = 'server:\n  host: 127.0.0.1\n';
/** The checkpoint run: a checkpoint each minute whatever the snapshot's size. */
const CHECKPOINT_CONFIG = `${CONFIG}store:\n  checkpoint_age_minutes: 1\n  snapshot_kib_per_minute: 1048576\n`;

async function runCount(n: number, peers: Peers): Promise<Figures> {
  const dir = await mkdtemp(join(tmpdir(), 'netprobe-bench-monitors-'));
  if (!KEEP) cleanups.push(() => rm(dir, { recursive: true, force: true }));
  const logFile = join(dir, 'service.log');
  const port = await freePort();
  await writeFile(join(dir, 'config.yaml'), CONFIG);
  const say = (s: string) => console.log(`[${n}] ${s}`);
  let current: ServiceProc | null = null;
  cleanups.push(async () => { await current?.stop(); });
  const start = async (extra: string[] = []) => { current = await startServiceProc(dir, port, logFile, extra, EXTRA_ENV); return current; };
  const stop = async () => { await current?.stop(); current = null; };

  // 1. monitors through the API, each checked once
  let svc = await start();
  const key = await adminKey(svc.base, dir);
  const mix: Record<string, number> = {};
  const counters: Record<string, number> = {};
  const bodies = Array.from({ length: n }, (_, i) => monitorBody(i, peers, counters));
  for (const b of bodies) mix[b.check_type] = (mix[b.check_type] ?? 0) + 1;
  const tc = performance.now();
  let next = 0;
  await Promise.all(Array.from({ length: 8 }, async () => {
    while (next < bodies.length) await createMonitor(svc.base, key, bodies[next++]!);
  }));
  const createMs = performance.now() - tc;
  say(`created ${int(n)} monitors in ${(createMs / 1000).toFixed(1)} s; waiting for their first checks`);
  await firstChecks(svc, key);
  await stop();

  // 2. 24 h of history
  say(`seeding ${HISTORY_HOURS} h of history${ROLLUP_DAYS > 1 ? ` and ${ROLLUP_DAYS} days of rollups` : ''} ...`);
  const seed = await seedHistory(dir, ROLLUP_DAYS, HOUR_ROLLUP_DAYS);
  say(`seeded ${int(seed.results)} results in ${(seed.ms / 1000).toFixed(1)} s; snapshot ${mib(seed.snapshotBytes)}`);

  // 3. the measured run
  svc = await start([...(PROFILE ? ['--cpu-prof', '--cpu-prof-dir', PROFILE] : []), ...NODE_FLAGS]);
  const startMs = svc.readyAt - svc.spawnedAt;
  const w0 = Date.now();
  const cpu0 = await cpuTimes(svc.pid);
  const io0 = await io(svc.pid);
  const peers0 = await cpuTimes(peers.proc.pid!), dns0 = await cpuTimes(peers.dns.child.pid!);
  const files0 = await fileSizes(dir);
  const mem0 = (await memory(svc.pid))!;
  const lag = new LagCollector(svc.base, key);
  await lag.poll();
  const client = new ClientProc(svc.base, key);
  say(`service up on the seeded data in ${(startMs / 1000).toFixed(2)} s; measuring for ${MINUTES} min`);

  const rss: number[] = [mem0.rssKb];
  const listMs: number[] = [];
  const versionMs: number[] = [];
  const listing: Interval[] = [];
  let listBytes = 0, maxJournal = files0.journal;
  const endAt = w0 + MINUTES * 60_000;
  let lastReport = w0, lastLagPoll = Date.now();
  let minuteCpu = cpu0!.self + cpu0!.children, minuteChecks = lag.checks;
  const cpuPerMinute: number[] = [];
  while (Date.now() < endAt) {
    versionMs.push(await client.version()); // what any request waits at this moment
    const tick = Date.now();
    const r = await client.list();
    listMs.push(r.ms);
    listing.push({ from: tick, to: Date.now() });
    listBytes = r.bytes;
    const m = await memory(svc.pid);
    if (!m) throw new Error(`service exited during the run:\n${svc.lines.slice(-20).join('\n')}`);
    rss.push(m.rssKb);
    maxJournal = Math.max(maxJournal, (await fileSizes(dir)).journal);
    if (Date.now() - lastLagPoll >= LAG_POLL_MS) { await lag.poll(); lastLagPoll = Date.now(); }
    if (Date.now() - lastReport >= 60_000) {
      lastReport = Date.now();
      // CPU per check over the last minute (service and fping, list polls included): shows how the window's
      // first minutes (JIT, the garbage of a start-up that read the whole channel) differ from the rest.
      await lag.poll(); lastLagPoll = Date.now();
      const c = await cpuTimes(svc.pid);
      const cpuNow = c ? c.self + c.children : NaN;
      const perCheck = (cpuNow - minuteCpu) / Math.max(1, lag.checks - minuteChecks);
      cpuPerMinute.push(perCheck);
      minuteCpu = cpuNow; minuteChecks = lag.checks;
      say(`  ${((Date.now() - w0) / 60_000).toFixed(1)} min: RSS ${mib(m.rssKb * 1024)}, list ${fmtMs(r.ms)}, journal ${mib(maxJournal)}, ` +
        `CPU ${perCheck.toFixed(2)} ms/check this minute`);
    }
    await sleep(Math.max(0, Math.min(endAt - Date.now(), POLL_MS - (Date.now() - tick))));
  }
  const w1 = Date.now();
  await lag.poll();
  const cpu1 = await cpuTimes(svc.pid);
  const io1 = await io(svc.pid);
  const peers1 = await cpuTimes(peers.proc.pid!), dns1 = await cpuTimes(peers.dns.child.pid!);
  const files1 = await fileSizes(dir);
  const mem1 = (await memory(svc.pid))!;
  rss.push(mem1.rssKb);
  const windowLines = svc.lines.length;
  const hwmWindow = mem1.hwmKb;

  // The burst: lists back to back, with the service's CPU around it (after the window).
  const burst: number[] = [];
  const b0 = Date.now();
  const cb0 = await cpuTimes(svc.pid);
  while (Date.now() - b0 < BURST_MS || burst.length < 10) {
    const t = Date.now();
    burst.push((await client.list()).ms);
    listing.push({ from: t, to: Date.now() });
  }
  const cb1 = await cpuTimes(svc.pid);
  const b1 = Date.now();
  client.close();
  await lag.poll();
  const hwm = (await memory(svc.pid))!.hwmKb;
  const warnings = svc.lines.filter((l) => / (WARN|ERROR) /.test(l)).length;
  const windowCheckpoints = checkpointsIn(svc.lines.slice(0, windowLines)).filter((c) => c.to >= w0);
  const retention = retentionIn(svc.lines.slice(0, windowLines), w0);
  if (KEEP) await writeFile(join(dir, 'lag-samples.json'), JSON.stringify({ w0, w1, b0, b1, listing, samples: lag.samples }));
  await stop();

  // 3b. a restart on the same data: the stop wrote the start-up image, which this start reads
  svc = await start();
  const loaded = /monitors loaded (\{.*\})/.exec(svc.lines.find((l) => l.includes('monitors loaded')) ?? '');
  const said = loaded ? JSON.parse(loaded[1]!) as { startup_image: string; ms: number; channel_entries: number } : null;
  const listening = /listening on \S+ (\{.*\})/.exec(svc.lines.find((l) => l.includes(' listening on http')) ?? '');
  const up = listening ? JSON.parse(listening[1]!) as { code_loaded_ms?: number; startup_ms?: number } : {};
  const restart = { ms: svc.readyAt - svc.spawnedAt, image: said?.startup_image ?? '?', loadMs: said?.ms ?? NaN,
    entries: said?.channel_entries ?? NaN, rss: (await memory(svc.pid))!.rssKb * 1024,
    codeMs: up.code_loaded_ms ?? NaN, listeningMs: up.startup_ms ?? NaN };
  say(`restarted in ${(restart.ms / 1000).toFixed(2)} s (start-up image: ${restart.image})`);
  await stop();

  // 4. the checkpoint run
  let ckpt: Figures['checkpointRun'] = null;
  if (CHECKPOINT_MIN > 0) {
    say(`checkpoint run: ${CHECKPOINT_MIN} min with a checkpoint every minute`);
    await writeFile(join(dir, 'config.yaml'), CHECKPOINT_CONFIG);
    svc = await start(NODE_FLAGS);
    const ck = new LagCollector(svc.base, key);
    const c0 = Date.now();
    for (await ck.poll(); Date.now() - c0 < CHECKPOINT_MIN * 60_000 + 15_000; await ck.poll()) await sleep(LAG_POLL_MS / 2);
    const cps = checkpointsIn(svc.lines).filter((c) => c.from >= c0);
    const m = (await memory(svc.pid))!;
    ckpt = {
      rss: m.rssKb * 1024, hwm: m.hwmKb * 1024,
      checkpoints: cps.length, snapshot: cps.at(-1)?.snapshotBytes ?? 0,
      ms: percentile(cps.map((c) => c.to - c.from), 50), syncMs: Math.max(...cps.map((c) => c.syncMs)),
      inSteps: cps.filter((c) => c.copy === 'steps').length, turns: percentile(cps.map((c) => c.turns), 50),
      during: lagFigures(ck.samples, c0, Date.now(), cps), all: lagFigures(ck.samples, c0, Date.now()),
    };
    await stop();
    await writeFile(join(dir, 'config.yaml'), CONFIG);
  }

  // 5. the window's results, from the monitors channel of the stopped service
  const store = await openStore({ dir, migrations: MIGRATIONS, log: () => undefined });
  const checksByType: Record<string, number> = {};
  let checks = 0;
  try {
    const rows = store.all<{ pk: number; check_type: string }>('SELECT pk, check_type FROM monitors');
    const types = new Map(rows.map((r) => [r.pk, r.check_type]));
    store.readChannel(MONITOR_SERIES.channel, (entry) => {
      const e = decodeMessage(entry.bytes.subarray(entry.start, entry.end));
      if (e.kind !== 'result' || e.result.t < w0 || e.result.t >= w1) return;
      const type = types.get(e.pk) ?? '?';
      checksByType[type] = (checksByType[type] ?? 0) + 1;
      checks++;
    });
  } finally {
    await store.close();
  }

  return {
    n, mix: MIX, mixCounts: mix, createMs, seed, startMs, restart, windowMin: (w1 - w0) / 60_000,
    rss: { start: mem0.rssKb * 1024, max: Math.max(...rss) * 1024, end: mem1.rssKb * 1024, hwm: hwmWindow * 1024, hwmBurst: hwm * 1024 },
    cpu: { self: cpu1!.self - cpu0!.self, sys: cpu1!.sys - cpu0!.sys, children: cpu1!.children - cpu0!.children }, cpuPerMinute,
    checks, checksByType,
    listPolls: listMs.length, listBurstCpuMs: (cpuSum(cb1) - cpuSum(cb0)) / burst.length,
    version: { p50: percentile(versionMs, 50), p99: percentile(versionMs, 99), max: Math.max(...versionMs) },
    list: { p50: percentile(listMs, 50), p99: percentile(listMs, 99), max: Math.max(...listMs), n: listMs.length,
      burstN: burst.length, burstP50: percentile(burst, 50), burstP99: percentile(burst, 99), bytes: listBytes },
    lag: {
      window: lagFigures(lag.samples, w0, w1),
      listing: lagFigures(lag.samples, w0, b1, listing),
      burst: lagFigures(lag.samples, b0, b1),
    },
    files: { start: files0, end: files1, maxJournal, checkpoints: windowCheckpoints.length, segments: seed.segments },
    io: { start: io0, end: io1 },
    checkpointRun: ckpt,
    peersCpu: cpuSum(peers1) - cpuSum(peers0),
    dnsmasqCpu: cpuSum(dns1) - cpuSum(dns0),
    warnings,
    retention,
  };
}

/** Waits until every monitor has been checked once, and up. */
async function firstChecks(svc: ServiceProc, key: string): Promise<void> {
  for (let waited = 0; ; waited += 1000) {
    const { monitors } = await listMonitors(svc.base, key);
    const pendingN = monitors.filter((m) => m.status === 'unknown' || !m.last_check).length;
    const bad = monitors.filter((m) => m.last_check && m.status !== 'up');
    if (bad.length) {
      const some = bad.slice(0, 3).map((m) => `${m.name}: ${m.status} ${m.last_message}`).join('; ');
      throw new Error(`${bad.length} monitors not up, e.g. ${some}`);
    }
    if (!pendingN) return;
    if (waited > 180_000) throw new Error(`${pendingN} monitors still unchecked after 180 s`);
    await sleep(1000);
  }
}

// ---- main ----------------------------------------------------------------------------------------

async function main(): Promise<void> {
  const built = ensureBuilt();
  console.log(`bench/monitors: ${COUNTS.join(', ')} monitors (${MIX}), ${MINUTES} min each, list polled every ${POLL_MS / 1000} s ` +
    `(dist/ ${built === 'built' ? 'rebuilt' : 'up to date'}; ` +
    `node flags from systemd/netprobe.service: ${unitNodeFlags().join(' ') || 'none'}; environment: ` +
    `${Object.entries({ ...unitEnvironment(), ...EXTRA_ENV }).filter(([, v]) => v).map(([k, v]) => `${k}=${v}`).join(' ') || 'none'})`);
  const peers = await startPeers();
  console.log(`peers: http 127.0.0.1:${peers.httpPort}, tcp 127.0.0.1:{${peers.tcpPorts.join(',')}}, ` +
    `dnsmasq 127.0.0.1:${peers.dns.port}, ping 127.0.x.y`);
  const all: string[][] = [];
  for (const n of COUNTS) {
    const lines = report(await runCount(n, peers));
    all.push(lines);
    console.log('\n' + lines.join('\n') + '\n');
  }
  if (all.length > 1) {
    console.log('==== summary ====');
    for (const lines of all) console.log(lines.join('\n') + '\n');
  }
}

main()
  .catch((e: unknown) => { console.error(e); process.exitCode = 1; })
  .finally(() => cleanupAll().then(() => process.exit()));
