// A full MIB-2 walk (1.3.6.1.2.1) of Debian's snmpd on loopback with the SNMP client, over v1, v2c,
// v3 authPriv (SHA/AES-128) and, where snmpd has them, v3 SHA-256/AES-256. Prints per version: the
// varbinds walked, wall time per walk (min and median of the runs), the client's CPU per walk, snmpd's
// CPU per walk, and the client's memory: resident set and V8 heap before the walks, their peaks while
// walking (sampled every 5 ms; every result is kept, so the peaks include them), and the heap one
// finished result holds. Prints figures, asserts nothing.
//
//   node --import tsx bench/snmp/walk.ts                   # 5 walks per version
//   node --import tsx bench/snmp/walk.ts --runs 10 --reps 50
//   options: --runs N (walks per version, default 5), --reps R (GETBULK max-repetitions, default 20)
//
// Each version is measured in a fresh child process (node --expose-gc), so one version's garbage and
// heap growth do not count against the next. snmpd runs on 127.0.0.1 only (test/helpers/snmpd.ts).
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { SnmpTarget } from '../../src/modules/snmp/contracts.js';
import { startSnmpd } from '../../test/helpers/snmpd.js';
import { cpuTimes } from '../monitors/proc.js';
import { int, mib, percentile } from '../monitors/util.js';

const MIB2 = '1.3.6.1.2.1';

function option(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
}

interface ChildFigures {
  count: number;
  truncated: boolean;
  wallMs: number[];
  cpuMs: number[];
  base: { rss: number; heap: number };
  peak: { rss: number; heap: number };
  resultHeap: number;
}

// ---- child: one version, N walks ----------------------------------------------------------------

async function child(): Promise<void> {
  const { createSnmpClient } = await import('../../src/modules/snmp/client.js');
  const target = JSON.parse(process.env.BENCH_SNMP_TARGET!) as SnmpTarget;
  const runs = Number(process.env.BENCH_RUNS);
  const reps = Number(process.env.BENCH_REPS);
  const client = createSnmpClient();
  const gc = (globalThis as { gc?: () => void }).gc!;
  // One walk to warm up (JIT, key localization, the module graph), then the baseline.
  await client.walk(target, [MIB2], { max_repetitions: reps, max_varbinds: 100_000 });
  gc();
  const m0 = process.memoryUsage();
  const peak = { rss: m0.rss, heap: m0.heapUsed };
  const sampler = setInterval(() => {
    const m = process.memoryUsage();
    peak.rss = Math.max(peak.rss, m.rss);
    peak.heap = Math.max(peak.heap, m.heapUsed);
  }, 5);
  const wallMs: number[] = [], cpuMs: number[] = [], heldBytes: number[] = [];
  // Every result is kept until the end, so each run's heap growth after a full GC is what one result holds.
  const held: unknown[] = [];
  let count = 0, truncated = false;
  for (let i = 0; i < runs; i++) {
    gc();
    const h0 = process.memoryUsage().heapUsed;
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    const r = await client.walk(target, [MIB2], { max_repetitions: reps, max_varbinds: 100_000 });
    wallMs.push(performance.now() - t0);
    const c = process.cpuUsage(c0);
    cpuMs.push((c.user + c.system) / 1000);
    count = r.varbinds.length;
    truncated = r.truncated;
    held.push(r);
    gc();
    heldBytes.push(process.memoryUsage().heapUsed - h0);
    if (r.varbinds.length === 0) throw new Error('empty walk');
  }
  clearInterval(sampler);
  const out: ChildFigures = {
    count, truncated, wallMs, cpuMs, base: { rss: m0.rss, heap: m0.heapUsed }, peak, resultHeap: percentile(heldBytes, 50),
  };
  process.stdout.write(JSON.stringify(out));
}

// ---- parent: snmpd, one child per version, the table --------------------------------------------

