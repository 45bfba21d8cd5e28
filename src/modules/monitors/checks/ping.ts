// Ping check: ICMP echo through fping, batched. Every ping check requested within a few milliseconds
// of another with the same (count, packet_size, per_packet_timeout_ms) rides in ONE fping process (up
// to batchLimit targets, so that the batch takes no longer than one target would): on a Pi, one fping
// over many targets costs a small fraction of one process per check.
//
// fping runs as `fping -c N -p T -t T -r 0 -b SIZE` with the targets on stdin (no argv length limit,
// and a target can never be read as an option). `-c` rather than `-C`: its summary line already
// carries sent/received/loss and min/avg/max, one line per target. No `-q`: quiet mode also hides
// fping's per-target errors ("name: Name or service not known") and ICMP errors ("ICMP Host
// Unreachable from ..."), which make the best down messages; the per-reply lines it adds on stdout
// are ignored. The period between packets equals the per-packet timeout: fping documents a timeout
// larger than the period as giving inconsistent results. fping exits 1 when a target is unreachable
// and 2 when a name does not resolve: only 3 (bad arguments) and 4 (system error) fail the batch.

import { z } from 'zod';
import { run as execRun, installHint, type RunOptions, type RunResult } from '../../../core/exec.js';
import { HttpError } from '../../../core/errors.js';
import type { CheckContext, CheckDefinition, DegradeHook, RunReport } from './types.js';
import { degradeWhenSlow } from './degrade.js';
import { budgetMs, hostProblem, ms, timeoutMessage } from './net.js';

export const settings = z.object({
  count: z.number().int().min(1).max(20).default(3).meta({ title: 'Packets per check', 'x-section': 'Packets' }),
  /** ICMP payload bytes (fping -b). */
  packet_size: z.number().int().min(0).max(65000).default(56)
    .meta({ title: 'Payload (bytes)', description: '56 gives the classic 84-byte IPv4 packet.' }),
  per_packet_timeout_ms: z.number().int().min(50).max(10_000).default(1000).meta({ title: 'Wait per packet (ms)' }),
}).strict();

export type PingSettings = z.output<typeof settings>;
export type PingParams = PingSettings;

export function validateTarget(target: string): string | null {
  return hostProblem(target);
}

// ---- fping output -----------------------------------------------------------------------------------

export interface FpingTargetResult {
  sent: number;
  received: number;
  loss_pct: number;
  rtt_min_ms: number | null;
  rtt_avg_ms: number | null;
  rtt_max_ms: number | null;
  /** fping's own complaint about the target, e.g. "Name or service not known". */
  error: string | null;
  /** The last ICMP error seen for it, e.g. "ICMP Host Unreachable from 198.18.0.1". */
  icmp_error: string | null;
}

const SUMMARY = /^(\S+)\s+: xmt\/rcv\/%loss = (\d+)\/(\d+)\/\d+%(?:, min\/avg\/max = ([\d.]+)\/([\d.]+)\/([\d.]+))?/;
const ICMP = /^(ICMP .+? from \S+) for ICMP Echo sent to (\S+)/;

/**
 * Results aligned with `targets` (which may repeat: the n-th summary line for a name goes to its n-th
 * occurrence); null where fping printed nothing usable for a target.
 */
