// The check scheduler: one timer (on the injectable Clock) for the earliest due monitor, a binary heap of
// due times, absolute slots per monitor (next = previous slot + interval, missed slots skipped, never
// burst), at most `maxConcurrent` scheduled checks in flight, never two checks of one monitor at once.
//
// Placement of the first slot:
//   - a new or resumed monitor, or one whose check settings changed: at once; a batched one at the next
//     point of a one-second grid (SOON_GRID_MS), so that monitors created or changed together share
//     their first fping instead of one process each (200 ping monitors created through the API in 1.8 s
//     once ran 140 fping processes at once);
//   - at start-up, a monitor checked before: its last check + interval; those already overdue are
//     spread over min(interval, 60 s) in the order they fell due, so a restart does not fire them all
//     together;
//   - at start-up, a monitor never checked: a stable phase within its interval (a hash of its id).
// Every slot sits on its monitor's grid (`alignMs`), and checks due at one point start in one turn.
// Batched checks (ping: one fping serves every check due at the same moment) use a grid of a few seconds,
// so that they fall due together, and do not count against maxConcurrent; the others use START_GRID_MS:
// a wake-up of the event loop costs CPU of its own (a fifth of a millisecond on this project's VM), and a
// check started alone pays it for its start, its connect and its answer, where checks started together
// share them.
// The scheduler knows each slot, so it records how late each check started (lag.ts).
import type { Clock } from '../../core/clock.js';
import type { Logger } from '../../core/log.js';
import { LagRecorder, type LagStats } from './lag.js';

export interface ScheduleSpec {
  pk: number;
  id: string;
  intervalMs: number;
  /** Epoch ms of the last check, or null. */
  lastCheck: number | null;
  paused: boolean;
  /** Slots on a grid of this many ms (a divisor of the interval); 0: to the millisecond. */
  alignMs?: number;
  /** The check joins a shared batch (ping): not counted against maxConcurrent. */
  batched?: boolean;
}

export interface SchedulerOptions {
  clock: Clock;
  log: Logger;
  maxConcurrent: number;
  /**
   * Runs one scheduled check of monitor `pk`. It must start the check before its first await (the
   * scheduler starts every due check in one turn). A rejection is logged; an aborted signal means the
   * result must be thrown away.
   */
  run: (pk: number, signal: AbortSignal) => Promise<void>;
  /** Checks due this close together start in the same turn (default 2 ms: a timer's granularity). */
  coalesceMs?: number;
  /** The longest restart spread window (default 60 s). */
  spreadMs?: number;
}

interface Entry {
  pk: number;
  id: string;
  intervalMs: number;
  alignMs: number;
  batched: boolean;
  paused: boolean;
  /** Next slot, epoch ms; null while paused. */
  due: number | null;
  gen: number;
  running: Promise<unknown> | null;
  controller: AbortController | null;
  queued: boolean;
  /** The slot a queued check waits with (its lag counts from there). */
  slot: number;
  /** Check again as soon as the running check ends (its result is being thrown away). */
  rerun: boolean;
  missed: number;
}

interface HeapNode { due: number; pk: number; gen: number }

export interface SchedulerStats {
  monitors: number;
  scheduled: number;
  running: number;
  queued: number;
  started: number;
  missed: number;
  max_concurrent: number;
  lag: LagStats;
}

/**
 * The grid of the other checks: at 2,000 monitors a minute, about 1.7 checks a point. It saved about a fifth
 * of the CPU per check at 2,000 monitors (bench/monitors), at the price of the later starts of a point
 * waiting for the earlier ones (their lag counts it).
 */
export const START_GRID_MS = 50;
/** Where a batched check asked for "at once" goes: the next point of this grid. */
export const SOON_GRID_MS = 1000;

/** The grid of a monitor's slots: batched checks on batchGrid, the others on START_GRID_MS where it divides the interval. */
export function gridOf(intervalMs: number, batched: boolean): number {
  if (batched) return batchGrid(intervalMs);
  return intervalMs % START_GRID_MS === 0 ? START_GRID_MS : 0;
}

/** The grid batched checks of this interval sit on: the largest of 10, 5, 2 and 1 s that divides it. */
export function batchGrid(intervalMs: number): number {
  return [10_000, 5000, 2000, 1000].find((g) => intervalMs % g === 0) ?? 1000;
}

