// What the interface history (src/modules/snmp/polling/history/) costs at 2,400 interfaces polled every 60 s:
// memory after a simulated day, bytes written per minute, one interface's reads (day to year, p95 of a month)
// with a month and a year of files, and the size of a year of history. Prints figures, asserts nothing.
// Time is a test clock: the day of polls runs in seconds. Run: node --import tsx bench/snmp-history.ts [interfaces]
//
// The day is real (every add(), every step closed and appended, the day compacted and rolled up). The month and
// the year for the reads are that day's files copied with their times moved back (same sizes and layout).
// Memory: the same day of polls runs in two child processes, one without the history (the points made and
// dropped): the difference of their RSS is the history's.
import { spawnSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { mkdtemp, readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { ManualClock } from '../src/core/clock.js';
import { Logger } from '../src/core/log.js';
import { blockBytes } from '../src/modules/snmp/polling/history/blocks.js';
import { COLS_MAGIC, FOOTER_BYTES } from '../src/modules/snmp/polling/history/daycols.js';
import { colsName, daysName } from '../src/modules/snmp/polling/history/files.js';
import { InterfaceHistory } from '../src/modules/snmp/polling/history/index.js';
import type { IfPoint } from '../src/modules/snmp/polling/types.js';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;
const N = Number(process.argv[2] ?? 2400);
const PHASE = process.argv[3] ?? 'main';
const DAY = 86_400_000;
const START = Date.parse('2026-06-01T00:00:00Z');
const DAY0 = START / DAY;
const mib = (b: number) => `${(b / 1048576).toFixed(2)} MiB`;
const ms = (v: number) => `${v.toFixed(v < 10 ? 2 : 0)} ms`;
const settle = () => { gc(); gc(); return process.memoryUsage(); };

// Files only in the history phase (the control and the parent write none), removed however it ends.
const dir = PHASE === 'history' ? await mkdtemp(join(tmpdir(), 'netprobe-bench-ifhist-')) : '';
if (dir) process.on('exit', () => rmSync(dir, { recursive: true, force: true }));
const clock = new ManualClock(START);
const log = Logger.create({ write: () => undefined });
const keys = Array.from({ length: N }, (_, i) => 1000 + i * 3); // row ids, not dense
// One point object per interface, refilled each poll (as the service's rates would hand over).
const pts: IfPoint[] = keys.map(() => ({ t: 0, in_bps: 0, out_bps: 0, in_pps: 0, out_pps: 0, in_errors_ps: 0, out_errors_ps: 0,
  in_discards_ps: 0, out_discards_ps: 0, up: true, speed_bps: 1e9 }));
let seed = 42;
const rnd = () => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff);

/** One poll of every interface (a function of its own: the JIT treats it as the service's poll loop). */
function pollMinute(m: number): void {
  const t = clock.now() + 700;
  const diurnal = 0.3 + 0.7 * Math.sin((Math.PI * ((t - START) % DAY)) / DAY);
  for (let i = 0; i < N; i++) {
    const p = pts[i]!;
    const busy = (i % 48 === 0 ? 3e8 : 2e6) * diurnal;
    p.t = t;
    p.in_bps = m % 97 === i % 97 ? null : busy * (0.5 + rnd()); // now and then a gap (a counter reset)
    p.out_bps = busy * 0.3 * (0.5 + rnd());
    p.in_pps = p.in_bps === null ? null : p.in_bps / 8 / 600;
    p.out_pps = p.out_bps / 8 / 400;
    p.in_errors_ps = i % 200 === 0 ? rnd() : 0;
    p.in_discards_ps = i % 50 === 0 ? rnd() * 3 : 0;
    p.up = i % 100 !== 7;
    if (PHASE === 'history') h.add(keys[i]!, p);
  }
}

if (PHASE === 'main') {
  // Two runs of each, alternated (RSS of one run varies by a few MiB): the figures, and the difference of the lows.
  const rss: Record<string, number[]> = { control: [], history: [], control12: [], history12: [] };
  for (const phase of ['control', 'history', 'control', 'history']) {
    const r = spawnSync(process.execPath, ['--import', 'tsx', fileURLToPath(import.meta.url), String(N), phase], { encoding: 'utf8' });
    rss[phase]!.push(Number(/^rss=(\d+)/m.exec(r.stdout)?.[1]));
    rss[`${phase}12`]!.push(Number(/^rss12=(\d+)/m.exec(r.stdout)?.[1]));
    if (phase === 'history' && rss.history!.length === 1) process.stdout.write(r.stdout.replace(/^rss.*\n/gm, ''));
    if (r.status !== 0) process.stderr.write(r.stderr);
  }
  const low = (a: number[]) => Math.min(...a);
  const line = (what: string, h: number[], c: number[]) => console.log(`  RSS ${what}: with the history ${h.map(mib).join(', ')};`
    + ` without (the same polls made and dropped) ${c.map(mib).join(', ')}: +${mib(low(h) - low(c))}`);
  line('at 12:00 (steady)', rss.history12!, rss.control12!);
  line('after the day (its compaction included)', rss.history!, rss.control!);
  process.exit(0);
}
const base = settle();
const h = new InterfaceHistory({ dir, clock, log, interfaces_hint: N });
if (PHASE === 'history') await h.open();

console.log(`interface history: ${N} interfaces polled every 60 s for a simulated day, data in ${dir}`);
let addNs = 0n;
let adds = 0;
let closeMax = 0;
const closes: number[] = [];
let compaction = '';
const t0 = performance.now();
for (let m = 0; m < 1440 + 10; m++) {
  const a = process.hrtime.bigint();
  pollMinute(m);
  addNs += process.hrtime.bigint() - a;
  adds += N;
  const c = performance.now();
  clock.advance(60_000); // a step closes (the block is built in this turn) once every 5 minutes
  const took = performance.now() - c;
  if (m % 5 === 0) closes.push(took); // step k closes a minute after its end: in the advance to m = 5k + 6
  closeMax = Math.max(closeMax, took);
  if (m === 1440) { // the day's last step has closed: the day's compaction runs
    const loop = monitorEventLoopDelay({ resolution: 1 });
    loop.enable();
    const c0 = performance.now();
    await h.flush();
    loop.disable();
    compaction = `${ms(performance.now() - c0)}, the event loop held at most ${ms(loop.max / 1e6)}`;
  } else if (m % 5 === 0) await h.flush();
  if (m === 720) console.log(`rss12=${settle().rss}`);
}
await h.flush();
const simMs = performance.now() - t0;
const after = settle();
if (PHASE === 'control') {
  console.log(`rss=${after.rss}`);
  process.exit(0);
}
console.log(`rss=${after.rss}`);
closes.sort((a, b) => a - b);
const st = h.stats();
const minutes = 1440 + 10;
console.log(`  simulated in ${(simMs / 1000).toFixed(1)} s; add(): ${(Number(addNs) / adds).toFixed(0)} ns a point (with the bench's making of it)`);
console.log(`  a step's closing (the block of all interfaces built, in the timer's turn): median ${ms(closes[closes.length >> 1]!)}, max ${ms(closeMax)}`);
console.log(`  the day's compaction (cols file, day step): ${compaction}`);
console.log(`  memory after the day: heap +${mib(after.heapUsed - base.heapUsed)}, array buffers +${mib(after.arrayBuffers - base.arrayBuffers)}`);
console.log(`  written: ${mib(st.bytes_written)} in ${st.blocks_written} appends = ${(st.bytes_written / 1048576 / minutes).toFixed(4)} MiB/min (${(st.bytes_written / minutes / 1024).toFixed(1)} KiB/min)`);

const files = await readdir(dir);
const colsFile = join(dir, colsName(DAY0));
const dayBytes = (await stat(colsFile)).size;
const stepsBytes = blockBytes(N); // a step as appended
const daysBytes = (await stat(join(dir, daysName(2026)))).size;
console.log(`  files: ${files.join(', ')}; a day of 5-minute steps ${mib(stepsBytes * 288)} as appended, ${mib(dayBytes)} compacted; a day step of all interfaces ${mib(daysBytes)}`);

const c0 = performance.now();
await h.close();
const imageBytes = (await stat(join(dir, 'open.bin'))).size;
console.log(`  close(): image ${mib(imageBytes)} written in ${ms(performance.now() - c0)} (once per stop)`);

// A month and a year of files: the day's files copied with their times moved back.
const cols = await readFile(colsFile);
for (let d = 1; d <= 34; d++) {
  const foot = cols.length - FOOTER_BYTES;
  if (cols.readUInt32LE(foot) !== COLS_MAGIC) throw new Error('not a cols file');
  cols.writeUInt32LE((DAY0 - d) * 86_400, foot + 8);
  await writeFile(join(dir, colsName(DAY0 - d)), cols);
}
const dayBlock = await readFile(join(dir, daysName(2026)));
const yearParts: Buffer[] = [];
for (let d = 365 + 30; d >= 1; d--) { // back to 2025: the year view reads two files
  const b = Buffer.from(dayBlock);
  b.writeUInt32LE((DAY0 - d) * 86_400, 4);
  yearParts.push(b);
}
const y2025 = yearParts.filter((b) => b.readUInt32LE(4) < Date.UTC(2026, 0, 1) / 1000);
const y2026 = yearParts.filter((b) => b.readUInt32LE(4) >= Date.UTC(2026, 0, 1) / 1000);
await writeFile(join(dir, daysName(2025)), Buffer.concat(y2025));
await writeFile(join(dir, daysName(2026)), Buffer.concat([...y2026, dayBlock]));

const h2 = new InterfaceHistory({ dir, clock, log });
const o0 = performance.now();
await h2.open();
console.log(`  open() with 35 days of steps and 400 day steps: ${ms(performance.now() - o0)} (image: ${h2.stats().image})`);
const key = keys[Math.floor(N / 2)]!;
for (const pass of ['first', 'again']) {
  const line: string[] = [];
  for (const range of ['hour', 'day', 'week', 'month', 'year'] as const) {
    const r0 = performance.now();
    const s = await h2.series(key, range);
    line.push(`${range} ${ms(performance.now() - r0)} (${s.points.length} points)`);
  }
  const p0 = performance.now();
  const p = await h2.p95(key, clock.now() - 30 * DAY, clock.now());
  line.push(`p95 of 30 days ${ms(performance.now() - p0)} (${p.samples}/${p.expected_samples} samples)`);
  console.log(`  reads of one interface, ${pass} (files in the page cache): ${line.join('; ')}`);
}
const s0 = performance.now();
for (const k of keys) h2.sparkline(k);
console.log(`  sparklines of all ${N} interfaces: ${ms(performance.now() - s0)}`);

let total = 0;
for (const n of await readdir(dir)) total += (await stat(join(dir, n))).size;
const yearSize = 35 * dayBytes + 400 * daysBytes + stepsBytes * 288;
console.log(`  on disk now: ${mib(total)}; a year of history at the default retention (35 days compacted, today's steps file, 400 day steps): ${mib(yearSize)}`);
console.log(`  = per interface ${(yearSize / N / 1024).toFixed(0)} KiB (${(dayBytes / N / 1024).toFixed(1)} KiB a compacted day of steps, ${(daysBytes / N).toFixed(0)} B a day step)`);

await h2.close();
