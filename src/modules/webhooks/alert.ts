// An alert: what the service tells webhooks, built from a bus event. Providers turn it into their
// request format; the generic provider sends it as it is (docs/webhooks.md, "Payload").
import { randomUUID } from 'node:crypto';
import type { MonitorBusEvent, MonitorCertificateEvent, MonitorChangeEvent } from '../monitors/contracts.js';
import { alertType, type Severity } from './alert-types.js';

export interface AlertMonitor {
  id: string;
  name: string;
  target: string;
  check_type: string;
  tags: string[];
}

export interface Alert {
  id: string;
  type: string;
  severity: Severity;
  /** A recovery: incident tools resolve what the subject's problem alerts opened. */
  resolved: boolean;
  title: string;
  message: string;
  occurred_at: string;
  /**
   * What the alert is about, stable across its alerts: `monitor/<id>`, `monitor/<id>/certificate`.
   * Cooldown is kept per subject, and incident tools use it as their de-duplication key.
   */
  subject: string;
  monitor: AlertMonitor | null;
  incident?: Record<string, unknown> | null;
  details: Record<string, unknown>;
}

/** What a module raising an alert provides; the rest (id, defaults) is filled in. */
export interface AlertInput {
  type: string;
  subject: string;
  title: string;
  message: string;
  severity?: Severity;
  occurred_at: string;
  monitor?: AlertMonitor | null;
  incident?: Record<string, unknown> | null;
  details?: Record<string, unknown>;
}

/**
 * What became of an alert (the alert log's `outcome`): routed, offered to the webhooks; held, held back
 * by the alert gate (a parent monitor that is down, a maintenance window, a pause); released, sent after
 * such a hold; reminder, a monitor still down told again to the webhooks that want reminders.
 */
export const ALERT_OUTCOMES = ['routed', 'held', 'released', 'reminder'] as const;
export type AlertOutcome = (typeof ALERT_OUTCOMES)[number];
/** The outcomes of an alert that goes to the webhooks now. */
export type SentOutcome = Exclude<AlertOutcome, 'held'>;

export function makeAlert(input: AlertInput): Alert {
  const def = alertType(input.type);
  if (!def) throw new Error(`unknown alert type "${input.type}": register it with registerAlertType first`);
  const alert: Alert = {
    id: randomUUID(),
    type: input.type,
    severity: input.severity ?? def.severity,
    resolved: !!def.recovery,
    title: input.title,
    message: input.message,
    occurred_at: input.occurred_at,
    subject: input.subject,
    monitor: input.monitor ?? null,
    details: input.details ?? {},
  };
  if (input.incident !== undefined) alert.incident = input.incident;
  return alert;
}

export const monitorSubject = (monitorId: string) => `monitor/${monitorId}`;

// ---- monitor alerts -------------------------------------------------------------------------------------

/** "3 min", "2 h 5 min", "1 d 4 h": how long an outage lasted, for a person. */
export function humanDuration(seconds: number): string {
  const s = Math.max(0, Math.round(seconds));
  if (s < 60) return `${s} s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m} min`;
  const h = Math.floor(m / 60);
  if (h < 24) return m % 60 ? `${h} h ${m % 60} min` : `${h} h`;
  const d = Math.floor(h / 24);
  return h % 24 ? `${d} d ${h % 24} h` : `${d} d`;
}

function resultDetails(ev: MonitorBusEvent): Record<string, unknown> {
  return {
    previous_status: ev.previous_status,
    status: ev.status,
    result: { at: ev.result.at, status: ev.result.status, response_time: ev.result.response_time, message: ev.result.message },
  };
}

/** monitor_down: the monitor reached its failure threshold. */
export function monitorDownAlert(ev: MonitorBusEvent): Alert {
  const m = ev.monitor;
  return makeAlert({
    type: 'monitor_down', subject: monitorSubject(m.id), occurred_at: ev.occurred_at, monitor: m, incident: ev.incident,
    title: `DOWN: ${m.name}`,
    message: `${m.name} (${m.target}) is down: ${ev.result.message}`,
    details: { ...resultDetails(ev), failures: ev.incident?.failures ?? null },
  });
}

/**
 * A reminder of a monitor still down (a webhook's reminder_minutes): a monitor_down alert that says how
 * long the outage has lasted, its incident as the down's, so incident tools see the same problem again.
 */
export function monitorReminderAlert(ev: MonitorBusEvent): Alert {
  const m = ev.monitor;
  const since = ev.incident?.opened_at ?? ev.occurred_at;
  const seconds = Math.max(0, (Date.parse(ev.occurred_at) - Date.parse(since)) / 1000);
  const alert = monitorDownAlert(ev);
  alert.title = `STILL DOWN for ${humanDuration(seconds)}: ${m.name}`;
  alert.message = `${m.name} (${m.target}) is still down, for ${humanDuration(seconds)} now: ${ev.result.message}`;
  alert.details.reminder = { down_since: since, down_seconds: Math.round(seconds) };
  return alert;
}