/** FNV-1a of the id: a stable phase within the interval, on the grid (to the millisecond without one). */
export function phaseOf(id: string, intervalMs: number, alignMs = 0): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < id.length; i++) {
    h ^= id.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  const step = alignMs || 1;
  return (h % Math.max(1, Math.floor(intervalMs / step))) * step;
}

/** The first time at or after `now` that lies on the monitor's phase grid (epoch-aligned). */
export function phaseSlot(id: string, intervalMs: number, now: number, alignMs = 0): number {
  const phase = phaseOf(id, intervalMs, alignMs);
  const k = Math.ceil((now - phase) / intervalMs);
  return k * intervalMs + phase;
}

/** `t` on the grid (to the nearest point), or as is without one. */
const onGrid = (t: number, alignMs: number) => (alignMs ? Math.round(t / alignMs) * alignMs : t);

/**
 * Start-up placement: each monitor's next slot from its last check; the overdue ones spread evenly over
 * min(interval, spreadMs), most overdue first. Batched monitors keep to their grid, so that those sharing a
 * point keep sharing it at every later slot: the overdue ones go to the points within the window that hold
 * the fewest of their kind (same interval and grid), counting those not overdue. Spread by time instead,
 * they landed on points that already held a share: after the bench's restart one point of six held 307 of
 * 1,000 ping monitors (and started them 17 ms late, the last), the others 138. Pure, for the unit tests.
 */
export function restartPlan(specs: readonly ScheduleSpec[], now: number, spreadMs = 60_000): Map<number, number> {
  const out = new Map<number, number>();
  const overdue: { pk: number; next: number; interval: number; align: number; batched: boolean }[] = [];
  // Batched monitors at each point of their grid, by kind (interval and grid) and the point's phase.
  const load = new Map<string, Map<number, number>>();
  const pointsOf = (interval: number, align: number) => {
    const k = `${interval}/${align}`;
    let m = load.get(k);
    if (!m) load.set(k, m = new Map());
    return m;
  };
  const place = (pk: number, t: number, interval: number, align: number, batched: boolean) => {
    out.set(pk, t);
    if (!batched || !align) return;
    const points = pointsOf(interval, align), phase = t % interval;
    points.set(phase, (points.get(phase) ?? 0) + 1);
  };
  for (const s of specs) {
    if (s.paused) continue;
    const align = s.alignMs ?? 0, batched = s.batched ?? false;
    if (s.lastCheck == null) { place(s.pk, phaseSlot(s.id, s.intervalMs, now, align), s.intervalMs, align, batched); continue; }
    const next = onGrid(s.lastCheck + s.intervalMs, align);
    if (next > now) place(s.pk, next, s.intervalMs, align, batched);
    else overdue.push({ pk: s.pk, next, interval: s.intervalMs, align, batched });
  }
  overdue.sort((a, b) => a.next - b.next || a.pk - b.pk);
  const n = overdue.length;
  overdue.forEach((o, i) => {
    const window = Math.min(o.interval, spreadMs);
    if (o.batched && o.align) {
      const points = pointsOf(o.interval, o.align);
      let best = NaN, fewest = Infinity;
      for (let t = Math.ceil(now / o.align) * o.align; t < now + window || Number.isNaN(best); t += o.align) {
        const held = points.get(t % o.interval) ?? 0;
        if (held < fewest) { best = t; fewest = held; }
      }
      place(o.pk, best, o.interval, o.align, true);
      return;
    }
    const at = now + Math.floor((i * window) / n);
    out.set(o.pk, o.align ? Math.ceil(at / o.align) * o.align : at);
  });
  return out;
}

export class Scheduler {
  private entries = new Map<number, Entry>();
  private heap: HeapNode[] = [];
  private queue: Entry[] = [];
  private timer: { at: number; cancel(): void } | null = null;
  private inflight = 0;
  private stopped = false;
  private started = 0;
  private missedTotal = 0;
  private readonly lag = new LagRecorder();
  private maxConcurrent: number;
  private readonly coalesceMs: number;
  private readonly spreadMs: number;
  private readonly clock: Clock;
  private readonly log: Logger;

