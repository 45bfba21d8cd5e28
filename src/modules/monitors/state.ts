// What a check result does to a monitor, as pure functions: the state machine (status, failure run,
// incidents) and the facts kept from a result (details within their size bound, certificate expiry).
import type { MonitorStatus } from './schemas.js';
import type { ResultStatus } from './storage/index.js';

const DAY = 86_400_000;
const MAX_DETAILS = 4096;

export interface MachineState { status: MonitorStatus; fail_streak: number }
export interface Transition {
  status: MonitorStatus;
  fail_streak: number;
  changed: boolean;
  /** The monitor just became down: open an incident. */
  openIncident: boolean;
  /** The monitor was down and a check succeeded: close the open incident. */
  closeIncident: boolean;
}

/**
 * A success is up or degraded (as the check says) and resets the failure run. A failure while the run of
 * consecutive failures is below the threshold is degraded; at the threshold it is down, and a down
 * monitor stays down until a check succeeds (even if the threshold is raised meanwhile).
 */
export function nextState(prev: MachineState, result: ResultStatus, threshold: number): Transition {
  if (result !== 'down') {
    return { status: result, fail_streak: 0, changed: prev.status !== result, openIncident: false, closeIncident: prev.status === 'down' };
  }
  const streak = prev.fail_streak + 1;
  const isDown = prev.status === 'down' || streak >= threshold;
  const status: MonitorStatus = isDown ? 'down' : 'degraded';
  return {
    status, fail_streak: streak, changed: prev.status !== status, openIncident: isDown && prev.status !== 'down', closeIncident: false,
  };
}

/** Details JSON within MAX_DETAILS: large values are dropped, keeping the small top-level facts. */
export function detailsJson(details: Record<string, unknown>): string | null {
  if (!details || !Object.keys(details).length) return null;
  let text: string;
  try { text = JSON.stringify(details); } catch { return null; }
  if (text.length <= MAX_DETAILS) return text;
  const small: Record<string, unknown> = { truncated: true };
  for (const [k, v] of Object.entries(details)) {
    const s = JSON.stringify(v);
    if (s !== undefined && s.length <= 512) small[k] = v;
  }
  text = JSON.stringify(small);
  return text.length <= MAX_DETAILS ? text : JSON.stringify({ truncated: true });
}

/** Expiry of the certificate a check saw (details.cert or details.certificate), epoch ms. */
export function certValidTo(details: Record<string, unknown>, now: number): number | null {
  const c = (details.cert ?? details.certificate) as Record<string, unknown> | null | undefined;
  if (!c || typeof c !== 'object') return null;
  if (typeof c.valid_to === 'string') { const t = Date.parse(c.valid_to); if (!Number.isNaN(t)) return t; }
  if (typeof c.days_left === 'number') return now + c.days_left * DAY;
  return null;
}

/** The certificate object a check recorded (details.cert or details.certificate). */
export function certFacts(details: Record<string, unknown>): Record<string, unknown> {
  const c = details.cert ?? details.certificate;
  return c && typeof c === 'object' ? { ...(c as Record<string, unknown>) } : {};
}