/** monitor_up: a recovery from down (the incident closed) or from degraded. */
export function monitorUpAlert(ev: MonitorBusEvent): Alert {
  const m = ev.monitor;
  const outage = ev.previous_status === 'down' && ev.incident ? ` after ${humanDuration(ev.incident.duration)} down` : '';
  return makeAlert({
    type: 'monitor_up', subject: monitorSubject(m.id), occurred_at: ev.occurred_at, monitor: m, incident: ev.incident,
    title: `UP: ${m.name}`,
    message: `${m.name} (${m.target}) is up again${outage}: ${ev.result.message}`,
    details: { ...resultDetails(ev), downtime_seconds: ev.previous_status === 'down' ? ev.incident?.duration ?? null : null },
  });
}

/** monitor_degraded: answered, but slow or lossy. */
export function monitorDegradedAlert(ev: MonitorBusEvent): Alert {
  const m = ev.monitor;
  return makeAlert({
    type: 'monitor_degraded', subject: monitorSubject(m.id), occurred_at: ev.occurred_at, monitor: m,
    title: `DEGRADED: ${m.name}`,
    message: `${m.name} (${m.target}) is degraded: ${ev.result.message}`,
    details: resultDetails(ev),
  });
}

/** test_failure: one failed check while the failure run is below the threshold. */
export function testFailureAlert(ev: MonitorBusEvent): Alert {
  const m = ev.monitor;
  const of = ` (${ev.fail_streak} of ${ev.failure_threshold} failed checks before it is down)`;
  return makeAlert({
    type: 'test_failure', subject: monitorSubject(m.id), occurred_at: ev.occurred_at, monitor: m,
    title: `CHECK FAILED: ${m.name}`,
    message: `A check of ${m.name} (${m.target}) failed${of}: ${ev.result.message}`,
    details: { ...resultDetails(ev), fail_streak: ev.fail_streak, failure_threshold: ev.failure_threshold },
  });
}

/** certificate_expiring at a threshold (14, 7 or 1 days). */
export function certificateAlert(ev: MonitorCertificateEvent, threshold: number): Alert {
  const m = ev.monitor;
  const days = ev.days_left;
  const when = days < 0 ? `expired on ${ev.valid_to.slice(0, 10)}`
    : days === 0 ? `expires within a day (${ev.valid_to})`
      : `expires in ${days} day${days === 1 ? '' : 's'} (${ev.valid_to.slice(0, 10)})`;
  const cn = typeof ev.cert.subject_cn === 'string' ? `, CN ${ev.cert.subject_cn}` : '';
  const issuer = typeof ev.cert.issuer === 'string' ? `, issued by ${ev.cert.issuer}` : '';
  return makeAlert({
    type: 'certificate_expiring', subject: `${monitorSubject(m.id)}/certificate`, occurred_at: ev.occurred_at, monitor: m,
    severity: threshold <= 1 ? 'critical' : 'warning',
    title: `CERTIFICATE: ${m.name} ${days < 0 ? 'expired' : `expires in ${Math.max(0, days)} d`}`,
    message: `The TLS certificate of ${m.name} (${m.target}${cn}${issuer}) ${when}.`,
    details: { valid_to: ev.valid_to, days_left: days, threshold_days: threshold, certificate: ev.cert },
  });
}

/** route_changed: a path monitor's hops differ from its previous check's (details: `from`, `to`). */
export function routeChangedAlert(ev: MonitorChangeEvent): Alert {
  const m = ev.monitor;
  return makeAlert({
    type: 'route_changed', subject: `${monitorSubject(m.id)}/route`, occurred_at: ev.occurred_at, monitor: m,
    title: `ROUTE CHANGED: ${m.name}`,
    message: `${m.name}: ${ev.message}`,
    details: { from: ev.details.from, to: ev.details.to },
  });
}

/** The payload POST /api/webhooks/:id/test sends: a real alert shape with type `test`. */
export function testAlert(webhook: { id: string; name: string }, at: string): Alert {
  return {
    id: randomUUID(),
    type: 'test',
    severity: 'info',
    resolved: false,
    title: 'TEST: netprobe webhook',
    message: `A test alert for the webhook "${webhook.name}". If you can read this, alerts will arrive here.`,
    occurred_at: at,
    subject: `webhook/${webhook.id}/test`,
    monitor: null,
    details: { test: true },
  };
}
