// The update check once a day, on its own: at a jittered time (probes set up together do not all ask the
// source in the same minute), only while a source is configured and update.daily_check is on. A newer
// release at the channel's tip raises the update_available alert once per version (update_state
// 'alerted_version'); the settings' update page reads the same last_check as a check by hand.
import type { AppContext } from '../../../core/context.js';
import { raiseAlert } from '../../webhooks/index.js';
import type { UpdateService } from './service.js';

const DAY_MS = 86_400_000;
/** The first check after a start-up comes 5 to 65 minutes later: never in the start-up's own work. */
const FIRST_MS = 5 * 60_000;
/** Spread of each check's time. */
const JITTER_MS = 60 * 60_000;

export class DailyUpdateCheck {
  private timer: { cancel(): void } | null = null;
  private stopped = false;

  constructor(private readonly app: AppContext, private readonly svc: UpdateService, private readonly random = Math.random) {}

  start(): void {
    const last = this.svc.lastCheckAt();
    const now = this.app.clock.now();
    const due = last === null ? now + FIRST_MS : Math.max(now + FIRST_MS, last + DAY_MS);
    this.arm(due - now + this.random() * JITTER_MS);
  }

  stop(): void {
    this.stopped = true;
    this.timer?.cancel();
  }

  private arm(ms: number): void {
    if (this.stopped) return;
    this.timer = this.app.clock.setTimeout(() => { this.run().finally(() => this.arm(DAY_MS + this.random() * JITTER_MS)); }, ms);
  }

  /** One check (if wanted), and the alert for a version not alerted yet. */
  async run(): Promise<void> {
    const cfg = this.app.config.get().update;
    if (!cfg.daily_check || !cfg.source_url) return;
    const log = this.app.log.child('update');
    try {
      const r = await this.svc.check();
      if (!r.update_available || !r.version || this.svc.alertedVersion() === r.version) return;
      await raiseAlert(this.app, {
        type: 'update_available', subject: 'system/update', severity: 'info', occurred_at: r.checked_at,
        title: `netprobe ${r.version} is available`,
        message: `${r.detail} (channel ${r.channel}). Install it from Settings, Update; the probe checks the release's signature first.`,
        details: { component: 'update', version: r.version, running_version: r.running_version, channel: r.channel, tag: r.tag },
      });
      await this.svc.setAlertedVersion(r.version);
      log.info('update available', { version: r.version, channel: r.channel });
    } catch (e) {
      // The check recorded its failure in last_check (the update page shows it); tomorrow's tries again.
      log.warn(`daily update check failed: ${(e as Error).message}`);
    }
  }
}
