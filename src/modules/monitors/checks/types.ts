// The contract between the monitor service and the check types. A check is a pure function of its
// monitor's target and settings: it reaches out to the target, never throws for a failed target, and
// reports what it saw. The service turns results into status transitions, incidents and history.

import type { z } from 'zod';
import type { CheckServices } from './services.js';

export type { CheckServices } from './services.js';

/**
 * One check's outcome. `up`: the target answered as expected. `degraded`: it answered as expected, but
 * its type's degrade() found it wanting (slower than `degraded_ms`; ping: partial loss above
 * `max_loss_pct`). `down`: the check failed.
 */
export interface CheckResult {
  status: 'up' | 'degraded' | 'down';
  /** Time to the answer (http: full response; tcp: connect (+ TLS); dns: query; ping: average RTT). */
  response_time_ms: number | null;
  /** One line a person reads: "HTTP 200 OK", "connection refused", "3/3 replies, 0% loss". */
  message: string;
  /** Type-specific facts: status code, answers, loss and RTTs, certificate {valid_to, days_left, ...}. */
  details: Record<string, unknown>;
  /**
   * Further numbers the check measured, by the names its type declares (CheckDefinition.measurements):
   * kept over time beside the response time, rolled up per hour and day, charted. A name the type does
   * not declare is dropped (measurements.ts).
   */
  measurements?: Record<string, number>;
  /**
   * Something the check noticed changed since its previous reading (path: the route), which the service records
   * in the monitor's event log (the kind is the event's) and offers to alerting through the alert gate (results.ts).
   */
  change?: CheckChange;
}

/** A change between two readings of one monitor: an event of the monitor's log and a `monitor.change` bus event. */
export interface CheckChange {
  kind: 'route_changed';
  /** One line a person reads: "Route to gw changed: 10.0.0.1 > 192.0.2.7 became 10.0.0.1 > ? > 192.0.2.7". */
  message: string;
  /** What changed (path: `from` and `to`, the hop addresses, null where nothing answered). */
  details: Record<string, unknown>;
}

/** A number a check type measures besides the response time (ping: loss; a TLS check: days left on the certificate). */
export interface MeasurementDecl {
  /** lower_snake_case, unique within the type: the key in CheckResult.measurements and in the API. */
  name: string;
  /** What the value is counted in, shown after it: '%', 'days', 'ms', 'hops', 'bit/s'. */
  unit: string;
  /** What a person reads: "Packet loss". */
  label: string;
  /**
   * The setting that holds the unit when the monitor chooses it (snmp: `unit`, "%" for a battery, "°C"); `unit`
   * is then what applies while that setting is empty. The monitor's figures and chart show the setting's value.
   */
  unitSetting?: string;
}

/** What run() reports: whether the target answered as expected. Degraded is degrade()'s to decide. */
export type RunReport = Omit<CheckResult, 'status'> & { status: 'up' | 'down' };

/** What every check gets besides its target and settings. */
export interface CheckContext {
  /** Seconds; the check must settle within it. */
  timeout: number;
  /** Aborted when the monitor is deleted or the service stops. */
  signal?: AbortSignal;
  /** What other modules lend the check types (checks/services.ts); absent where nothing is provided. */
  services?: CheckServices;
  /**
   * The monitor's memory between its own checks, for a type that compares with its last reading (snmp:
   * "changed"). In memory only: empty after a restart and after the monitor's target or settings change.
   */
  memory?: CheckMemory;
}

/** A value a check left for the monitor's next check (CheckContext.memory). */
export interface CheckMemory {
  /** What the previous check kept; undefined when there is none. */
  previous: unknown;
  keep(value: unknown): void;
}

/** The monitor's fields that degrade() decides from (SPEC keeps them on the monitor, not in settings). */
export interface MonitorThresholds {
  /** A successful check slower than this (ms) is degraded; null: never for its speed. */
  degraded_ms: number | null;
  /** ping: partial loss above this percentage is degraded, at or below it up; null: any loss is degraded. */
  max_loss_pct: number | null;
}

/** The thresholds only some check types read (CheckDefinition.degradeReads); degraded_ms applies to all. */
export type TypeThreshold = Exclude<keyof MonitorThresholds, 'degraded_ms'>;

