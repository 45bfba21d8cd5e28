// How late scheduled checks start: the scheduler knows each slot, so it records start minus slot for every
// check (0 when it started early, coalesced into an earlier slot's turn). A histogram of 1 ms buckets up to
// one second (one bucket beyond) since start, and the latest 8,192 slots with their lag, for
// GET /api/monitors/scheduler (an operator's "is this probe keeping up?") and bench/monitors.

const BUCKETS = 1001; // 0..1000 ms
const RECENT = 8192;

export interface LagStats {
  checks: number;
  p50_ms: number | null;
  p99_ms: number | null;
  max_ms: number | null;
  /** Checks that started more than 20 ms after their slot. */
  over_20ms: number;
  /** The non-empty buckets: checks whose lag was at most `le_ms` (and more than the bucket before). */
  histogram: { le_ms: number; count: number }[];
}

export class LagRecorder {
  private counts = new Uint32Array(BUCKETS + 1);
  private n = 0;
  private max = 0;
  private slots = new Float64Array(RECENT);
  private lags = new Float32Array(RECENT);
  private next = 0;
  private filled = 0;

  record(slot: number, start: number): void {
    const lag = Math.max(0, start - slot);
    this.counts[Math.min(BUCKETS, Math.ceil(lag))]! += 1;
    this.n++;
    if (lag > this.max) this.max = lag;
    this.slots[this.next] = slot;
    this.lags[this.next] = lag;
    this.next = (this.next + 1) % RECENT;
    this.filled = Math.min(RECENT, this.filled + 1);
  }

  stats(): LagStats {
    const histogram: LagStats['histogram'] = [];
    let over = 0;
    for (let i = 0; i <= BUCKETS; i++) {
      const c = this.counts[i]!;
      if (!c) continue;
      histogram.push({ le_ms: i === BUCKETS ? Number.MAX_SAFE_INTEGER : i, count: c });
      if (i > 20) over += c;
    }
    return {
      checks: this.n, p50_ms: this.quantile(0.5), p99_ms: this.quantile(0.99), max_ms: this.n ? this.max : null,
      over_20ms: over, histogram,
    };
  }

  /** The latest slots (epoch ms) and their lag (ms), oldest first, at most `limit`. */
  recent(limit = RECENT): { slot: number; lag_ms: number }[] {
    const n = Math.min(limit, this.filled);
    const out: { slot: number; lag_ms: number }[] = [];
    for (let i = n; i > 0; i--) {
      const k = (this.next - i + RECENT) % RECENT;
      out.push({ slot: this.slots[k]!, lag_ms: this.lags[k]! });
    }
    return out;
  }

  /** Nearest rank over the histogram (1 ms resolution). */
  private quantile(q: number): number | null {
    if (!this.n) return null;
    const rank = Math.max(1, Math.ceil(q * this.n));
    let cum = 0;
    for (let i = 0; i <= BUCKETS; i++) {
      cum += this.counts[i]!;
      if (cum >= rank) return i === BUCKETS ? this.max : i;
    }
    return this.max;
  }
}
