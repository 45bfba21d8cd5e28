// Long-running programs inside lab namespaces. Each runs in the foreground under coreutils `timeout`
// (the guard: it dies by itself after `guardSeconds` even if nobody tears the lab down), detached from
// this process, with its output in `<dir>/<name>.log` and "pid:starttime" in `<dir>/<name>.stamp`
// for teardown. Readiness is read from the log, so a daemon that fails to start is reported with its
// own words instead of a later timeout somewhere else.
import { spawn } from 'node:child_process';
import { closeSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { stampOf } from './procs.js';

export interface Daemon {
  name: string;
  ns: string;
  pid: number;
  log: string;
  /** Set when the guard process has exited (the daemon is gone). */
  exit?: string;
}

/** What services.ts asks for: a program and how to tell it is ready. */
export interface DaemonSpec {
  name: string;
  argv: string[];
  env?: Record<string, string>;
  /** Log lines that say it is ready; `file` when they go to a file of its own rather than its output. */
  ready: { patterns: RegExp[]; file?: string }[];
  /** Phase 2 starts once every phase-1 daemon is ready (lldpd needs its snmpd's AgentX socket). */
  phase: 1 | 2;
}

/** argv that runs one of the lab's TypeScript programs with this node and tsx, from any directory. */
export function nodeTs(script: string, ...args: string[]): string[] {
  return [process.execPath, '--import', import.meta.resolve('tsx'), script, ...args];
}

export function startDaemon(dir: string, ns: string, name: string, argv: string[], guardSeconds: number,
  env: Record<string, string> = {}): Daemon {
  const log = join(dir, `${name}.log`);
  const fd = openSync(log, 'a', 0o600);
  const base = { ...process.env };
  delete base.NODE_TEST_CONTEXT; // a node run in the lab is no test runner's child
  const child = spawn('ip', ['netns', 'exec', ns, 'timeout', '-k', '5', String(guardSeconds), ...argv], {
    detached: true, stdio: ['ignore', fd, fd], env: { ...base, ...env },
  });
  closeSync(fd);
  if (!child.pid) throw new Error(`could not start ${name} in ${ns}`);
  // `ip netns exec` execs `timeout` in place, so this pid is the guard; it signals the daemon on its way out.
  writeFileSync(join(dir, `${name}.stamp`), stampOf(child.pid) ?? `${child.pid}:0`);
  const d: Daemon = { name, ns, pid: child.pid, log };
  child.once('exit', (code, sig) => { d.exit = sig ? `killed by ${sig}` : `exited with ${code}`; });
  child.unref();
  return d;
}

export function logTail(d: Daemon, lines = 15, log = d.log): string {
  let text = '';
  try { text = readFileSync(log, 'utf8'); } catch { /* no log yet */ }
  return text.trimEnd().split('\n').slice(-lines).map((l) => `    ${l}`).join('\n');
}

/** Waits until every pattern has appeared in the daemon's log (or in `log`, another file it writes). */
export async function waitReady(d: Daemon, patterns: RegExp[], timeoutMs = 10_000, log = d.log): Promise<void> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    let text = '';
    try { text = readFileSync(log, 'utf8'); } catch { /* not yet */ }
    if (patterns.every((p) => p.test(text))) return;
    if (d.exit) throw new Error(`${d.name} in ${d.ns} ${d.exit} before it was ready:\n${logTail(d, 15, log)}`);
    if (Date.now() > until) throw new Error(`${d.name} in ${d.ns} not ready after ${timeoutMs} ms:\n${logTail(d, 15, log)}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}
