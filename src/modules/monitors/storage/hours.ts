// Per-series counts and times of the last 26 hours, in memory and updated as each result arrives: the
// monitors list's 24-hour figures (GET /api/monitors) read them without touching SQL, and single series
// read the hours not yet written to the rollups table from here. Typed arrays indexed by a dense slot per
// series, so 2,000 monitors cost about 3 MiB.
//
// Times: uptime is time, not a count of checks (docs/monitors.md, "Uptime"). Each series' status holds
// from the result that set it until the next result (manual checks included: they can change the status;
// a failed check's time is down, also below the failure threshold: timeStatus()),
// for at most `capMs` (the user's: a monitor's two intervals plus its timeout; beyond that nobody looked,
// the probe was off); paused and unknown time is not counted. A tracker per series remembers the status and up to when its time has
// been credited, and the hour closer (hour-close.ts) brings every tracker to the end of an hour before it
// writes that hour's rollup rows. Credits to hours whose rollups are written already are dropped.
import type { ByteReader, ByteWriter } from '../../../core/store/index.js';
import type { Aggregate, ResultStatus } from './rollups.js';

/** Hours kept: the 24 of the window plus the one whose rollup row may still be waiting to be written. */
export const RING_HOURS = 26;
export const HOUR_MS = 3_600_000;

export const hourOf = (tMs: number): number => Math.floor(tMs / HOUR_MS);

export class HourRing {
  private slots = new Map<number, number>();
  private freeSlots: number[] = [];
  private size = 0;
  private hour = new Int32Array(0);
  private counts = new Uint32Array(0); // checks, up, degraded, down, rt_count per cell
  private rtSum = new Float64Array(0);
  private times = new Float64Array(0); // ms up, degraded, down, set aside per cell (TIMES each)
  private track = new Map<number, Tracker>();
  /** Hours before this are written to monitor_rollups: time is no longer credited to them (the watermark). */
  floorHour: () => number = () => -Infinity;
  /**
   * The parts of [from, to) set aside for a series (its maintenance windows), sorted and apart: time there
   * is credited as set aside, not to its status, so no uptime counts it.
   */
  aside: (pk: number, from: number, to: number) => readonly (readonly [number, number])[] = () => [];

  /** Adds one result to its hour (ignored when that hour is older than the ring). */
  add(pk: number, tMs: number, status: ResultStatus, rt: number | null): void {
    const cell = this.cell(pk, hourOf(tMs));
    if (cell < 0) return;
    const c = cell * 5;
    this.counts[c]! += 1;
    this.counts[c + 1 + RESULT_CODE_INDEX[status]]! += 1;
    if (rt != null) { this.counts[c + 4]! += 1; this.rtSum[cell]! += rt; }
  }

  /** Adds a whole hour's counts and times (a rollup row read back at start-up). */
  addHour(pk: number, hour: number, a: Pick<Aggregate, 'checks' | 'up' | 'degraded' | 'down' | 'rt_sum' | 'rt_count'>
    & Partial<Pick<Aggregate, 'ms_up' | 'ms_degraded' | 'ms_down' | 'ms_maint'>>): void {
    const cell = this.cell(pk, hour);
    if (cell < 0) return;
    const c = cell * 5;
    this.counts[c]! += a.checks;
    this.counts[c + 1]! += a.up;
    this.counts[c + 2]! += a.degraded;
    this.counts[c + 3]! += a.down;
    this.counts[c + 4]! += a.rt_count;
    this.rtSum[cell]! += a.rt_sum;
    this.times[cell * TIMES]! += a.ms_up ?? 0;
    this.times[cell * TIMES + 1]! += a.ms_degraded ?? 0;
    this.times[cell * TIMES + 2]! += a.ms_down ?? 0;
    this.times[cell * TIMES + 3]! += a.ms_maint ?? 0;
  }

  // ---- time ------------------------------------------------------------------------------------

  /**
   * A result (scheduled or manual) at `t` left the monitor `status` as time counts it (timeStatus()): the
   * time since the last one is credited to the status before it, and `status` holds from `t` (up,
   * degraded and down count; paused or unknown do not).
   */
  observe(pk: number, t: number, status: string, capMs: number): void {
    const k = this.trackerOf(pk);
    this.advanceTracker(pk, k, t, capMs);
    k.status = TIME_INDEX[status] ?? -1;
    k.from = Math.max(k.from, t);
    k.to = Math.max(k.to, t);
  }

  /** Time up to `t` is credited (capped); the status stops counting (pause, resume, an unknown state). */
  stop(pk: number, t: number, capMs: number): void {
    this.advance(pk, t, capMs);
    const k = this.track.get(pk);
    if (k) k.status = -1;
  }

  /** Credits the monitor's current status up to `t` (at most `capMs` after the result that set it). */
  advance(pk: number, t: number, capMs: number): void {
    const k = this.track.get(pk);
    if (k) this.advanceTracker(pk, k, t, capMs);
  }

