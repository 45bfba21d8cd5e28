// Scheduling lag from the stored results; the service exposes no slot times, so they are rebuilt.
//
// Slot placement is deterministic (src/modules/monitors/scheduler.ts): at start-up restartPlan(specs,
// now) gives every monitor its first slot: last check + interval when that is still ahead, otherwise
// (overdue) now + floor(i * min(interval, 60 s) / n) for the i-th of the n overdue monitors, most
// overdue first. After that the slots are first slot + k * interval (missed slots are skipped, never
// burst). A scheduled result's `t` is the clock reading taken when its check started (made unique by
// max(t, last + 1 ms)). So lag = t - (first slot + k * interval), with the bench calling the same
// restartPlan() on the same monitor rows.
//
// The one unknown is `now`, the moment the plan was made (P, a Date.now() in whole ms). The
// "monitor scheduler started" log line is written just after it (T), so P <= T, but the two can be
// 5-20 ms apart. Calibration: each overdue monitor's first check starts at P + its offset + its own
// lag, so v = t - offset = P + lag, an integer. On an idle event loop most of them start within a
// millisecond of their slot: the values pile up on P (and P + 1), with a sparse tail above (late) and
// a few below (coalesced into an earlier slot's turn, up to 20 ms early). P is taken as the smallest
// value held by at least 5 % of those first checks (capped at T). The lags are then exact up to that
// cluster's own lag (0, or 1 ms of Date.now() rounding), by which they may be understated. Monitors
// that were not overdue have first slots that do not depend on P at all.
import { restartPlan, type ScheduleSpec } from '../../src/modules/monitors/scheduler.js';

/**
 * The scheduler starts checks due within this many ms of the one that fired in the same turn (its
 * coalesceMs, default 20 ms, for ping batching), so a check may start up to this much before its slot.
 */
const COALESCE_MS = 20;
/** Share of the overdue monitors' first checks that must share a value of t - offset to count as on time. */
const CLUSTER_SHARE = 0.05;

export interface LagResult {
  /** Lag per scheduled check whose slot lies before `until`, ms (negative: started early by coalescing). */
  lags: number[];
  /** Checks that started before their slot (up to COALESCE_MS early, by design). */
  early: number;
  /** Checks that started more than COALESCE_MS before their slot (should be 0). */
  tooEarly: number;
  /** Slots before `until - settleMs` without a check (skipped as late, or previous check still running). */
  missed: number;
  expected: number;
  /** The plan time used (P) and how far before the log line it was calibrated; monitors overdue at start. */
  planAt: number;
  planBeforeLogMs: number;
  overdue: number;
}

/** The time of the "monitor scheduler started" log line (written right after the start-up plan). */
export function schedulerLogTime(lines: readonly string[]): number | null {
  const line = lines.find((l) => l.includes('monitor scheduler started'));
  if (!line) return null;
  const t = Date.parse(line.split(' ')[0] ?? '');
  return Number.isNaN(t) ? null : t;
}

const isOverdue = (s: ScheduleSpec, now: number) => !s.paused && s.lastCheck != null && s.lastCheck + s.intervalMs <= now;

/** P: see the header. `results` sorted by t. */
function calibratePlanTime(specs: readonly ScheduleSpec[], logTime: number, results: readonly { m: number; t: number }[]): number {
  const plan = restartPlan(specs, logTime);
  const overdue = new Set(specs.filter((s) => isOverdue(s, logTime)).map((s) => s.pk));
  const seen = new Set<number>();
  // v = t - offset = P + lag of each overdue monitor's first check (integers: Date.now() ms).
  const counts = new Map<number, number>();
  let n = 0;
  for (const r of results) {
    if (seen.has(r.m)) continue;
    seen.add(r.m);
    if (!overdue.has(r.m)) continue;
    const v = r.t - (plan.get(r.m)! - logTime);
    counts.set(v, (counts.get(v) ?? 0) + 1);
    n++;
  }
  // The on-time cluster: the smallest value held by at least CLUSTER_SHARE of them (coalesced checks
  // started early are a sparse tail below it, late ones a tail above).
  const need = Math.max(3, Math.ceil(n * CLUSTER_SHARE));
  const cluster = [...counts].filter(([, c]) => c >= need).map(([v]) => v);
  return cluster.length ? Math.min(logTime, ...cluster) : logTime;
}

/**
 * `until`: lags are taken for slots before it. Missed slots are counted only up to `until - settleMs`,
 * so a check still running when the service was stopped (and thrown away) is not called missed.
 */
export function schedulingLag(specs: readonly ScheduleSpec[], logTime: number, results: readonly { m: number; t: number }[],
  until: number, settleMs = 13_000): LagResult {
  const planAt = calibratePlanTime(specs, logTime, results);
  const plan = restartPlan(specs, planAt);
  const interval = new Map(specs.map((s) => [s.pk, s.intervalMs]));
  const lags: number[] = [];
  const settled = until - settleMs;
  let early = 0, tooEarly = 0, counted = 0;
  for (const r of results) {
    const s0 = plan.get(r.m);
    const iv = interval.get(r.m);
    if (s0 === undefined || iv === undefined) continue;
    // The slot this check belongs to: the latest one at or before t + COALESCE_MS.
    const k = Math.max(0, Math.floor((r.t + COALESCE_MS - s0) / iv));
    const slot = s0 + k * iv;
    if (slot >= until) continue;
    const lag = r.t - slot;
    if (lag < 0) early++;
    if (lag < -COALESCE_MS) tooEarly++;
    lags.push(lag);
    if (slot < settled) counted++;
  }
  let expected = 0;
  for (const [pk, s0] of plan) {
    const iv = interval.get(pk)!;
    if (s0 < settled) expected += Math.ceil((settled - s0) / iv);
  }
  return {
    lags, early, tooEarly, missed: Math.max(0, expected - counted), expected,
    planAt, planBeforeLogMs: logTime - planAt, overdue: specs.filter((s) => isOverdue(s, planAt)).length,
  };
}
