// The one way to run an external program. Never through a shell: arguments go to the program as argv,
// so nothing in them (addresses, host names, user input) can be interpreted as shell syntax.
//
// Each child runs in its own process group. On timeout or abort the whole group gets SIGTERM, then
// SIGKILL after a short grace, so helpers the program started do not outlive it. Anything still in the
// group after the program has exited and closed its output is cleaned up the same way, and every live
// group is SIGKILLed when this process exits. A program that must outlive its caller belongs in a
// systemd unit, not here.
//
// At most MAX_CHILDREN programs run at once, the rest wait in order (their timeout starts when they
// start; aborting one that waits takes it out of the line): each child is a process of its own (an
// fping is about 1.8 MiB resident), and nothing the API is asked to do may multiply them without
// bound. 200 ping monitors created in 1.8 s once had 140 fping processes running together.
//
// A non-zero exit is not an error (fping exits 1 when any target is unreachable): callers read the
// output. A program that is not installed is a 503 with an install hint, never a crash.

import { spawn } from 'node:child_process';
import { constants as fsc, promises as fs } from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { HttpError } from './errors.js';

export interface RunOptions {
  /** Kill the program after this long; default 30 000 ms. */
  timeoutMs?: number;
  /** Written to the program's stdin, which is then closed; without it stdin is /dev/null. */
  input?: string | Buffer;
  /** Added to (and overriding) this process's environment. LC_ALL=C is set unless given, for parseable output. */
  env?: Record<string, string>;
  cwd?: string;
  /** Cap on captured stdout + stderr together; the rest is read and discarded. Default 8 MiB. */
  maxBytes?: number;
  /** Aborting kills the program's process group and rejects with the signal's reason. */
  signal?: AbortSignal;
  /** Time between SIGTERM and SIGKILL; default 1000 ms. */
  killGraceMs?: number;
}

export interface RunResult {
  code: number | null;
  signal: string | null;
  stdout: string;
  stderr: string;
  duration_ms: number;
  timed_out: boolean;
  /** True when output beyond maxBytes was discarded. */
  truncated: boolean;
}

const DEFAULT_TIMEOUT_MS = 30_000;
const DEFAULT_MAX_BYTES = 8 * 1024 * 1024;
const DEFAULT_GRACE_MS = 1000;
/**
 * Children at once. Ping checks need the most: at 2,000 ping monitors a grid point holds about seven
 * fping batches of 50 targets; this leaves room beside them for a scan's and the system's programs.
 */
export const MAX_CHILDREN = 16;

let running = 0;
const waiting: { start: () => void; leave: () => void }[] = [];

/** Waits for a free child slot; rejects with the signal's reason if aborted while waiting. */
function childSlot(signal?: AbortSignal): Promise<void> {
  if (running < MAX_CHILDREN) { running++; return Promise.resolve(); }
  return new Promise<void>((resolve, reject) => {
    const entry = {
      start: () => { signal?.removeEventListener('abort', entry.leave); running++; resolve(); },
      leave: () => { const i = waiting.indexOf(entry); if (i >= 0) waiting.splice(i, 1); reject(abortReason(signal!)); },
    };
    signal?.addEventListener('abort', entry.leave, { once: true });
    waiting.push(entry);
  });
}

function releaseSlot(): void {
  running--;
  waiting.shift()?.start();
}

/** Programs running and waiting for a slot, for diagnostics and tests. */
export function childStats(): { running: number; waiting: number } {
  return { running, waiting: waiting.length };
}

/** How to install the programs the probe drives, shown in the 503 when one is missing. */
const INSTALL_HINTS: Record<string, string> = {
  fping: 'apt-get install fping',
  ping: 'apt-get install iputils-ping',
  mtr: 'apt-get install mtr-tiny',
  snmpwalk: 'apt-get install snmp',
  snmpget: 'apt-get install snmp',
  snmpbulkwalk: 'apt-get install snmp',
  snmpset: 'apt-get install snmp',
  ssh: 'apt-get install openssh-client',
  'ssh-keygen': 'apt-get install openssh-client',
  git: 'apt-get install git',
  nsupdate: 'apt-get install bind9-dnsutils',
  'zerotier-cli': 'install ZeroTier One: see https://www.zerotier.com/download/ (curl -s https://install.zerotier.com | sudo bash)',
  tailscale: 'install Tailscale: see https://tailscale.com/download/linux (curl -fsSL https://tailscale.com/install.sh | sh)',
  systemctl: 'apt-get install systemd',
  'systemd-notify': 'apt-get install systemd',
  ip: 'apt-get install iproute2',
  dig: 'apt-get install bind9-dnsutils',
  openssl: 'apt-get install openssl',
};

export function installHint(program: string): string {
  const name = path.basename(program);
  return INSTALL_HINTS[name] ?? `install the package that provides "${name}" and make sure it is on PATH`;
}

function programMissing(program: string, why: 'missing' | 'not_executable'): HttpError {
  const name = path.basename(program);
  const hint = installHint(program);
  const detail = why === 'missing'
    ? `The program "${name}" is not installed or not on PATH; install it with: ${hint}`
    : `The program "${name}" cannot be executed (permission denied); reinstall it with: ${hint}`;
  return new HttpError(503, 'program_missing', detail, { extra: { program: name, install_hint: hint } });
}

// Process groups still running, so they can be killed if this process exits first.
const liveGroups = new Set<number>();
let exitHookInstalled = false;

function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.on('exit', () => {
    for (const pgid of liveGroups) killGroup(pgid, 'SIGKILL');
  });
}

