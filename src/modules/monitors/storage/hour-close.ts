// Writes the rollups of each hour once it has closed: one hour row per series (counts, response-time
// sum, min, max and histogram, from the raw results in memory; and a row per named measurement its
// results carried) and that hour added to the series' day rows, in one 'group' write with the new
// watermark. Results used to update both rows with every check, which made every check journal a
// statement; now an hour costs one record for all monitors.
//
// The watermark `rollups_written_to` (in the meta table, monitor_meta) is the first hour not yet written.
// A result of an hour before it (a check that ran across the closing, a clock that stepped back, the
// first hour after an upgrade from a build that wrote rollups per check) is added to its rows directly,
// in its own write (rollups.ts addToRollups, addMeasuresToRollups). An hour closes GRACE_MS after it
// ends, when every check that started in it has finished (a check gives up after its timeout, at most
// 300 s, plus 3 s).
//
// An hour is written a batch of monitors at a time (in pk order), each batch its own write: in one write,
// 2,000 monitors held the event loop for about 160 ms and started 55 checks more than 20 ms late. Batches
// of a fixed 100 still held it 15-16 ms each, and the first (code not yet compiled) about 100 ms, so each
// batch is sized from the last one's time to take about CLOSE_SLICE_MS, starting small. While
// an hour closes, the meta table's `rollups_closing_hour` / `rollups_closing_through` say which monitors'
// rows are written (a crash resumes after them instead of adding the hour to their day rows twice), and
// a late result of those monitors goes into their rows directly, as for hours before the watermark.
import type { AppContext } from '../../../core/context.js';
import type { Logger } from '../../../core/log.js';
import type { Tx } from '../../../core/store/types.js';
import type { SeriesNames } from './names.js';
import type { RawHistory } from './history.js';
import { HOUR_MS, hourOf, type HourRing } from './hours.js';
import {
  addMeasures, addRollupHist, bucketOf, bucketStart, emptyAggregate, emptyHist, encodeHist, expandRollup, KIND, mergeMeasure,
  type Aggregate, type MeasureAggregate,
} from './rollups.js';

export const GRACE_MS = 6 * 60_000;
/**
 * The closing starts this long after a whole second, between two points of every check's grid (scheduler.ts:
 * whole seconds for ping, START_GRID_MS for the others): a first batch that started on the same
 * millisecond as a grid point started 55 ping checks 26 ms late (bench/monitors at 2,000 monitors).
 */
export const OFF_GRID_MS = 525;
/** Monitors per write while an hour closes, at most. */
export const CLOSE_BATCH = 100;
/** The first write's series, while nothing tells yet how long one takes (its code is not compiled yet either). */
const FIRST_BATCH = 2;
/** What one write should hold the event loop for, about (ms). */
export const CLOSE_SLICE_MS = 4;
const WATERMARK = 'rollups_written_to';
const CLOSING_HOUR = 'rollups_closing_hour';
const CLOSING_THROUGH = 'rollups_closing_through';
const upsert = (table: string) => `INSERT OR REPLACE INTO ${table} (m, k, b, checks, up, degraded, down, rt_sum, rt_count, rt_min,
    rt_max, hist, ms_up, ms_degraded, ms_down, ms_maint)
  SELECT j.value->>0, ?, ?, j.value->>1, j.value->>2, j.value->>3, j.value->>4, j.value->>5, j.value->>6, j.value->>7,
         j.value->>8, unhex(j.value->>9), j.value->>10, j.value->>11, j.value->>12, j.value->>13
    FROM json_each(?) AS j`;

interface Totals extends Aggregate { hist: number[] }
type RollupRow = Aggregate & { m: number; hist: Uint8Array | null };
type MeasureRow = MeasureAggregate & { m: number; x: number };

const upsertMeasures = (table: string) => `INSERT OR REPLACE INTO ${table} (m, k, b, x, n, total, lo, hi)
  SELECT j.value->>0, ?, ?, j.value->>1, j.value->>2, j.value->>3, j.value->>4, j.value->>5 FROM json_each(?) AS j`;

