// The interface history (src/modules/snmp/polling/history/): 5-minute steps' averages and maxima, gaps, the
// views' steps, a restart, a torn append, retention and the 95th percentile, on real files in a temp dir.
import assert from 'node:assert/strict';
import { appendFile, mkdtemp, readdir, readFile, rm, stat, truncate, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { ManualClock } from '../../src/core/clock.js';
import { Logger } from '../../src/core/log.js';
import { decodeRate, encodeRate } from '../../src/modules/snmp/polling/history/codec.js';
import { InterfaceHistory, type InterfaceHistoryOptions } from '../../src/modules/snmp/polling/history/index.js';
import type { IfPoint } from '../../src/modules/snmp/polling/types.js';

const T0 = Date.parse('2026-03-10T00:00:00Z');
const MIN = 60_000;
const STEP = 5 * MIN;

function pt(t: number, inb: number | null, outb: number | null = 1000, up: boolean | null = true): IfPoint {
  return { t, in_bps: inb, out_bps: outb, in_pps: inb === null ? null : inb / 1000, out_pps: 1, in_errors_ps: 0, out_errors_ps: 0,
    in_discards_ps: 0, out_discards_ps: 0, up, speed_bps: 1e9 };
}

async function setup(t = T0, opts: Partial<InterfaceHistoryOptions> = {}) {
  const dir = await mkdtemp(join(tmpdir(), 'netprobe-ifhist-'));
  const clock = new ManualClock(t);
  const lines: string[] = [];
  const log = Logger.create({ write: (l) => lines.push(l), level: 'debug' });
  const made: InterfaceHistory[] = [];
  const make = (more: Partial<InterfaceHistoryOptions> = {}) => {
    const x = new InterfaceHistory({ dir, clock, log, ...opts, ...more });
    made.push(x);
    return x;
  };
  const h = make();
  await h.open();
  // The appends a test started (a step closed by its last poll) finish before the directory goes.
  const done = async () => {
    await Promise.all(made.map((x) => x.flush()));
    await rm(dir, { recursive: true, force: true, maxRetries: 3 });
  };
  return { dir, clock, h, make, lines, done };
}

/** Polls every interface of `keys` each minute from clock time for `minutes`, `rate(key, t)` the in b/s. */
function poll(h: InterfaceHistory, clock: ManualClock, keys: number[], minutes: number, rate: (k: number, t: number) => number | null) {
  for (let m = 0; m < minutes; m++) {
    const t = clock.now() + 1000; // a second into the minute
    for (const k of keys) h.add(k, pt(t, rate(k, t)));
    clock.advance(MIN);
  }
}

const close = (a: number | null, b: number, rel = 1e-3) => { assert.ok(a !== null && Math.abs(a - b) <= Math.abs(b) * rel, `${a} ≈ ${b}`); };

test('the rate code keeps 0.03 %, zero and unknown', () => {
  for (const v of [1e-6, 0.0033, 1, 12_345.678, 9.99e9, 1e12]) close(decodeRate(encodeRate(v)), v, 3.5e-4);
  assert.equal(decodeRate(encodeRate(0)), 0);
  assert.ok(Number.isNaN(decodeRate(encodeRate(NaN))));
});

test('a 5-minute step keeps the average, maximum, points and share up; it is written once closed', async () => {
  const { h, clock, dir, done } = await setup();
  try {
    const ins = [100, 300, 200, 600, 300];
    ins.forEach((v, i) => h.add(7, { ...pt(T0 + i * MIN + 1000, v), up: i !== 2 }));
    clock.advance(STEP); // the step ended: not closed before the grace (late polls)
    await h.flush();
    assert.deepEqual((await readdir(dir)).filter((n) => n.startsWith('steps-')), []);
    clock.advance(MIN);
    await h.flush();
    assert.deepEqual((await readdir(dir)).filter((n) => n.startsWith('steps-')), ['steps-20260310.bin']);
    const day = await h.series(7, 'day');
    const p = day.points.at(-1)!;
    assert.equal(p.t, T0);
    assert.equal(p.in_avg, 300);
    close(p.in_max, 600);
    close(p.in_pps_avg, 0.3);
    close(p.in_pps_max, 0.6);
    assert.equal(p.out_avg, 1000);
    assert.equal(p.in_errors_avg, 0);
    assert.equal(p.samples, 5);
    assert.equal(p.up_share, 0.8);
    assert.equal(h.stats().blocks_written, 1);
  } finally { await done(); }
});

test('gaps stay gaps: unknown rates, missed steps, an interface with no poll', async () => {
  const { h, clock, done } = await setup();
  try {
    // Step 1: in unknown at two polls (the average is of the three known); step 2: in unknown throughout.
    const ins = [null, 30, null, 60, 90];
    ins.forEach((v, i) => h.add(1, pt(T0 + i * MIN + 1000, v)));
    for (let i = 0; i < 5; i++) h.add(1, pt(T0 + STEP + i * MIN + 1000, null));
    h.add(2, pt(T0 + 1000, 5));
    clock.advance(3 * STEP + MIN); // step 3: no poll at all
    h.add(1, pt(clock.now(), 1)); // the next poll
    await h.flush();
    const { points } = await h.series(1, 'day');
    const at = (t: number) => points.find((p) => p.t === t)!;
    assert.equal(at(T0).in_avg, 60);
    assert.equal(at(T0).samples, 5);
    assert.equal(at(T0 + STEP).in_avg, null);
    assert.equal(at(T0 + STEP).in_max, null);
    assert.equal(at(T0 + STEP).out_avg, 1000);
    assert.equal(at(T0 + 2 * STEP).samples, 0);
    assert.equal(at(T0 + 2 * STEP).in_avg, null);
    assert.equal(at(T0 + 2 * STEP).up_share, null);
    assert.equal(at(T0 - STEP).in_avg, null); // before the first poll
    // Interface 2 was polled once: its next steps are gaps, not zeros.
    const two = await h.series(2, 'day');
    assert.equal(two.points.find((p) => p.t === T0)!.in_avg, 5);
    assert.equal(two.points.find((p) => p.t === T0 + STEP)!.in_avg, null);
    // The hour view: the missed polls make a null point, the unknown rates are null.
    const hour = await h.series(1, 'hour');
    assert.equal(hour.step_s, 60);
    assert.equal(hour.points[0]!.in_avg, null);
    const gap = hour.points.findIndex((p, i) => i > 0 && p.out_avg === null);
    assert.ok(gap > 0, 'a null point stands for the missed polls');
    close(hour.points.at(-1)!.in_avg, 1); // the ring keeps 16-bit codes
  } finally { await done(); }
});

test('the views: hour of points, day of 5 min, week of 30 min, month of 2 h, year of days', async () => {
  const { h, clock, done } = await setup();
  try {
    poll(h, clock, [3], 3 * 60, (_k, t) => ((t - T0) / MIN < 90 ? 100 : 400));
    await h.flush();
    const hour = await h.series(3, 'hour');
    assert.equal(hour.step_s, 60);
    assert.equal(hour.points.length, 60);
    const day = await h.series(3, 'day');
    assert.equal(day.step_s, 300);
    assert.equal(day.points.length, 288);
    assert.equal(day.to, T0 + 3 * 3_600_000 - STEP); // the last closed step (the grace holds the one before)
    const week = await h.series(3, 'week');
    assert.equal(week.step_s, 1800);
    assert.equal(week.points.length, 336);
    // The 30 minutes from 01:00: 100 b/s for 30 points; from 01:30 400.
    assert.equal(week.points.find((p) => p.t === T0 + 3_600_000)!.in_avg, 100);
    assert.equal(week.points.find((p) => p.t === T0 + 5_400_000)!.in_avg, 400);
    const month = await h.series(3, 'month');
    assert.equal(month.step_s, 7200);
    assert.equal(month.points.length, 360);
    const m0 = month.points.find((p) => p.t === T0)!;
    assert.equal(m0.in_avg, 175); // 90 minutes at 100, 30 at 400, weighted by points
    close(m0.in_max, 400);
    assert.equal(m0.samples, 120);
    const year = await h.series(3, 'year');
    assert.equal(year.step_s, 86_400);
    assert.equal(year.points.length, 365);
    assert.equal(year.points.at(-1)!.t, T0); // today, from its 5-minute steps
    assert.ok(year.points.at(-1)!.samples > 150);
  } finally { await done(); }
});

test('a day closes: its steps file becomes a cols file, the same steps read from it, a day step in the year file', async () => {
  const { h, clock, dir, make, done } = await setup(T0 + 23 * 3_600_000);
  try {
    poll(h, clock, [4, 5], 60, (k, t) => (k === 4 ? 1000 : Math.floor((t - T0) / MIN))); // 23:00 - 00:00
    await h.flush();
    assert.deepEqual((await readdir(dir)).sort(), ['steps-20260310.bin']);
    const before = await h.series(5, 'day');
    assert.equal(before.points.at(-1)!.t, T0 + 86_400_000 - 2 * STEP); // 23:55 closes at 00:01
    await h.flush();
    const uncompacted = await readFile(join(dir, 'steps-20260310.bin'));
    poll(h, clock, [4, 5], 10, (k) => (k === 4 ? 1000 : 10)); // to 00:10: the day's last step closes, then its first
    await h.flush();
    assert.deepEqual((await readdir(dir)).sort(), ['cols-20260310.bin', 'days-2026.bin', 'steps-20260311.bin']);
    const after = await h.series(5, 'day', before.to);
    assert.deepEqual(after.points, before.points);
    const p = after.points.find((x) => x.t === T0 + 23 * 3_600_000 + STEP)!;
    assert.equal(p.in_avg, 23 * 60 + 7); // 23:05 - 23:10: minutes 1385 .. 1389
    assert.equal(p.samples, 5);
    const year = await h.series(4, 'year');
    const d = year.points.find((p) => p.t === T0)!;
    assert.equal(d.in_avg, 1000);
    assert.equal(d.samples, 60);
    assert.equal(year.points.find((p) => p.t === T0 + 86_400_000)!.samples, 5); // today so far (steps closed)
    // A compaction cut short (the cols file written, the steps file not yet deleted) is done again at start,
    // without a second day step.
    await h.close();
    const daysSize = (await stat(join(dir, 'days-2026.bin'))).size;
    await writeFile(join(dir, 'steps-20260310.bin'), uncompacted); // (its last step was not in it yet: no matter)
    await writeFile(join(dir, '.cols-20260310.bin.1.tmp'), 'half');
    const h2 = make();
    await h2.open();
    await h2.flush();
    assert.deepEqual((await readdir(dir)).sort(), ['cols-20260310.bin', 'days-2026.bin', 'steps-20260311.bin']);
    assert.equal((await stat(join(dir, 'days-2026.bin'))).size, daysSize);
    assert.equal((await h2.series(4, 'year')).points.find((p) => p.t === T0)!.samples, 60);
  } finally { await done(); }
});

test('a restart (close, open) keeps the closed steps, the open step and the last hour', async () => {
  const { h, clock, make, dir, done } = await setup();
  try {
    poll(h, clock, [9], 13, () => 50); // 00:00 - 00:12: steps 00:00 closed, 00:05 closing, 00:10 open
    await h.close();
    assert.ok((await stat(join(dir, 'open.bin'))).size > 0);
    const h2 = make({ interfaces_hint: 1000 }); // memory reserved for more interfaces than the image held
    await h2.open();
    assert.equal(h2.stats().image, 'used');
    await assert.rejects(stat(join(dir, 'open.bin')), 'read once, then deleted');
    assert.equal((await h2.series(9, 'hour')).points.length, 13);
    assert.equal(h2.latest(9)!.in_bps !== null && Math.round(h2.latest(9)!.in_bps!), 50);
    poll(h2, clock, [9], 10, () => 50);
    await h2.flush();
    const day = await h2.series(9, 'day');
    for (const t of [T0, T0 + STEP, T0 + 2 * STEP]) assert.equal(day.points.find((p) => p.t === t)!.samples, 5, new Date(t).toISOString());
    await h2.close();
  } finally { await done(); }
});

test('a crash: a torn append is cut and the blocks before it kept; a damaged image and temp files are left out', async () => {
  const { h, clock, make, dir, lines, done } = await setup();
  try {
    poll(h, clock, [1, 2, 3], 20, (k) => k * 10); // 00:20: the steps from 00:00, 00:05, 00:10 closed
    await h.flush();
    const file = join(dir, 'steps-20260310.bin');
    const whole = (await stat(file)).size;
    assert.equal(h.stats().blocks_written, 3);
    // Killed during the fourth append: half of it reached the disk. And no close(): no image.
    await appendFile(file, Buffer.alloc(100, 7));
    await writeFile(join(dir, '.open.bin.123.abc.tmp'), 'half');
    await writeFile(join(dir, 'open.bin'), Buffer.alloc(50, 1));
    const h2 = make();
    await h2.open();
    assert.equal((await stat(file)).size, whole);
    assert.ok(lines.some((l) => l.includes('torn tail cut')));
    assert.equal(h2.stats().image, 'not an image');
    assert.deepEqual((await readdir(dir)).filter((n) => n.endsWith('.tmp')), []);
    const day = await h2.series(2, 'day');
    for (let i = 0; i < 3; i++) assert.equal(day.points.find((p) => p.t === T0 + i * STEP)!.in_avg, 20);
    // Appends go on after the cut: the next step is readable too.
    poll(h2, clock, [2], 10, () => 70);
    await h2.flush();
    assert.equal((await h2.series(2, 'day')).points.find((p) => p.t === T0 + 4 * STEP)!.in_avg, 70);
    // A cut inside a block (a file shortened by a crash) keeps the whole blocks before it.
    await truncate(file, whole - 10);
    const h3 = make();
    await h3.open();
    const after = await h3.series(2, 'day');
    assert.equal(after.points.find((p) => p.t === T0 + STEP)!.in_avg, 20);
    assert.equal(after.points.find((p) => p.t === T0 + 2 * STEP)!.samples, 0);
  } finally { await done(); }
});

test('retention deletes steps files past steps_days and year files past day_steps_days', async () => {
  const { h, clock, dir, done } = await setup(T0, { retention: { steps_days: 2, day_steps_days: 30 } });
  try {
    for (let d = 0; d < 4; d++) { poll(h, clock, [1], 10, () => 1); clock.advance(86_400_000 - 10 * MIN); }
    await h.flush();
    await writeFile(join(dir, 'days-2025.bin'), '');
    const before = (await readdir(dir)).sort();
    assert.deepEqual(before, ['cols-20260310.bin', 'cols-20260311.bin', 'cols-20260312.bin', 'days-2025.bin', 'days-2026.bin', 'steps-20260313.bin']);
    const gone = (await h.retain()).sort();
    assert.deepEqual(gone, ['cols-20260310.bin', 'cols-20260311.bin', 'days-2025.bin']);
    assert.deepEqual((await readdir(dir)).sort(), ['cols-20260312.bin', 'days-2026.bin', 'steps-20260313.bin']);
    assert.equal((await h.series(1, 'month', clock.now())).points.find((p) => p.t === T0)!.samples, 0);
  } finally { await done(); }
});

test('p95 of 5-minute averages: the top 5 % discarded (index ceil(0.95 n) - 1)', async () => {
  const { h, clock, done } = await setup();
  try {
    // 100 steps; step i's average is a shuffled 1..100 (in) and 10x (out): the 95th is 95 (the top 5 discarded).
    const order = Array.from({ length: 100 }, (_, i) => ((i * 37) % 100) + 1);
    for (let i = 0; i < 100; i++) {
      for (let m = 0; m < 5; m++) h.add(1, pt(T0 + i * STEP + m * MIN + 1000, order[i]! - 2 + m, order[i]! * 10));
    }
    clock.advance(100 * STEP + 2 * MIN);
    await h.flush();
    const r = await h.p95(1, T0, T0 + 100 * STEP);
    assert.deepEqual(r, { in_bps: 95, out_bps: 950, samples: 100, expected_samples: 100 });
    const week = await h.p95(1, T0 - 86_400_000, T0 + 100 * STEP);
    assert.equal(week.expected_samples, 388);
    assert.equal(week.samples, 100);
    // 19 samples: ceil(18.05) - 1 = 18, the highest (nothing discarded below 20).
    assert.equal((await h.p95(1, T0, T0 + 19 * STEP)).in_bps, Math.max(...order.slice(0, 19)));
  } finally { await done(); }
});

test('late points, forget, latest and the sparkline', async () => {
  const { h, clock, done } = await setup();
  try {
    poll(h, clock, [1, 2], 12, (k) => k * 100);
    await h.flush();
    h.add(1, pt(T0 + 1000, 5)); // step 00:00 is closed
    h.add(1, pt(NaN, 5));
    assert.equal(h.stats().dropped_points, 2);
    assert.throws(() => h.add(0, pt(clock.now(), 5)), RangeError);
    assert.throws(() => h.add(1.5, pt(clock.now(), 5)), RangeError);
    const sp = h.sparkline(1)!;
    assert.equal(sp.in_bps.length, 12);
    assert.deepEqual(sp.in_bps.slice(-3).map((x) => x && Math.round(x)), [100, 100, 100]);
    assert.equal(sp.in_bps[0], null);
    assert.equal(h.latest(2)!.speed_bps, 1e9);
    assert.equal(h.latest(2)!.up, true);
    h.forget(2);
    assert.equal(h.latest(2), null);
    assert.equal(h.stats().interfaces, 1);
    poll(h, clock, [1], 10, () => 1);
    assert.equal(h.latest(2), null);
  } finally { await done(); }
});

test('nothing outside history/ imports its files but index.ts (the service uses its one interface)', async () => {
  const root = join(import.meta.dirname, '../../src');
  const bad: string[] = [];
  const walk = async (d: string): Promise<void> => {
    for (const e of await readdir(d, { withFileTypes: true })) {
      const f = join(d, e.name);
      if (e.isDirectory()) { if (!f.endsWith(join('polling', 'history'))) await walk(f); continue; }
      if (!f.endsWith('.ts')) continue;
      for (const m of (await readFile(f, 'utf8')).matchAll(/from\s+'([^']*history\/(?!index\.js')[^']+)'/g)) bad.push(`${f}: ${m[1]}`);
    }
  };
  await walk(root);
  assert.deepEqual(bad, []);
});
