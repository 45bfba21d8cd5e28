// Scheduling lag as the service's scheduler records it (GET /api/monitors/scheduler?recent=N: each slot and
// how late its check started), collected by polling often (every 5 s), each time for the starts since the
// last poll only, and attributed to what the service was doing meanwhile:
// answering a GET /api/monitors, writing a checkpoint.
import { percentile } from './util.js';

export interface LagSample { slot: number; lag: number }
export interface Interval { from: number; to: number }

interface SchedulerAnswer { lag: { checks: number }; recent?: { slot: string; lag_ms: number }[] }

/** Polls the scheduler and keeps every sample once. */
export class LagCollector {
  readonly samples: LagSample[] = [];
  private seen = -1;

  /** Checks the scheduler had started at the last poll (-1 before the first). */
  get checks(): number { return this.seen; }

  constructor(private readonly base: string, private readonly key: string) {}

  async poll(): Promise<void> {
    // Only the slots since the last poll: the count first, then that many (and a few that start meanwhile).
    // The whole ring (8,192) is a response of several ms to make, and it delayed the slots it measured.
    // The first poll only learns the count: what started before it is not measured.
    const count = (await this.get(0)).lag.checks;
    if (this.seen < 0 || count === this.seen) { this.seen = count; return; }
    const body = await this.get(Math.min(8192, count - this.seen + 64));
    const recent = body.recent ?? [];
    const fresh = Math.min(recent.length, body.lag.checks - this.seen);
    if (body.lag.checks - this.seen > recent.length) {
      throw new Error(`the scheduler's ring wrapped between two polls (${body.lag.checks - this.seen} starts): poll more often`);
    }
    for (const s of recent.slice(recent.length - fresh)) this.samples.push({ slot: Date.parse(s.slot), lag: s.lag_ms });
    this.seen = body.lag.checks;
  }

  private async get(recent: number): Promise<SchedulerAnswer> {
    const r = await fetch(`${this.base}/api/monitors/scheduler${recent ? `?recent=${recent}` : ''}`, { headers: { 'x-api-key': this.key } });
    if (r.status !== 200) throw new Error(`GET /api/monitors/scheduler: ${r.status} ${await r.text()}`);
    return await r.json() as SchedulerAnswer;
  }
}

export interface LagFigures { n: number; p50: number; p99: number; max: number; over20: number }

/** Lag of the samples whose slot lies in [from, to), or within one of `during` when given. */
export function lagFigures(samples: readonly LagSample[], from: number, to: number, during?: readonly Interval[]): LagFigures {
  const inside = (t: number) => !during || during.some((i) => t >= i.from && t <= i.to);
  const lags = samples.filter((s) => s.slot >= from && s.slot < to && inside(s.slot)).map((s) => s.lag);
  return {
    n: lags.length, p50: percentile(lags, 50), p99: percentile(lags, 99), max: lags.length ? Math.max(...lags) : NaN,
    over20: lags.filter((l) => l > 20).length,
  };
}

/** The checkpoints in the service's log lines: when each ran (its end is the line's time) and its figures. */
export function checkpointsIn(lines: readonly string[]): (Interval & { snapshotBytes: number; syncMs: number; copy: string; turns: number })[] {
  const out: (Interval & { snapshotBytes: number; syncMs: number; copy: string; turns: number })[] = [];
  for (const line of lines) {
    const m = /^(\S+) .*\[store\] checkpoint (\{.*\})\s*$/.exec(line);
    if (!m) continue;
    const end = Date.parse(m[1]!);
    const f = JSON.parse(m[2]!) as { ms: number; sync_ms: number; snapshot_bytes: number; copy?: string; copy_turns?: number };
    out.push({ from: end - f.ms, to: end, snapshotBytes: f.snapshot_bytes, syncMs: f.sync_ms, copy: f.copy ?? 'export', turns: f.copy_turns ?? 1 });
  }
  return out;
}

/** What the monitors retention passes in the service's log lines deleted, and each compaction they caused. */
export function retentionIn(lines: readonly string[], from: number): { passes: number; rollups: number; compactions: { bytes: number; ms: number }[] } {
  const out = { passes: 0, rollups: 0, compactions: [] as { bytes: number; ms: number }[] };
  for (const line of lines) {
    const m = /^(\S+) .*\[(monitors|store)\] (monitor retention pass|database compacted) (\{.*\})\s*$/.exec(line);
    if (!m || Date.parse(m[1]!) < from) continue;
    const f = JSON.parse(m[4]!) as { rollups?: number; bytes_before?: number; bytes_after?: number; ms?: number };
    if (m[2] === 'monitors') {
      out.passes++;
      out.rollups += f.rollups ?? 0;
    } else {
      out.compactions.push({ bytes: (f.bytes_before ?? 0) - (f.bytes_after ?? 0), ms: f.ms ?? 0 });
    }
  }
  return out;
}