  /** advance() with the tracker in hand (observe() runs for every result loaded at start: one lookup less). */
  private advanceTracker(pk: number, k: Tracker, t: number, capMs: number): void {
    const end = Math.min(t, k.from + capMs);
    if (k.status >= 0 && end > k.to) this.credit(pk, k.status, k.to, end);
    if (Number.isFinite(t)) k.to = Math.max(k.to, t);
    else k.to = Math.max(k.to, end);
  }

  /** The monitors with a tracker (the hour closer brings each to the end of the hour). */
  tracked(): IterableIterator<number> {
    return this.track.keys();
  }

  /** The monitors with hours or a tracker. */
  monitors(): Set<number> {
    return new Set([...this.slots.keys(), ...this.track.keys()]);
  }

  /** The times of one hour, when the ring holds it. */
  timesOf(pk: number, hour: number): { ms_up: number; ms_degraded: number; ms_down: number; ms_maint: number } | null {
    const s = this.slots.get(pk);
    if (s === undefined) return null;
    const cell = s * RING_HOURS + (hour % RING_HOURS);
    if (this.hour[cell] !== hour) return null;
    const c = cell * TIMES;
    return { ms_up: this.times[c]!, ms_degraded: this.times[c + 1]!, ms_down: this.times[c + 2]!, ms_maint: this.times[c + 3]! };
  }

  private trackerOf(pk: number): Tracker {
    let k = this.track.get(pk);
    if (!k) { k = { status: -1, from: -Infinity, to: -Infinity }; this.track.set(pk, k); }
    return k;
  }

  private credit(pk: number, status: number, from: number, to: number): void {
    let at = from;
    for (const [a, b] of this.aside(pk, from, to)) {
      if (a > at) this.creditTo(pk, status, at, a);
      this.creditTo(pk, ASIDE, Math.max(a, at), Math.min(b, to));
      at = Math.max(at, b);
    }
    if (at < to) this.creditTo(pk, status, at, to);
  }

  private creditTo(pk: number, index: number, from: number, to: number): void {
    const floor = this.floorHour();
    for (let h = hourOf(from); h * HOUR_MS < to; h++) {
      if (h < floor) continue;
      const ms = Math.min(to, (h + 1) * HOUR_MS) - Math.max(from, h * HOUR_MS);
      if (ms <= 0) continue;
      const cell = this.cell(pk, h);
      if (cell >= 0) this.times[cell * TIMES + index]! += ms;
    }
  }

  /** The sum over hours [from, to] (hour numbers since the epoch). */
  sum(pk: number, from: number, to: number): Aggregate {
    const a: Aggregate = { checks: 0, up: 0, degraded: 0, down: 0, rt_sum: 0, rt_count: 0, rt_min: null, rt_max: null,
      ms_up: 0, ms_degraded: 0, ms_down: 0, ms_maint: 0 };
    const s = this.slots.get(pk);
    if (s === undefined) return a;
    for (let i = 0; i < RING_HOURS; i++) {
      const cell = s * RING_HOURS + i;
      const h = this.hour[cell]!;
      if (h < from || h > to) continue;
      const c = cell * 5;
      a.checks += this.counts[c]!;
      a.up += this.counts[c + 1]!;
      a.degraded += this.counts[c + 2]!;
      a.down += this.counts[c + 3]!;
      a.rt_count += this.counts[c + 4]!;
      a.rt_sum += this.rtSum[cell]!;
      a.ms_up += this.times[cell * TIMES]!;
      a.ms_degraded += this.times[cell * TIMES + 1]!;
      a.ms_down += this.times[cell * TIMES + 2]!;
      a.ms_maint += this.times[cell * TIMES + 3]!;
    }
    return a;
  }

  /** Each hour of [from, to] on its own (the status bars): null for an hour the ring does not hold. */
  perHour(pk: number, from: number, to: number): (Aggregate | null)[] {
    const out: (Aggregate | null)[] = [];
    const s = this.slots.get(pk);
    for (let h = from; h <= to; h++) {
      const cell = s === undefined ? -1 : s * RING_HOURS + (h % RING_HOURS);
      if (cell < 0 || this.hour[cell] !== h) { out.push(null); continue; }
      const c = cell * 5;
      out.push({ checks: this.counts[c]!, up: this.counts[c + 1]!, degraded: this.counts[c + 2]!, down: this.counts[c + 3]!,
        rt_count: this.counts[c + 4]!, rt_sum: this.rtSum[cell]!, rt_min: null, rt_max: null,
        ms_up: this.times[cell * TIMES]!, ms_degraded: this.times[cell * TIMES + 1]!, ms_down: this.times[cell * TIMES + 2]!,
        ms_maint: this.times[cell * TIMES + 3]! });
    }
    return out;
  }

  drop(pk: number): void {
    const s = this.slots.get(pk);
    if (s === undefined) return;
    this.slots.delete(pk);
    this.freeSlots.push(s);
  }

  /** Forgets a monitor: its hours and its tracker. */
  forget(pk: number): void {
    this.drop(pk);
    this.track.delete(pk);
  }