export function parseFpingOutput(stdout: string, stderr: string, targets: readonly string[]): (FpingTargetResult | null)[] {
  const summaries = new Map<string, FpingTargetResult[]>();
  const errors = new Map<string, string>();
  const icmp = new Map<string, string>();
  const names = new Set(targets);
  for (const raw of `${stderr}\n${stdout}`.split('\n')) {
    const line = raw.trimEnd();
    if (!line) continue;
    let m = SUMMARY.exec(line);
    if (m) {
      const sent = Number(m[2]);
      const received = Number(m[3]);
      const r: FpingTargetResult = {
        sent,
        received,
        loss_pct: sent > 0 ? Math.round(((sent - Math.min(received, sent)) / sent) * 1000) / 10 : 100,
        rtt_min_ms: m[4] !== undefined ? Number(m[4]) : null,
        rtt_avg_ms: m[5] !== undefined ? Number(m[5]) : null,
        rtt_max_ms: m[6] !== undefined ? Number(m[6]) : null,
        error: null,
        icmp_error: null,
      };
      const list = summaries.get(m[1]!) ?? [];
      list.push(r);
      summaries.set(m[1]!, list);
      continue;
    }
    m = ICMP.exec(line);
    if (m) { icmp.set(m[2]!, m[1]!); continue; }
    // "<target>: <complaint>"; a per-reply line is "<target> : [0], ..." (space before the colon).
    const colon = line.indexOf(': ');
    if (colon > 0) {
      const name = line.slice(0, colon);
      if (names.has(name) && !errors.has(name)) errors.set(name, line.slice(colon + 2).trim());
    }
  }
  const used = new Map<string, number>();
  return targets.map((t) => {
    const n = used.get(t) ?? 0;
    used.set(t, n + 1);
    const s = summaries.get(t)?.[n];
    if (s) return { ...s, icmp_error: icmp.get(t) ?? null };
    const err = errors.get(t);
    if (err) {
      return { sent: 0, received: 0, loss_pct: 100, rtt_min_ms: null, rtt_avg_ms: null, rtt_max_ms: null,
        error: err, icmp_error: icmp.get(t) ?? null };
    }
    return null;
  });
}

export function fpingArgs(p: PingParams): string[] {
  const period = Math.max(10, p.per_packet_timeout_ms); // fping's minimum period is 10 ms
  return ['-c', String(p.count), '-p', String(period), '-t', String(p.per_packet_timeout_ms), '-r', '0',
    '-b', String(p.packet_size)];
}

/** How long fping needs for one target with these settings, plus a second for name resolution. */
export function pingDurationMs(p: PingParams): number {
  return p.count * Math.max(10, p.per_packet_timeout_ms) + 1000;
}

// ---- the batcher ------------------------------------------------------------------------------------

export type ExecFn = (program: string, args: string[], opts?: RunOptions) => Promise<RunResult>;

export type PingOutcome =
  | { kind: 'result'; result: FpingTargetResult }
  | { kind: 'error'; message: string; install_hint?: string }
  | { kind: 'aborted' }
  | { kind: 'timeout' };

interface Waiter {
  target: string;
  resolve: (o: PingOutcome) => void;
  done: boolean;
  signal?: AbortSignal;
  onAbort?: () => void;
  timer?: NodeJS.Timeout;
}

interface Batch {
  params: PingParams;
  waiters: Waiter[];
  /** Called whenever a waiter leaves (settled, aborted, timed out) while fping runs. */
  onLeave?: () => void;
}

export interface PingBatcherOptions {
  /** Defaults to core/exec's run; tests wrap it to count processes or feed canned output. */
  exec?: ExecFn;
  /** How long to gather requests after the first one; default 5 ms. */
  windowMs?: number;
  /** Default "fping". */
  program?: string;
}

/** fping's minimum interval between any two packets (-i), used to size the overall time limit. */
const FPING_INTERVAL_MS = 10;

/**
 * Most checks one fping serves: it sends one packet every 10 ms, so a round over all its targets must
 * take at most half the period, or the last targets' replies come later than one target's would (and
 * a check with the shortest timeout allowed would time out). 50 targets at the default 1 s period;
 * more checks due together start several fping processes side by side.
 */
export function batchLimit(p: PingParams): number {
  return Math.max(1, Math.floor(Math.max(10, p.per_packet_timeout_ms) / 2 / FPING_INTERVAL_MS));
}

export class PingBatcher {
  private readonly exec: ExecFn;
  private readonly windowMs: number;
  private readonly program: string;
  private readonly pending = new Map<string, Batch>();

  constructor(opts: PingBatcherOptions = {}) {
    this.exec = opts.exec ?? execRun;
    this.windowMs = opts.windowMs ?? 5;
    this.program = opts.program ?? 'fping';
  }

