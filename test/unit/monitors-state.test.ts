// Pure parts of the monitors module: the state machine, the rollup histogram and p95, CSV escaping, and
// the scheduler (spreading, absolute slots, concurrency, restart placement) on a ManualClock.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ManualClock } from '../../src/core/clock.js';
import { Logger } from '../../src/core/log.js';
import { csvCell, csvFilename, csvLine } from '../../src/modules/monitors/events-log.js';
import {
  bucketLower, bucketOf, bucketStart, bucketUpper, decodeHist, emptyHist, encodeHist, HIST_BUCKETS, KIND, quantile,
  toRtUnits, uptimePct, windowStart,
} from '../../src/modules/monitors/storage/rollups.js';
import {
  batchGrid, gridOf, phaseOf, phaseSlot, restartPlan, Scheduler, START_GRID_MS, type ScheduleSpec,
} from '../../src/modules/monitors/scheduler.js';
import { nextState, type MachineState } from '../../src/modules/monitors/service.js';

const quiet = Logger.create({ write: () => {} });

describe('state machine', () => {
  const run = (start: MachineState, results: ('up' | 'degraded' | 'down')[], threshold = 3) => {
    let s = start;
    const seen: string[] = [];
    const incidents: string[] = [];
    for (const r of results) {
      const t = nextState(s, r, threshold);
      if (t.openIncident) incidents.push('open');
      if (t.closeIncident) incidents.push('close');
      s = { status: t.status, fail_streak: t.fail_streak };
      seen.push(t.status);
    }
    return { seen, incidents, last: s };
  };

  test('unknown -> up -> degraded (below threshold) -> down (at threshold) -> up', () => {
    const r = run({ status: 'unknown', fail_streak: 0 }, ['up', 'down', 'down', 'down', 'down', 'up']);
    assert.deepEqual(r.seen, ['up', 'degraded', 'degraded', 'down', 'down', 'up']);
    assert.deepEqual(r.incidents, ['open', 'close']);
    assert.equal(r.last.fail_streak, 0);
  });

  test('threshold 1: the first failure is down; a slow success is degraded and closes the incident', () => {
    const r = run({ status: 'up', fail_streak: 0 }, ['down', 'degraded', 'up'], 1);
    assert.deepEqual(r.seen, ['down', 'degraded', 'up']);
    assert.deepEqual(r.incidents, ['open', 'close']);
  });

  test('a success resets the failure run', () => {
    const r = run({ status: 'unknown', fail_streak: 0 }, ['down', 'down', 'up', 'down', 'down', 'up']);
    assert.deepEqual(r.seen, ['degraded', 'degraded', 'up', 'degraded', 'degraded', 'up']);
    assert.deepEqual(r.incidents, []);
  });

  test('down stays down until a success, even when the threshold is raised meanwhile', () => {
    const t = nextState({ status: 'down', fail_streak: 3 }, 'down', 10);
    assert.equal(t.status, 'down');
    assert.equal(t.openIncident, false);
    assert.equal(t.changed, false);
    assert.equal(t.fail_streak, 4);
  });

  test('changed flags only real changes', () => {
    assert.equal(nextState({ status: 'up', fail_streak: 0 }, 'up', 3).changed, false);
    assert.equal(nextState({ status: 'unknown', fail_streak: 0 }, 'up', 3).changed, true);
    assert.equal(nextState({ status: 'degraded', fail_streak: 1 }, 'down', 3).changed, false);
  });
});

