// Turns bus events into alerts: which monitor events are alerts, what a parent's alerts say of its
// dependents, certificate-expiry thresholds, and raise() for other modules. Whether an event alerts at
// all is not decided here: the alert gate decided it where the event was made (`ev.alert`), and a held
// event is only logged as held. Events are handled one at a time, in the order they were emitted, so a
// monitor's down, its failed checks and its recovery never race.
import type { AppContext } from '../../core/context.js';
import type { Logger } from '../../core/log.js';
import type { Tx } from '../../core/store/types.js';
import type { DependencyNode, Hold, MonitorBusEvent, MonitorCertificateEvent, MonitorChangeEvent } from '../monitors/contracts.js';
import {
  certificateAlert, makeAlert, monitorDegradedAlert, monitorDownAlert, monitorReminderAlert, monitorUpAlert, routeChangedAlert,
  testFailureAlert,
  type Alert, type AlertInput, type SentOutcome,
} from './alert.js';
import { downSummaryText, summarise, upSummaryText } from './dependencies.js';
import type { Dispatcher } from './dispatcher.js';
import type { Outbox } from './outbox.js';
import { RaisedGate } from './raised-gate.js';

/** Days before expiry at which certificate_expiring is sent (each once per certificate). */
export const CERT_THRESHOLDS = [14, 7, 1] as const;

/** A message that ends a sentence, so another can follow. */
const sentence = (s: string) => (/[.!?…)]$/.test(s) ? s : `${s}.`);

