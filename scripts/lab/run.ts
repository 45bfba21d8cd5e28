// Synchronous program runs for building and tearing down the lab. Synchronous on purpose: teardown
// must also work from a process 'exit' hook, and claiming a slot must not interleave with another
// claim in the same process. Every run has a timeout; no shell is involved.
import { spawnSync } from 'node:child_process';

export interface RunResult { code: number; stdout: string; stderr: string }

export function tryRun(cmd: string, args: string[], opts: { input?: string; timeoutMs?: number } = {}): RunResult {
  const r = spawnSync(cmd, args, { input: opts.input, timeout: opts.timeoutMs ?? 10_000, encoding: 'utf8', maxBuffer: 8 << 20 });
  if (r.error) return { code: -1, stdout: '', stderr: String(r.error) };
  return { code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}

/** Runs and throws with the program's own complaint when it fails. */
export function run(cmd: string, args: string[], opts: { input?: string; timeoutMs?: number } = {}): string {
  const r = tryRun(cmd, args, opts);
  if (r.code !== 0) throw new Error(`${cmd} ${args.join(' ')}: exit ${r.code}: ${r.stderr.trim()}`);
  return r.stdout;
}

/** `ip` in the root namespace (ns null) or in a lab namespace. */
export function ip(ns: string | null, ...args: string[]): string {
  return run('ip', ns ? ['-n', ns, ...args] : args);
}

const sleeper = new Int32Array(new SharedArrayBuffer(4));
export function sleepSync(ms: number): void {
  Atomics.wait(sleeper, 0, 0, ms);
}
