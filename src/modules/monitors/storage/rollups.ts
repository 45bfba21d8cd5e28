// Rollups: per-series aggregates per hour and day (hour-close.ts writes them once an hour has closed;
// earlier builds also kept minutes), their response-time histogram, the aggregates of named measurements
// (count, sum, min, max), and the figures read from them.
//
// Response times are INTEGER hundredths of a millisecond ("rt units") in the database. The histogram
// has HIST_BUCKETS log-scale buckets: bucket 0 holds times below 0.1 ms, bucket i (1..22) holds
// [0.1 ms * F^(i-1), 0.1 ms * F^i) with F = 2^0.75 (about 1.68), and the last bucket everything from
// about 9.3 s up. It is stored sparsely: for each non-empty bucket one byte of index, then the count as
// an unsigned LEB128 varint. A rollup holding a single timed check stores no min, max or histogram at
// all (they follow from rt_sum); see expandRollup.
import type { Tx } from '../../../core/store/types.js';

export const HIST_BUCKETS = 24;
const HIST_BASE = 10; // 0.1 ms in rt units
const HIST_STEP = 0.75; // log2 of the bucket growth factor

export const KIND = { minute: 0, hour: 1, day: 2 } as const;
export type RollupKind = (typeof KIND)[keyof typeof KIND];

export const RESULT_CODE = { down: 0, up: 1, degraded: 2 } as const;
export type ResultStatus = keyof typeof RESULT_CODE;
export const RESULT_STATUS: Record<number, ResultStatus> = { 0: 'down', 1: 'up', 2: 'degraded' };

/** Milliseconds (may be fractional) to integer rt units (hundredths of a millisecond). */
export function toRtUnits(ms: number | null | undefined): number | null {
  if (ms == null || !Number.isFinite(ms) || ms < 0) return null;
  return Math.round(ms * 100);
}
export function fromRtUnits(u: number | null | undefined): number | null {
  return u == null ? null : u / 100;
}

// ---- histogram ---------------------------------------------------------------------------------

/** Lower edge of bucket i in rt units (0 for bucket 0). */
export function bucketLower(i: number): number {
  return i <= 0 ? 0 : HIST_BASE * 2 ** (HIST_STEP * (i - 1));
}
/** Upper edge of bucket i in rt units (Infinity for the last bucket). */
export function bucketUpper(i: number): number {
  return i >= HIST_BUCKETS - 1 ? Infinity : HIST_BASE * 2 ** (HIST_STEP * i);
}

export function bucketOf(rt: number): number {
  if (!(rt >= HIST_BASE)) return 0;
  const i = Math.floor(Math.log2(rt / HIST_BASE) / HIST_STEP) + 1;
  // Guard against floating-point edges: make sure rt lies within [lower, upper).
  let b = Math.min(Math.max(i, 1), HIST_BUCKETS - 1);
  while (b > 1 && rt < bucketLower(b)) b--;
  while (b < HIST_BUCKETS - 1 && rt >= bucketUpper(b)) b++;
  return b;
}

export function emptyHist(): number[] {
  return new Array<number>(HIST_BUCKETS).fill(0);
}

export function encodeHist(counts: readonly number[]): Uint8Array {
  const out: number[] = [];
  for (let i = 0; i < HIST_BUCKETS; i++) {
    let c = Math.max(0, Math.floor(counts[i] ?? 0));
    if (c === 0) continue;
    out.push(i);
    do {
      let byte = c % 128;
      c = Math.floor(c / 128);
      if (c > 0) byte |= 0x80;
      out.push(byte);
    } while (c > 0);
  }
  return Uint8Array.from(out);
}

/** Decodes into `into` (added to it), so several rollups merge without extra arrays. */
export function decodeHist(blob: Uint8Array | null | undefined, into: number[] = emptyHist()): number[] {
  if (!blob) return into;
  let p = 0;
  while (p < blob.length) {
    const idx = blob[p++]!;
    let c = 0, mul = 1, byte: number;
    do {
      if (p >= blob.length) return into; // truncated: ignore the rest
      byte = blob[p++]!;
      c += (byte & 0x7f) * mul;
      mul *= 128;
    } while (byte & 0x80);
    if (idx < HIST_BUCKETS) into[idx] = (into[idx] ?? 0) + c;
  }
  return into;
}

/**
 * The q-quantile (0..1) of a histogram in rt units, interpolated geometrically inside its bucket and
 * clamped to the observed [min, max]. Null when the histogram is empty.
 */