export class HourCloser {
  /** The first hour (since the epoch) whose rollups are not written yet. */
  watermark = 0;
  /** While the watermark's hour is written batch by batch: the highest monitor pk whose rows are written. */
  private closing: { hour: number; through: number } | null = null;
  /** Monitors per write at most, and what runs between two writes (tests hold the closing there). */
  batch = CLOSE_BATCH;
  betweenBatches = (): Promise<void> => new Promise<void>((r) => setImmediate(r));
  private timer: { cancel(): void } | null = null;
  private stopped = true;
  /** The scheduled closeDue() in progress. */
  private running: Promise<unknown> | null = null;
  private readonly log: Logger;
  private readonly upsert: string;
  private readonly upsertMeasures: string;

  /**
   * `hours` holds each hour's time-weighted status (hours.ts); `capOf` says how long a series' status
   * counts after a result (null: the series is gone).
   */
  constructor(private readonly app: Pick<AppContext, 'store' | 'clock'>, private readonly names: SeriesNames,
    private readonly history: RawHistory, private readonly hours: HourRing, private readonly capOf: (pk: number) => number | null,
    log: Logger) {
    this.log = log;
    this.upsert = upsert(names.rollups);
    this.upsertMeasures = upsertMeasures(names.measureRollups);
  }

  /**
   * Reads the watermark. A database without one is new (the current hour) or comes from a build that
   * wrote rollups with every check: everything up to its newest hour row is written already.
   */
  async load(): Promise<void> {
    const store = this.app.store;
    const meta = (key: string) => store.get<{ value: number }>(`SELECT value FROM ${this.names.meta} WHERE key = ?`, [key])?.value;
    const row = meta(WATERMARK);
    if (row != null) {
      this.watermark = row;
      const hour = meta(CLOSING_HOUR), through = meta(CLOSING_THROUGH);
      // Progress of an hour whose closing a stop or crash interrupted (any other is stale).
      if (hour === row && through != null) this.closing = { hour, through };
      return;
    }
    const newest = store.get<{ b: number | null }>(`SELECT max(b) AS b FROM ${this.names.rollups} WHERE k = ?`, [KIND.hour])?.b;
    const w = newest == null ? hourOf(this.app.clock.now()) : newest / 3600 + 1;
    await store.write((tx) => this.setWatermark(tx, w), 'sync');
    this.watermark = w;
  }

  /**
   * Results of hours before the watermark, and of the hour being closed for monitors already written, go
   * into the rollup rows with their own write.
   */
  isLate(tMs: number, pk: number): boolean {
    const h = hourOf(tMs);
    return h < this.watermark || (this.closing !== null && h === this.closing.hour && pk <= this.closing.through);
  }

  start(): void {
    this.stopped = false;
    this.schedule();
  }

  /** Stops, and waits for an hour being written: it stops between batches (its progress is saved). */
  async stop(): Promise<void> {
    this.stopped = true;
    this.timer?.cancel();
    this.timer = null;
    await this.running;
  }

  /** Writes every hour that has closed by now (on its schedule: until stopped). */
  async closeDue(): Promise<number> {
    let n = 0;
    while ((this.watermark + 1) * HOUR_MS + GRACE_MS <= this.app.clock.now()) {
      if (this.running && this.stopped) break;
      await this.close(this.watermark);
      n++;
    }
    return n;
  }

  private schedule(): void {
    if (this.stopped) return;
    this.timer?.cancel();
    const at = (this.watermark + 1) * HOUR_MS + GRACE_MS + OFF_GRID_MS;
    this.timer = this.app.clock.setTimeout(() => {
      this.timer = null;
      this.running = this.closeDue().catch((e: unknown) => this.log.error('writing the hourly rollups failed', { err: e as Error }))
        .finally(() => { this.running = null; this.schedule(); });
    }, Math.max(0, at - this.app.clock.now()));
  }

