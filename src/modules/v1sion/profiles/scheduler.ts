// When scan profiles run: one timer for the earliest due profile, a queue of the due ones, and one run at
// a time. A due profile waits while another profile's run or any person's scan is going on (a person's scan
// goes first, also between the subnets of a run: see runs.ts); it never runs beside one. Times come from
// the app's Clock, so tests move them with a ManualClock.
import type { AppContext } from '../../../core/context.js';

/** A run to make: of the scheduled time `nominal`, or started now by a person (nominal null). */
export interface Due { id: string; nominal: number | null }

export interface SchedulerSource {
  /** Enabled profiles whose (jittered) time has come at `now`, except those in `busy`. */
  due(now: number, busy: ReadonlySet<string>): Due[];
  /** The earliest jittered time of an enabled profile not in `busy`; null when none. */
  nextAt(busy: ReadonlySet<string>): number | null;
  /** Runs one profile; resolves when its summary is stored. */
  run(d: Due, ctl: { clear(): Promise<void>; onJob(jobId: string | null): void }): Promise<void>;
  /** The job ids of people's scans queued or running now. */
  personsScans(): string[];
}

/** Timers longer than this are re-armed (Node's limit is 24.8 days; a config or clock change is caught sooner). */
const MAX_WAIT_MS = 60 * 60_000;

export class ProfileScheduler {
  private timer: { cancel(): void } | null = null;
  private readonly queue: Due[] = [];
  private current: { id: string; jobId: string | null } | null = null;
  private waiters: (() => void)[] = [];
  private readonly watched = new Set<string>();
  private stopped = true;

  constructor(private readonly app: AppContext, private readonly source: SchedulerSource) {}

  /** False once stopped (shutting down): a run ending then stores nothing, and runs again after the restart. */
  get active(): boolean { return !this.stopped; }

  start(): void {
    this.stopped = false;
    this.arm();
  }

  stop(): void {
    this.stopped = true;
    this.timer?.cancel();
    this.timer = null;
    this.release();
  }

  /** Profiles queued or running. */
  private busy(): Set<string> {
    const out = new Set(this.queue.map((d) => d.id));
    if (this.current) out.add(this.current.id);
    return out;
  }

  /** Sets the timer for the earliest due profile; call after any change to profiles. */
  arm(): void {
    this.timer?.cancel();
    this.timer = null;
    if (this.stopped) return;
    const at = this.source.nextAt(this.busy());
    if (at === null) return;
    const wait = Math.min(MAX_WAIT_MS, Math.max(0, at - this.app.clock.now()));
    this.timer = this.app.clock.setTimeout(() => this.tick(), wait);
  }

  private tick(): void {
    this.timer = null;
    if (this.stopped) return;
    const busy = this.busy();
    for (const d of this.source.due(this.app.clock.now(), busy)) this.queue.push(d);
    this.pump();
    this.arm();
  }

  /** A person's "run now": first in the queue. False when it is already queued or running. */
  runNow(id: string): boolean {
    if (this.busy().has(id)) return false;
    this.queue.unshift({ id, nominal: null });
    this.pump();
    return true;
  }

  /** Takes a profile out of the queue (skipped, disabled, deleted); a run already going on finishes. */
  drop(id: string): void {
    const i = this.queue.findIndex((d) => d.id === id);
    if (i >= 0) this.queue.splice(i, 1);
    this.arm();
  }

  stateOf(id: string): { state: 'running' | 'waiting'; jobId: string | null } | null {
    if (this.current?.id === id) return { state: 'running', jobId: this.current.jobId };
    return this.queue.some((d) => d.id === id) ? { state: 'waiting', jobId: null } : null;
  }

  /** Whether a person's scan is queued or running; if so, the end of each wakes the scheduler (once per job). */
  private personBusy(): boolean {
    const ids = this.source.personsScans();
    for (const id of ids) {
      if (this.watched.has(id)) continue;
      this.watched.add(id);
      void this.app.jobs.waitFor(id).catch(() => undefined).then(() => { this.watched.delete(id); this.release(); });
    }
    return ids.length > 0;
  }

  /** Resolves when no person's scan is queued or running. */
  private clear(): Promise<void> {
    if (this.stopped || !this.personBusy()) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  private release(): void {
    if (this.stopped || !this.personBusy()) for (const w of this.waiters.splice(0)) w();
    this.pump();
  }

  private pump(): void {
    if (this.stopped || this.current || !this.queue.length || this.personBusy()) return;
    const d = this.queue.shift()!;
    const cur = { id: d.id, jobId: null as string | null };
    this.current = cur;
    void this.source.run(d, { clear: () => this.clear(), onJob: (jobId) => { cur.jobId = jobId; } })
      .catch((e: unknown) => this.app.log.child('v1sion').error('scheduled scan failed', { profile: d.id, err: e }))
      .finally(() => {
        this.current = null;
        this.pump();
        this.arm();
      });
  }
}
