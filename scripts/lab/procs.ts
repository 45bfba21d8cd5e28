// Processes by identity, not just by number: a pid file holds "pid:starttime" (from /proc/<pid>/stat),
// so a pid the kernel has since reused for something else is never killed or mistaken for a live owner.
import { readFileSync } from 'node:fs';
import { sleepSync } from './run.js';

/** State letter and start time (clock ticks since boot) of a process, or null when there is none. */
function statOf(pid: number): { state: string; start: string } | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) is in parentheses and may hold spaces: split after its closing one.
    const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return { state: rest[0]!, start: rest[19]! };
  } catch {
    return null;
  }
}

export function stampOf(pid: number): string | null {
  const s = statOf(pid);
  return s ? `${pid}:${s.start}` : null;
}

/** A process that exists and has not exited (a zombie our sync code has not reaped yet counts as gone). */
export function isRunning(pid: number): boolean {
  const s = statOf(pid);
  return s !== null && s.state !== 'Z' && s.state !== 'X';
}

/** The pid of a stamp if that very process still runs, else null. */
export function runningStamp(stamp: string): number | null {
  const pid = Number(stamp.split(':')[0]);
  if (!Number.isInteger(pid) || pid <= 0) return null;
  return stampOf(pid) === stamp.trim() && isRunning(pid) ? pid : null;
}

function signal(pids: number[], sig: NodeJS.Signals): void {
  for (const pid of pids) {
    try { process.kill(pid, sig); } catch { /* already gone */ }
  }
}

function waitGone(pids: number[], ms: number): number[] {
  const until = Date.now() + ms;
  let left = pids.filter(isRunning);
  while (left.length > 0 && Date.now() < until) {
    sleepSync(20);
    left = left.filter(isRunning);
  }
  return left;
}

/** SIGTERM, then SIGKILL what is still there after `graceMs`. Returns what survived even that. */
export function killAll(pids: number[], graceMs = 2000): number[] {
  const mine = pids.filter((p) => p !== process.pid && isRunning(p));
  if (mine.length === 0) return [];
  signal(mine, 'SIGTERM');
  const stubborn = waitGone(mine, graceMs);
  if (stubborn.length === 0) return [];
  signal(stubborn, 'SIGKILL');
  return waitGone(stubborn, 1000);
}
