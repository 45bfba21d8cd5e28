// The contract between the monitor service and the four check types. A check is a pure function of its
// monitor's target and settings: it reaches out to the target, never throws for a failed target, and
// reports what it saw. The service turns results into status transitions, incidents and history.

export type CheckType = 'http' | 'ping' | 'tcp' | 'dns';
export const CHECK_TYPES: readonly CheckType[] = ['http', 'ping', 'tcp', 'dns'];

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
