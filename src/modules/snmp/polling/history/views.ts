// The views' shape and the adding up of finer steps into a view's steps (5-minute steps into 30-minute,
// 2-hour and day steps): averages weighted by the points each step holds, maxima of maxima.
import { NRATES, type StepValues } from './codec.js';

export type HistoryRange = 'hour' | 'day' | 'week' | 'month' | 'year';

/** Each view's step and span, seconds. The hour view is the points as polled (its step: the poll interval). */
export const VIEWS: Readonly<Record<Exclude<HistoryRange, 'hour'>, { step_s: number; span_s: number }>> = {
  day: { step_s: 300, span_s: 86_400 },
  week: { step_s: 1800, span_s: 7 * 86_400 },
  month: { step_s: 7200, span_s: 30 * 86_400 },
  year: { step_s: 86_400, span_s: 365 * 86_400 },
};

export interface HistoryPoint {
  /** Step start (a raw point's time in the hour view), epoch ms. */
  t: number;
  in_avg: number | null; in_max: number | null;
  out_avg: number | null; out_max: number | null;
  in_pps_avg: number | null; in_pps_max: number | null;
  out_pps_avg: number | null; out_pps_max: number | null;
  in_errors_avg: number | null; in_errors_max: number | null;
  out_errors_avg: number | null; out_errors_max: number | null;
  in_discards_avg: number | null; in_discards_max: number | null;
  out_discards_avg: number | null; out_discards_max: number | null;
  /** Share of the step's polls that found the interface up, 0..1; null when none said. */
  up_share: number | null;
  /** Polls the step holds (0: a gap). */
  samples: number;
}

export interface HistorySeries {
  range: HistoryRange;
  step_s: number;
  /** [from, to), epoch ms. */
  from: number;
  to: number;
  points: HistoryPoint[];
}

/** Field names by rate index (codec.ts RATES order). */
const NAMES = ['in', 'out', 'in_pps', 'out_pps', 'in_errors', 'out_errors', 'in_discards', 'out_discards'] as const;
const AVG = NAMES.map((n) => `${n}_avg`) as (keyof HistoryPoint)[];
const MAX = NAMES.map((n) => `${n}_max`) as (keyof HistoryPoint)[];

const orNull = (v: number): number | null => (v === v ? v : null);

export function toPoint(t_ms: number, s: StepValues): HistoryPoint {
  const p = { t: t_ms, up_share: orNull(s.up), samples: s.samples } as Record<string, number | null>;
  for (let r = 0; r < NRATES; r++) {
    p[AVG[r]!] = orNull(s.avg[r]!);
    p[MAX[r]!] = orNull(s.max[r]!);
  }
  return p as unknown as HistoryPoint;
}

/** A view's steps over [from_s, from_s + count x step_s), filled with finer steps. */
export class Grid {
  private w: Float64Array;
  private wsum: Float64Array;
  private mx: Float64Array;
  private samples: Float64Array;
  private upW: Float64Array;
  private upSum: Float64Array;

  constructor(readonly from_s: number, readonly step_s: number, readonly count: number) {
    this.w = new Float64Array(count * NRATES);
    this.wsum = new Float64Array(count * NRATES);
    this.mx = new Float64Array(count * NRATES).fill(NaN);
    this.samples = new Float64Array(count);
    this.upW = new Float64Array(count);
    this.upSum = new Float64Array(count);
  }

  /** Empties every step (a grid reused: compact.ts adds up one interface's day after another in one). */
  reset(): void {
    this.w.fill(0); this.wsum.fill(0); this.mx.fill(NaN); this.samples.fill(0); this.upW.fill(0); this.upSum.fill(0);
  }

  /** Adds a finer step starting at `start_s` (ignored outside the grid). */
  add(start_s: number, s: StepValues): void {
    const i = Math.floor((start_s - this.from_s) / this.step_s);
    if (i < 0 || i >= this.count || s.samples === 0) return;
    const w = s.samples;
    for (let r = 0; r < NRATES; r++) {
      const a = s.avg[r]!;
      if (a !== a) continue;
      const j = i * NRATES + r;
      this.w[j]! += w;
      this.wsum[j]! += a * w;
      const m = s.max[r]!;
      if (m === m && !(m <= this.mx[j]!)) this.mx[j] = m;
    }
    this.samples[i]! += w;
    if (s.up === s.up) { this.upW[i]! += w; this.upSum[i]! += s.up * w; }
  }

  /** Step `i` into `out`. */
  step(i: number, out: StepValues): void {
    for (let r = 0; r < NRATES; r++) {
      const j = i * NRATES + r;
      out.avg[r] = this.w[j] ? this.wsum[j]! / this.w[j]! : NaN;
      out.max[r] = this.w[j] ? this.mx[j]! : NaN;
    }
    out.samples = this.samples[i]!;
    out.up = this.upW[i] ? this.upSum[i]! / this.upW[i]! : NaN;
  }
}

/**
 * The 95th percentile of a sorted ascending list (5-minute averages): the top 5 % (floor(n / 20) values) are
 * discarded and the highest left is the figure: index ceil(0.95 n) - 1, 0-based. LibreNMS (Billing.php,
 * get95thIn/Out) takes round(0.95 n) - 2, one 5-minute step lower at n = 8,640 (30 days).
 */
export function p95Of(sorted: Float64Array): number | null {
  const n = sorted.length;
  return n === 0 ? null : sorted[Math.max(0, Math.ceil((19 * n) / 20) - 1)]!; // integers: 0.95 * n is not exact
}
