// The contract between the monitor service and the check types. A check is a pure function of its
// monitor's target and settings: it reaches out to the target, never throws for a failed target, and
// reports what it saw. The service turns results into status transitions, incidents and history.

import type { z } from 'zod';

/**
 * One check's outcome. `up`: the target answered as expected. `degraded`: it answered as expected but
 * slower than `degraded_ms`, or (ping) with partial loss above `max_loss_pct`. `down`: the check failed.
 */
export interface CheckResult {
  status: 'up' | 'degraded' | 'down';
  /** Time to the answer (http: full response; tcp: connect (+ TLS); dns: query; ping: average RTT). */
  response_time_ms: number | null;
  /** One line a person reads: "HTTP 200 OK", "connection refused", "3/3 replies, 0% loss". */
  message: string;
  /** Type-specific facts: status code, answers, loss and RTTs, certificate {valid_to, days_left, ...}. */
  details: Record<string, unknown>;
}

/** What every check gets besides its target and settings. */
export interface CheckContext {
  /** Seconds; the check must settle within it. */
  timeout: number;
  /** A successful check slower than this is degraded. */
  degraded_ms?: number | null;
  /** ping: partial loss above this percentage is degraded, at or below it up (default: any loss is degraded). */
  max_loss_pct?: number | null;
  /** Aborted when the monitor is deleted or the service stops. */
  signal?: AbortSignal;
}

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
  /** Target and parsed settings together, when one constrains the other (dns: an IP address needs PTR). */
  validateWithSettings?(target: string, settings: S): string | null;
  /** Settings already parsed by `settings`. Never throws for a failing target. */
  run(target: string, settings: S, ctx: CheckContext): Promise<CheckResult>;
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
  /** Checks share one process per batch (ping: fping): their slots sit on a grid so that many fall due together. */
  batched?: boolean;
  /** The monitor's max_loss_pct applies (ping: partial loss up to it is still up). */
  lossThreshold?: boolean;
  /**
   * The host the check watches, an address or a name, from a valid target and settings (dns: its
   * resolver, if one is set); null when it watches none. Matches monitors to discovered devices.
   */
  host(target: string, settings: S): string | null;
}
