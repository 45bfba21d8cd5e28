// The retention job: raw results older than raw_retention_hours (in memory, and the monitors channel's
// segment files on disk), minute/hour/day rollups older than their windows, closed incidents and events
// older than day_retention_days (events also capped by count), and message-dictionary entries no result
// uses any more. Runs every retention_interval_minutes on the Clock. Rollup deletes go per batch of
// monitors (each a primary-key range seek, in its own 'group' write), sized so that one write deletes
// about ROWS_PER_WRITE rows: a backlog (weeks of hour rows when the retention was shortened) never holds
// the event loop for long. The pass ends with store.reclaim(): freed pages stay in memory until a VACUUM.
import type { AppContext } from '../../core/context.js';
import type { Logger } from '../../core/log.js';
import { CHANNEL } from './storage/channel.js';
import { HOUR_MS } from './storage/hours.js';
import { monitorConfig, type MonitorConfig } from './config.js';
import type { MonitorService } from './service.js';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
/** The event log keeps at most this many rows (the newest). */
export const MAX_EVENTS = 100_000;
/** Monitors per rollup delete, at most (about 200 rows a pass in the steady state). */
const BATCH = 200;
/** Rollup rows one write deletes, about: some 15 ms of held event loop on a slow core. */
export const ROWS_PER_WRITE = 4000;
/** Collect unused dictionary entries only when there are more than this many. */
const DICT_GC_MIN = 256;

export interface RetentionStats {
  /** Raw results freed from memory. */
  results: number;
  /** Channel segment files deleted. */
  segments: number;
  rollups: number;
  incidents: number;
  events: number;
  messages: number;
  /** Bytes the database gave back (store.reclaim), 0 when there was too little free space to bother. */
  reclaimed_bytes: number;
}

export class RetentionJob {
  private timer: { cancel(): void } | null = null;
  private running: Promise<RetentionStats> | null = null;
  private stopped = false;
  private readonly log: Logger;

  constructor(private readonly app: AppContext, private readonly service: MonitorService,
    private readonly config: () => MonitorConfig = () => monitorConfig(app)) {
    this.log = app.log.child('monitors');
  }

  /** First pass a minute after start, then every retention_interval_minutes. */
  start(firstDelayMs = 60_000): void {
    this.stopped = false;
    this.schedule(firstDelayMs);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.timer?.cancel();
    this.timer = null;
    await this.running?.catch(() => undefined);
  }

  private schedule(ms: number): void {
    if (this.stopped) return;
    this.timer?.cancel();
    this.timer = this.app.clock.setTimeout(() => {
      this.timer = null;
      this.runOnce().catch((e: unknown) => this.log.error('monitor retention failed', { err: e as Error }))
        .finally(() => this.schedule(this.config().retention_interval_minutes * 60_000));
    }, ms);
  }

  /**
   * One pass; concurrent callers share it. `reclaim: false` leaves the freed pages to the caller (the
   * database cleanup compacts right after, and reports what was free).
   */
  runOnce(opts: { reclaim?: boolean } = {}): Promise<RetentionStats> {
    this.running ??= this.pass(opts.reclaim ?? true).finally(() => { this.running = null; });
    return this.running;
  }

  private async pass(reclaim: boolean): Promise<RetentionStats> {
    const c = this.config();
    const now = this.app.clock.now();
    const store = this.app.store;
    const rawCut = now - c.raw_retention_hours * HOUR;
    const minuteCut = Math.floor((now - c.minute_retention_hours * HOUR) / 1000);
    const hourCut = Math.floor((now - c.hour_retention_days * DAY) / 1000);
    const dayCut = Math.floor((now - c.day_retention_days * DAY) / 1000);
    const stats: RetentionStats = { results: 0, segments: 0, rollups: 0, incidents: 0, events: 0, messages: 0, reclaimed_bytes: 0 };

    const cuts = [[0, minuteCut], [1, hourCut], [2, dayCut]] as const;
    const pks = store.all<{ pk: number }>('SELECT pk FROM monitors ORDER BY pk').map((r) => r.pk);
    for (let i = 0; i < pks.length && !this.stopped;) {
      // The batch's first monitor is its oldest (pks ascend), so it has about the most rows to lose.
      let first = 0;
      for (const [k, cut] of cuts) {
        first += store.get<{ n: number }>('SELECT count(*) AS n FROM monitor_rollups WHERE m = ? AND k = ? AND b < ?', [pks[i], k, cut])!.n;
      }
      const size = Math.max(1, Math.min(BATCH, Math.floor(ROWS_PER_WRITE / Math.max(1, first))));
      const list = JSON.stringify(pks.slice(i, i + size));
      i += size;
      await store.write((tx) => {
        for (const [k, cut] of cuts) {
          stats.rollups += tx.run(
            'DELETE FROM monitor_rollups WHERE m IN (SELECT value FROM json_each(?)) AND k = ? AND b < ?', [list, k, cut]).changes;
        }
      }, 'group');
      // A group write resolves at once (a microtask): without this the batches would run back to back,
      // and checks due meanwhile would wait for all of them (3 s for 1.3 million rows, measured).
      await new Promise<void>((r) => setImmediate(r));
    }
    if (this.stopped) return stats;

    // Raw results: never those of hours whose rollups are still to be written from them.
    const svc = this.service;
    const cut = Math.min(rawCut, svc.closer.watermark * HOUR_MS);
    stats.results = svc.history.trim(cut);
    // Segments whose results are past retention. What they say of each monitor's state goes into the
    // table first (unless saved since they were written), since their entries may be a monitor's last.
    stats.segments = await store.dropChannelBefore(CHANNEL, cut, async (lastLsn) => {
      if (svc.stateSavedAt() < cut) await svc.saveState();
      await svc.channelDropping(lastLsn);
    });

    const unused = svc.messages.size > DICT_GC_MIN ? svc.messages.unused(svc.history.messageIds()) : [];
    await store.write((tx) => {
      stats.incidents = tx.run(
        'DELETE FROM monitor_incidents WHERE closed_at IS NOT NULL AND closed_at < ?', [now - c.day_retention_days * DAY]).changes;
      stats.events = tx.run('DELETE FROM monitor_events WHERE t < ?', [now - c.day_retention_days * DAY]).changes;
      stats.events += tx.run(
        'DELETE FROM monitor_events WHERE id <= (SELECT id FROM monitor_events ORDER BY id DESC LIMIT 1 OFFSET ?)', [MAX_EVENTS]).changes;
      if (unused.length) {
        stats.messages = tx.run(
          'DELETE FROM monitor_messages WHERE id IN (SELECT value FROM json_each(?))', [JSON.stringify(unused)]).changes;
        tx.onCommit(() => svc.messages.forget(unused));
      }
    }, 'group');
    const reclaimed = reclaim ? await store.reclaim() : null;
    if (reclaimed) stats.reclaimed_bytes = reclaimed.bytes_before - reclaimed.bytes_after;
    const total = stats.results + stats.rollups + stats.incidents + stats.events + stats.messages;
    this.log[total ? 'info' : 'debug']('monitor retention pass', { ...stats });
    return stats;
  }
}
