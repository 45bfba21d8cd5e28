// Interface history: per polled interface (a positive integer key, snmp_poll_interfaces.id), the rates of
// every poll over time, for the graphs of the last hour, day, week, month and year (average and maximum per
// step) and a month's 95th percentile. Nothing outside this folder imports its other files.
//
// Why not the monitors' SeriesStore (monitors/storage/): it keeps hour and day ROWS in sql.js, whose whole
// database lives in memory and is rewritten by every checkpoint, and each result as a channel entry. At
// 2,400 interfaces x 8 rates (named measurements): 19,200 measure rows per hour bucket (921,600 for its 2
// days of hour rows) and per day bucket (7 million for a year of day rows): at tens of bytes a row, hundreds
// of MiB of a 1 GB device. It has no 5-minute steps (no minute rollups: the raw results are the finest),
// which the day view and a month's 95th percentile need (2,400 x 288 x 31 = 21 million steps); its raw
// results in memory at ~4 bytes + ~4 a measure are ~125 MiB for 24 h of 3.5 million polls; and each
// result written twice (journal, then segment) at ~40 bytes is ~0.2 MiB/min, past the whole polling
// budget (0.15). What this keeps is fixed-step numeric vectors, a step of every interface at once, so it
// writes them as such: one block per step appended to a file, a day compacted once (below). It does not
// use a channel for the same reason: the block appended every 5 minutes is the durability (a power cut
// loses the open step).
//
// In memory (live.ts, ~1.6 KB an interface): the last hour's points as polled (the hour view, latest(),
// sparklines) and the open 5-minute steps (sum, max and count per rate, points, points up).
//
// Files, in the directory given (e.g. <data>/snmp-history/):
//   steps-YYYYMMDD.bin   the 5-minute steps of one UTC day as they close: a block appended (and fdatasync'd)
//                        per step, one minute after it ended (late polls). Today's (and a day whose
//                        compaction has not run yet).
//   cols-YYYYMMDD.bin    the same day once it has ended (compact.ts, daycols.ts): per interface its 288
//                        records side by side, deflated, and an index at the end; written whole (temp, fsync,
//                        rename), then the steps file is deleted. Kept retention.steps_days (35).
//   days-YYYY.bin        day steps of one UTC year: a block per day, appended by the day's compaction; kept
//                        retention.day_steps_days (400)
//   open.bin             at close() only: the open steps and the ring (image.ts), read and deleted at open()
//
// A block (blocks.ts), all little-endian:
//   header   24 bytes   u32 magic "NPH1" | u32 step start (epoch s) | u32 step (s: 300 or 86400) | u32 n
//                       | u32 CRC-32 of the keys | u32 CRC-32 of keys and records
//   keys     n x u32    the interfaces' keys, ascending
//   records  n x 40 B   the step of keys[i] (codec.ts): f32 in_bps avg | f32 out_bps avg | u16 codes of in and
//                       out bps max, then avg and max of in/out pps, errors/s, discards/s | u16 points (0: a
//                       gap) | u8 share of points up (1/200; 255 unknown) | u8 0
//   A u16 code is 0 unknown, 1 zero, else 1e-6 x e^((code - 2) x ln(1e19) / 65533): 0.03 % at worst.
//
// cols file: chunks (deflate-raw of 288 x 40 B, a step's record at (start - day start) / 300; zeros: no point)
//   | keys n x u32 ascending | chunk offsets n x u32 | chunk lengths n x u32
//   | footer 24 B: u32 magic "NPHC" | u32 version 1 | u32 day start (epoch s) | u32 n | u32 CRC-32 of the index | 0
//
// Reading one interface's day: in a cols file one read and an inflate (a month: 31 reads); in a steps file
// (today) the block headers and key list are read once and cached (files.ts), then one 40-byte read per
// block. A start cuts a torn block off the newest files (a killed append) and keeps the rest; a cols file
// is whole or absent. Retention (retain()) deletes whole files.
import { mkdir, readdir, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { setImmediate as yieldLoop } from 'node:timers/promises';
import type { Clock } from '../../../../core/clock.js';
import type { Logger } from '../../../../core/log.js';
import type { IfPoint } from '../types.js';
import { newBlock, recordAt, sealBlock } from './blocks.js';
import { newStepValues, NRATES, RATES, readRecord, writeRecord } from './codec.js';
import { compactDay } from './compact.js';
import { ColsReader } from './daycols.js';
import { appendBlock, BlockReader, colsName, DAY_S, daysName, parseName, repairTail, stepsName, yearOf } from './files.js';
import { readImage, writeImage } from './image.js';
import { Live } from './live.js';
import { Grid, p95Of, toPoint, VIEWS, type HistoryPoint, type HistoryRange, type HistorySeries } from './views.js';

export type { HistoryPoint, HistoryRange, HistorySeries } from './views.js';

export const STEP_S = 300;
const STEP_MS = STEP_S * 1000;

export interface InterfaceHistoryOptions {
  /** The history's own directory (created), e.g. <data>/snmp-history. */
  dir: string;
  clock: Clock;
  log: Logger;
  /** Days kept: 5-minute steps (the day to month views and the 95th percentile), day steps (the year view). */
  retention?: { steps_days?: number; day_steps_days?: number };
  /** How long after its end a 5-minute step waits for polls that started in it (default 60 s). */
  grace_ms?: number;
  /** Interfaces expected (those polled at start): memory for them is taken at once, not grown by copies. */
  interfaces_hint?: number;
}

export interface P95 {
  /** 95th percentile of the 5-minute averages (views.ts p95Of: ceil(0.95 n) - 1, 0-based), b/s; null without any. */
  in_bps: number | null;
  out_bps: number | null;
  /** 5-minute steps with a known rate (in; out may differ by a gap or two), and steps in the span. */
  samples: number;
  expected_samples: number;
}

export interface Sparkline {
  step_s: number;
  /** End of the last bucket, epoch ms; buckets oldest first. */
  to: number;
  in_bps: (number | null)[];
  out_bps: (number | null)[];
}

export interface HistoryStats {
  interfaces: number;
  /** Bytes written to files since open() (appended blocks and compacted days), and blocks appended. */
  bytes_written: number;
  blocks_written: number;
  /** Points dropped: of a step already closed (late), or without a time. */
  dropped_points: number;
  /** What open() did with the close-time image: 'used', 'none' or why not. */
  image: string;
}

const SPARK_BUCKETS = 12;

export class InterfaceHistory {
  private live = new Live();
  private reader = new BlockReader();
  private cols = new ColsReader();
  private readonly grace: number;
  private readonly stepsDays: number;
  private readonly daysDays: number;
  /** The last 5-minute step number (epoch s / 300) closed; steps after it are open. */
  private closedThrough = 0;
  /** Points in each open step (by parity): a step without any writes no block. */
  private pending = [0, 0];
  /** The last UTC day whose day step is in its year's file. */
  private rolledThrough = -1;
  /** The last UTC day whose compaction is queued (index.ts header: steps -> cols and a day step). */
  private compactedThrough = -1;
  private writes: Promise<void> = Promise.resolve();
  private timer: { cancel(): void } | null = null;
  private opened = false;
  private stats_: HistoryStats = { interfaces: 0, bytes_written: 0, blocks_written: 0, dropped_points: 0, image: 'none' };
  private v = newStepValues();
  /** The block buffer steps are built in, reused unless an append of it is still under way (memory churn). */
  private blockBuf: Buffer | null = null;
  private blockBusy = false;

  constructor(private readonly o: InterfaceHistoryOptions) {
    this.grace = o.grace_ms ?? 60_000;
    this.stepsDays = o.retention?.steps_days ?? 35;
    this.daysDays = o.retention?.day_steps_days ?? 400;
    if (o.interfaces_hint) this.live.reserve(o.interfaces_hint);
  }

  /** Loads the image of a clean stop, or cuts torn tails after a crash; writes steps that ended while stopped. */
  async open(): Promise<void> {
    const { dir, log } = this.o;
    await mkdir(dir, { recursive: true, mode: 0o700 });
    const names = (await readdir(dir)).sort();
    for (const n of names) if (n.startsWith('.') && n.endsWith('.tmp')) await rm(path.join(dir, n), { force: true });
    const steps = names.filter((n) => parseName(n)?.kind === 'steps');
    const days = names.filter((n) => parseName(n)?.kind === 'days');
    // Only the newest file of each kind takes appends, so only its tail can be torn.
    const lastSteps = steps.at(-1);
    const lastDays = days.at(-1);
    let lastStep = -1;
    if (lastSteps) {
      repairTail(path.join(dir, lastSteps), log);
      const t = this.lastStart(lastSteps);
      if (t >= 0) lastStep = t / STEP_S;
    }
    if (lastDays) {
      repairTail(path.join(dir, lastDays), log);
      const t = this.lastStart(lastDays);
      if (t >= 0) this.rolledThrough = t / DAY_S;
    }
    const now = this.o.clock.now();
    const img = await readImage(path.join(dir, 'open.bin'), this.live);
    this.stats_.image = typeof img === 'string' ? img : 'used';
    if (typeof img === 'string') {
      this.closedThrough = Math.max(lastStep, Math.floor(now / STEP_MS) - 1);
    } else {
      this.closedThrough = Math.max(lastStep, img.closedThrough);
      this.pending = [1, 1]; // the image's open steps: closeDue skips a step with no point
    }
    // Steps that ended while stopped are closed now; then every day before the open step's that still has a
    // steps file (its compaction was cut short, or the stop went over midnight) is compacted.
    let first = this.openDay();
    for (const n of steps) { const f = parseName(n); if (f?.kind === 'steps') first = Math.min(first, f.day); }
    this.closeDue(now);
    this.opened = true;
    for (let d = first; d < this.openDay(); d++) this.compact(d);
    this.compactedThrough = this.openDay() - 1;
    this.schedule(); // the appends and compactions queued go on after open() (flush() awaits them)
    log.info('snmp history opened', { interfaces: this.live.size, image: this.stats_.image, closed_through: this.closedThrough * STEP_MS });
  }

  /**
   * One poll of one interface (`key`: a positive integer), between open() and close(). In memory only; a point
   * of a step already closed is dropped.
   */
  add(key: number, p: IfPoint): void {
    if (!(key > 0 && key <= 0xffffffff && Number.isInteger(key))) throw new RangeError(`interface key ${key}: a positive 32-bit integer`);
    const k = Math.floor(p.t / STEP_MS);
    if (!(k > this.closedThrough) || !this.opened) { this.stats_.dropped_points++; return; } // late, NaN, or closed
    if (k > this.closedThrough + 2) this.closeThrough(k - 2); // the clock moved past a closing (or jumped)
    const parity = k % 2;
    this.live.addPoint(this.live.slot(key), p, parity);
    this.pending[parity]!++;
  }

  /** The view `range` of interface `key` ending at `now` (the last closed step for the stepped views). */
  async series(key: number, range: HistoryRange, now = this.o.clock.now()): Promise<HistorySeries> {
    if (range === 'hour') return this.hourView(key, now);
    const { step_s, span_s } = VIEWS[range];
    const closedEnd = Math.min((this.closedThrough + 1) * STEP_S, Math.floor(now / STEP_MS) * STEP_S);
    const to = Math.ceil(closedEnd / step_s) * step_s;
    const from = to - span_s;
    const grid = new Grid(from, step_s, span_s / step_s);
    const add = (start: number, buf: Buffer, at: number) => { readRecord(buf, at, this.v); grid.add(start, this.v); };
    let stepsFrom = from;
    if (range === 'year') {
      // Day steps where written, the 5-minute steps of the days after (today's, and any not yet rolled up).
      const rolledEnd = (this.rolledThrough + 1) * DAY_S;
      for (let y = yearOf(from / DAY_S); y <= yearOf((Math.min(to, rolledEnd) - 1) / DAY_S) && from < rolledEnd; y++) {
        this.reader.forKey(path.join(this.o.dir, daysName(y)), key, from, Math.min(to, rolledEnd), add);
        await yieldLoop();
      }
      stepsFrom = Math.max(from, rolledEnd);
    }
    for (let d = Math.floor(stepsFrom / DAY_S); d * DAY_S < to; d++) {
      this.readDay(d, key, stepsFrom, to, add);
      await yieldLoop(); // a day at a time: a month is 31
    }
    const points: HistoryPoint[] = [];
    for (let i = 0; i < grid.count; i++) {
      grid.step(i, this.v);
      points.push(toPoint((from + i * step_s) * 1000, this.v));
    }
    return { range, step_s, from: from * 1000, to: to * 1000, points };
  }

  /** The 95th percentile of the 5-minute averages of [from, to) (epoch ms), in and out apart. */
  async p95(key: number, from: number, to: number): Promise<P95> {
    const from_s = Math.ceil(from / STEP_MS) * STEP_S;
    const to_s = Math.floor(to / STEP_MS) * STEP_S;
    const ins: number[] = [];
    const outs: number[] = [];
    for (let d = Math.floor(from_s / DAY_S); d * DAY_S < to_s; d++) {
      this.readDay(d, key, from_s, to_s, (_s, buf, at) => {
        readRecord(buf, at, this.v);
        if (this.v.samples === 0) return;
        if (this.v.avg[0] === this.v.avg[0]) ins.push(this.v.avg[0]!);
        if (this.v.avg[1] === this.v.avg[1]) outs.push(this.v.avg[1]!);
      });
      await yieldLoop();
    }
    const sorted = (a: number[]) => Float64Array.from(a).sort();
    return {
      in_bps: p95Of(sorted(ins)), out_bps: p95Of(sorted(outs)),
      samples: ins.length, expected_samples: Math.max(0, (to_s - from_s) / STEP_S),
    };
  }

  /** The interface's last point (rates to 0.03 %), or null when none since the start. */
  latest(key: number): IfPoint | null {
    const s = this.live.slotOf(key);
    if (s < 0 || this.live.ringLen[s] === 0) return null;
    let last: IfPoint | null = null;
    this.live.forRing(s, (t, v, up) => { last = this.ringPoint(t, v, up, this.live.speed[s]!); });
    return last;
  }

  /** The last hour as 12 five-minute averages of in and out b/s (from memory: cheap for a list of many). */
  sparkline(key: number, now = this.o.clock.now()): Sparkline | null {
    const s = this.live.slotOf(key);
    if (s < 0) return null;
    const to = Math.floor(now / STEP_MS) * STEP_S + STEP_S;
    const from = to - SPARK_BUCKETS * STEP_S;
    const sum = [new Float64Array(SPARK_BUCKETS), new Float64Array(SPARK_BUCKETS)];
    const n = [new Uint16Array(SPARK_BUCKETS), new Uint16Array(SPARK_BUCKETS)];
    this.live.forRing(s, (t, v) => {
      const b = Math.floor((t - from) / STEP_S);
      if (b < 0 || b >= SPARK_BUCKETS) return;
      for (let r = 0; r < 2; r++) {
        const x = this.live.rate(v, r);
        if (x === x) { sum[r]![b]! += x; n[r]![b]!++; }
      }
    });
    const avg = (r: number) => Array.from(sum[r]!, (x, b) => (n[r]![b] ? x / n[r]![b]! : null));
    return { step_s: STEP_S, to: to * 1000, in_bps: avg(0), out_bps: avg(1) };
  }

  /** An interface deleted: forgets it in memory; its steps in files go with retention (keys are never reused). */
  forget(key: number): void { this.live.forget(key); }

  /** Deletes the files past retention; returns their names. */
  async retain(now = this.o.clock.now()): Promise<string[]> {
    const today = Math.floor(now / 1000 / DAY_S);
    const stepsCut = today - this.stepsDays;
    const daysCutYear = yearOf(today - this.daysDays);
    const gone: string[] = [];
    for (const n of await readdir(this.o.dir)) {
      const f = parseName(n);
      if (!f || (f.kind === 'days' ? f.year >= daysCutYear : f.day >= stepsCut)) continue;
      await rm(path.join(this.o.dir, n), { force: true });
      this.reader.drop(path.join(this.o.dir, n));
      this.cols.drop(path.join(this.o.dir, n));
      gone.push(n);
    }
    if (gone.length) this.o.log.info('snmp history retention', { deleted: gone.length });
    return gone;
  }

  stats(): HistoryStats { return { ...this.stats_, interfaces: this.live.size }; }

  /** Waits for the appends under way (tests, the bench). */
  async flush(): Promise<void> { await this.writes; }

  /** Writes what is pending, then the open steps and the ring to open.bin for the next open(). */
  async close(): Promise<void> {
    if (!this.opened) return;
    this.opened = false;
    this.timer?.cancel();
    this.timer = null;
    this.closeDue(this.o.clock.now());
    await this.writes;
    await writeImage(path.join(this.o.dir, 'open.bin'), this.live, { closedThrough: this.closedThrough, written_at: this.o.clock.now() });
  }

  // ---- closing steps ----

  /** Closes every step whose end plus the grace has passed. */
  private closeDue(now: number): void {
    const due = Math.floor((now - this.grace) / STEP_MS) - 1; // step k ends at (k + 1) x 300 s
    if (due > this.closedThrough) this.closeThrough(due);
  }

  private closeThrough(k: number): void {
    while (this.closedThrough < k) {
      // Nothing open: jump (a stop of days closes in one go).
      if (this.pending[0] === 0 && this.pending[1] === 0) { this.closedThrough = k; break; }
      this.closeStep(this.closedThrough + 1);
    }
    if (!this.opened) return;
    while (this.compactedThrough < this.openDay() - 1) this.compact(++this.compactedThrough);
  }

  /** The UTC day of the first open step. */
  private openDay(): number { return Math.floor(((this.closedThrough + 1) * STEP_S) / DAY_S); }

  private closeStep(k: number): void {
    const parity = k % 2;
    this.closedThrough = k;
    if (this.pending[parity] === 0) return;
    this.pending[parity] = 0;
    const keys = this.live.keys();
    const reuse = this.blockBusy ? undefined : this.blockBuf ?? undefined;
    const block = newBlock(k * STEP_S, STEP_S, keys, reuse);
    let any = false;
    for (let i = 0; i < keys.length; i++) {
      const s = this.live.slotOf(keys[i]!);
      this.live.stepValues(s, parity, this.v);
      if (this.v.samples) any = true;
      writeRecord(block, recordAt(keys.length, i), this.v);
      this.live.resetStep(s, parity);
    }
    if (!any) return;
    const mine = !this.blockBusy; // built in the reusable buffer, or in a larger one that becomes it
    if (mine) {
      if (block.buffer !== this.blockBuf?.buffer) this.blockBuf = block;
      this.blockBusy = true;
    }
    const name = stepsName(Math.floor((k * STEP_S) / DAY_S));
    sealBlock(block);
    this.queue(async () => {
      try { await this.write(name, block); } finally { if (mine) this.blockBusy = false; }
    });
  }

  /** Queues day `day`'s compaction: its cols file, its day step, then its steps file deleted. */
  private compact(day: number): void {
    this.queue(async () => {
      const steps = path.join(this.o.dir, stepsName(day));
      if (!(await stat(steps).catch(() => null))) return;
      const cols = path.join(this.o.dir, colsName(day));
      const { dayBlock, bytes } = await compactDay(steps, cols, day);
      this.cols.drop(cols);
      this.stats_.bytes_written += bytes;
      if (dayBlock && day > this.rolledThrough) {
        await this.write(daysName(yearOf(day)), dayBlock);
        this.rolledThrough = day;
      }
      await rm(steps, { force: true });
      this.reader.drop(steps);
    });
  }

  private async write(name: string, block: Buffer): Promise<void> {
    await appendBlock(path.join(this.o.dir, name), block);
    this.stats_.bytes_written += block.length;
    this.stats_.blocks_written++;
  }

  /** Appends run one at a time, in order (a day's rollup reads its file after its last step's append). */
  private queue(fn: () => Promise<void>): void {
    this.writes = this.writes.then(fn).catch((e: unknown) => {
      this.o.log.error('snmp history: write failed', { error: e instanceof Error ? e.message : String(e) });
    });
  }

  private schedule(): void {
    if (!this.opened) return;
    const at = (this.closedThrough + 2) * STEP_MS + this.grace;
    this.timer = this.o.clock.setTimeout(() => {
      this.closeDue(this.o.clock.now());
      this.schedule();
    }, Math.max(1000, at - this.o.clock.now()));
  }

  // ---- reads from memory and files ----

  private hourView(key: number, now: number): HistorySeries {
    const s = this.live.slotOf(key);
    const from = now - 3_600_000;
    const pts: { t: number; v: number; up: number }[] = [];
    if (s >= 0) this.live.forRing(s, (t, v, up) => { if (t * 1000 > from && t * 1000 <= now) pts.push({ t, v, up }); });
    // The poll interval: the most common gap (60 s when too few points say).
    const gaps = pts.slice(1).map((p, i) => p.t - pts[i]!.t).sort((a, b) => a - b);
    const step_s = gaps.length ? Math.max(1, gaps[gaps.length >> 1]!) : 60;
    const points: HistoryPoint[] = [];
    for (let i = 0; i < pts.length; i++) {
      const { t, v, up } = pts[i]!;
      // A missed poll shows as a gap: a null point between two points further apart than 1.5 intervals.
      if (i > 0 && t - pts[i - 1]!.t > 1.5 * step_s) points.push(toPoint((pts[i - 1]!.t + step_s) * 1000, newStepValues()));
      for (let r = 0; r < NRATES; r++) this.v.avg[r] = this.v.max[r] = this.live.rate(v, r);
      this.v.samples = 1;
      this.v.up = up < 0 ? NaN : up;
      points.push(toPoint(t * 1000, this.v));
    }
    return { range: 'hour', step_s, from, to: now, points };
  }

  /** Day `d`'s 5-minute steps of `key` in [from_s, to_s): from its cols file once compacted, else its steps file. */
  private readDay(d: number, key: number, from_s: number, to_s: number, fn: (start_s: number, buf: Buffer, at: number) => void): void {
    if (!this.cols.forKey(path.join(this.o.dir, colsName(d)), key, from_s, to_s, fn)) {
      this.reader.forKey(path.join(this.o.dir, stepsName(d)), key, from_s, to_s, fn);
    }
  }

  private ringPoint(t: number, v: number, up: number, speed: number): IfPoint {
    const p = { t: t * 1000, up: up < 0 ? null : up === 1, speed_bps: speed === speed ? speed : null } as Record<string, unknown>;
    for (let r = 0; r < NRATES; r++) { const x = this.live.rate(v, r); p[RATES[r]!] = x === x ? x : null; }
    return p as unknown as IfPoint;
  }

  /** Start (epoch s) of the last whole block of a file, read from its headers; -1 when none. */
  private lastStart(name: string): number { return this.reader.lastStart(path.join(this.o.dir, name)); }
}