describe('rollup histogram', () => {
  test('buckets cover 0 to infinity without gaps, log-scale', () => {
    assert.equal(bucketLower(0), 0);
    for (let i = 0; i < HIST_BUCKETS - 1; i++) assert.equal(bucketUpper(i), bucketLower(i + 1));
    assert.equal(bucketUpper(HIST_BUCKETS - 1), Infinity);
    for (const rt of [0, 1, 9, 10, 11, 100, 999, 5000, 12_345, 100_000, 1e6, 1e8]) {
      const b = bucketOf(rt);
      assert.ok(rt >= bucketLower(b) && rt < bucketUpper(b), `rt ${rt} in bucket ${b}`);
    }
    assert.equal(bucketOf(5), 0); // 0.05 ms
    assert.equal(bucketOf(1e9), HIST_BUCKETS - 1);
  });

  test('encode/decode round-trips sparsely (two bytes for one small count)', () => {
    const h = emptyHist();
    h[3] = 1;
    assert.equal(encodeHist(h).length, 2);
    h[0] = 200; h[23] = 1_000_000; h[10] = 127;
    const enc = encodeHist(h);
    assert.deepEqual(decodeHist(enc), h);
    assert.deepEqual(decodeHist(null), emptyHist());
    assert.deepEqual(decodeHist(encodeHist(emptyHist())), emptyHist());
    // Merging adds.
    const merged = decodeHist(enc, decodeHist(enc));
    assert.equal(merged[23], 2_000_000);
  });

  test('p95 from the histogram is close to the exact p95 and within [min, max]', () => {
    // 1000 samples: 950 around 20 ms, 50 around 400 ms.
    const samples: number[] = [];
    for (let i = 0; i < 950; i++) samples.push(toRtUnits(15 + (i % 10))!);
    for (let i = 0; i < 50; i++) samples.push(toRtUnits(380 + i)!);
    const h = emptyHist();
    for (const s of samples) h[bucketOf(s)]! += 1;
    const sorted = [...samples].sort((a, b) => a - b);
    const exact = sorted[Math.ceil(0.95 * sorted.length) - 1]!;
    const est = quantile(h, 0.95, sorted[0], sorted.at(-1))!;
    assert.ok(est >= sorted[0]! && est <= sorted.at(-1)!, `${est} within min/max`);
    assert.ok(Math.abs(est - exact) / exact < 0.7, `estimate ${est} vs exact ${exact}`);
    const p99 = quantile(h, 0.99, sorted[0], sorted.at(-1))!;
    assert.ok(p99 > 300 * 100 * 0.6 && p99 <= 429 * 100, `p99 ${p99}`);
    assert.equal(quantile(emptyHist(), 0.95), null);
    // A single value: p95 is that value exactly (clamped to min = max).
    const one = emptyHist(); one[bucketOf(1234)] = 1;
    assert.equal(quantile(one, 0.95, 1234, 1234), 1234);
  });

  test('bucket starts and windows are UTC and aligned', () => {
    const t = Date.parse('2026-03-04T05:06:07.890Z');
    assert.equal(bucketStart(KIND.minute, t) * 1000, Date.parse('2026-03-04T05:06:00Z'));
    assert.equal(bucketStart(KIND.hour, t) * 1000, Date.parse('2026-03-04T05:00:00Z'));
    assert.equal(bucketStart(KIND.day, t) * 1000, Date.parse('2026-03-04T00:00:00Z'));
    assert.equal(windowStart(KIND.hour, t, 24) * 1000, Date.parse('2026-03-03T06:00:00Z'));
    assert.equal(uptimePct({ checks: 0, up: 0, degraded: 0 }), null);
    assert.equal(uptimePct({ checks: 3, up: 1, degraded: 1 }), 66.667);
  });
});

describe('CSV', () => {
  test('RFC 4180 quoting and CRLF', () => {
    assert.equal(csvLine(['a', 'b,c', 'say "hi"', 'two\nlines', null, 42]), 'a,"b,c","say ""hi""","two\nlines",,42\r\n');
    assert.equal(csvCell('plain'), 'plain');
    assert.equal(csvCell('cr\rinside'), '"cr\rinside"');
    assert.equal(csvCell({ a: 1 }), '"{""a"":1}"');
  });

  test('cells a spreadsheet would run as formulas are neutralised', () => {
    assert.equal(csvCell('=HYPERLINK("http://x")'), `"'=HYPERLINK(""http://x"")"`);
    assert.equal(csvCell('+1'), "'+1");
    assert.equal(csvCell('-2+3'), "'-2+3");
    assert.equal(csvCell('@SUM(A1)'), "'@SUM(A1)");
    assert.equal(csvCell('\tlooks empty'), "'\tlooks empty");
    assert.equal(csvCell('\r=1'), `"'\r=1"`);
    assert.equal(csvCell('a=b'), 'a=b');
  });

  test('the download filename carries the time', () => {
    assert.equal(csvFilename(Date.parse('2026-01-02T03:04:05.678Z')), 'monitor-events-20260102-030405.csv');
  });
});