  constructor(private readonly opts: SchedulerOptions) {
    this.clock = opts.clock;
    this.log = opts.log;
    this.maxConcurrent = Math.max(1, opts.maxConcurrent);
    this.coalesceMs = opts.coalesceMs ?? 2;
    this.spreadMs = opts.spreadMs ?? 60_000;
  }

  /** Start-up: places every monitor (see restartPlan) and arms the timer. */
  load(specs: readonly ScheduleSpec[]): void {
    const plan = restartPlan(specs, this.clock.now(), this.spreadMs);
    for (const s of specs) {
      const e = this.entryFor(s);
      this.setDue(e, s.paused ? null : plan.get(s.pk) ?? this.clock.now());
    }
    this.arm();
  }

  /** A new monitor: checked at once (unless paused). */
  add(s: ScheduleSpec): void {
    const e = this.entryFor(s);
    this.setDue(e, s.paused ? null : this.soon(e));
    this.arm();
  }

  /**
   * After an update. `recheck`: the check itself changed (target, type, settings, timeout...): a running
   * check is aborted and its result thrown away, and the monitor is checked at once. Otherwise an
   * interval change moves the next slot to last check + new interval (at once if that has passed).
   */
  update(s: ScheduleSpec, recheck: boolean): void {
    const old = this.entries.get(s.pk);
    if (!old) { this.add(s); return; }
    const intervalChanged = old.intervalMs !== s.intervalMs;
    const wasPaused = old.paused;
    const e = this.entryFor(s);
    if (s.paused) { this.pause(s.pk); return; }
    const now = this.clock.now();
    if (recheck || wasPaused) {
      if (e.running && e.controller) {
        e.controller.abort(new Error('monitor changed'));
        e.rerun = true;
        this.setDue(e, now + s.intervalMs);
      } else {
        this.setDue(e, this.soon(e));
      }
    } else if (intervalChanged) {
      const next = (s.lastCheck ?? now) + s.intervalMs;
      this.setDue(e, Math.max(now, next));
    }
    this.arm();
  }

  /** No more checks; a running scheduled check is aborted. */
  pause(pk: number): void {
    const e = this.entries.get(pk);
    if (!e) return;
    e.paused = true;
    e.rerun = false;
    this.setDue(e, null);
    e.controller?.abort(new Error('monitor paused'));
    this.arm();
  }

  /** Checked at once, then every interval. */
  resume(s: ScheduleSpec): void {
    const e = this.entryFor(s);
    e.paused = false;
    if (e.running) { e.rerun = true; this.setDue(e, this.clock.now() + s.intervalMs); }
    else this.setDue(e, this.soon(e));
    this.arm();
  }

  /** Checked as soon as it can be (a maintenance window that held its outage closed): then every interval. */
  checkSoon(pk: number): void {
    const e = this.entries.get(pk);
    if (!e || e.paused || e.running) return; // a running check tells what it finds anyway
    this.setDue(e, this.soon(e));
    this.arm();
  }

  remove(pk: number): void {
    const e = this.entries.get(pk);
    if (!e) return;
    this.entries.delete(pk);
    e.gen++;
    e.rerun = false;
    e.controller?.abort(new Error('monitor deleted'));
    this.arm();
  }

  /**
   * Runs fn as this monitor's only check: waits for a running check to end first, and scheduled slots
   * that fall while fn runs are skipped. Not counted against the concurrency cap (an operator asked).
   */
  async exclusive<T>(pk: number, fn: (signal: AbortSignal) => Promise<T>): Promise<T> {
    if (this.stopped) throw new Error('the scheduler is stopped');
    let e = this.entries.get(pk);
    while (e?.running) {
      await e.running.catch(() => undefined);
      e = this.entries.get(pk);
    }
    const ctrl = new AbortController();
    if (!e) return fn(ctrl.signal);
    const entry = e;
    entry.controller = ctrl;
    const p = fn(ctrl.signal);
    entry.running = p;
    try {
      return await p;
    } finally {
      if (entry.running === p) { entry.running = null; entry.controller = null; }
      this.afterRun(entry);
    }
  }

