// Per-monitor counts of the last 26 hours, in memory and updated as each result arrives: the list's
// 24-hour figures (GET /api/monitors) read them without touching SQL, and single monitors read the hours
// not yet written to monitor_rollups from here. Typed arrays indexed by a dense slot per monitor, so
// 2,000 monitors cost about 2 MiB.
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

  /** Adds one result to its hour (ignored when that hour is older than the ring). */
  add(pk: number, tMs: number, status: ResultStatus, rt: number | null): void {
    const cell = this.cell(pk, hourOf(tMs));
    if (cell < 0) return;
    const c = cell * 5;
    this.counts[c]! += 1;
    this.counts[c + 1 + RESULT_CODE_INDEX[status]]! += 1;
    if (rt != null) { this.counts[c + 4]! += 1; this.rtSum[cell]! += rt; }
  }

  /** Adds a whole hour's counts (a rollup row read back at start-up). */
  addHour(pk: number, hour: number, a: Pick<Aggregate, 'checks' | 'up' | 'degraded' | 'down' | 'rt_sum' | 'rt_count'>): void {
    const cell = this.cell(pk, hour);
    if (cell < 0) return;
    const c = cell * 5;
    this.counts[c]! += a.checks;
    this.counts[c + 1]! += a.up;
    this.counts[c + 2]! += a.degraded;
    this.counts[c + 3]! += a.down;
    this.counts[c + 4]! += a.rt_count;
    this.rtSum[cell]! += a.rt_sum;
  }

  /** The sum over hours [from, to] (hour numbers since the epoch). */
  sum(pk: number, from: number, to: number): Aggregate {
    const a: Aggregate = { checks: 0, up: 0, degraded: 0, down: 0, rt_sum: 0, rt_count: 0, rt_min: null, rt_max: null };
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
    }
    return a;
  }

  drop(pk: number): void {
    const s = this.slots.get(pk);
    if (s === undefined) return;
    this.slots.delete(pk);
    this.freeSlots.push(s);
  }

  clear(): void {
    for (const pk of [...this.slots.keys()]) this.drop(pk);
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
  }

  private grow(): number {
    const slot = this.size++;
    if (this.size * RING_HOURS > this.hour.length) {
      const cells = Math.max(64, this.size * 2) * RING_HOURS;
      const hour = new Int32Array(cells); hour.set(this.hour); this.hour = hour;
      const counts = new Uint32Array(cells * 5); counts.set(this.counts); this.counts = counts;
      const rtSum = new Float64Array(cells); rtSum.set(this.rtSum); this.rtSum = rtSum;
    }
    return slot;
  }
}

/** Offset of each status's counter after `checks`: up, degraded, down. */
const RESULT_CODE_INDEX: Record<ResultStatus, number> = { up: 0, degraded: 1, down: 2 };
