// What other modules may use of the monitors module: the bus events it emits (declared here, on the
// core's EventMap), the dependency graph the alerter follows, and the monitor record links show. Import
// these from here (or the service lookup from index.ts), never from inner files.
import type { AlertDecision } from './alert-gate/gate.js';
import type { CheckType } from './checks/index.js';
import type { MonitorMaintenance } from './maintenance/schemas.js';
import type { DegradedReason, IncidentOut, MonitorStatus, ResultOut } from './schemas.js';

export type { DependencyNode } from './dependencies.js';

// ---- parents proposed from discovery's topology (MonitorService.parentsSetBy, applyProposedParents) ----

/** Who set a monitor's parents: a person (the API's parents field), or a proposal (which one: "session:<id>"). */
export interface ParentsSetBy { parents: string[]; set_by: 'person' | 'proposal'; proposed_from: string | null }
/** Parents proposed for a monitor, and why (the monitor's event log says it). */
export interface ProposedParents { id: string; parents: string[]; why: string }
export interface ProposedParentsOutcome { id: string; outcome: 'applied' | 'unchanged' | 'kept' | 'refused'; message?: string }
export type { AlertDecision, Hold } from './alert-gate/gate.js';
export type { MonitorMaintenance } from './maintenance/schemas.js';
export type { MonitorDetail } from './schemas.js';
/** A monitor's statuses and why a degraded one is degraded (slow, loss, failing), for other modules' response schemas. */
export { DEGRADED_REASONS, MONITOR_STATUSES } from './schemas.js';

/**
 * A monitor as another module's page lists it (an inventory endpoint's monitors): what it checks, the address
 * it watches (CheckDefinition.host, canonical; null for a name) and how it is now, with why a degraded one is
 * degraded (`failing`: failed checks below failure_threshold, so a page can say "Failing 1 of 3" and not
 * "Degraded"). No history, no settings.
 */
export interface MonitorGlance {
  id: string; name: string; target: string; check_type: CheckType; status: MonitorStatus;
  degraded_reason: DegradedReason | null; failing_streak: number; failure_threshold: number;
  address: string | null; last_check: string | null; response_time: number | null;
  /** The maintenance window holding its alerts now (the pages show "Maintenance"), or null. */
  maintenance: MonitorMaintenance;
}

// ---- bus events --------------------------------------------------------------------------------

export interface MonitorBusEvent {
  monitor: { id: string; name: string; target: string; check_type: CheckType; tags: string[] };
  previous_status: MonitorStatus;
  status: MonitorStatus;
  /** Consecutive failed checks after this result (0 after a success). */
  fail_streak: number;
  failure_threshold: number;
  result: ResultOut;
  incident: IncidentOut | null;
  occurred_at: string;
  /**
   * Whether this event alerts anybody, decided once by the alert gate (alert-gate/gate.ts). A consumer
   * that tells people or machines (webhooks, the controller, e-mail) sends nothing when `send` is false.
   */
  alert: AlertDecision;
}

declare module '../../core/events.js' {
  interface EventMap {
    /** The monitor became down (failure_threshold consecutive failures); an incident opened. */
    'monitor.down': MonitorBusEvent;
    /** The monitor became up (from unknown, degraded or down; from down, `incident` is the one closed). */
    'monitor.up': MonitorBusEvent;
    /** The monitor became degraded (slow, partial loss, or failing below the threshold). */
    'monitor.degraded': MonitorBusEvent;
    /** A check failed (every failed check, whether or not the status changed). */
    'monitor.check_failed': MonitorBusEvent;
    /** The monitor was deleted through the API (other modules drop what refers to it, e.g. inventory links). */
    'monitor.deleted': { id: string; name: string };
    /**
     * A TLS check saw a certificate: once a day per monitor (when the certificate facts are recorded) and
     * whenever the certificate's expiry differs from the one recorded before (a renewed or swapped certificate).
     */
    'monitor.certificate': MonitorCertificateEvent;
    /** A check noticed a change since its previous reading (a path monitor's route); also in the monitor's event log. */
    'monitor.change': MonitorChangeEvent;
    /**
     * Maintenance windows stopped being open (ended on schedule, early, changed or deleted): alerts they held
     * may be due (the webhooks module releases what other modules raised; monitors release their own).
     */
    'maintenance.closed': { window_ids: string[] };
  }
}

export interface MonitorCertificateEvent {
  monitor: MonitorBusEvent['monitor'];
  /** Expiry (notAfter) of the certificate the check saw. */
  valid_to: string;
  /** Whole days left, rounded down (0: expires within a day; negative: expired). */
  days_left: number;
  /** What the check recorded about the certificate (subject_cn, issuer, fingerprint256, ...). */
  cert: Record<string, unknown>;
  occurred_at: string;
  /** The alert gate's decision (a paused monitor's certificate alerts nobody). */
  alert: AlertDecision;
}

export interface MonitorChangeEvent {
  monitor: MonitorBusEvent['monitor'];
  /** What changed, as the event log's kind: `route_changed`. */
  kind: 'route_changed';
  message: string;
  /** route_changed: `from` and `to`, the hop addresses of the previous and this check (null: no answer at that hop). */
  details: Record<string, unknown>;
  occurred_at: string;
  /** The alert gate's decision (a paused monitor's or a maintenance window's changes alert nobody). */
  alert: AlertDecision;
}