/**
 * Whether a result that run() reported `up` is degraded: the result as it is, or with status `degraded`
 * and a message that says why (the message, not the measured figure, names the threshold: messages stay
 * few and stable).
 */
export type DegradeHook = (result: RunReport & { status: 'up' }, monitor: MonitorThresholds) => CheckResult;

/**
 * Everything the service knows of a check type comes from its definition (checks/<type>.ts, `check`),
 * and everything the web UI knows of it from GET /api/monitors/check-types, which lists these.
 */
export interface CheckDefinition<S = any> {
  /** Name for people: the type picker, the list's badge, the detail page ("HTTP(S)"). */
  label: string;
  /** The type picker's icon: a name in the UI's icon set (ui/components/icons.js). */
  icon: string;
  /** A few words under the label in the type picker ("Web page or API"). */
  hint: string;
  /** The form's target field: its title, an example as placeholder, and what it takes. */
  target: { title: string; placeholder: string; description: string };
  /**
   * zod schema of the type's settings: every field optional with a default, unknown fields rejected.
   * Each field has a `.meta({ title })` (and a description where the title needs one, and the
   * presentation keywords of core/form-schema.ts where it helps): the monitor form and the detail page
   * render from it.
   */
  settings: z.ZodType<S>;
  /** null when the target is fine for this type, else a message for a person. */
  validateTarget(target: string): string | null;
  /**
   * Target and parsed settings together, when one constrains the other (dns: an IP address needs PTR). A
   * string is a problem with the target; `{path, message}` one with a setting (`path` within settings: "value").
   */
  validateWithSettings?(target: string, settings: S): string | { path: string; message: string } | null;
  /**
   * What the settings refer to outside the monitor, checked on create and on an update that changes the
   * target, type or settings (snmp: a stored credential, and that the target lies within its scope). Throws the
   * HttpError to answer with (400 naming `settings.<field>`, 403); run() checks again, as what it refers to changes.
   */
  checkReferences?(target: string, settings: S, services: CheckServices): Promise<void>;
  /** Settings already parsed by `settings`. Never throws for a failing target. Up or down, never degraded. */
  run(target: string, settings: S, ctx: CheckContext): Promise<RunReport>;
  /**
   * Decides degraded for the type's `up` results (checks/index.ts applies it, in one place). Default:
   * slower than the monitor's degraded_ms (degradeWhenSlow, checks/degrade.ts).
   */
  degrade?: DegradeHook;
  /** The type-specific thresholds its degrade() reads (ping: max_loss_pct); monitors of other types refuse them. */
  degradeReads?: readonly TypeThreshold[];
  /**
   * The smallest monitor timeout (seconds) with which a check can finish at all (ping: count packets one
   * per_packet_timeout_ms apart); a shorter one is refused rather than recorded as a timeout every run.
   * Default 1.
   */
  minimumTimeout?(settings: S): number;
  /** What makes up minimumTimeout, for the error that refuses a shorter timeout. */
  minimumTimeoutReason?: string;
  /** Dotted paths of settings that are secrets (stored sealed, shown as {set: true}). */
  secretPaths?: readonly string[];
  /** True when the settings' `headers` may hold credentials (names as isSecretHeader says). */
  secretHeaders?: boolean;
  /**
   * Where the check's secrets go, from a valid target (http: the URL's origin, so a new path keeps them).
   * An update that changes it drops the stored secrets it does not send again. Default: the target.
   */
  destination?(target: string): string | null;
  /**
   * Keep every result's details, not only those of failures, status changes and manual checks (path: its
   * hops, which the detail page draws over time). Details stay within their size bound (state.ts).
   */
  keepsDetails?: boolean;
  /** Checks share one process per batch (ping: fping): their slots sit on a grid so that many fall due together. */
  batched?: boolean;
  /** The numbers its results may carry besides the response time (CheckResult.measurements). */
  measurements?: readonly MeasurementDecl[];
  /**
   * The host the check watches, an address or a name, from a valid target and settings (dns: its
   * resolver, if one is set); null when it watches none. Matches monitors to discovered devices.
   */
  host(target: string, settings: S): string | null;
}