  setMaxConcurrent(n: number): void {
    this.maxConcurrent = Math.max(1, Math.floor(n));
    this.drain();
  }

  /** Stops scheduling, aborts running checks and waits (up to waitMs) for them to settle. */
  async stop(waitMs = 5000): Promise<void> {
    this.stopped = true;
    this.timer?.cancel();
    this.timer = null;
    this.queue = [];
    const running: Promise<unknown>[] = [];
    for (const e of this.entries.values()) {
      e.rerun = false;
      if (e.running) {
        e.controller?.abort(new Error('service stopping'));
        running.push(e.running.catch(() => undefined));
      }
    }
    if (!running.length) return;
    let t: NodeJS.Timeout | undefined;
    await Promise.race([
      Promise.all(running),
      new Promise<void>((r) => { t = setTimeout(r, waitMs); t.unref?.(); }),
    ]);
    if (t) clearTimeout(t);
  }

  /** Each monitor's next slot (epoch ms, null while paused), for tests and diagnostics. */
  plan(): { pk: number; id: string; due: number | null; running: boolean }[] {
    return [...this.entries.values()]
      .map((e) => ({ pk: e.pk, id: e.id, due: e.due, running: !!e.running }))
      .sort((a, b) => (a.due ?? Infinity) - (b.due ?? Infinity) || a.pk - b.pk);
  }

  stats(): SchedulerStats {
    let scheduled = 0, running = 0;
    for (const e of this.entries.values()) { if (e.due != null) scheduled++; if (e.running) running++; }
    return {
      monitors: this.entries.size, scheduled, running, queued: this.queue.length,
      started: this.started, missed: this.missedTotal, max_concurrent: this.maxConcurrent, lag: this.lag.stats(),
    };
  }

  /** The latest scheduled starts: slot (epoch ms) and how late the check started (ms), oldest first. */
  recentLag(limit?: number): { slot: number; lag_ms: number }[] {
    return this.lag.recent(limit);
  }

  // ---- internals -------------------------------------------------------------------------------

  /** The monitor's entry, made or brought up to date with the spec (interval, grid, batching, paused). */
  private entryFor(s: ScheduleSpec): Entry {
    let e = this.entries.get(s.pk);
    if (!e) {
      e = { pk: s.pk, id: s.id, intervalMs: s.intervalMs, alignMs: s.alignMs ?? 0, batched: s.batched ?? false, paused: s.paused,
        due: null, gen: 0,
        running: null, controller: null, queued: false, slot: 0, rerun: false, missed: 0 };
      this.entries.set(s.pk, e);
    } else {
      e.id = s.id;
      e.intervalMs = s.intervalMs;
      e.alignMs = s.alignMs ?? 0;
      e.batched = s.batched ?? false;
      e.paused = s.paused;
    }
    return e;
  }

  /** "At once" for this monitor: now, or for a batched check the next SOON_GRID_MS point (see the top). */
  private soon(e: Entry): number {
    const now = this.clock.now();
    return e.batched ? Math.ceil(now / SOON_GRID_MS) * SOON_GRID_MS : now;
  }

  private setDue(e: Entry, due: number | null): void {
    e.gen++;
    e.due = due;
    if (due != null) this.push({ due, pk: e.pk, gen: e.gen });
  }

  private arm(): void {
    if (this.stopped) return;
    const top = this.peek();
    if (!top) { this.timer?.cancel(); this.timer = null; return; }
    if (this.timer && this.timer.at === top.due) return;
    this.timer?.cancel();
    const at = top.due;
    const handle = this.clock.setTimeout(() => this.fire(), Math.max(0, at - this.clock.now()));
    this.timer = { at, cancel: () => handle.cancel() };
  }

