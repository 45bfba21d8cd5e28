// Which lab runs in which slot, and the guard routes every lab relies on. State lives in
// /tmp/netprobe-lab (not /run: the SSH host mounts its own /run and must still see its files):
//   lock            held (O_EXCL, "pid:starttime") while a slot is claimed or released
//   slot-<n>/owner  "pid:starttime" of the process that owns the lab, or "manual" (scripts/lab/cli.ts)
// A slot whose owner no longer runs is stale: the next claim destroys it first. The guard routes
// ("unreachable" on the whole lab range and on the refusal range) exist while any slot is held.
import { lstatSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runningStamp, stampOf } from './procs.js';
import { sleepSync, tryRun, run } from './run.js';
import { destroySlot, namespacesOf, rootLinkExists } from './teardown.js';
import { LAB_NET, REFUSED_NET, SLOTS } from './topology.js';

export const LAB_ROOT = '/tmp/netprobe-lab';
export const GUARDED = [LAB_NET, REFUSED_NET];
const LOCK = join(LAB_ROOT, 'lock');

export const slotDir = (slot: number) => join(LAB_ROOT, `slot-${slot}`);

function ensureRoot(): void {
  mkdirSync(LAB_ROOT, { recursive: true, mode: 0o755 });
  // Root runs the lab: refuse a directory someone else planted in /tmp.
  const st = lstatSync(LAB_ROOT);
  if (!st.isDirectory() || st.uid !== 0) throw new Error(`${LAB_ROOT} is not a directory owned by root`);
}

/** Runs `fn` holding the lab lock (across processes). Synchronous, so claims in one process never interleave. */
function withLock<T>(fn: () => T): T {
  ensureRoot();
  const me = stampOf(process.pid)!;
  const until = Date.now() + 30_000;
  for (;;) {
    try {
      writeFileSync(LOCK, me, { flag: 'wx' });
      break;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
      let holder = '';
      try { holder = readFileSync(LOCK, 'utf8'); } catch { continue; }
      if (!runningStamp(holder)) { rmSync(LOCK, { force: true }); continue; }
      if (Date.now() > until) throw new Error(`the lab lock ${LOCK} is held by ${holder} for over 30 s`);
      sleepSync(25);
    }
  }
  try {
    return fn();
  } finally {
    rmSync(LOCK, { force: true });
  }
}

export type SlotState = 'free' | 'live' | 'manual' | 'stale';

export function slotState(slot: number): SlotState {
  let owner: string | null = null;
  try { owner = readFileSync(join(slotDir(slot), 'owner'), 'utf8').trim(); } catch { /* no owner file */ }
  if (owner === 'manual') return 'manual';
  if (owner && runningStamp(owner)) return 'live';
  const leftovers = owner !== null || namespacesOf(slot).length > 0 || rootLinkExists(slot);
  let dirExists = true;
  try { lstatSync(slotDir(slot)); } catch { dirExists = false; }
  return leftovers || dirExists ? 'stale' : 'free';
}

function installGuards(): void {
  for (const net of GUARDED) run('ip', ['route', 'replace', 'unreachable', net]);
}

function removeGuards(): void {
  for (const net of GUARDED) {
    if (tryRun('ip', ['route', 'show', 'exact', net]).stdout.includes('unreachable')) tryRun('ip', ['route', 'del', 'unreachable', net]);
  }
}

function heldSlots(): number[] {
  let names: string[] = [];
  try { names = readdirSync(LAB_ROOT); } catch { /* nothing yet */ }
  return names.filter((n) => /^slot-\d+$/.test(n)).map((n) => Number(n.slice(5)));
}

/**
 * Destroys stale slots, installs the guard routes, and takes the lowest free slot (or `want`).
 * `owner` 'manual' marks a lab started by hand: never treated as stale, removed only by `down`.
 */
export function claimSlot(owner: 'process' | 'manual', want?: number): number {
  return withLock(() => {
    const states = Array.from({ length: SLOTS }, (_, s) => slotState(s));
    states.forEach((st, s) => { if (st === 'stale') { destroySlot(s, slotDir(s)); states[s] = 'free'; } });
    const slot = want ?? states.indexOf('free');
    if (slot < 0) throw new Error(`all ${SLOTS} lab slots are in use (scripts/lab/cli.ts status)`);
    if (states[slot] !== 'free') throw new Error(`lab slot ${slot} is in use (${states[slot]})`);
    // The slot is visibly held before the guards exist, so "guards without a lab" is only ever a release in progress.
    mkdirSync(slotDir(slot), { mode: 0o755 });
    writeFileSync(join(slotDir(slot), 'owner'), owner === 'manual' ? 'manual' : stampOf(process.pid)!);
    try {
      installGuards();
    } catch (e) {
      rmSync(slotDir(slot), { recursive: true, force: true });
      throw e;
    }
    return slot;
  });
}

/** Destroys the slot's lab; the last lab out removes the guard routes. */
export function releaseSlot(slot: number): void {
  destroySlot(slot, slotDir(slot));
  withLock(() => { if (heldSlots().length === 0) removeGuards(); });
}

/** Every slot with something in it, for `status` and `down --all`. */
export function usedSlots(): { slot: number; state: SlotState }[] {
  return Array.from({ length: SLOTS }, (_, slot) => ({ slot, state: slotState(slot) })).filter((s) => s.state !== 'free');
}