  clear(): void {
    for (const pk of [...this.slots.keys()]) this.drop(pk);
    this.track.clear();
  }

  // ---- the start-up image (warm-image.ts) ---------------------------------------------------------

  /** Every monitor's cells of hours from `fromHour` on (earlier ones are in monitor_rollups) and the trackers. */
  writeImage(w: ByteWriter, fromHour: number): void {
    w.varint(this.slots.size);
    for (const [pk, s] of this.slots) {
      w.varint(pk);
      const cells: number[] = [];
      for (let i = 0; i < RING_HOURS; i++) {
        const h = this.hour[s * RING_HOURS + i]!;
        if (h >= 0 && h >= fromHour) cells.push(s * RING_HOURS + i); // -1: a cell never used
      }
      w.varint(cells.length);
      for (const cell of cells) {
        w.varint(this.hour[cell]!);
        for (let i = 0; i < 5; i++) w.varint(this.counts[cell * 5 + i]!);
        w.f64(this.rtSum[cell]!);
        for (let i = 0; i < TIMES; i++) w.f64(this.times[cell * TIMES + i]!);
      }
    }
    w.varint(this.track.size);
    for (const [pk, k] of this.track) { w.varint(pk); w.u8(k.status + 1); w.f64(k.from); w.f64(k.to); }
  }

  /**
   * Replaces everything with an image writeImage() made, keeping only hours from `fromHour` on: the
   * caller adds the earlier ones from monitor_rollups (addHour), as a start-up without an image does.
   */
  readImage(r: ByteReader, fromHour: number): void {
    this.clear();
    try {
      for (let n = r.varint(); n > 0; n--) {
        const pk = r.varint();
        for (let cells = r.varint(); cells > 0; cells--) {
          const hour = r.varint();
          const counts = [r.varint(), r.varint(), r.varint(), r.varint(), r.varint()];
          const rtSum = r.f64(), times = [r.f64(), r.f64(), r.f64(), r.f64()];
          if (hour < fromHour) continue;
          const cell = this.cell(pk, hour);
          if (cell < 0) continue;
          this.counts.set(counts, cell * 5);
          this.rtSum[cell] = rtSum;
          this.times.set(times, cell * TIMES);
        }
      }
      for (let n = r.varint(); n > 0; n--) {
        const pk = r.varint();
        this.track.set(pk, { status: r.u8() - 1, from: r.f64(), to: r.f64() });
      }
    } catch (err) {
      this.clear();
      throw err;
    }
  }

  /** The cell of `hour` for this monitor, reset if it held an older hour; -1 when `hour` is older than it. */
  private cell(pk: number, hour: number): number {
    let s = this.slots.get(pk);
    if (s === undefined) {
      s = this.freeSlots.pop() ?? this.grow();
      this.slots.set(pk, s);
      for (let i = 0; i < RING_HOURS; i++) this.reset(s * RING_HOURS + i, -1);
    }
    const cell = s * RING_HOURS + (hour % RING_HOURS);
    const held = this.hour[cell]!;
    if (held === hour) return cell;
    if (held > hour) return -1;
    this.reset(cell, hour);
    return cell;
  }

  private reset(cell: number, hour: number): void {
    this.hour[cell] = hour;
    this.counts.fill(0, cell * 5, cell * 5 + 5);
    this.rtSum[cell] = 0;
    this.times.fill(0, cell * TIMES, cell * TIMES + TIMES);
  }

  private grow(): number {
    const slot = this.size++;
    if (this.size * RING_HOURS > this.hour.length) {
      const cells = Math.max(64, this.size * 2) * RING_HOURS;
      const hour = new Int32Array(cells); hour.set(this.hour); this.hour = hour;
      const counts = new Uint32Array(cells * 5); counts.set(this.counts); this.counts = counts;
      const rtSum = new Float64Array(cells); rtSum.set(this.rtSum); this.rtSum = rtSum;
      const times = new Float64Array(cells * TIMES); times.set(this.times); this.times = times;
    }
    return slot;
  }
}

/**
 * The status time counts after a result of `result` left the monitor `status`: a failed check is down
 * time, also below the failure threshold (the monitor is degraded: failing). The threshold delays the
 * alert and the incident, not the truth (docs/monitors.md, "Uptime"); paused and unknown stay uncounted.
 */
export function timeStatus(result: string, status: string): string {
  return result === 'down' && (status === 'up' || status === 'degraded') ? 'down' : status;
}

/** A monitor's status as time counts it (index in the times of a cell, -1: not counted) and its credit. */
interface Tracker { status: number; from: number; to: number }
const TIME_INDEX: Record<string, number> = { up: 0, degraded: 1, down: 2 };
/** Times per cell: up, degraded, down and set aside (ASIDE). */
const TIMES = 4;
const ASIDE = 3;

/** Offset of each status's counter after `checks`: up, degraded, down. */
const RESULT_CODE_INDEX: Record<ResultStatus, number> = { up: 0, degraded: 1, down: 2 };