  /**
   * Resolves (never rejects) when fping has reported on the target, at once when `signal` aborts, or
   * after `timeoutMs`. A check waits here with no other timer or controller of its own: a thousand
   * ping checks start in one turn.
   */
  ping(target: string, params: PingParams, signal?: AbortSignal, timeoutMs?: number): Promise<PingOutcome> {
    return new Promise<PingOutcome>((resolve) => {
      if (signal?.aborted) { resolve({ kind: 'aborted' }); return; }
      const key = `${params.count}/${params.packet_size}/${params.per_packet_timeout_ms}`;
      let batch = this.pending.get(key);
      if (!batch || batch.waiters.length >= batchLimit(params)) {
        const b: Batch = { params, waiters: [] };
        batch = b;
        this.pending.set(key, b);
        setTimeout(() => {
          if (this.pending.get(key) === b) this.pending.delete(key);
          void this.flush(b);
        }, this.windowMs);
      }
      const w: Waiter = { target, done: false, signal, resolve: (o) => {
        if (w.done) return;
        w.done = true;
        if (w.onAbort) w.signal?.removeEventListener('abort', w.onAbort);
        clearTimeout(w.timer);
        resolve(o);
        batch.onLeave?.();
      } };
      if (signal) {
        w.onAbort = () => w.resolve({ kind: 'aborted' });
        signal.addEventListener('abort', w.onAbort, { once: true });
      }
      if (timeoutMs !== undefined) w.timer = setTimeout(() => w.resolve({ kind: 'timeout' }), timeoutMs);
      batch.waiters.push(w);
    });
  }

  private async flush(batch: Batch): Promise<void> {
    const live = batch.waiters.filter((w) => !w.done);
    if (live.length === 0) return;
    const targets = [...new Set(live.map((w) => w.target))];
    const p = batch.params;
    // Kill fping once nobody waits for it any more (every check timed out or was aborted).
    const ac = new AbortController();
    batch.onLeave = () => { if (live.every((w) => w.done)) ac.abort(); };
    const period = Math.max(10, p.per_packet_timeout_ms);
    const timeoutMs = p.count * period + p.per_packet_timeout_ms + targets.length * p.count * FPING_INTERVAL_MS + 5000;
    const settle = (f: (w: Waiter) => PingOutcome) => {
      batch.onLeave = undefined;
      for (const w of live) w.resolve(f(w));
    };
    try {
      const r = await this.exec(this.program, fpingArgs(p), {
        input: `${targets.join('\n')}\n`,
        timeoutMs,
        signal: ac.signal,
        maxBytes: 1024 * 1024 + targets.length * 1024,
      });
      if (r.code === 3 || r.code === 4) {
        const why = (r.stderr.split('\n').find((l) => l.trim()) ?? `exit code ${r.code}`).trim();
        settle(() => ({ kind: 'error', message: `fping failed: ${why}` }));
        return;
      }
      const results = parseFpingOutput(r.stdout, r.stderr, targets);
      const byTarget = new Map(targets.map((t, i) => [t, results[i] ?? null]));
      settle((w) => {
        const res = byTarget.get(w.target);
        if (res) return { kind: 'result', result: res };
        return { kind: 'error', message: r.timed_out
          ? `fping did not finish within ${Math.round(timeoutMs / 1000)} s`
          : 'no result from fping for this target' };
      });
    } catch (e) {
      if (e instanceof HttpError && e.status === 503) {
        settle(() => ({ kind: 'error', message: 'fping is not installed (apt-get install fping)', install_hint: installHint('fping') }));
      } else if (ac.signal.aborted) {
        settle(() => ({ kind: 'aborted' }));
      } else {
        settle(() => ({ kind: 'error', message: `fping could not run: ${e instanceof Error ? e.message : String(e)}` }));
      }
    }
  }
}

/** The process-wide batcher the scheduler's ping checks share. */
export const defaultPingBatcher = new PingBatcher();