export function quantile(counts: readonly number[], q: number, min?: number | null, max?: number | null): number | null {
  const total = counts.reduce((a, b) => a + b, 0);
  if (total <= 0) return null;
  const rank = Math.max(1, Math.ceil(q * total));
  let cum = 0;
  for (let i = 0; i < HIST_BUCKETS; i++) {
    const c = counts[i] ?? 0;
    if (c === 0) continue;
    if (cum + c >= rank) {
      const frac = (rank - cum) / c;
      let lo = bucketLower(i), hi = bucketUpper(i);
      if (min != null) lo = Math.max(lo, Math.min(min, hi));
      if (max != null) hi = Math.min(hi, Math.max(max, lo));
      if (!Number.isFinite(hi)) hi = lo * 2 ** HIST_STEP;
      const v = lo > 0 ? lo * (hi / lo) ** frac : lo + (hi - lo) * frac;
      let out = v;
      if (min != null) out = Math.max(out, min);
      if (max != null) out = Math.min(out, max);
      return out;
    }
    cum += c;
  }
  return max ?? null;
}

// ---- buckets -----------------------------------------------------------------------------------

export const BUCKET_SECONDS: Record<RollupKind, number> = { 0: 60, 1: 3600, 2: 86_400 };

/** Start (epoch seconds, UTC) of the bucket of kind k holding time tMs. */
export function bucketStart(k: RollupKind, tMs: number): number {
  const s = Math.floor(tMs / 1000);
  return s - (((s % BUCKET_SECONDS[k]) + BUCKET_SECONDS[k]) % BUCKET_SECONDS[k]);
}

// ---- a late result ------------------------------------------------------------------------------

interface RollupRow {
  checks: number; up: number; degraded: number; down: number;
  rt_sum: number; rt_count: number; rt_min: number | null; rt_max: number | null; hist: Uint8Array | null;
}

/**
 * A rollup with a single timed check is stored skinny: rt_min, rt_max and hist are NULL (they equal
 * rt_sum and its one bucket). This fills them in again.
 */
export function expandRollup<T extends { rt_sum: number; rt_count: number; rt_min: number | null; rt_max: number | null }>(r: T): T {
  if (r.rt_count === 1 && r.rt_min == null) { r.rt_min = r.rt_sum; r.rt_max = r.rt_sum; }
  return r;
}

/** Adds a rollup's histogram to `into`, for skinny rows too. */
export function addRollupHist(r: { hist?: Uint8Array | null; rt_sum: number; rt_count: number }, into: number[]): number[] {
  if (r.hist) decodeHist(r.hist, into);
  else if (r.rt_count === 1) into[bucketOf(r.rt_sum)]! += 1;
  return into;
}

/**
 * Adds one result to the hour and day rows of series `m` in `table` (a result of an hour whose rows are
 * written already, hour-close.ts): a point read per kind and one statement (journaled with the resulting
 * values, so replay is deterministic). Earlier builds also kept minute rows; none are written any more.
 */
