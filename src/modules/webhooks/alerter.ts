// Turns bus events into alerts: which monitor events are alerts, dependency holds and their release,
// certificate-expiry thresholds, and raise() for other modules. Events are handled one at a time, in
// the order they were emitted, so a monitor's down, its failed checks and its recovery never race.
import type { AppContext } from '../../core/context.js';
import type { Logger } from '../../core/log.js';
import type { Tx } from '../../core/store/types.js';
import type { DependencyNode, MonitorBusEvent, MonitorCertificateEvent } from '../monitors/contracts.js';
import {
  certificateAlert, makeAlert, monitorDegradedAlert, monitorDownAlert, monitorUpAlert, testFailureAlert,
  type Alert, type AlertInput, type SentOutcome,
} from './alert.js';
import { downSummaryText, gate, summarise, upSummaryText } from './dependencies.js';
import type { Dispatcher } from './dispatcher.js';
import type { Outbox } from './outbox.js';

/** Days before expiry at which certificate_expiring is sent (each once per certificate). */
export const CERT_THRESHOLDS = [14, 7, 1] as const;

/** A message that ends a sentence, so another can follow. */
const sentence = (s: string) => (/[.!?…)]$/.test(s) ? s : `${s}.`);

/** What the alerter needs from the monitors module. */
export interface MonitorGraph {
  ancestors(id: string): DependencyNode[];
  descendants(id: string): DependencyNode[];
}

