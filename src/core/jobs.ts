// Long-running jobs (scans, SSH enrichment, updates, certificate orders) with progress events.
//
// A job's events go to a bounded per-job buffer that SSE streams replay (after Last-Event-ID) and then
// follow live. Every event carries `type` and `progress`; a job emits `started`, whatever its run
// function emits, and exactly one final event: completed, failed or cancelled.
//
// Cancelling is immediate from the outside: the signal aborts, the job turns cancelled and its final
// event goes out at once, whether or not the run function honours the signal (a late result or error is
// discarded). The concurrency slot is held until the run function settles, or for at most
// CANCEL_GRACE_MS after the cancel, so a run that ignores its signal cannot block its kind for ever.

import { randomUUID } from 'node:crypto';
import { systemClock, type Clock } from './clock.js';
import { HttpError, notFound } from './errors.js';
import { Logger } from './log.js';

export type JobState = 'queued' | 'running' | 'completed' | 'failed' | 'cancelled';

export interface Job {
  id: string;
  kind: string;
  state: JobState;
  progress: number;
  created_at: string;
  started_at: string | null;
  finished_at: string | null;
  error?: string;
  meta?: Record<string, unknown>;
}

export interface JobEvent {
  /** Per-job sequence starting at 1; the SSE id. */
  id: number;
  type: string;
  progress: number;
  [k: string]: unknown;
}

export interface JobControl {
  /** Aborted when the job is cancelled or the manager shuts down; pass it to exec.run and fetch. */
  signal: AbortSignal;
  /** Sets progress (clamped to 0..100) and emits a `progress` event carrying `data`. */
  progress(pct: number, data?: Record<string, unknown>): void;
  /** Emits an event of the given type at the current progress; started/completed/failed/cancelled are reserved. */
  emit(type: string, data?: Record<string, unknown>): void;
}

export interface JobManagerOptions {
  clock?: Clock;
  log?: Logger;
  /** Events kept per job for replay; default 500. The final event is never dropped. */
  bufferSize?: number;
  /** Finished jobs kept (with their events and results); default 100. */
  keepFinished?: number;
  /** Jobs of a kind allowed to run at once; kinds not listed are unlimited. */
  maxConcurrent?: Record<string, number>;
}

type RunFn = (ctl: JobControl) => Promise<unknown>;
type Subscriber = (e: JobEvent) => void;

/** How long a cancelled run that ignores its signal may keep its concurrency slot. */
const CANCEL_GRACE_MS = 1000;
const FINAL = new Set<JobState>(['completed', 'failed', 'cancelled']);
const RESERVED = new Set(['started', 'completed', 'failed', 'cancelled']);

interface Entry {
  job: Job;
  run: RunFn;
  controller: AbortController;
  events: JobEvent[];
  nextEventId: number;
  subscribers: Set<Subscriber>;
  waiters: ((job: Job) => void)[];
  result?: unknown;
  /** True while it holds a concurrency slot of its kind. */
  holdsSlot: boolean;
  /** Settles when the run function settles (or at once for a job that never ran). */
  settled?: Promise<void>;
}

export class JobManager {
  private readonly clock: Clock;
  private readonly log: Logger;
  private readonly bufferSize: number;
  private readonly keepFinished: number;
  private readonly maxConcurrent: Record<string, number>;
  private readonly jobs = new Map<string, Entry>();
  private readonly running = new Map<string, number>();
  private readonly queues = new Map<string, Entry[]>();
  private readonly finishedOrder: string[] = [];
  private closed = false;

  constructor(opts: JobManagerOptions = {}) {
    this.clock = opts.clock ?? systemClock;
    this.log = opts.log ?? Logger.create().child('jobs');
    this.bufferSize = Math.max(1, Math.floor(opts.bufferSize ?? 500));
    this.keepFinished = Math.max(0, Math.floor(opts.keepFinished ?? 100));
    this.maxConcurrent = { ...opts.maxConcurrent };
  }

