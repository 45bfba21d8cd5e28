// Interface polling's budget (issue 36 §4, docs/snmp.md "Interface polling: budget"): the compiled service
// polls 50 simulated devices x 48 interfaces (2,400 interfaces) every 60 s, 200 tcp monitors at 60 s beside
// them, and this prints, side by side with the same reads made by net-snmp's snmpbulkwalk processes:
//   - CPU: the service's share of one core over the window (several poll cycles), and over its baseline;
//   - SD-card writes: /proc/<pid>/io write_bytes of the service a minute (what reached the block layer),
//     and the history directory's growth;
//   - RSS with polling minus RSS of the same service before any device was polled (same data, same monitors);
//   - the monitors' check scheduling lag p99 (GET /api/monitors/scheduler, as bench/monitors.ts reads it),
//     over the window (the devices' polls are spread over each of its minutes) and without polling;
//   - a dead agent (a UDP port bound by nothing that answers): the others' poll times beside its polls and
//     away from them, that they keep their schedule, and the dead one shown backed off;
//   - a year of history for those interfaces (bench/snmp-history.ts's figure, run as a child).
// Steps: the agents start in a child process (bench/snmp/poll-agents.ts: their CPU is not the service's;
// counters advance with real time, so rates are real); the service starts on a fresh data directory on disk
// (not tmpfs: write_bytes must reach a device), with the vault, an SNMP credential and the monitors;
// baseline minute with no polled device, during which the reference (one snmpbulkwalk per device, each at its
// own second of the minute) runs; then the devices and the dead one are added (at least 70 s into a 5-minute
// step) and, once every live device has had its first poll, the window runs (default 5 minutes: exactly one
// 5-minute history step with points is appended in it). A window over 00:01 UTC also holds the day's
// compaction of the history (once a day; the output says so).
//
//   node --import tsx bench/snmp-poll.ts            (or ./build.sh bench snmp-poll; about 7 minutes)
//   node --import tsx bench/snmp-poll.ts --quick    (2-minute window, about 4 minutes)
//   options: --devices 50 --ifs 48 --monitors 200 --window-min 5 --baseline-s 60 --no-year --keep, and to look into
//   the figures --detail (the largest lags and the poll at each) and --cpu-prof (the service's profile, with --keep)
//
// Loopback only: agents, the dead port and the tcp monitors' listener are on 127.0.0.1.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { blockBytes } from '../src/modules/snmp/polling/history/blocks.js';
import { checkpointsIn, LagCollector, lagFigures, type Interval } from './monitors/lag.js';
import { cpuTimes, io, memory } from './monitors/proc.js';
import { adminKey, createMonitor, ensureBuilt, startServiceProc, type ServiceProc } from './monitors/service.js';
import { fmtMs, freePort, percentile, sleep } from './monitors/util.js';

const argv = process.argv.slice(2);
const QUICK = argv.includes('--quick');
const opt = (name: string, dflt: number) => { const i = argv.indexOf(`--${name}`); return i >= 0 ? Number(argv[i + 1]) : dflt; };
const DEVICES = opt('devices', 50);
const IFS = opt('ifs', 48);
const MONITORS = opt('monitors', 200);
const WINDOW_MIN = opt('window-min', QUICK ? 2 : 5);
const BASELINE_S = opt('baseline-s', 60); // one reference cycle
const KEEP = argv.includes('--keep');
const COMMUNITY = 'Bench-Poll-Community-9';
const MIN = 60_000;
const MiB = 1024 * 1024;

interface Ports { agents: number[]; dead: number; tcp: number; rates_bps: number[][] }
interface Sample { at: number; cpu: number; written: number; rssKb: number }

