// Monitors at scale: runs the real (compiled) service with 1,000 and then 2,000 monitors (40 % http,
// 25 % tcp, 20 % dns, 15 % ping, all against loopback peers) at a 60 s interval for N minutes each,
// after seeding 24 h of history, and prints: resident memory, CPU per check, scheduling lag p50/p99,
// GET /api/monitors latency p50/p99, database and journal size, bytes written to disk per minute.
// Prints figures, asserts nothing.
//
//   node --import tsx bench/monitors.ts                          # 5 min x 1,000 and 2,000 (~20 min)
//   node --import tsx bench/monitors.ts --minutes 1 --counts 100  # smoke run (~2 min)
//   options: --minutes N (default 5), --counts A,B (default 1000,2000), --poll-s S (default 2),
//            --keep (keep the data directories and service.log), --profile DIR (the measured service run
//            writes a V8 CPU profile into DIR: for diagnosis only, it inflates the figures)
//
// Per count, in a fresh data directory:
//   1. start the service, create an admin API key and the monitors through the API; wait until every
//      monitor has been checked once (up), stop the service;
//   2. seed 24 h of history into its store (bench/monitors/seed.ts: the monitors module's own result
//      path, round by round in time order; 1,440 results per monitor and their rollups);
//   3. start the service again on the seeded data and measure for N minutes (the window opens when it
//      answers): RSS every poll, GET /api/monitors every poll, /proc CPU and I/O at both ends, then 50
//      sequential GET /api/monitors; stop it (it checkpoints) and read the window's results back from the
//      store to count checks and compute the scheduling lag (bench/monitors/lag.ts).
// Peers: an HTTP server and 8 TCP listeners in a child process (bench/monitors/peers.ts), dnsmasq on
// 127.0.0.1:<free port>, ping targets 127.0.x.y (loopback only; fping). Their CPU is printed apart.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { JOURNAL_FILE, openStore, SNAPSHOT_FILE } from '../src/core/store/index.js';
import { MIGRATIONS } from '../src/main.js';
import { startDnsmasq, DNS_NAMES, type Dnsmasq } from './monitors/dnsmasq.js';
import { schedulerLogTime, schedulingLag } from './monitors/lag.js';
import { cpuTimes, io, memory, type CpuTimes, type IoSample } from './monitors/proc.js';
import { seedHistory, HISTORY_HOURS, type SeedInfo } from './monitors/seed.js';
import {
  adminKey, createMonitor, ensureBuilt, listMonitors, startServiceProc, type MonitorBody, type ServiceProc,
} from './monitors/service.js';
import { fmtMs, freePort, int, kib, mib, percentile, sleep } from './monitors/util.js';

// ---- options -----------------------------------------------------------------------------------