  /** Creates a job: running at once, or queued while its kind is at its concurrency limit. */
  start<R>(kind: string, run: (ctl: JobControl) => Promise<R>, opts: { meta?: Record<string, unknown> } = {}): Job {
    if (this.closed) throw new HttpError(503, 'shutting_down', 'The service is shutting down; no new jobs are accepted');
    const job: Job = {
      id: randomUUID(), kind, state: 'queued', progress: 0,
      created_at: this.clock.iso(), started_at: null, finished_at: null,
    };
    if (opts.meta) job.meta = { ...opts.meta };
    const entry: Entry = {
      job, run, controller: new AbortController(), events: [], nextEventId: 1,
      subscribers: new Set(), waiters: [], holdsSlot: false,
    };
    this.jobs.set(job.id, entry);
    if (this.hasSlot(kind)) this.begin(entry);
    else this.queueOf(kind).push(entry);
    return this.snapshot(entry);
  }

  get(id: string): Job | undefined {
    const e = this.jobs.get(id);
    return e ? this.snapshot(e) : undefined;
  }

  /** Jobs still known (running, queued and the most recent finished ones), oldest first. */
  list(kind?: string): Job[] {
    const out: Job[] = [];
    for (const e of this.jobs.values()) if (!kind || e.job.kind === kind) out.push(this.snapshot(e));
    return out;
  }

  /** The value the run function resolved with, once the job has completed; undefined otherwise. */
  result<R = unknown>(id: string): R | undefined {
    const e = this.jobs.get(id);
    return e?.job.state === 'completed' ? (e.result as R) : undefined;
  }

  /** Buffered events with id greater than `after`. */
  events(id: string, after = 0): JobEvent[] {
    return (this.jobs.get(id)?.events ?? []).filter((ev) => ev.id > after).map((ev) => ({ ...ev }));
  }

  /** Cancels a queued or running job; false when it is unknown or already finished. */
  cancel(id: string): boolean {
    const e = this.jobs.get(id);
    if (!e || FINAL.has(e.job.state)) return false;
    if (e.job.state === 'queued') {
      const q = this.queueOf(e.job.kind);
      q.splice(q.indexOf(e), 1);
      e.controller.abort();
      this.finish(e, 'cancelled');
      return true;
    }
    e.controller.abort();
    this.finish(e, 'cancelled');
    // Give the slot back when the run settles, or after the grace if it ignores its signal.
    const grace = this.clock.setTimeout(() => this.releaseSlot(e), CANCEL_GRACE_MS);
    void e.settled?.then(() => { grace.cancel(); this.releaseSlot(e); });
    return true;
  }

  /**
   * Replays buffered events with id > afterEventId (synchronously, before returning), then follows
   * live until the final event. Throws 404 for an unknown job. Returns the unsubscribe function.
   */
  subscribe(id: string, onEvent: (e: JobEvent) => void, afterEventId = 0): () => void {
    const e = this.jobs.get(id);
    if (!e) throw notFound('Job');
    for (const ev of e.events) if (ev.id > afterEventId) this.deliver(onEvent, ev);
    if (FINAL.has(e.job.state)) return () => {};
    e.subscribers.add(onEvent);
    return () => { e.subscribers.delete(onEvent); };
  }

  /** Resolves with the job once it has finished. Throws 404 for an unknown job. */
  waitFor(id: string): Promise<Job> {
    const e = this.jobs.get(id);
    if (!e) return Promise.reject(notFound('Job'));
    if (FINAL.has(e.job.state)) return Promise.resolve(this.snapshot(e));
    return new Promise((resolve) => e.waiters.push(resolve));
  }

  /**
   * Cancels every queued and running job and refuses new ones. Resolves when the run functions have
   * settled, or after CANCEL_GRACE_MS for those that ignore their signal.
   */
  async shutdown(): Promise<void> {
    this.closed = true;
    const pending: Promise<void>[] = [];
    for (const e of [...this.jobs.values()]) {
      if (FINAL.has(e.job.state)) continue;
      const settled = e.settled;
      this.cancel(e.job.id);
      if (settled) pending.push(settled);
    }
    if (!pending.length) return;
    // A real, referenced timer: the caller awaits this before closing the store, so the process must
    // not exit under it, whatever the injected clock does.
    await new Promise<void>((resolve) => {
      const t = setTimeout(resolve, CANCEL_GRACE_MS);
      void Promise.all(pending).then(() => { clearTimeout(t); resolve(); });
    });
  }

