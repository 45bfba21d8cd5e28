// The service's own runtime figures for GET /api/dev/info and GET /metrics: the event loop's delay,
// measured by Node's built-in histogram (a libuv timer, no JavaScript per tick) since the service started.
import { monitorEventLoopDelay, type IntervalHistogram } from 'node:perf_hooks';

export interface LoopDelay { min_ms: number; mean_ms: number; p50_ms: number; p99_ms: number; max_ms: number }

const ms = (ns: number) => (Number.isFinite(ns) ? Math.round(ns / 1e4) / 100 : 0);

export class RuntimeStats {
  private readonly histogram: IntervalHistogram = monitorEventLoopDelay({ resolution: 20 });

  constructor() { this.histogram.enable(); }

  eventLoopDelay(): LoopDelay {
    const h = this.histogram;
    if (h.count === 0) return { min_ms: 0, mean_ms: 0, p50_ms: 0, p99_ms: 0, max_ms: 0 };
    return { min_ms: ms(h.min), mean_ms: ms(h.mean), p50_ms: ms(h.percentile(50)), p99_ms: ms(h.percentile(99)), max_ms: ms(h.max) };
  }

  stop(): void { this.histogram.disable(); }
}