export class Alerter {
  private readonly log: Logger;
  private chain: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly app: AppContext,
    private readonly outbox: Outbox,
    private readonly dispatcher: Dispatcher,
    private readonly graph: () => MonitorGraph | undefined,
  ) {
    this.log = app.log.child('alerts');
  }

  subscribe(): void {
    const bus = this.app.bus;
    bus.on('monitor.down', (ev) => this.serial(() => this.onDown(ev)));
    bus.on('monitor.up', (ev) => this.serial(() => this.onUp(ev)));
    bus.on('monitor.degraded', (ev) => this.serial(() => this.onDegraded(ev)));
    bus.on('monitor.check_failed', (ev) => this.serial(() => this.onCheckFailed(ev)));
    bus.on('monitor.certificate', (ev) => this.serial(() => this.onCertificate(ev)));
    bus.on('monitor.deleted', ({ id }) => this.serial(() => this.outbox.forgetMonitor(id)));
  }

  /** Raises an alert of a registered type now (for other modules; no dependency rules apply). */
  raise(input: AlertInput): Promise<Alert> {
    const alert = makeAlert(input);
    return this.serial(async () => { await this.send(alert, 'routed'); return alert; });
  }

  /** Resolves when every event received so far has been handled. */
  async idle(): Promise<void> {
    for (let last; last !== this.chain;) { last = this.chain; await last; }
  }

  private serial<T>(fn: () => Promise<T>): Promise<T> {
    const next = this.chain.then(fn);
    this.chain = next.catch((e: unknown) => { this.log.error('alert handling failed', { err: e as Error }); });
    return next;
  }

  private async send(alert: Alert, outcome: SentOutcome, also?: (tx: Tx) => void): Promise<void> {
    const decisions = await this.outbox.route(alert, outcome, also);
    this.dispatcher.kick();
    const queued = decisions.filter((d) => d.decision === 'queued').length;
    this.log.info(`alert ${alert.type}: ${alert.title}`, {
      alert_id: alert.id, subject: alert.subject, outcome, queued,
      ...(decisions.length > queued
        ? { not_sent: decisions.filter((d) => d.decision !== 'queued').map((d) => `${d.webhook_name}: ${d.decision}`) } : {}),
    });
  }

  /** Holds a monitor's problem alert back when an ancestor is down or failing; true when it did. */
  private async held(alert: Alert, monitorId: string): Promise<boolean> {
    const g = gate(this.graph()?.ancestors(monitorId) ?? []);
    if (!g.hold) return false;
    alert.details.held_by = { id: g.parent.id, name: g.parent.name, state: g.state };
    await this.outbox.hold(alert, monitorId, g.parent.id, g.state);
    this.log.info(`alert ${alert.type} held back: ${g.parent.name} is ${g.state === 'suppressed' ? 'down' : 'failing'}`,
      { alert_id: alert.id, subject: alert.subject, parent: g.parent.id });
    return true;
  }

  private async onDown(ev: MonitorBusEvent): Promise<void> {
    const id = ev.monitor.id;
    const alert = monitorDownAlert(ev);
    if (await this.held(alert, id)) return;
    const descendants = this.graph()?.descendants(id) ?? [];
    let pending: string[] = [];
    if (descendants.length) {
      const s = summarise(descendants);
      alert.details.dependents = s;
      alert.message = sentence(alert.message) + downSummaryText(s);
      pending = this.outbox.holdsOf(descendants.map((d) => d.id)).filter((h) => h.state === 'pending').map((h) => h.monitor_id);
    }
    await this.send(alert, 'routed', (tx) => {
      this.outbox.dropHold(tx, id);
      this.outbox.updateHolds(tx, pending, id, 'suppressed');
    });
  }

  private async onUp(ev: MonitorBusEvent): Promise<void> {
    const id = ev.monitor.id;
    if (ev.previous_status !== 'down' && ev.previous_status !== 'degraded') {
      // A new or resumed monitor: nothing to tell, but a hold from before a pause is over.
      if (this.outbox.holdOf(id)) await this.app.store.write((tx) => this.outbox.dropHold(tx, id), 'sync');
      return;
    }
    const alert = monitorUpAlert(ev);
    const descendants = ev.previous_status === 'down' ? this.graph()?.descendants(id) ?? [] : [];
    if (descendants.length) {
      const heldBack = this.outbox.holdsOf(descendants.map((d) => d.id)).length;
      alert.details.dependents = summarise(descendants);
      alert.details.held_back = heldBack;
      const tail = upSummaryText(heldBack, descendants.filter((d) => d.status === 'down'));
      if (tail) alert.message = sentence(alert.message) + tail;
    }
    // Whether a webhook gets it depends on whether it got the problem (see cooldown.ts).
    await this.send(alert, 'routed', (tx) => this.outbox.dropHold(tx, id));
  }

  private async onDegraded(ev: MonitorBusEvent): Promise<void> {
    if (ev.result.status !== 'degraded') return; // a failed check below the threshold: test_failure says it
    if (ev.previous_status === 'down') return this.onUp(ev); // it answers again (slowly): the outage is over
    const alert = monitorDegradedAlert(ev);
    if (await this.held(alert, ev.monitor.id)) return;
    await this.send(alert, 'routed', (tx) => this.outbox.dropHold(tx, ev.monitor.id));
  }

  private async onCheckFailed(ev: MonitorBusEvent): Promise<void> {
    const id = ev.monitor.id;
    if (ev.status !== 'down') {
      const alert = testFailureAlert(ev);
      if (await this.held(alert, id)) return;
      await this.send(alert, 'routed', (tx) => this.outbox.dropHold(tx, id));
      return;
    }
    if (ev.previous_status !== 'down') return; // the check that made it down: monitor.down speaks for it
    // Still down. If its alert was held back and nothing above it is down or failing any more, the
    // problem is its own: send it now.
    const hold = this.outbox.holdOf(id);
    if (!hold) return;
    const g = gate(this.graph()?.ancestors(id) ?? []);
    if (g.hold) {
      if (g.state !== hold.state || g.parent.id !== hold.parent_id) {
        await this.app.store.write((tx) => this.outbox.updateHolds(tx, [id], g.parent.id, g.state), 'sync');
      }
      return;
    }
    const before = JSON.parse(hold.alert) as Alert;
    const by = before.details.held_by as { name?: string } | undefined;
    const alert = monitorDownAlert(ev);
    alert.details.released = { held_since: this.app.clock.iso(hold.held_at), held_by: before.details.held_by ?? null,
      held_alert_id: before.id };
    alert.message = `${sentence(alert.message)} Its alert was held back from ${this.app.clock.iso(hold.held_at)} ` +
      `while ${by?.name ?? 'a parent monitor'} was down or failing; it is still down now that the parent is not.`;
    await this.send(alert, 'released', (tx) => this.outbox.dropHold(tx, id));
  }

  private async onCertificate(ev: MonitorCertificateEvent): Promise<void> {
    const id = ev.monitor.id;
    const validTo = Date.parse(ev.valid_to);
    const state = this.app.store.get<{ valid_to: number; threshold: number }>(
      'SELECT valid_to, threshold FROM webhook_cert_alerts WHERE monitor_id = ?', [id]);
    const sameCert = state?.valid_to === validTo;
    // The smallest threshold the certificate is at or below (5 days left: 7; several crossed at once: one alert).
    const crossed = CERT_THRESHOLDS.filter((t) => ev.days_left <= t).pop();
    if (crossed === undefined) {
      if (state && !sameCert)
        await this.app.store.write((tx) => tx.run('DELETE FROM webhook_cert_alerts WHERE monitor_id = ?', [id]), 'sync');
      return;
    }
    if (sameCert && state.threshold <= crossed) return;
    await this.send(certificateAlert(ev, crossed), 'routed', (tx) => {
      tx.run(`INSERT INTO webhook_cert_alerts (monitor_id, valid_to, threshold) VALUES (?, ?, ?)
              ON CONFLICT (monitor_id) DO UPDATE SET valid_to = excluded.valid_to, threshold = excluded.threshold`, [id, validTo, crossed]);
    });
  }
}