/** Signal a whole process group; false when it no longer exists. */
function killGroup(pgid: number, sig: NodeJS.Signals | 0): boolean {
  try { process.kill(-pgid, sig); return true; } catch { return false; }
}

/** SIGTERM the group now, SIGKILL whatever is left after the grace. */
function terminateGroup(pgid: number, graceMs: number): void {
  if (!killGroup(pgid, 'SIGTERM')) { liveGroups.delete(pgid); return; }
  const t = setTimeout(() => {
    killGroup(pgid, 'SIGKILL');
    liveGroups.delete(pgid);
  }, graceMs);
  t.unref();
}

function abortReason(signal: AbortSignal): Error {
  const r: unknown = signal.reason;
  return r instanceof Error ? r : new DOMException('The operation was aborted', 'AbortError');
}

export async function run(program: string, args: string[], opts: RunOptions = {}): Promise<RunResult> {
  const timeoutMs = opts.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const maxBytes = opts.maxBytes ?? DEFAULT_MAX_BYTES;
  const graceMs = opts.killGraceMs ?? DEFAULT_GRACE_MS;
  if (!(timeoutMs > 0) || !Number.isFinite(timeoutMs)) throw new RangeError('run: timeoutMs must be a positive finite number');
  if (!(maxBytes >= 0)) throw new RangeError('run: maxBytes must be >= 0');
  if (opts.signal?.aborted) throw abortReason(opts.signal);
  if (opts.cwd !== undefined) {
    // spawn reports a missing cwd as ENOENT too; tell it apart from a missing program.
    const st = await fs.stat(opts.cwd).catch(() => null);
    if (!st?.isDirectory()) throw new Error(`run: working directory ${opts.cwd} does not exist`);
  }

  await childSlot(opts.signal);
  try {
    return await runNow(program, args, opts, timeoutMs, maxBytes, graceMs);
  } finally {
    releaseSlot();
  }
}

function runNow(program: string, args: string[], opts: RunOptions, timeoutMs: number, maxBytes: number,
  graceMs: number): Promise<RunResult> {
  installExitHook();
  const started = performance.now();
  const child = spawn(program, args, {
    shell: false,
    detached: true, // own process group, so the whole group can be killed
    cwd: opts.cwd,
    env: { ...process.env, LC_ALL: 'C', ...opts.env },
    stdio: [opts.input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
    windowsHide: true,
  });

  return new Promise<RunResult>((resolve, reject) => {
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    let captured = 0;
    let truncated = false;
    let timedOut = false;
    let aborted = false;
    let settled = false;
    const pgid = child.pid;
    if (pgid !== undefined) liveGroups.add(pgid);

    const collect = (into: Buffer[]) => (chunk: Buffer) => {
      const room = maxBytes - captured;
      if (room <= 0) { truncated = true; return; }
      if (chunk.length > room) { into.push(chunk.subarray(0, room)); captured += room; truncated = true; return; }
      into.push(chunk);
      captured += chunk.length;
    };
    child.stdout!.on('data', collect(out));
    child.stderr!.on('data', collect(err));

    if (opts.input !== undefined && child.stdin) {
      child.stdin.on('error', () => { /* EPIPE: the program exited without reading all its input */ });
      child.stdin.end(opts.input);
    }

    const stop = () => { if (pgid !== undefined) terminateGroup(pgid, graceMs); };
    const timer = setTimeout(() => { timedOut = true; stop(); }, timeoutMs);
    const onAbort = () => { aborted = true; stop(); };
    opts.signal?.addEventListener('abort', onAbort, { once: true });

    const cleanup = () => {
      settled = true;
      clearTimeout(timer);
      opts.signal?.removeEventListener('abort', onAbort);
    };

    child.on('error', (e: NodeJS.ErrnoException) => {
      if (settled) return;
      cleanup();
      if (pgid !== undefined) liveGroups.delete(pgid);
      if (e.code === 'ENOENT') reject(programMissing(program, 'missing'));
      else if (e.code === 'EACCES') reject(programMissing(program, 'not_executable'));
      else reject(e);
    });

    // 'close' comes after the exit and after stdout/stderr are closed, so the output is complete.
    child.on('close', (code, sig) => {
      if (settled) return;
      cleanup();
      if (pgid !== undefined) {
        // Leftovers of the group (a helper that closed its output but kept running) go too.
        if (killGroup(pgid, 0)) terminateGroup(pgid, graceMs);
        else liveGroups.delete(pgid);
      }
      if (aborted && opts.signal) { reject(abortReason(opts.signal)); return; }
      resolve({
        code,
        signal: sig,
        stdout: Buffer.concat(out).toString('utf8'),
        stderr: Buffer.concat(err).toString('utf8'),
        duration_ms: Math.round(performance.now() - started),
        timed_out: timedOut,
        truncated,
      });
    });
  });
}

/** The absolute path `program` would run as, searching PATH without a shell; null when not found. */
export async function which(program: string, env: NodeJS.ProcessEnv = process.env): Promise<string | null> {
  if (!program) return null;
  if (program.includes('/')) return (await isExecutableFile(program)) ? path.resolve(program) : null;
  for (const dir of (env.PATH ?? '').split(path.delimiter)) {
    if (!dir || !path.isAbsolute(dir)) continue; // a relative PATH entry would depend on the cwd
    const candidate = path.join(dir, program);
    if (await isExecutableFile(candidate)) return candidate;
  }
  return null;
}

async function isExecutableFile(p: string): Promise<boolean> {
  try {
    await fs.access(p, fsc.X_OK);
    return (await fs.stat(p)).isFile();
  } catch {
    return false;
  }
}