async function measure(target: SnmpTarget, runs: number, reps: number, snmpdPid: number): Promise<ChildFigures & { snmpdCpuMs: number }> {
  const s0 = await cpuTimes(snmpdPid);
  const proc = spawn(process.execPath, ['--expose-gc', '--import', 'tsx', fileURLToPath(import.meta.url), '--child'], {
    env: { ...process.env, BENCH_SNMP_TARGET: JSON.stringify(target), BENCH_RUNS: String(runs), BENCH_REPS: String(reps) },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  proc.stdout!.on('data', (c: Buffer) => { out += c.toString(); });
  const code = await new Promise<number | null>((r) => proc.once('exit', r));
  if (code !== 0) throw new Error(`bench child exited with ${code}`);
  const s1 = await cpuTimes(snmpdPid);
  const figures = JSON.parse(out) as ChildFigures;
  // snmpd also served the warm-up walk: runs + 1 walks in all.
  return { ...figures, snmpdCpuMs: (s1!.self - s0!.self) / (runs + 1) };
}

async function main(): Promise<void> {
  const runs = option('runs', 5);
  const reps = option('reps', 20);
  if (!(Number.isInteger(runs) && runs > 0 && Number.isInteger(reps) && reps > 0 && reps <= 200)) {
    console.error('usage: node --import tsx bench/snmp/walk.ts [--runs N] [--reps 1..200]');
    process.exit(2);
  }
  const agent = await startSnmpd();
  try {
    const base = { host: agent.host, port: agent.port, timeout_ms: 5000, retries: 1 };
    const cases: [string, SnmpTarget][] = [
      ['v1 (GETNEXT)', { ...base, version: 'v1', community: agent.community }],
      [`v2c (GETBULK ${reps})`, { ...base, version: 'v2c', community: agent.community }],
      ['v3 authPriv SHA/AES-128', { ...base, version: 'v3', v3: agent.users.authPriv }],
    ];
    if (agent.users.sha256Aes256) cases.push(['v3 authPriv SHA-256/AES-256', { ...base, version: 'v3', v3: agent.users.sha256Aes256 }]);
    console.log(`bench/snmp/walk: full MIB-2 walk of snmpd at 127.0.0.1:${agent.port}, ${runs} walks per version after one warm-up`);
    for (const [label, target] of cases) {
      const f = await measure(target, runs, reps, agent.pid);
      const row = (k: string, v: string) => console.log(`  ${k.padEnd(26)} ${v}`);
      console.log(`\n${label}`);
      row('varbinds', `${int(f.count)}${f.truncated ? ' (truncated!)' : ''}`);
      row('wall time per walk', `min ${f.wallMs.reduce((a, b) => Math.min(a, b)).toFixed(0)} ms, median ${percentile(f.wallMs, 50).toFixed(0)} ms ` +
        `(${(f.count / (percentile(f.wallMs, 50) / 1000)).toFixed(0)} varbinds/s)`);
      row('client CPU per walk', `median ${percentile(f.cpuMs, 50).toFixed(0)} ms`);
      row('snmpd CPU per walk', `${f.snmpdCpuMs.toFixed(0)} ms`);
      row('client RSS', `before ${mib(f.base.rss)}, peak ${mib(f.peak.rss)} (+${mib(f.peak.rss - f.base.rss)})`);
      row('client V8 heap used', `before ${mib(f.base.heap)}, peak ${mib(f.peak.heap)} (+${mib(f.peak.heap - f.base.heap)})`);
      row('one result held', `${mib(f.resultHeap)} of heap (${int(f.resultHeap / Math.max(1, f.count))} B per varbind; median over the runs)`);
    }
  } finally {
    await agent.stop();
  }
}

if (process.argv.includes('--child')) {
  child().catch((e: unknown) => { console.error(e); process.exit(1); });
} else {
  main().catch((e: unknown) => { console.error(e); process.exitCode = 1; });
}