  /**
   * One hour, `batch` monitors a write: each batch aggregated and written in one turn, so that no
   * result of its monitors lands between reading the history and the write (it would be in neither).
   */
  private async close(hour: number): Promise<void> {
    const from = hour * HOUR_MS, to = from + HOUR_MS - 1;
    const b = from / 1000, day = bucketStart(KIND.day, from);
    const after = this.closing?.hour === hour ? this.closing.through : -Infinity;
    const pks = [...new Set([...this.history.monitors(), ...this.hours.tracked()])].filter((pk) => pk > after).sort((x, y) => x - y);
    let size = Math.min(this.batch, FIRST_BATCH);
    for (let i = 0; ;) {
      const batch = pks.slice(i, i + size);
      i += batch.length;
      const last = i >= pks.length;
      const t0 = performance.now();
      await this.app.store.write((tx) => {
        const hours: unknown[][] = [];
        // Named measurements, for the series whose results carried any: their hour's aggregates by id.
        const measured = new Map<number, Map<number, MeasureAggregate>>();
        const days = new Map(tx.all<RollupRow>(
          `SELECT m, checks, up, degraded, down, rt_sum, rt_count, rt_min, rt_max, hist, ms_up, ms_degraded, ms_down, ms_maint
             FROM ${this.names.rollups} WHERE k = ? AND b = ? AND m IN (SELECT value FROM json_each(?))`,
          [KIND.day, day, JSON.stringify(batch)]).map((r) => [r.m, totalsOf(expandRollup(r))]));
        for (const pk of batch) {
          const cap = this.capOf(pk);
          if (cap == null) continue;
          // Its status counts up to the end of the hour (as long as it counts: hours.ts), then the hour's time is
          // whole. A result since the hour's end did this already (observe() credits up to the result).
          this.hours.advance(pk, to + 1, cap);
          const h = emptyTotals();
          let mx: Map<number, MeasureAggregate> | null = null;
          // Manual checks count in no figure (results.ts).
          this.history.forEach(pk, (r) => {
            if (r.manual) return;
            add(h, r.status, r.rt);
            if (r.x) addMeasures(mx ??= new Map(), r.x);
          }, from, to);
          if (mx) measured.set(pk, mx);
          const t = this.hours.timesOf(pk, hour);
          if (t) { h.ms_up = t.ms_up; h.ms_degraded = t.ms_degraded; h.ms_down = t.ms_down; h.ms_maint = t.ms_maint; }
          if (!h.checks && !(h.ms_up + h.ms_degraded + h.ms_down + h.ms_maint)) continue;
          hours.push(rowOf(pk, h));
          const d = days.get(pk) ?? emptyTotals();
          merge(d, h);
          days.set(pk, d);
        }
        if (hours.length) {
          tx.run(this.upsert, [KIND.hour, b, JSON.stringify(hours)]);
          const changed = hours.map((r) => rowOf(r[0] as number, days.get(r[0] as number)!));
          tx.run(this.upsert, [KIND.day, day, JSON.stringify(changed)]);
        }
        if (measured.size) this.writeMeasures(tx, b, day, measured);
        if (last) {
          this.setWatermark(tx, hour + 1);
          tx.run(`DELETE FROM ${this.names.meta} WHERE key IN (?, ?)`, [CLOSING_HOUR, CLOSING_THROUGH]);
          tx.onCommit(() => { this.watermark = hour + 1; this.closing = null; });
        } else {
          const through = batch[batch.length - 1]!;
          tx.run(`INSERT OR REPLACE INTO ${this.names.meta} (key, value) VALUES (?, ?), (?, ?)`,
            [CLOSING_HOUR, hour, CLOSING_THROUGH, through]);
          tx.onCommit(() => { this.closing = { hour, through }; });
        }
      }, 'group');
      if (last) return;
      // A group write returns at commit, in this turn: its time is the event loop's.
      size = nextCloseBatch(batch.length, performance.now() - t0, this.batch);
      await this.betweenBatches(); // checks due meanwhile start between batches
      if (this.running && this.stopped) return; // stopping: the next start-up goes on from the saved progress
    }
  }