describe('scheduler', () => {
  const spec = (pk: number, intervalS: number, lastCheck: number | null = null, paused = false): ScheduleSpec =>
    ({ pk, id: `00000000-0000-4000-8000-${String(pk).padStart(12, '0')}`, intervalMs: intervalS * 1000, lastCheck, paused });

  /** A scheduler whose checks take `durationMs` on the clock (or stay open until released). */
  function harness(opts: { max?: number; durationMs?: number } = {}) {
    const clock = new ManualClock();
    const starts: { pk: number; at: number }[] = [];
    const open = new Map<number, () => void>();
    const sched = new Scheduler({
      clock, log: quiet, maxConcurrent: opts.max ?? 100,
      run: (pk, signal) => {
        starts.push({ pk, at: clock.now() });
        return new Promise<void>((resolve) => {
          const done = () => { open.delete(pk); resolve(); };
          open.set(pk, done);
          signal.addEventListener('abort', done, { once: true });
          if (opts.durationMs !== undefined) clock.setTimeout(done, opts.durationMs);
        });
      },
    });
    const settle = () => new Promise<void>((r) => setImmediate(r));
    return { clock, sched, starts, open, settle };
  }

  test('phases are stable and within the interval: to the millisecond, or on the batch grid', () => {
    const id = '3f0b6c1e-8d7a-4a57-9a11-2b7f3e1c9d00';
    assert.equal(phaseOf(id, 60_000), phaseOf(id, 60_000));
    assert.ok(phaseOf(id, 60_000) >= 0 && phaseOf(id, 60_000) < 60_000);
    assert.equal(phaseOf(id, 60_000, 10_000) % 10_000, 0);
    const now = Date.parse('2026-01-01T00:00:00.500Z');
    const slot = phaseSlot(id, 60_000, now);
    assert.ok(slot >= now && slot < now + 60_000);
    assert.equal((slot - phaseOf(id, 60_000)) % 60_000, 0);
    // Phases of many monitors spread over the interval; batched ones share the grid's six points.
    const phases = new Set(Array.from({ length: 200 }, (_, i) => phaseOf(`m-${i}`, 60_000)));
    assert.ok(phases.size > 190, `${phases.size} distinct phases`);
    assert.equal(new Set(Array.from({ length: 200 }, (_, i) => phaseOf(`m-${i}`, 60_000, 10_000))).size, 6);
    assert.deepEqual([60_000, 45_000, 30_000, 7_000, 86_400_000].map(batchGrid), [10_000, 5000, 10_000, 1000, 10_000]);
  });

  test('a new monitor is checked at once, then on absolute slots that do not drift', async () => {
    const h = harness({ durationMs: 700 });
    h.sched.add(spec(1, 10));
    h.clock.advance(0);
    assert.deepEqual(h.starts.map((s) => s.at - h.starts[0]!.at), [0]);
    for (let i = 0; i < 35; i++) { h.clock.advance(1000); await h.settle(); }
    const t0 = h.starts[0]!.at;
    assert.deepEqual(h.starts.map((s) => s.at - t0), [0, 10_000, 20_000, 30_000]);
  });

  test('a check still running skips its slot; missed slots are skipped, not burst', async () => {
    const h = harness();
    h.sched.add(spec(1, 5));
    h.clock.advance(0);
    assert.equal(h.starts.length, 1);
    h.clock.advance(12_000); // slots at 5 s and 10 s fall while the first check runs
    assert.equal(h.starts.length, 1);
    assert.equal(h.sched.stats().missed, 2);
    h.open.get(1)!();
    await h.settle();
    h.clock.advance(3000); // the 15 s slot
    assert.equal(h.starts.length, 2);
    assert.equal(h.starts[1]!.at - h.starts[0]!.at, 15_000);
  });

  test('late timers skip the slots already past instead of bursting', async () => {
    const h = harness({ durationMs: 10 });
    h.sched.add(spec(1, 10));
    h.clock.advance(10);
    await h.settle();
    // Simulate a stalled event loop: move time without firing timers, then fire.
    (h.clock as unknown as { ms: number }).ms += 35_000;
    h.clock.advance(0);
    await h.settle();
    assert.equal(h.starts.length, 2, 'one late check, not three');
    h.clock.advance(10_000);
    assert.equal(h.starts.length, 3);
    assert.equal((h.starts[2]!.at - h.starts[0]!.at) % 10_000, 0, 'back on the original grid');
  });

  test('at most maxConcurrent checks run; the rest wait for a free slot', async () => {
    const h = harness({ max: 2 });
    for (let pk = 1; pk <= 5; pk++) h.sched.add(spec(pk, 60));
    h.clock.advance(0);
    assert.equal(h.starts.length, 2);
    assert.equal(h.sched.stats().queued, 3);
    h.open.get(1)!();
    await h.settle();
    assert.equal(h.starts.length, 3);
    h.open.get(2)!();
    h.open.get(3)!();
    await h.settle();
    assert.equal(h.starts.length, 5);
    assert.deepEqual(h.starts.map((s) => s.pk), [1, 2, 3, 4, 5]);
  });

  test('batched checks (ping) stay on their grid, start together and do not count against the cap', async () => {
    const h = harness({ max: 1, durationMs: 3000 });
    const now = h.clock.now();
    // Checked before, at different moments: their next slots round to the same point of the grid.
    h.sched.load([1, 2, 3].map((pk) => ({ ...spec(pk, 60, now - 55_000 + pk * 700), alignMs: 10_000, batched: true })));
    h.sched.add(spec(9, 60)); // an http check, holding the only place under the cap
    h.clock.advance(0);
    h.clock.advance(10_000);
    const batch = h.starts.filter((s) => s.pk !== 9);
    assert.equal(batch.length, 3, 'all three in spite of the cap');
    assert.equal(new Set(batch.map((s) => s.at)).size, 1, 'in the same turn');
    assert.equal(batch[0]!.at % 10_000, 0, 'on the grid');
    // One created later is checked at once, then goes onto the grid.
    h.sched.add({ ...spec(4, 60), alignMs: 10_000, batched: true });
    h.clock.advance(1234);
    for (let i = 0; i < 70; i++) { h.clock.advance(1000); await h.settle(); }
    const four = h.starts.filter((s) => s.pk === 4).map((s) => s.at);
    assert.equal(four.length, 2);
    assert.equal(four[1]! % 10_000, 0);
  });

  test('other checks sit on the start grid: those due at one point start in one turn, under the cap', async () => {
    assert.equal(gridOf(60_000, false), START_GRID_MS);
    assert.equal(gridOf(60_000, true), batchGrid(60_000));
    assert.equal(gridOf(START_GRID_MS * 3 + 1, false), 0, 'no grid that does not divide the interval');
    const h = harness({ max: 2, durationMs: 5 });
    const now = h.clock.now();
    const grid = { alignMs: START_GRID_MS };
    // Checked before, 10 ms apart: their next slots round to one point of the grid.
    h.sched.load([1, 2, 3].map((pk) => ({ ...spec(pk, 60, now - 55_000 + pk * 10), ...grid })));
    h.clock.advance(5000 + 100);
    assert.equal(h.starts.length, 2, 'the cap still holds');
    assert.equal(h.starts[0]!.at, h.starts[1]!.at, 'in the same turn');
    assert.equal(h.starts[0]!.at % START_GRID_MS, 0, 'on the grid');
    await h.settle();
    h.clock.advance(10);
    await h.settle();
    assert.equal(h.starts.length, 3, 'the third when a place frees');
    // A new monitor is checked at once, off the grid, then goes onto it.
    h.sched.add({ ...spec(4, 60), ...grid });
    h.clock.advance(7);
    for (let i = 0; i < 70; i++) { h.clock.advance(1000); await h.settle(); }
    const four = h.starts.filter((s) => s.pk === 4).map((s) => s.at);
    assert.equal(four.length, 2);
    assert.notEqual(four[0]! % START_GRID_MS, 0);
    assert.equal(four[1]! % START_GRID_MS, 0);
  });

  test('the scheduler records how late each check started after its slot', () => {
    const manual = new ManualClock();
    let late = 0; // the timer fires this late (a busy event loop)
    const clock = { now: () => manual.now() + late, iso: (ms?: number) => manual.iso(ms),
      setTimeout: (fn: () => void, ms: number) => manual.setTimeout(fn, ms) };
    const sched = new Scheduler({ clock, log: quiet, maxConcurrent: 10, run: () => Promise.resolve() });
    const h = { sched };
    h.sched.load([spec(1, 60, manual.now() - 30_000)]);
    late = 40;
    manual.advance(30_000);
    const lag = h.sched.stats().lag;
    assert.equal(lag.checks, 1);
    assert.equal(lag.max_ms, 40);
    assert.equal(lag.over_20ms, 1);
    assert.deepEqual(lag.histogram, [{ le_ms: 40, count: 1 }]);
    assert.deepEqual(h.sched.recentLag().map((r) => r.lag_ms), [40]);
  });

  test('after a restart, monitors resume from their last check; overdue ones are spread, not fired together', () => {
    const now = Date.parse('2026-01-01T12:00:00Z');
    const specs = [
      spec(1, 60, now - 20_000), // due in 40 s
      spec(2, 300, now - 100_000), // due in 200 s
      ...Array.from({ length: 30 }, (_, i) => spec(10 + i, 60, now - 3600_000 - i * 1000)), // long overdue
      spec(50, 10, now - 60_000), // overdue, short interval: spread within 10 s
      spec(60, 60, null), // never checked: its phase slot
      spec(70, 60, now - 1000, true), // paused
    ];
    const plan = restartPlan(specs, now);
    assert.equal(plan.get(1), now + 40_000);
    assert.equal(plan.get(2), now + 200_000);
    assert.equal(plan.has(70), false);
    assert.equal(plan.get(60), phaseSlot(specs.find((s) => s.pk === 60)!.id, 60_000, now));
    const overdue = Array.from({ length: 30 }, (_, i) => plan.get(10 + i)!);
    assert.ok(overdue.every((d) => d >= now && d < now + 60_000));
    assert.ok(new Set(overdue).size === 30, 'all at different times');
    // The most overdue goes first.
    assert.ok(plan.get(39)! <= plan.get(10)!);
    assert.ok(plan.get(50)! < now + 10_000);
    // Spread to the millisecond, so that checks do not wait for each other; batched ones keep to their grid.
    const many = restartPlan(Array.from({ length: 600 }, (_, i) => spec(1000 + i, 60, now - 3600_000 - i * 7)), now + 123);
    assert.equal(new Set(many.values()).size, 600, 'overdue monitors each get their own moment');
    const pingSpecs = Array.from({ length: 60 }, (_, i) => ({ ...spec(2000 + i, 60, now - 3600_000 - i * 7), alignMs: 10_000, batched: true }));
    const pings = restartPlan(pingSpecs, now + 123);
    assert.ok([...pings.values()].every((d) => d % 10_000 === 0), 'batched: on the grid');
    assert.ok(new Set(pings.values()).size <= 7, 'batched overdue monitors share the grid\'s points');
    // Overdue batched monitors fill the points that hold fewest: 30 not overdue share one point, 150 overdue
    // go to the other five until every point holds 30 (by time they doubled one point up).
    const point = now + 20_000;
    const held = Array.from({ length: 30 }, (_, i) => ({ ...spec(3000 + i, 60, point - 60_000), alignMs: 10_000, batched: true }));
    const late = Array.from({ length: 150 }, (_, i) => ({ ...spec(4000 + i, 60, now - 3600_000 - i * 7), alignMs: 10_000, batched: true }));
    const even = restartPlan([...held, ...late], now + 123);
    const perPoint = new Map<number, number>();
    for (const t of even.values()) perPoint.set(t % 60_000, (perPoint.get(t % 60_000) ?? 0) + 1);
    assert.deepEqual([...perPoint.values()], [30, 30, 30, 30, 30, 30], JSON.stringify([...perPoint]));
    assert.ok([...even.values()].every((t) => t % 10_000 === 0 && t >= now && t < now + 60_000 + 123));
    assert.equal(even.get(4000), now + 10_000, 'the first overdue goes to the first point with room');

    const clock = new ManualClock(now);
    const starts: number[] = [];
    const run = () => { starts.push(clock.now()); return Promise.resolve(); };
    const sched = new Scheduler({ clock, log: quiet, maxConcurrent: 100, run });
    sched.load(specs);
    clock.advance(0);
    assert.ok(starts.length <= 2, `only the first of the overdue at once, got ${starts.length}`);
    clock.advance(60_000);
    assert.ok(starts.length >= 32);
    const perSecond = new Map<number, number>();
    for (const s of starts) perSecond.set(Math.floor(s / 1000), (perSecond.get(Math.floor(s / 1000)) ?? 0) + 1);
    assert.ok(Math.max(...perSecond.values()) <= 3, 'spread over the window');
    assert.ok(new Set(starts).size >= starts.length - 2, 'at different moments');
  });

  test('pause, resume, update and remove reschedule at once; stop aborts running checks', async () => {
    const h = harness();
    h.sched.add(spec(1, 60));
    h.clock.advance(0);
    assert.equal(h.starts.length, 1);
    h.sched.pause(1); // aborts the running check
    await h.settle();
    h.clock.advance(120_000);
    assert.equal(h.starts.length, 1);
    h.sched.resume(spec(1, 60));
    h.clock.advance(0);
    assert.equal(h.starts.length, 2);
    h.open.get(1)!();
    await h.settle();
    // Interval change: next slot = last check + new interval.
    h.sched.update({ ...spec(1, 30), lastCheck: h.clock.now() }, false);
    h.clock.advance(29_999);
    assert.equal(h.starts.length, 2);
    h.clock.advance(1);
    assert.equal(h.starts.length, 3);
    h.open.get(1)!();
    await h.settle();
    // A recheck update runs at once.
    h.sched.update(spec(1, 30), true);
    h.clock.advance(0);
    assert.equal(h.starts.length, 4);
    // While running, a recheck aborts it and runs again as soon as it ended.
    h.sched.update(spec(1, 30), true);
    await h.settle();
    assert.equal(h.starts.length, 5);
    h.sched.remove(1);
    await h.settle();
    h.clock.advance(600_000);
    assert.equal(h.starts.length, 5);
    h.sched.add(spec(2, 60));
    h.clock.advance(0);
    assert.equal(h.open.size, 1);
    await h.sched.stop();
    assert.equal(h.open.size, 0, 'the running check was aborted');
    h.clock.advance(600_000);
    assert.equal(h.starts.length, 6);
  });

  test('exclusive waits for the running check and blocks scheduled slots meanwhile', async () => {
    const h = harness();
    h.sched.add(spec(1, 5));
    h.clock.advance(0);
    let manualStarted = false;
    const manual = h.sched.exclusive(1, async () => { manualStarted = true; return 'done'; });
    await h.settle();
    assert.equal(manualStarted, false, 'waits for the scheduled check');
    h.open.get(1)!();
    assert.equal(await manual, 'done');
    assert.equal(manualStarted, true);
  });

  test('2,000 monitors schedule cheaply with one timer', async () => {
    const clock = new ManualClock();
    let n = 0;
    let timers = 0;
    const counting = { ...clock, now: () => clock.now(), iso: (ms?: number) => clock.iso(ms),
      setTimeout: (fn: () => void, ms: number) => { timers++; return clock.setTimeout(fn, ms); } };
    const sched = new Scheduler({ clock: counting, log: quiet, maxConcurrent: 32, run: () => { n++; return Promise.resolve(); } });
    const specs = Array.from({ length: 2000 }, (_, i) => spec(i + 1, 60, clock.now() - 60_000 + (i + 1) * 29));
    sched.load(specs);
    assert.equal(sched.stats().scheduled, 2000);
    assert.ok(timers <= 2, `one timer armed, not one per monitor (${timers})`);
    for (let i = 0; i < 599; i++) { clock.advance(100); await new Promise<void>((r) => setImmediate(r)); }
    assert.equal(n, 2000, 'each checked once in its interval');
  });
});