/** What the alerter needs from the monitors module. */
export interface MonitorGraph {
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
    /** The gate of the alerts other modules raise: a maintenance window for every monitor holds them (raised-gate.ts). */
    private readonly gate: RaisedGate = new RaisedGate(() => null),
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
    bus.on('monitor.change', (ev) => this.serial(() => this.onChange(ev)));
    bus.on('monitor.deleted', ({ id }) => this.serial(() => this.outbox.forgetMonitor(id)));
    bus.on('maintenance.closed', () => this.serial(() => this.releaseRaised()));
  }

  /**
   * Raises an alert of a registered type now (for other modules; no dependency rules apply). A maintenance window
   * for every monitor holds it (raised-gate.ts): logged as held, and a held problem is sent when the window closes.
   */
  raise(input: AlertInput): Promise<Alert> {
    const alert = makeAlert(input);
    return this.serial(async () => {
      const d = this.gate.decide(alert, this.app.clock.now());
      if (!d.send) {
        alert.details.held_by = { rule: 'maintenance', reason: d.reason, id: d.window.id, name: d.window.name };
        await this.outbox.logHeld(alert, d.reason);
        this.log.info(`alert ${alert.type} held back: ${d.reason}`, { alert_id: alert.id, subject: alert.subject, rule: 'maintenance' });
        return alert;
      }
      await this.send(alert, 'routed');
      return alert;
    });
  }

  /** Problems other modules raised during a window that has closed, still not recovered: told now. */
  private async releaseRaised(): Promise<void> {
    for (const { alert, window } of this.gate.due(this.app.clock.now())) {
      delete alert.details.held_by;
      alert.details.released = { rule: 'maintenance', id: window.id, name: window.name };
      await this.send(alert, 'released');
    }
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

  /** Logs an alert the gate held back (no webhook sees it); true when it did. */
  private async held(alert: Alert, ev: MonitorBusEvent | MonitorCertificateEvent | MonitorChangeEvent): Promise<boolean> {
    if (ev.alert.send) return false;
    const h = ev.alert.held_by;
    alert.details.held_by = { rule: h.rule, reason: h.reason, ...(h.by ? { id: h.by.id, name: h.by.name } : {}),
      ...(h.state ? { state: h.state } : {}) };
    await this.outbox.logHeld(alert, h.reason);
    this.log.info(`alert ${alert.type} held back: ${h.reason}`, { alert_id: alert.id, subject: alert.subject, rule: h.rule });
    return true;
  }

  private async onDown(ev: MonitorBusEvent): Promise<void> {
    const id = ev.monitor.id;
    const alert = monitorDownAlert(ev);
    if (await this.held(alert, ev)) return;
    const descendants = this.graph()?.descendants(id) ?? [];
    if (descendants.length) {
      const s = summarise(descendants);
      alert.details.dependents = s;
      alert.message = sentence(alert.message) + downSummaryText(s);
    }
    await this.send(alert, 'routed');
  }

  private async onUp(ev: MonitorBusEvent): Promise<void> {
    if (ev.previous_status !== 'down' && ev.previous_status !== 'degraded') return; // a new or resumed monitor: nothing to tell
    const id = ev.monitor.id;
    const alert = monitorUpAlert(ev);
    // The recovery of a problem the gate held: nobody heard the problem, so nobody hears this.
    if (await this.held(alert, ev)) return;
    const descendants = ev.previous_status === 'down' ? this.graph()?.descendants(id) ?? [] : [];
    if (descendants.length) {
      const heldBack = descendants.filter((d) => d.held).length;
      alert.details.dependents = summarise(descendants);
      alert.details.held_back = heldBack;
      const tail = upSummaryText(heldBack, descendants.filter((d) => d.status === 'down'));
      if (tail) alert.message = sentence(alert.message) + tail;
    }
    // Whether a webhook gets it depends on whether it got the problem (see cooldown.ts).
    await this.send(alert, 'routed');
  }

  private async onDegraded(ev: MonitorBusEvent): Promise<void> {
    if (ev.result.status !== 'degraded') return; // a failed check below the threshold: test_failure says it
    if (ev.previous_status === 'down') return this.onUp(ev); // it answers again (slowly): the outage is over
    const alert = monitorDegradedAlert(ev);
    if (await this.held(alert, ev)) return;
    await this.send(alert, 'routed');
  }

  private async onCheckFailed(ev: MonitorBusEvent): Promise<void> {
    if (ev.status !== 'down') {
      const alert = testFailureAlert(ev);
      if (await this.held(alert, ev)) return;
      await this.send(alert, 'routed');
      return;
    }
    // Down already (the check that made it down: monitor.down speaks for it), unless the gate released
    // a down it held: then it is told now. A check of a monitor that stays down, which nothing holds,
    // is when reminders fall due (webhooks' reminder_minutes): so they follow the stored state across a
    // restart, and stop with the outage, a pause, a maintenance window or a down parent.
    if (!ev.alert.send) return;
    if (ev.alert.released) {
      await this.send(releasedDownAlert(ev, ev.alert.released), 'released');
      return;
    }
    if (ev.previous_status !== 'down' || !ev.incident) return;
    const reminder = monitorReminderAlert(ev);
    const decisions = await this.outbox.remind(reminder, Date.parse(ev.incident.opened_at));
    if (!decisions.length) return;
    this.dispatcher.kick();
    this.log.info(`alert reminder: ${reminder.title}`, { alert_id: reminder.id, subject: reminder.subject,
      webhooks: decisions.map((d) => `${d.webhook_name}: ${d.decision}`) });
  }

  /** A change a check noticed (route_changed): sent unless the gate held it (then logged as held, as certificates are). */
  private async onChange(ev: MonitorChangeEvent): Promise<void> {
    const alert = routeChangedAlert(ev);
    if (await this.held(alert, ev)) return;
    await this.send(alert, 'routed');
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
    const alert = certificateAlert(ev, crossed);
    if (await this.held(alert, ev)) return; // not recorded: it is told once nothing holds it
    await this.send(alert, 'routed', (tx) => {
      tx.run(`INSERT INTO webhook_cert_alerts (monitor_id, valid_to, threshold) VALUES (?, ?, ?)
              ON CONFLICT (monitor_id) DO UPDATE SET valid_to = excluded.valid_to, threshold = excluded.threshold`, [id, validTo, crossed]);
    });
  }
}

/** The down alert of a monitor the gate held back and released: still down now that nothing holds it. */
function releasedDownAlert(ev: MonitorBusEvent, was: Hold): Alert {
  const alert = monitorDownAlert(ev);
  alert.details.released = { held_since: was.since, held_by: was.by ? { id: was.by.id, name: was.by.name, state: was.state ?? null } : null,
    rule: was.rule, reason: was.reason };
  alert.message = `${sentence(alert.message)} Its alert was held back from ${was.since} (${was.reason}); ` +
    'it is still down now that nothing holds it.';
  return alert;
}