  /** The hour's rows of named measurements (`b`: its start, s), and that hour added to the day's (`day`). */
  private writeMeasures(tx: Tx, b: number, day: number, measured: Map<number, Map<number, MeasureAggregate>>): void {
    const days = new Map<string, MeasureAggregate>();
    for (const r of tx.all<MeasureRow>(`SELECT m, x, n, total, lo, hi FROM ${this.names.measureRollups}
        WHERE k = ? AND b = ? AND m IN (SELECT value FROM json_each(?))`, [KIND.day, day, JSON.stringify([...measured.keys()])])) {
      days.set(`${r.m}/${r.x}`, { n: r.n, total: r.total, lo: r.lo, hi: r.hi });
    }
    const hourRows: number[][] = [], dayRows: number[][] = [];
    for (const [pk, byId] of measured) {
      for (const [x, a] of byId) {
        hourRows.push([pk, x, a.n, a.total, a.lo, a.hi]);
        const d = days.get(`${pk}/${x}`);
        if (d) mergeMeasure(d, a);
        const t = d ?? a;
        dayRows.push([pk, x, t.n, t.total, t.lo, t.hi]);
      }
    }
    tx.run(this.upsertMeasures, [KIND.hour, b, JSON.stringify(hourRows)]);
    tx.run(this.upsertMeasures, [KIND.day, day, JSON.stringify(dayRows)]);
  }

  private setWatermark(tx: Tx, hour: number): void {
    tx.run(`INSERT INTO ${this.names.meta} (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value`,
      [WATERMARK, hour]);
  }
}

/** The next batch: as many monitors as fit in CLOSE_SLICE_MS at the pace of the last batch (`done` in `tookMs`), 1 to `max`. */
export function nextCloseBatch(done: number, tookMs: number, max: number): number {
  return Math.max(1, Math.min(max, Math.floor((done * CLOSE_SLICE_MS) / Math.max(tookMs, 0.001))));
}

const emptyTotals = (): Totals => ({ ...emptyAggregate(), hist: emptyHist() });

function add(a: Totals, status: 'up' | 'down' | 'degraded', rt: number | null): void {
  a.checks++;
  a[status]++;
  if (rt == null) return;
  a.rt_sum += rt;
  a.rt_count++;
  a.rt_min = a.rt_min == null ? rt : Math.min(a.rt_min, rt);
  a.rt_max = a.rt_max == null ? rt : Math.max(a.rt_max, rt);
  a.hist[bucketOf(rt)]! += 1;
}

function totalsOf(r: RollupRow): Totals {
  return { ...r, hist: addRollupHist(r, emptyHist()) };
}

function merge(into: Totals, a: Totals): void {
  into.checks += a.checks; into.up += a.up; into.degraded += a.degraded; into.down += a.down;
  into.rt_sum += a.rt_sum; into.rt_count += a.rt_count;
  into.ms_up += a.ms_up; into.ms_degraded += a.ms_degraded; into.ms_down += a.ms_down; into.ms_maint += a.ms_maint;
  if (a.rt_min != null) into.rt_min = into.rt_min == null ? a.rt_min : Math.min(into.rt_min, a.rt_min);
  if (a.rt_max != null) into.rt_max = into.rt_max == null ? a.rt_max : Math.max(into.rt_max, a.rt_max);
  for (let i = 0; i < a.hist.length; i++) into.hist[i]! += a.hist[i]!;
}

/** A row as UPSERT reads it; a single timed check is stored skinny (rollups.ts, expandRollup). */
function rowOf(m: number, a: Totals): unknown[] {
  const skinny = a.rt_count === 1;
  return [m, a.checks, a.up, a.degraded, a.down, a.rt_sum, a.rt_count, skinny ? null : a.rt_min, skinny ? null : a.rt_max,
    skinny || a.rt_count === 0 ? null : Buffer.from(encodeHist(a.hist)).toString('hex'),
    Math.round(a.ms_up), Math.round(a.ms_degraded), Math.round(a.ms_down), Math.round(a.ms_maint)];
}