  private fire(): void {
    this.timer = null;
    if (this.stopped) return;
    const now = this.clock.now();
    const due: { e: Entry; slot: number }[] = [];
    for (let top = this.peek(); top && top.due <= now + this.coalesceMs; top = this.peek()) {
      this.pop();
      const e = this.entries.get(top.pk)!;
      // Next slot: the previous one plus the interval; slots already past are skipped, never burst. A
      // check off its grid (checked at once when created or resumed) goes back onto it.
      let next = top.due + e.intervalMs;
      if (e.alignMs) next = Math.ceil(next / e.alignMs) * e.alignMs;
      if (next <= now) {
        const skipped = Math.ceil((now - next + 1) / e.intervalMs);
        next += skipped * e.intervalMs;
        this.missed(e, skipped, 'late');
      }
      this.setDue(e, next);
      due.push({ e, slot: top.due });
    }
    // Start everything due in this one turn (batched checks go out together). Batched checks share one
    // process: they do not count against the cap.
    for (const { e, slot } of due) {
      if (e.running || e.queued) { this.missed(e, 1, 'previous check still running'); continue; }
      if (!e.batched && this.inflight >= this.maxConcurrent) { e.queued = true; e.slot = slot; this.queue.push(e); continue; }
      this.start(e, slot);
    }
    this.arm();
  }

  private missed(e: Entry, n: number, why: string): void {
    e.missed += n;
    this.missedTotal += n;
    this.log.debug('missed check slot', { monitor: e.id, slots: n, reason: why });
  }

  /** Starts a check; `slot` is the scheduled time it belongs to (null for a re-run after a change). */
  private start(e: Entry, slot: number | null): void {
    if (slot !== null) this.lag.record(slot, this.clock.now());
    const ctrl = new AbortController();
    e.controller = ctrl;
    const capped = !e.batched;
    if (capped) this.inflight++;
    this.started++;
    let p: Promise<void>;
    try {
      p = this.opts.run(e.pk, ctrl.signal);
    } catch (err) {
      p = Promise.reject(err);
    }
    const tracked = p.catch((err: unknown) => {
      this.log.error('check run failed', { monitor: e.id, err: err as Error });
    }).finally(() => {
      if (capped) this.inflight--;
      if (e.running === tracked) { e.running = null; e.controller = null; }
      this.afterRun(e);
    });
    e.running = tracked;
  }

  private afterRun(e: Entry): void {
    if (this.stopped) return;
    if (e.rerun && this.entries.get(e.pk) === e && !e.paused && !e.running) {
      e.rerun = false;
      if (e.batched) { this.setDue(e, this.soon(e)); this.arm(); }
      else if (this.inflight < this.maxConcurrent) this.start(e, null);
      else if (!e.queued) { e.queued = true; e.slot = Number.NaN; this.queue.push(e); }
    }
    this.drain();
  }

  private drain(): void {
    if (this.stopped) return;
    const batch: Entry[] = [];
    while (this.inflight + batch.length < this.maxConcurrent && this.queue.length) {
      const e = this.queue.shift()!;
      e.queued = false;
      if (this.entries.get(e.pk) !== e || e.paused) continue;
      if (e.running) { this.missed(e, 1, 'previous check still running'); continue; }
      batch.push(e);
    }
    for (const e of batch) this.start(e, Number.isNaN(e.slot) ? null : e.slot);
  }

  // ---- heap of (due, pk, gen); stale nodes (gen mismatch, removed entries) are dropped lazily ----

  private push(n: HeapNode): void {
    const h = this.heap;
    h.push(n);
    let i = h.length - 1;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (!less(h[i]!, h[p]!)) break;
      [h[i], h[p]] = [h[p]!, h[i]!];
      i = p;
    }
  }

  private pop(): HeapNode | undefined {
    const h = this.heap;
    const top = h[0];
    const last = h.pop();
    if (h.length && last) {
      h[0] = last;
      let i = 0;
      for (;;) {
        const l = 2 * i + 1, r = l + 1;
        let m = i;
        if (l < h.length && less(h[l]!, h[m]!)) m = l;
        if (r < h.length && less(h[r]!, h[m]!)) m = r;
        if (m === i) break;
        [h[i], h[m]] = [h[m]!, h[i]!];
        i = m;
      }
    }
    return top;
  }

  /** The earliest valid node, discarding stale ones. */
  private peek(): HeapNode | undefined {
    for (;;) {
      const top = this.heap[0];
      if (!top) return undefined;
      const e = this.entries.get(top.pk);
      if (e && e.gen === top.gen && e.due === top.due) return top;
      this.pop();
    }
  }
}

function less(a: HeapNode, b: HeapNode): boolean {
  return a.due < b.due || (a.due === b.due && a.pk < b.pk);
}