  // ---- internals -----------------------------------------------------------------------------------

  private begin(entry: Entry): void {
    const { job } = entry;
    entry.holdsSlot = true;
    this.running.set(job.kind, (this.running.get(job.kind) ?? 0) + 1);
    job.state = 'running';
    job.started_at = this.clock.iso();
    this.push(entry, { type: 'started' });

    const ctl: JobControl = {
      signal: entry.controller.signal,
      progress: (pct, data) => {
        if (job.state !== 'running') return;
        if (Number.isFinite(pct)) job.progress = Math.min(100, Math.max(0, pct));
        this.push(entry, { ...data, type: 'progress' });
      },
      emit: (type, data) => {
        // The manager alone emits these; a job emitting one would end SSE streams early.
        if (RESERVED.has(type)) throw new TypeError(`job event type "${type}" is reserved`);
        if (job.state !== 'running') return;
        this.push(entry, { ...data, type });
      },
    };

    // Called on the next microtask so start() returns before the run function does anything.
    entry.settled = Promise.resolve()
      .then(() => (job.state === 'running' ? entry.run(ctl) : undefined)) // not if cancelled already
      .then(
        (value) => {
          if (job.state !== 'running') return; // cancelled meanwhile: the late result is discarded
          entry.result = value;
          job.progress = 100;
          this.finish(entry, 'completed', value === undefined ? {} : { result: value });
        },
        (err: unknown) => {
          if (job.state !== 'running') return;
          const message = err instanceof Error ? err.message : String(err);
          this.log.warn('job failed', { id: job.id, kind: job.kind, error: message });
          job.error = message;
          this.finish(entry, 'failed', { error: message });
        },
      )
      .finally(() => { if (job.state !== 'cancelled') this.releaseSlot(entry); });
  }

  private finish(entry: Entry, state: 'completed' | 'failed' | 'cancelled', data: Record<string, unknown> = {}): void {
    const { job } = entry;
    job.state = state;
    job.finished_at = this.clock.iso();
    this.push(entry, { ...data, type: state });
    entry.subscribers.clear();
    const snap = this.snapshot(entry);
    for (const w of entry.waiters.splice(0)) w(snap);
    this.finishedOrder.push(job.id);
    while (this.finishedOrder.length > this.keepFinished) this.jobs.delete(this.finishedOrder.shift()!);
  }

  private releaseSlot(entry: Entry): void {
    if (!entry.holdsSlot) return;
    entry.holdsSlot = false;
    const kind = entry.job.kind;
    this.running.set(kind, Math.max(0, (this.running.get(kind) ?? 1) - 1));
    const q = this.queueOf(kind);
    while (q.length && this.hasSlot(kind)) this.begin(q.shift()!);
  }

  private push(entry: Entry, data: Record<string, unknown> & { type: string }): void {
    // id, type and progress always come from the manager, never from the job's data.
    const ev: JobEvent = { ...data, id: entry.nextEventId++, type: data.type, progress: entry.job.progress };
    entry.events.push(ev);
    // The newest event is the only one that can be final, so dropping from the front never drops it.
    if (entry.events.length > this.bufferSize) entry.events.splice(0, entry.events.length - this.bufferSize);
    for (const fn of [...entry.subscribers]) this.deliver(fn, ev);
  }

  private deliver(fn: Subscriber, ev: JobEvent): void {
    try { fn({ ...ev }); } catch (e) { this.log.error('job event subscriber failed', { err: e }); }
  }

  private hasSlot(kind: string): boolean {
    const max = this.maxConcurrent[kind];
    return max === undefined || (this.running.get(kind) ?? 0) < Math.max(1, max);
  }

  private queueOf(kind: string): Entry[] {
    let q = this.queues.get(kind);
    if (!q) this.queues.set(kind, (q = []));
    return q;
  }

  private snapshot(e: Entry): Job {
    const j = e.job;
    const out: Job = { ...j };
    if (j.meta) out.meta = { ...j.meta };
    return out;
  }
}
