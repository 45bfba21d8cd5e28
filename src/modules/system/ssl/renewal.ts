// Renewal of an ACME certificate, scheduled from the certificate's own lifetime (Let's Encrypt's are
// shrinking to 45 days, and acme-client has no ARI): renew once two thirds of it have passed, retry daily
// after a failure (each failure emits tls.renewal_failed, which the webhooks turn into an alert).
import type { AppContext } from '../../../core/context.js';
import type { Logger } from '../../../core/log.js';
import type { AcmeService } from './acme.js';
import type { AcmeStateStore } from './acme-state.js';
import { renewalDue } from './certificate.js';
import type { TlsService } from './service.js';

const DAY_MS = 86_400_000;
/** The scheduler looks again at least this often (a timer cannot wait longer than ~24.8 days anyway). */
const RECHECK_MS = DAY_MS;

export class RenewalScheduler {
  private timer: { cancel(): void } | null = null;
  private stopped = false;
  private readonly log: Logger;

  constructor(private readonly app: AppContext, private readonly tls: TlsService, private readonly acme: AcmeService,
    private readonly state: AcmeStateStore) {
    this.log = app.log.child('acme');
  }

  start(): void { this.schedule(0); }

  stop(): void {
    this.stopped = true;
    this.timer?.cancel();
    this.timer = null;
  }

  private schedule(ms: number): void {
    if (this.stopped) return;
    this.timer?.cancel();
    this.timer = this.app.clock.setTimeout(() => {
      void this.check().catch((e: Error) => this.log.error(`renewal check failed: ${e.message}`));
    }, ms);
  }

  /** Renews when due and nothing else is running; then waits for the next due time or a day. */
  async check(): Promise<void> {
    const s = this.state.get();
    const installed = this.tls.installed();
    if (!s.settings || installed?.mode !== 'acme') { this.schedule(RECHECK_MS); return; }
    const now = this.app.clock.now();
    const due = Date.parse(s.next_renewal_at ?? renewalDue(installed.info));
    if (now < due) { this.schedule(Math.min(due - now, RECHECK_MS)); return; }
    if (this.acme.running()) { this.schedule(60 * 60_000); return; }
    this.log.info(`renewing the certificate for ${s.settings.domains.join(', ')} (${installed.info.days_left} days left)`);
    let failed = false;
    try {
      const job = await this.acme.start({ ...s.settings, self_check: false }, 'renewal');
      const done = await this.app.jobs.waitFor(job.id);
      failed = done.state !== 'completed';
    } catch (e) {
      // Refused before it started (dns-01 no longer configured, nsupdate removed): also a failed renewal.
      failed = true;
      const message = (e as Error).message;
      await this.state.attempted('renewal', this.app.clock.iso()).catch(() => undefined);
      await this.state.failed(message).catch(() => undefined);
      this.app.bus.emit('tls.renewal_failed',
        { error: message, domains: s.settings.domains, days_left: installed.info.days_left, attempt_at: this.app.clock.iso() });
    }
    if (failed) {
      await this.state.scheduled(new Date(this.app.clock.now() + DAY_MS).toISOString()).catch(() => undefined);
      this.schedule(DAY_MS);
    } else this.schedule(RECHECK_MS);
  }
}