/** The agents' child: ports on its first line, then its CPU on request. */
class Agents {
  private readonly lines: ((l: string) => void)[] = [];
  constructor(readonly child: ChildProcess) {
    const rl = createInterface({ input: child.stdout! });
    rl.on('line', (l) => this.lines.shift()?.(l));
  }
  static async start(): Promise<{ agents: Agents; ports: Ports }> {
    const child = spawn(process.execPath, ['--import', 'tsx', join(process.cwd(), 'bench/snmp/poll-agents.ts'),
      String(DEVICES), String(IFS), COMMUNITY], { stdio: ['pipe', 'pipe', 'inherit'] });
    const agents = new Agents(child);
    const ports = JSON.parse(await agents.next()) as Ports;
    return { agents, ports };
  }
  next(): Promise<string> { return new Promise((r) => this.lines.push(r)); }
  async cpu(): Promise<{ cpu_ms: number; requests: number }> {
    const p = this.next();
    this.child.stdin!.write('cpu\n');
    return JSON.parse(await p) as { cpu_ms: number; requests: number };
  }
  stop(): void { this.child.stdin!.end(); }
}

async function sample(pid: number): Promise<Sample> {
  const c = await cpuTimes(pid);
  const w = await io(pid);
  const m = await memory(pid);
  if (!c || !w || !m) throw new Error('/proc/<pid>/stat, io or status unavailable (task I/O accounting off?)');
  return { at: Date.now(), cpu: c.self + c.children, written: w.writeBytes, rssKb: m.rssKb };
}

async function dirBytes(dir: string): Promise<number> {
  let total = 0;
  for (const e of await readdir(dir, { withFileTypes: true }).catch(() => [])) {
    const p = join(dir, e.name);
    total += e.isDirectory() ? await dirBytes(p) : (await stat(p)).size;
  }
  return total;
}

// ---- the reference: one snmpbulkwalk per device per minute --------------------------------------------

interface WalkRun { varbinds: number; wallMs: number; ok: boolean }
const walkArgs = (port: number) => ['-v2c', '-c', COMMUNITY, '-Cr50', '-On', '-t', '2', '-r', '1', `127.0.0.1:${port}`, '1.3.6.1.2.1'];

/**
 * One snmpbulkwalk of 1.3.6.1.2.1 against a simulated agent: there that subtree is exactly what a poll reads
 * (sysUpTime, ifTable, hrSystemUptime, ifXTable), in one process.
 */
function walkOnce(port: number): Promise<WalkRun> {
  return new Promise((resolve) => {
    const t0 = performance.now();
    const child = spawn('snmpbulkwalk', walkArgs(port), { stdio: ['ignore', 'pipe', 'ignore'] });
    let varbinds = 0;
    child.stdout!.on('data', (c: Buffer) => { for (const b of c) if (b === 10) varbinds++; });
    child.once('error', () => resolve({ varbinds, wallMs: NaN, ok: false }));
    child.once('close', (code) => resolve({ varbinds, wallMs: performance.now() - t0, ok: code === 0 }));
  });
}

/**
 * A cycle of the reference: device d at second d * 60 / devices of the minute, as the service spreads them.
 * CPU: this process's reaped children's time (/proc/self/stat cutime + cstime, accumulated by the kernel to
 * the nanosecond; a walk takes less than the 10 ms /usr/bin/time shows), no other child ends meanwhile.
 */
async function referenceCycle(ports: number[]): Promise<{ runs: WalkRun[]; cpuMs: number; maxRssKb: number }> {
  const c0 = (await cpuTimes(process.pid))!.children;
  const t0 = Date.now();
  const runs = await Promise.all(ports.map(async (port, d) => {
    await sleep(Math.max(0, t0 + (d * 60_000) / ports.length - Date.now()));
    return walkOnce(port);
  }));
  const cpuMs = (await cpuTimes(process.pid))!.children - c0;
  // Peak RSS of one walk, apart (/usr/bin/time's own CPU would have counted above).
  const t = spawnSync('/usr/bin/time', ['-f', '%M', 'snmpbulkwalk', ...walkArgs(ports[0]!)], { encoding: 'utf8' });
  const maxRssKb = Number(t.stderr.trim().split('\n').pop());
  return { runs, cpuMs, maxRssKb };
}

// ---- the service ---------------------------------------------------------------------------------------

