// /proc readers for bench/monitors.ts: CPU ticks, resident memory and disk writes of a process.
import { execFileSync } from 'node:child_process';
import { readFile } from 'node:fs/promises';

/** Clock ticks per second of /proc/<pid>/stat times (USER_HZ; 100 on Linux). */
export const CLK_TCK = (() => {
  try { return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100; } catch { return 100; }
})();

export interface CpuTimes {
  /** utime + stime of the process itself, ms. */
  self: number;
  /** Of which stime (in the kernel: fsync, sockets, fork/exec of fping...), ms. */
  sys: number;
  /** cutime + cstime: children it has waited for (fping runs), ms. */
  children: number;
}

/** CPU times from /proc/<pid>/stat (fields 14-17), or null once the process is gone. */
export async function cpuTimes(pid: number): Promise<CpuTimes | null> {
  let text: string;
  try { text = await readFile(`/proc/${pid}/stat`, 'utf8'); } catch { return null; }
  // The command name (field 2) may hold spaces and parentheses: split after its closing parenthesis.
  const f = text.slice(text.lastIndexOf(')') + 2).split(' ');
  // f[0] is field 3 (state), so field n is f[n - 3].
  const tick = (n: number) => Number(f[n - 3]) * (1000 / CLK_TCK);
  return { self: tick(14) + tick(15), sys: tick(15), children: tick(16) + tick(17) };
}

export interface MemSample { rssKb: number; hwmKb: number }

export async function memory(pid: number): Promise<MemSample | null> {
  let text: string;
  try { text = await readFile(`/proc/${pid}/status`, 'utf8'); } catch { return null; }
  const kb = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+)`, 'm').exec(text)?.[1] ?? NaN);
  return { rssKb: kb('VmRSS'), hwmKb: kb('VmHWM') };
}

export interface IoSample { writeBytes: number; cancelledWriteBytes: number; wchar: number }

/** /proc/<pid>/io, or null where it is unavailable (no task I/O accounting, or not permitted). */
export async function io(pid: number): Promise<IoSample | null> {
  let text: string;
  try { text = await readFile(`/proc/${pid}/io`, 'utf8'); } catch { return null; }
  const n = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+)`, 'm').exec(text)?.[1] ?? NaN);
  const s = { writeBytes: n('write_bytes'), cancelledWriteBytes: n('cancelled_write_bytes'), wchar: n('wchar') };
  return Number.isFinite(s.writeBytes) ? s : null;
}
