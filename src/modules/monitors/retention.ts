// The retention job: the storage's pass (storage/retention.ts: raw results older than
// raw_retention_hours, in memory and the channel's segment files on disk, hour and day rollups older than
// their windows, message-dictionary entries no result uses any more), then closed incidents and events
// older than day_retention_days (events also capped by count). Runs every retention_interval_minutes on
// the Clock. The pass ends with store.reclaim(): freed pages stay in memory until a VACUUM.
import type { AppContext } from '../../core/context.js';
import type { Logger } from '../../core/log.js';
import { monitorConfig, type MonitorConfig } from './config.js';
import type { MonitorService } from './service.js';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
/** The event log keeps at most this many rows (the newest). */
export const MAX_EVENTS = 100_000;

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
    const series = await this.service.storage.retain({
      raw: now - c.raw_retention_hours * HOUR,
      minute: now - c.minute_retention_hours * HOUR,
      hour: now - c.hour_retention_days * DAY,
      day: now - c.day_retention_days * DAY,
    }, () => this.stopped);
    const stats: RetentionStats = { ...series, incidents: 0, events: 0, reclaimed_bytes: 0 };
    if (this.stopped) return stats;

    await store.write((tx) => {
      stats.incidents = tx.run(
        'DELETE FROM monitor_incidents WHERE closed_at IS NOT NULL AND closed_at < ?', [now - c.day_retention_days * DAY]).changes;
      stats.events = tx.run('DELETE FROM monitor_events WHERE t < ?', [now - c.day_retention_days * DAY]).changes;
      stats.events += tx.run(
        'DELETE FROM monitor_events WHERE id <= (SELECT id FROM monitor_events ORDER BY id DESC LIMIT 1 OFFSET ?)', [MAX_EVENTS]).changes;
    }, 'group');
    const reclaimed = reclaim ? await store.reclaim() : null;
    if (reclaimed) stats.reclaimed_bytes = reclaimed.bytes_before - reclaimed.bytes_after;
    const total = stats.results + stats.rollups + stats.incidents + stats.events + stats.messages;
    this.log[total ? 'info' : 'debug']('monitor retention pass', { ...stats });
    return stats;
  }
}