interface Listed {
  id: string; name: string; port: number | null;
  state: { status: string; last_poll_at: string | null; failures: number; error: string | null; elapsed_ms: number | null;
    requests: number | null; interfaces: number; next_poll_at: string | null };
}
interface Poll { id: string; start: number; elapsedMs: number | null; requests: number | null; status: string }

const pct = (x: number) => `${(x * 100).toFixed(2)} %`;
const mibMin = (bytesPerMin: number) => `${(bytesPerMin / MiB).toFixed(3)} MiB/min`;
const mibOf = (kb: number) => `${(kb / 1024).toFixed(1)} MiB`;

async function main(): Promise<void> {
  const built = ensureBuilt();
  const { agents, ports } = await Agents.start();
  const dir = await mkdtemp(join(process.cwd(), '.bench-snmp-poll-'));
  let svc: ServiceProc | undefined;
  let stopSampling = false;
  try {
    // --cpu-prof: the service's CPU profile (written at its stop) into the data directory (with --keep).
    const nodeArgs = argv.includes('--cpu-prof') ? ['--cpu-prof', `--cpu-prof-dir=${join(dir, 'prof')}`] : [];
    svc = await startServiceProc(dir, await freePort(), join(dir, 'service.log'), nodeArgs);
    const key = await adminKey(svc.base, dir);
    const headers = { 'x-api-key': key, 'content-type': 'application/json' };
    const call = async <T = any>(method: string, path: string, body?: unknown): Promise<T> => {
      const r = await fetch(svc!.base + path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
      const text = await r.text();
      if (r.status >= 300) throw new Error(`${method} ${path}: ${r.status} ${text}`);
      return (text ? JSON.parse(text) : null) as T;
    };
    await call('POST', '/api/brain/vault/setup', { passphrase: 'bench passphrase long enough' });
    const cred = await call<{ id: string }>('POST', '/api/brain/credentials',
      { name: 'bench agents', kind: 'snmp_v2c', community: COMMUNITY, scope: ['127.0.0.1'] });
    for (let i = 0; i < MONITORS; i++) {
      await createMonitor(svc.base, key, { name: `tcp ${i}`, check_type: 'tcp', target: `127.0.0.1:${ports.tcp}`, interval: 60 });
    }
    console.log(`bench/snmp-poll: ${DEVICES} devices x ${IFS} interfaces (${DEVICES * IFS}) every 60 s, ${MONITORS} tcp monitors at ` +
      `60 s, one dead agent; window ${WINDOW_MIN} min after a ${BASELINE_S} s baseline (dist/ ${built}; data in ${dir})`);

    // Sampling through both phases: the scheduler's lag (every 5 s), the service's RSS, and each device's
    // polls from the list.
    const lag = new LagCollector(svc.base, key);
    const rss: { at: number; kb: number }[] = [];
    const polls = new Map<string, Poll>();
    const sampler = (async () => {
      let n = 0;
      while (!stopSampling) {
        await lag.poll();
        const m = await memory(svc!.pid);
        if (m) rss.push({ at: Date.now(), kb: m.rssKb });
        if (n % 4 === 0) { // every 20 s, in both phases (a device polls once a minute: none is missed)
          for (const d of (await call<{ items: Listed[] }>('GET', '/api/snmp/polling')).items) {
            if (!d.state.last_poll_at) continue;
            const start = Date.parse(d.state.last_poll_at);
            polls.set(`${d.id} ${start}`, { id: d.id, start, elapsedMs: d.state.elapsed_ms, requests: d.state.requests, status: d.state.status });
          }
        }
        n++;
        await sleep(5000);
      }
    })();

    // ---- baseline: no polled device; the reference runs meanwhile (its CPU is its own processes') ----
    await sleep(15_000); // the monitors' first checks (made at once on creation) are over
    const load0 = loadavg();
    const b0 = await sample(svc.pid);
    const refCycle = referenceCycle(ports.agents);
    await sleep(BASELINE_S * 1000);
    const ref = await refCycle;
    // The history appends one block of every interface per 5-minute step, a minute after the step's end. The
    // devices are added at least 70 s into a 5-minute step, so that a 5-minute window starting a few seconds
    // later holds exactly one append of a step with points (the baseline goes on meanwhile).
    await sleep(Math.max(0, 70_000 - (Date.now() % 300_000)));
    const b1 = await sample(svc.pid);

    // ---- the devices, and the window once each live one has had its first poll ----
    const live: string[] = [];
    for (let d = 0; d < DEVICES; d++) {
      const r = await call<{ id: string }>('POST', '/api/snmp/polling',
        { name: `sw${d + 1}`, target: '127.0.0.1', port: ports.agents[d], credential_id: cred.id, interval_s: 60 });
      live.push(r.id);
    }
    const dead = await call<{ id: string }>('POST', '/api/snmp/polling',
      { name: 'dead agent', target: '127.0.0.1', port: ports.dead, credential_id: cred.id, interval_s: 60 });
    const added = Date.now();
    for (;;) {
      const items = (await call<{ items: Listed[] }>('GET', '/api/snmp/polling')).items;
      if (items.filter((d) => live.includes(d.id) && d.state.status === 'ok').length === DEVICES) break;
      if (Date.now() - added > 90_000) throw new Error(`devices not polled 90 s after being added: ${JSON.stringify(items.map((d) => d.state))}`);
      await sleep(500);
    }
    const firstPolls = (Date.now() - added) / 1000;
    // The window from here: its rates come from polls a minute apart (the first poll was a moment after adding).
    await sleep(2000);
    const w0 = await sample(svc.pid);
    const h0 = await dirBytes(join(dir, 'snmp-history'));
    await sleep(WINDOW_MIN * MIN);
    const w1 = await sample(svc.pid);
    const h1 = await dirBytes(join(dir, 'snmp-history'));
    stopSampling = true;
    await sampler;
    const final = (await call<{ items: Listed[] }>('GET', '/api/snmp/polling')).items;
    for (const d of final) {
      if (d.state.last_poll_at) {
        const start = Date.parse(d.state.last_poll_at);
        polls.set(`${d.id} ${start}`, { id: d.id, start, elapsedMs: d.state.elapsed_ms, requests: d.state.requests, status: d.state.status });
      }
    }
    // One interface's rate against what the agent sends (the rates are real).
    const sw1 = await call<{ interfaces: { if_index: number; now: { in_bps: number | null } | null }[] }>('GET', `/api/snmp/polling/${live[0]}`);
    const rateErr = sw1.interfaces.filter((i) => i.now?.in_bps != null)
      .map((i) => Math.abs(i.now!.in_bps! / ports.rates_bps[0]![i.if_index - 1]! - 1));

    // ---- figures ----
    const share = (a: Sample, b: Sample) => (b.cpu - a.cpu) / (b.at - a.at);
    const perMin = (a: Sample, b: Sample) => (b.written - a.written) / ((b.at - a.at) / MIN);
    const medianRss = (from: number, to: number) => percentile(rss.filter((s) => s.at >= from && s.at < to).map((s) => s.kb), 50);
    const rssBase = medianRss(b0.at, b1.at);
    const rssPoll = medianRss(w0.at + (w1.at - w0.at) / 2, w1.at + 1);
    const inWindow = [...polls.values()].filter((p) => p.start >= w0.at && p.start < w1.at);
    const livePolls = inWindow.filter((p) => p.id !== dead.id && p.status === 'ok' && p.elapsedMs !== null);
    const deadPolls = [...polls.values()].filter((p) => p.id === dead.id);
    // A dead poll lasts the timeout and its retry (2 s each by default): the others' polls that started then.
    const deadSpans: Interval[] = deadPolls.map((p) => ({ from: p.start, to: p.start + 4500 }));
    const overlaps = (p: Poll) => deadSpans.some((s) => p.start <= s.to && p.start + p.elapsedMs! >= s.from);
    const besideDead = livePolls.filter(overlaps).map((p) => p.elapsedMs!);
    const awayDead = livePolls.filter((p) => !overlaps(p)).map((p) => p.elapsedMs!);
    const spacing: number[] = [];
    for (const id of live) {
      const starts = [...polls.values()].filter((p) => p.id === id && p.start >= added + 5000).map((p) => p.start).sort((a, b) => a - b);
      for (let i = 1; i < starts.length; i++) spacing.push(Math.abs(starts[i]! - starts[i - 1]! - 60_000));
    }
    const lagBase = lagFigures(lag.samples, b0.at, b1.at);
    const lagWin = lagFigures(lag.samples, w0.at, w1.at);
    const deadNow = final.find((d) => d.id === dead.id)!;

    const refOk = ref.runs.filter((r) => r.ok);
    const refCpu = ref.cpuMs;
    const refWall = refOk.map((r) => r.wallMs);
    const agentsCpu = await agents.cpu();

    const row = (label: string, svcFig: string, refFig: string) => console.log(`${label.padEnd(46)} ${svcFig.padEnd(46)} ${refFig}`);
    console.log('');
    row('', 'netprobe service', `snmpbulkwalk (${DEVICES} processes a minute)`);
    const polledShare = share(w0, w1) - share(b0, b1);
    row('CPU, % of one core (budget < 3 %)', `${pct(polledShare)} for polling (${pct(share(w0, w1))} ` +
      `with, ${pct(share(b0, b1))} without)`, `${pct(refCpu / MIN)} (${(refCpu / DEVICES).toFixed(1)} ms a walk)`);
    const wPerMin = perMin(w0, w1), bPerMin = perMin(b0, b1);
    row('SD writes, MiB/min (budget < 0.15)', `${mibMin(wPerMin - bPerMin)} for polling (${mibMin(wPerMin)} with, ${mibMin(bPerMin)} without)`,
      'none (the output is read and dropped)');
    const winMin = (w1.at - w0.at) / MIN;
    const block = blockBytes(DEVICES * IFS);
    const blocks = Math.round((h1 - h0) / block);
    row('  of which the history directory grew', `${mibMin((h1 - h0) / winMin)} (${blocks} step block(s) of ${(block / 1024).toFixed(0)} ` +
      `KiB; one every 5 min is ${mibMin(block / 5)})`, '');
    const DAY = 86_400_000;
    if (Math.floor((w0.at - MIN) / DAY) !== Math.floor((w1.at - MIN) / DAY)) {
      row('  the window held 00:01 UTC', 'the day\'s compaction of the history (once a day) is in the figures above', '');
    }
    if (blocks === 0) {
      row('  with the 5-minute block (outside the window)', `${mibMin(wPerMin - bPerMin + block / 5)} for polling`, '');
    }
    const cps = checkpointsIn(svc.lines);
    const cpIn = (a: Sample, b: Sample) => cps.filter((c) => c.to >= a.at && c.to < b.at);
    row('  store checkpoints (without / with)', `${cpIn(b0, b1).length} / ${cpIn(w0, w1).length} (snapshot ` +
      `${((cps.at(-1)?.snapshotBytes ?? 0) / 1024).toFixed(0)} KiB; one every 10 min while the journal holds anything)`, '');
    row('RSS with polling - without (budget < 40 MiB)', `+${mibOf(rssPoll - rssBase)} (${mibOf(rssPoll)} - ${mibOf(rssBase)}, medians)`,
      `${mibOf(ref.maxRssKb)} peak RSS of one process (one at a time)`);
    // The devices' polls are spread over every minute of the window: its checks are the ones "while a poll cycle runs"
    // (few checks fall inside one of the polls themselves, 15 ms each: --detail shows the largest lags and the poll at each).
    row('check lag p99, polls running (budget < 10 ms)', `${fmtMs(lagWin.p99)} (p50 ${fmtMs(lagWin.p50)}, max ${fmtMs(lagWin.max)}, ` +
      `${lagWin.n} checks)`, 'n/a');
    row('  baseline (no polled device)', `${fmtMs(lagBase.p99)} p99, max ${fmtMs(lagBase.max)} (${lagBase.n} checks)`, '');
    row('poll of one device: time, requests', `median ${fmtMs(percentile(livePolls.map((p) => p.elapsedMs!), 50))}, p99 ` +
      `${fmtMs(percentile(livePolls.map((p) => p.elapsedMs!), 99))}, ${percentile(livePolls.map((p) => p.requests ?? 0), 50)} requests`,
      `median ${fmtMs(percentile(refWall, 50))}, ${percentile(refOk.map((r) => r.varbinds), 50)} varbinds, ${refOk.length}/${ref.runs.length} ok`);
    console.log('');
    console.log(`polls in the window: ${livePolls.length} of the live devices (${DEVICES} x ${WINDOW_MIN} expected); first polls of all ` +
      `${DEVICES} done ${firstPolls.toFixed(1)} s after adding them`);
    console.log(`rates: ${rateErr.length} interfaces of sw1 within ${(Math.max(...rateErr) * 100).toFixed(1)} % of the rate the agent sends ` +
      `(median ${(percentile(rateErr, 50) * 100).toFixed(2)} %)`);
    console.log(`dead agent: ${deadPolls.length} polls seen, now ${deadNow.state.status} after ${deadNow.state.failures} failures ` +
      `(${deadNow.state.error}); next poll ${deadNow.state.next_poll_at}`);
    console.log(`  the others' polls that overlapped one of its polls: ${besideDead.length}, median ${fmtMs(percentile(besideDead, 50))}, ` +
      `max ${fmtMs(Math.max(...besideDead))}; the rest: ${awayDead.length}, median ${fmtMs(percentile(awayDead, 50))}, ` +
      `max ${fmtMs(Math.max(...awayDead))}`);
    console.log(`  the others' schedule: consecutive polls 60 s apart within ${fmtMs(percentile(spacing, 50))} (median), ` +
      `${fmtMs(Math.max(...spacing))} (max) over ${spacing.length} intervals`);
    if (argv.includes('--detail')) {
      // The largest lags of the window, each with the poll that ran at its slot (if any).
      for (const l of lag.samples.filter((x) => x.slot >= w0.at && x.slot < w1.at).sort((a, b) => b.lag - a.lag).slice(0, 12)) {
        const p = livePolls.find((q) => l.slot >= q.start && l.slot <= q.start + q.elapsedMs!);
        console.log(`  lag ${l.lag} ms at +${((l.slot - w0.at) / 1000).toFixed(1)} s: ${p ? `in a poll of ${p.elapsedMs!.toFixed(0)} ms ` +
          `(from +${((p.start - w0.at) / 1000).toFixed(1)} s)` : 'no poll'}`);
      }
    }
    console.log(`machine: ${cpus().length} CPUs shared with other work; load average ${load0[0]!.toFixed(2)} at the baseline, ` +
      `${loadavg()[0]!.toFixed(2)} at the end`);
    console.log(`agents' process (not counted above): ${(agentsCpu.cpu_ms / 1000).toFixed(1)} s CPU in all, ${agentsCpu.requests} requests answered`);
    console.log(`history directory at the end: ${(h1 / MiB).toFixed(2)} MiB; service's peak RSS ${mibOf((await memory(svc.pid))?.hwmKb ?? NaN)}`);
  } finally {
    stopSampling = true;
    await svc?.stop();
    agents.stop();
    if (!KEEP) await rm(dir, { recursive: true, force: true });
    else console.log(`kept ${dir}`);
  }

  // A year of history for these interfaces: bench/snmp-history.ts's own figure (its simulated day, in a child).
  if (argv.includes('--no-year')) return;
  const h = spawnSync(process.execPath, ['--import', 'tsx', join(process.cwd(), 'bench/snmp-history.ts'), String(DEVICES * IFS)],
    { encoding: 'utf8' });
  const year = /a year of history[^\n]*\n[^\n]*/.exec(h.stdout)?.[0];
  console.log(`history, ${DEVICES * IFS} interfaces (bench/snmp-history.ts): ${year ?? `not measured (${h.stderr.slice(0, 300)})`}`);
}

main().catch((e: unknown) => { console.error(e instanceof Error ? e.stack ?? e.message : e); process.exitCode = 1; });
