// Removes everything one lab slot may have left: its processes, namespaces, root veth, routes and
// directory. Finds them by name and by the slot directory's stamp files, not by what this process
// remembers, so the same code cleans up after a crashed run. Idempotent: running it twice, or on a
// slot that never existed, does nothing the second time.
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { killAll, runningStamp } from './procs.js';
import { tryRun } from './run.js';
import { plan, slotPrefix } from './topology.js';

/** Lab namespaces of a slot that exist now. */
export function namespacesOf(slot: number): string[] {
  const r = tryRun('ip', ['netns', 'list']);
  const names = r.stdout.split('\n').map((l) => l.split(' ')[0]!).filter(Boolean);
  return names.filter((n) => n.startsWith(`${slotPrefix(slot)}-`));
}

export function rootLinkExists(slot: number): boolean {
  return tryRun('ip', ['link', 'show', 'dev', slotPrefix(slot)]).code === 0;
}

/** Processes started by the lab that still run: recorded in `<dir>/<host>/*.stamp`. */
function stampedPids(dir: string): number[] {
  if (!existsSync(dir)) return [];
  const pids: number[] = [];
  for (const entry of readdirSync(dir, { recursive: true, encoding: 'utf8' })) {
    if (!entry.endsWith('.stamp')) continue;
    try {
      const pid = runningStamp(readFileSync(join(dir, entry), 'utf8'));
      if (pid) pids.push(pid);
    } catch { /* removed meanwhile */ }
  }
  return pids;
}

/** Everything that runs inside the slot's namespaces (daemons' children included). */
function namespacePids(namespaces: string[]): number[] {
  return namespaces.flatMap((ns) => tryRun('ip', ['netns', 'pids', ns]).stdout.split('\n').filter(Boolean).map(Number));
}

export function destroySlot(slot: number, dir: string): void {
  const namespaces = namespacesOf(slot);
  const pids = [...new Set([...stampedPids(dir), ...namespacePids(namespaces)])];
  const survivors = killAll(pids);
  if (survivors.length) process.emitWarning(`lab slot ${slot}: processes ${survivors.join(', ')} survived SIGKILL`);
  // The root end first: a namespace is freed by the kernel later, and with it its veth peers.
  if (rootLinkExists(slot)) tryRun('ip', ['link', 'del', 'dev', slotPrefix(slot)]);
  for (const ns of namespaces) tryRun('ip', ['netns', 'del', ns]);
  // Routes go with the link; this only catches one left by an interrupted start.
  const range = plan(slot).range;
  if (tryRun('ip', ['route', 'show', 'exact', range]).stdout.trim()) tryRun('ip', ['route', 'del', range]);
  rmSync(dir, { recursive: true, force: true });
}