function option(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : undefined;
}
const MINUTES = Number(option('minutes') ?? 5);
const COUNTS = (option('counts') ?? '1000,2000').split(',').map((s) => Number(s.trim()));
const POLL_MS = Number(option('poll-s') ?? 2) * 1000;
const KEEP = process.argv.includes('--keep');
const PROFILE = option('profile');
/** The store's checkpoint bounds at their defaults (src/core/config.ts: store.checkpoint_mb, checkpoint_age_minutes). */
const CHECKPOINT_BYTES = 8 * 1024 * 1024;
const CHECKPOINT_AGE_MIN = 10;
const BURST = 50;
const TCP_LISTENERS = 8;
if (!(MINUTES > 0) || COUNTS.some((n) => !Number.isInteger(n) || n < 1) || !(POLL_MS > 0)) {
  console.error('usage: node --import tsx bench/monitors.ts [--minutes N] [--counts 1000,2000] [--poll-s 2] [--keep]');
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

/** Monitor i of n: 40 % http, 25 % tcp, 20 % dns, 15 % ping (interleaved, so every count has the mix). */
function monitorBody(i: number, peers: Peers, counters: Record<string, number>): MonitorBody {
  const slot = i % 20;
  const type = slot < 8 ? 'http' : slot < 13 ? 'tcp' : slot < 17 ? 'dns' : 'ping';
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

interface FileSizes { db: number; journal: number; dbIno: number }
async function fileSizes(dir: string): Promise<FileSizes> {
  const s = async (f: string) => { try { return await stat(join(dir, f)); } catch { return null; } };
  const db = await s(SNAPSHOT_FILE), j = await s(JOURNAL_FILE);
  return { db: db?.size ?? 0, journal: j?.size ?? 0, dbIno: db?.ino ?? 0 };
}

const cpuSum = (c: CpuTimes | null) => (c ? c.self + c.children : NaN);

interface Figures {
  n: number;
  mix: Record<string, number>;
  createMs: number;
  seed: SeedInfo;
  startMs: number;
  windowMin: number;
  rss: { start: number; max: number; end: number; hwm: number };
  cpu: { self: number; sys: number; children: number };
  checks: number;
  checksByType: Record<string, number>;
  listPolls: number;
  listBurstCpuMs: number;
  lag: { p50: number; p99: number; max: number; n: number; early: number; tooEarly: number; missed: number; expected: number;
    overdue: number; planBeforeLogMs: number };
  list: { p50: number; p99: number; max: number; n: number; burstP50: number; burstP99: number; bytes: number };
  files: { start: FileSizes; end: FileSizes; maxJournal: number; checkpoints: number };
  io: { start: IoSample | null; end: IoSample | null };
  peersCpu: number;
  dnsmasqCpu: number;
  warnings: number;
}

async function runCount(n: number, peers: Peers): Promise<Figures> {
  const dir = await mkdtemp(join(tmpdir(), 'netprobe-bench-monitors-'));
  if (!KEEP) cleanups.push(() => rm(dir, { recursive: true, force: true }));
  const logFile = join(dir, 'service.log');
  const port = await freePort();
  // Defaults, except that the service listens on loopback only (its default is 0.0.0.0, and the bench
  // bootstraps an administrator with a known password).
  await writeFile(join(dir, 'config.yaml'), 'server:\n  host: 127.0.0.1\n');
  const say = (s: string) => console.log(`[${n}] ${s}`);

  // 1. monitors through the API, each checked once
  let svc: ServiceProc = await startServiceProc(dir, port, logFile);
  let current: ServiceProc | null = svc;
  cleanups.push(async () => { await current?.stop(); });
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
  for (let waited = 0; ; waited += 1000) {
    const { monitors } = await listMonitors(svc.base, key);
    const pendingN = monitors.filter((m) => m.status === 'unknown' || !m.last_check).length;
    const bad = monitors.filter((m) => m.last_check && m.status !== 'up');
    if (bad.length) throw new Error(`${bad.length} monitors not up, e.g. ${bad.slice(0, 3).map((m) => `${m.name}: ${m.status} ${m.last_message}`).join('; ')}`);
    if (!pendingN) break;
    if (waited > 180_000) throw new Error(`${pendingN} monitors still unchecked after 180 s`);
    await sleep(1000);
  }
  await svc.stop();
  current = null;

  // 2. 24 h of history
  say(`seeding ${HISTORY_HOURS} h of history ...`);
  const seed = await seedHistory(dir);
  say(`seeded ${int(seed.results)} results in ${(seed.ms / 1000).toFixed(1)} s; snapshot ${mib(seed.snapshotBytes)}`);

  // 3. the measured run
  svc = await startServiceProc(dir, port, logFile, PROFILE ? ['--cpu-prof', '--cpu-prof-dir', PROFILE] : []);
  current = svc;
  const startMs = svc.readyAt - svc.spawnedAt;
  const w0 = Date.now();
  const cpu0 = await cpuTimes(svc.pid);
  const io0 = await io(svc.pid);
  const peers0 = await cpuTimes(peers.proc.pid!), dns0 = await cpuTimes(peers.dns.child.pid!);
  const files0 = await fileSizes(dir);
  const mem0 = (await memory(svc.pid))!;
  say(`service up on the seeded data in ${(startMs / 1000).toFixed(1)} s; measuring for ${MINUTES} min`);

  const rss: number[] = [mem0.rssKb];
  const listMs: number[] = [];
  let listBytes = 0, maxJournal = files0.journal, checkpoints = 0, lastIno = files0.dbIno;
  const endAt = w0 + MINUTES * 60_000;
  let lastReport = w0;
  while (Date.now() < endAt) {
    const tick = Date.now();
    const r = await listMonitors(svc.base, key);
    listMs.push(r.ms);
    listBytes = r.bytes;
    const m = await memory(svc.pid);
    if (!m) throw new Error(`service exited during the run:\n${svc.lines.slice(-20).join('\n')}`);
    rss.push(m.rssKb);
    const f = await fileSizes(dir);
    maxJournal = Math.max(maxJournal, f.journal);
    if (f.dbIno && f.dbIno !== lastIno) { checkpoints++; lastIno = f.dbIno; }
    if (Date.now() - lastReport >= 60_000) {
      lastReport = Date.now();
      say(`  ${((Date.now() - w0) / 60_000).toFixed(1)} min: RSS ${mib(m.rssKb * 1024)}, list ${fmtMs(r.ms)}, journal ${mib(f.journal)}`);
    }
    await sleep(Math.max(0, Math.min(endAt - Date.now(), POLL_MS - (Date.now() - tick))));
  }
  const w1 = Date.now();
  const cpu1 = await cpuTimes(svc.pid);
  const io1 = await io(svc.pid);
  const peers1 = await cpuTimes(peers.proc.pid!), dns1 = await cpuTimes(peers.dns.child.pid!);
  const files1 = await fileSizes(dir);
  const mem1 = (await memory(svc.pid))!;
  rss.push(mem1.rssKb);
  if (files1.dbIno !== lastIno) checkpoints++;

  // The burst: 50 sequential lists, with the service's CPU around it (after the window).
  const burst: number[] = [];
  const cb0 = await cpuTimes(svc.pid);
  for (let i = 0; i < BURST; i++) burst.push((await listMonitors(svc.base, key)).ms);
  const cb1 = await cpuTimes(svc.pid);
  const hwm = (await memory(svc.pid))!.hwmKb;
  const warnings = svc.lines.filter((l) => / (WARN|ERROR) /.test(l)).length;
  const logTime = schedulerLogTime(svc.lines);
  await svc.stop();
  current = null;
  if (logTime == null) throw new Error('no "monitor scheduler started" line in the service log');

  // Results of the run, from the store the service checkpointed on exit.
  const store = await openStore({ dir, migrations: MIGRATIONS, log: () => undefined });
  let results: { m: number; t: number; type: string }[];
  try {
    results = store.all<{ m: number; t: number; type: string }>(
      'SELECT r.m AS m, r.t AS t, mo.check_type AS type FROM monitor_results r JOIN monitors mo ON mo.pk = r.m WHERE r.t > ? ORDER BY r.t',
      [seed.lastSeeded]);
  } finally {
    await store.close();
  }
  const inWindow = results.filter((r) => r.t >= w0 && r.t < w1);
  const checksByType: Record<string, number> = {};
  for (const r of inWindow) checksByType[r.type] = (checksByType[r.type] ?? 0) + 1;
  const lag = schedulingLag(seed.specs, logTime, results, w1);
  // Lateness: a check started before its slot (coalescing) was on time.
  const late = lag.lags.map((l) => Math.max(0, l));

  return {
    n, mix, createMs, seed, startMs, windowMin: (w1 - w0) / 60_000,
    rss: { start: mem0.rssKb * 1024, max: Math.max(...rss) * 1024, end: mem1.rssKb * 1024, hwm: hwm * 1024 },
    cpu: { self: cpu1!.self - cpu0!.self, sys: cpu1!.sys - cpu0!.sys, children: cpu1!.children - cpu0!.children },
    checks: inWindow.length, checksByType,
    listPolls: listMs.length, listBurstCpuMs: (cpuSum(cb1) - cpuSum(cb0)) / BURST,
    lag: { p50: percentile(late, 50), p99: percentile(late, 99), max: late.reduce((a, b) => Math.max(a, b), -Infinity), n: late.length,
      early: lag.early, tooEarly: lag.tooEarly, missed: lag.missed, expected: lag.expected, overdue: lag.overdue,
      planBeforeLogMs: lag.planBeforeLogMs },
    list: { p50: percentile(listMs, 50), p99: percentile(listMs, 99), max: Math.max(...listMs), n: listMs.length,
      burstP50: percentile(burst, 50), burstP99: percentile(burst, 99), bytes: listBytes },
    files: { start: files0, end: files1, maxJournal, checkpoints },
    io: { start: io0, end: io1 },
    peersCpu: cpuSum(peers1) - cpuSum(peers0),
    dnsmasqCpu: cpuSum(dns1) - cpuSum(dns0),
    warnings,
  };
}

// ---- printing ------------------------------------------------------------------------------------

function report(f: Figures): string[] {
  const out: string[] = [];
  const row = (label: string, value: string) => out.push(`  ${label.padEnd(34)} ${value}`);
  const cpuTotal = f.cpu.self + f.cpu.children;
  const listCpu = f.listPolls * f.listBurstCpuMs;
  const written = f.io.start && f.io.end ? f.io.end.writeBytes - f.io.start.writeBytes : NaN;
  const cancelled = f.io.start && f.io.end ? f.io.end.cancelledWriteBytes - f.io.start.cancelledWriteBytes : NaN;
  const mixText = ['http', 'tcp', 'dns', 'ping'].map((t) => `${f.mix[t] ?? 0} ${t}`).join(', ');
  const s = f.seed;
  out.push(`${int(f.n)} monitors (${mixText}), interval 60 s, window ${f.windowMin.toFixed(2)} min`);
  row('create through the API', `${(f.createMs / 1000).toFixed(1)} s (8 in parallel, each checked at once)`);
  row(`seed ${HISTORY_HOURS} h of history`, `${(s.ms / 1000).toFixed(1)} s: ${int(s.results)} results (${int(s.results / f.n)}/monitor), ` +
    `rollups ${int(s.rollups.minute)} minute / ${int(s.rollups.hour)} hour / ${int(s.rollups.day)} day, ${int(s.messages)} messages, ${int(s.events)} events`);
  row('seeded snapshot', `${mib(s.snapshotBytes)} (${int(s.snapshotBytes / f.n)} B/monitor), journal ${int(s.journalBytes)} B`);
  row('start on the seeded data', `${(f.startMs / 1000).toFixed(2)} s to the first answer`);
  row('resident memory (VmRSS)', `start ${mib(f.rss.start)}, max ${mib(f.rss.max)}, end ${mib(f.rss.end)}; VmHWM ${mib(f.rss.hwm)}`);
  row('checks in the window', `${int(f.checks)} (${['http', 'tcp', 'dns', 'ping'].map((t) => `${int(f.checksByType[t] ?? 0)} ${t}`).join(', ')}), ` +
    `${(f.checks / f.windowMin).toFixed(0)}/min`);
  row('CPU per check', `${fmtMs(cpuTotal / f.checks)} (service ${(f.cpu.self / 1000).toFixed(1)} s, of which ` +
    `${(f.cpu.sys / 1000).toFixed(1)} s system, + fping children ` +
    `${(f.cpu.children / 1000).toFixed(1)} s over ${int(f.checks)} checks)`);
  row('  without the list polling', `${fmtMs((cpuTotal - listCpu) / f.checks)} (${f.listPolls} polls x ${fmtMs(f.listBurstCpuMs)} CPU ` +
    `each, from the burst, subtracted)`);
  row('  CPU share of one core', `${((cpuTotal / (f.windowMin * 60_000)) * 100).toFixed(1)} % (all service work in the window)`);
  row('scheduling lag', `p50 ${fmtMs(f.lag.p50)}, p99 ${fmtMs(f.lag.p99)}, max ${fmtMs(f.lag.max)} over ${int(f.lag.n)} checks; ` +
    `missed slots ${int(f.lag.missed)} of ${int(f.lag.expected)} (slots up to 13 s before the end)`);
  row('  started before the slot (as 0)', `${int(f.lag.early)} checks (coalescing: up to 20 ms early by design)${f.lag.tooEarly ? `; ${f.lag.tooEarly} more than 20 ms early (plan time off?)` : ''}`);
  row('  start-up plan', `${int(f.lag.overdue)} of ${int(f.n)} monitors overdue (spread over 60 s); plan time ${f.lag.planBeforeLogMs} ms before its log line`);
  row('GET /api/monitors, every poll', `p50 ${fmtMs(f.list.p50)}, p99 ${fmtMs(f.list.p99)}, max ${fmtMs(f.list.max)} (${f.list.n} requests, ${kib(f.list.bytes)})`);
  row(`GET /api/monitors, ${BURST} in a row`, `p50 ${fmtMs(f.list.burstP50)}, p99 ${fmtMs(f.list.burstP99)}; ${fmtMs(f.listBurstCpuMs)} service CPU each`);
  row('netprobe.db', `start ${mib(f.files.start.db)}, end ${mib(f.files.end.db)}`);
  row('netprobe.journal', `start ${kib(f.files.start.journal)}, end ${kib(f.files.end.journal)}, max seen ${mib(f.files.maxJournal)}`);
  row('checkpoints in the window', `${f.files.checkpoints} (new netprobe.db inode seen, polled)`);
  if (Number.isFinite(written)) {
    row('written to disk (write_bytes)', `${mib(written / f.windowMin)}/min, ${kib(written / f.checks)}/check ` +
      `(${mib(written)} in the window; cancelled_write_bytes ${mib(cancelled)})`);
    if (f.files.checkpoints === 0) {
      // No checkpoint fell in the window: add the snapshot writes the size/age bounds will cause.
      const journalPerMin = (f.files.end.journal - f.files.start.journal) / f.windowMin;
      const period = Math.min(CHECKPOINT_AGE_MIN, journalPerMin > 0 ? CHECKPOINT_BYTES / journalPerMin : Infinity);
      row('  with checkpoints (projected)', `${mib(written / f.windowMin + f.files.end.db / period)}/min: journal grows ` +
        `${mib(journalPerMin)}/min, so a ${mib(f.files.end.db)} snapshot every ${period.toFixed(1)} min ` +
        `(bounds ${CHECKPOINT_BYTES / 1024 / 1024} MiB / ${CHECKPOINT_AGE_MIN} min)`);
    }
  } else {
    row('written to disk', '/proc/<pid>/io unavailable here');
  }
  row('peers\' own CPU (not the service)', `http+tcp process ${(f.peersCpu / 1000).toFixed(2)} s, dnsmasq ${(f.dnsmasqCpu / 1000).toFixed(2)} s`);
  if (f.warnings) row('service log', `${f.warnings} WARN/ERROR lines (see --keep and service.log)`);
  return out;
}

// ---- main ----------------------------------------------------------------------------------------

async function main(): Promise<void> {
  const built = ensureBuilt();
  console.log(`bench/monitors: ${COUNTS.join(', ')} monitors, ${MINUTES} min each, list polled every ${POLL_MS / 1000} s ` +
    `(dist/ ${built === 'built' ? 'rebuilt' : 'up to date'})`);
  const peers = await startPeers();
  console.log(`peers: http 127.0.0.1:${peers.httpPort}, tcp 127.0.0.1:{${peers.tcpPorts.join(',')}}, dnsmasq 127.0.0.1:${peers.dns.port}, ping 127.0.x.y`);
  const all: string[][] = [];
  for (const n of COUNTS) {
    const f = await runCount(n, peers);
    const lines = report(f);
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