export function addToRollups(tx: Tx, table: string, m: number, tMs: number, status: ResultStatus, rt: number | null): void {
  const params: (number | Uint8Array | null)[] = [];
  for (const k of COARSE_KINDS) {
    const b = bucketStart(k, tMs);
    const row = tx.get<RollupRow>(`SELECT checks, up, degraded, down, rt_sum, rt_count, rt_min, rt_max, hist
      FROM ${table} WHERE m = ? AND k = ? AND b = ?`, [m, k, b]);
    const r: RollupRow = row ? expandRollup(row)
      : { checks: 0, up: 0, degraded: 0, down: 0, rt_sum: 0, rt_count: 0, rt_min: null, rt_max: null, hist: null };
    r.checks += 1;
    r[status] += 1;
    let hist: Uint8Array | null = r.hist;
    if (rt != null) {
      const counts = addRollupHist(r, emptyHist());
      r.rt_sum += rt;
      r.rt_count += 1;
      r.rt_min = r.rt_min == null ? rt : Math.min(r.rt_min, rt);
      r.rt_max = r.rt_max == null ? rt : Math.max(r.rt_max, rt);
      counts[bucketOf(rt)]! += 1;
      hist = encodeHist(counts);
    }
    const skinny = r.rt_count === 1;
    params.push(m, b, r.checks, r.up, r.degraded, r.down, r.rt_sum, r.rt_count,
      skinny ? null : r.rt_min, skinny ? null : r.rt_max, skinny ? null : hist);
  }
  // Not INSERT OR REPLACE: that deletes the row first, and the columns not named here (the hour's and the
  // day's time up, degraded and down) would start again from 0.
  tx.run(`INSERT INTO ${table} (m, k, b, checks, up, degraded, down, rt_sum, rt_count, rt_min, rt_max, hist)
    VALUES ${COARSE_KINDS.map((k) => `(?, ${k}, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`).join(', ')}
    ON CONFLICT (m, k, b) DO UPDATE SET checks = excluded.checks, up = excluded.up, degraded = excluded.degraded,
      down = excluded.down, rt_sum = excluded.rt_sum, rt_count = excluded.rt_count, rt_min = excluded.rt_min,
      rt_max = excluded.rt_max, hist = excluded.hist`, params);
}

const COARSE_KINDS = [KIND.hour, KIND.day] as const;

/** A named measurement over a bucket: how many values, their sum, least and greatest (hundredths of its unit). */
export interface MeasureAggregate { n: number; total: number; lo: number; hi: number }

/** Adds a list's values (measures.ts: [id, value, ...]) to the aggregates by id. */
export function addMeasures(into: Map<number, MeasureAggregate>, list: readonly number[]): void {
  for (let i = 0; i + 1 < list.length; i += 2) {
    const id = list[i]!, v = list[i + 1]!;
    const a = into.get(id);
    if (!a) { into.set(id, { n: 1, total: v, lo: v, hi: v }); continue; }
    a.n++; a.total += v;
    if (v < a.lo) a.lo = v;
    if (v > a.hi) a.hi = v;
  }
}

/** Merges aggregate `a` into `into`. */
export function mergeMeasure(into: MeasureAggregate, a: MeasureAggregate): void {
  into.n += a.n; into.total += a.total;
  if (a.lo < into.lo) into.lo = a.lo;
  if (a.hi > into.hi) into.hi = a.hi;
}

/** Adds one late result's measurements to the hour and day rows of series `m` in `table`, as addToRollups does its counts. */
export function addMeasuresToRollups(tx: Tx, table: string, m: number, tMs: number, list: readonly number[]): void {
  const params: number[] = [];
  for (const k of COARSE_KINDS) {
    const b = bucketStart(k, tMs);
    for (let i = 0; i + 1 < list.length; i += 2) params.push(m, k, b, list[i]!, list[i + 1]!, list[i + 1]!, list[i + 1]!);
  }
  if (!params.length) return;
  tx.run(`INSERT INTO ${table} (m, k, b, x, n, total, lo, hi) VALUES ${Array(params.length / 7).fill('(?, ?, ?, ?, 1, ?, ?, ?)').join(', ')}
    ON CONFLICT (m, k, b, x) DO UPDATE SET n = n + 1, total = total + excluded.total, lo = min(lo, excluded.lo),
      hi = max(hi, excluded.hi)`, params);
}

// ---- stats -------------------------------------------------------------------------------------

export interface Aggregate {
  checks: number; up: number; degraded: number; down: number;
  rt_sum: number; rt_count: number; rt_min: number | null; rt_max: number | null;
  /** Time (ms) the monitor was up, degraded and down (hours.ts: time-weighted status). */
  ms_up: number; ms_degraded: number; ms_down: number;
  /** Time (ms) set aside (a maintenance window): counted in none of the three, so in no uptime. */
  ms_maint: number;
}

export const emptyAggregate = (): Aggregate =>
  ({ checks: 0, up: 0, degraded: 0, down: 0, rt_sum: 0, rt_count: 0, rt_min: null, rt_max: null, ms_up: 0, ms_degraded: 0, ms_down: 0,
    ms_maint: 0 });

/** Digits after the decimal point of every uptime the API answers (list, detail, timeline). */
export const UPTIME_DECIMALS = 3;

/**
 * Uptime in percent: the time the monitor was available (up or degraded) over the time its status was
 * known (up, degraded or down; paused and unknown time does not count). Degraded time is slow or lossy
 * answers: a failed check's time is down, also below the failure threshold (hours.ts, timeStatus). Time set
 * aside (maintenance) is not known time. Before any time is known (a monitor checked once), the share of its
 * checks that answered. Null without either.
 */
export function uptimePct(a: Pick<Aggregate, 'checks' | 'up' | 'degraded'> & Partial<Pick<Aggregate, 'ms_up' | 'ms_degraded' | 'ms_down'>>):
  number | null {
  const avail = (a.ms_up ?? 0) + (a.ms_degraded ?? 0), known = avail + (a.ms_down ?? 0);
  const f = 10 ** UPTIME_DECIMALS;
  if (known > 0) return Math.round((avail / known) * 100 * f) / f;
  if (!a.checks) return null;
  return Math.round(((a.up + a.degraded) / a.checks) * 100 * f) / f;
}

export function avgMs(a: Pick<Aggregate, 'rt_sum' | 'rt_count'>): number | null {
  if (!a.rt_count) return null;
  return Math.round(a.rt_sum / a.rt_count) / 100;
}

/** Start (epoch seconds) of the oldest hour bucket in the "last 24 hours" window: 23 full hours plus the current one. */
export function windowStart(k: RollupKind, nowMs: number, buckets: number): number {
  return bucketStart(k, nowMs) - (buckets - 1) * BUCKET_SECONDS[k];
}