export function run(target: string, s: PingSettings, ctx: CheckContext): Promise<RunReport> {
  return runWith(defaultPingBatcher, target, s, ctx);
}

/** run() through a given batcher (tests inject one that counts fping processes). */
export async function runWith(batcher: PingBatcher, target: string, s: PingSettings, ctx: CheckContext): Promise<RunReport> {
  const problem = validateTarget(target);
  if (problem) return { status: 'down', response_time_ms: null, message: problem, details: {} };
  const timeoutMs = budgetMs(ctx.timeout);
  const out = await batcher.ping(target, s, ctx.signal, timeoutMs);
  if (out.kind === 'aborted' || out.kind === 'timeout') {
    const message = out.kind === 'timeout' ? timeoutMessage(timeoutMs, 'ping') : 'check aborted';
    return { status: 'down', response_time_ms: null, message, details: {} };
  }
  if (out.kind === 'error') {
    return { status: 'down', response_time_ms: null, message: out.message,
      details: out.install_hint ? { install_hint: out.install_hint } : {} };
  }
  return pingResult(target, out.result, s);
}

/** fping's figures for one target as run()'s result: up when any reply came back, down when none did. */
export function pingResult(target: string, r: FpingTargetResult, s: PingSettings): RunReport {
  const details: Record<string, unknown> = {
    sent: r.sent,
    received: r.received,
    loss_pct: r.loss_pct,
    rtt_min_ms: r.rtt_min_ms,
    rtt_avg_ms: r.rtt_avg_ms,
    rtt_max_ms: r.rtt_max_ms,
    packet_size: s.packet_size,
  };
  if (r.icmp_error) details.icmp_error = r.icmp_error;
  if (r.error) {
    details.error = r.error;
    return { status: 'down', response_time_ms: null, message: `cannot ping ${target}: ${r.error}`, details };
  }
  // Loss is a measurement of every answer fping gave (docs/monitors.md, "Measurements"), 100 % included.
  const measurements = { loss_pct: r.loss_pct };
  if (r.received === 0) {
    const why = r.icmp_error ? `: ${r.icmp_error}` : '';
    return { status: 'down', response_time_ms: null, details, measurements,
      message: `no reply (0/${r.sent} received, 100% loss)${why}` };
  }
  // No round-trip time in the message: it is in response_time_ms and details, and a stable message
  // is what an event log and a status line want.
  const text = `${Math.min(r.received, r.sent)}/${r.sent} replies, ${r.loss_pct}% loss`;
  return { status: 'up', response_time_ms: r.rtt_avg_ms === null ? null : ms(r.rtt_avg_ms), details, measurements, message: text };
}

/**
 * Ping's degrade(): partial loss above the monitor's max_loss_pct (none set: any loss) is degraded,
 * at or below it the slow rule decides. "(loss above" in the message is how the API tells a loss from
 * a slow degraded (degradedReason, schemas.ts).
 */
export const degradeOnLoss: DegradeHook = (result, monitor) => {
  const loss = result.details.loss_pct;
  const maxLossPct = monitor.max_loss_pct ?? 0;
  if (typeof loss === 'number' && loss > maxLossPct) {
    return { ...result, status: 'degraded', message: `${result.message} (loss above ${maxLossPct}%)` };
  }
  return degradeWhenSlow(result, monitor);
};

/** The check type as the monitor service sees it (checks/index.ts, CHECKS). */
export const check: CheckDefinition<PingSettings> = {
  label: 'Ping', icon: 'monitors', hint: 'ICMP echo',
  target: { title: 'Host', placeholder: '192.0.2.10 or router1.lan', description: 'An IP address or host name.' },
  settings, validateTarget, run, degrade: degradeOnLoss, degradeReads: ['max_loss_pct'], batched: true, host: (target) => target,
  measurements: [{ name: 'loss_pct', unit: '%', label: 'Packet loss' }],
  minimumTimeout: (s) => Math.ceil(pingDurationMs(s) / 1000),
  minimumTimeoutReason: 'count x per_packet_timeout_ms, plus 1 s',
};
