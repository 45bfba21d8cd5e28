// The alert gate for alerts other modules raise (interface polling, discovery): they belong to no monitor,
// so the monitors' rules (a paused monitor, a parent that is down) do not apply; a maintenance window that
// applies to every monitor holds them too. A held problem is remembered by its subject: its recovery while
// it is held is held with it (nobody hears "up" without its "down"), and one still open when the window
// closes is sent then, marked released. Kept in memory: a restart forgets what was held (as a window's
// end after it does not release it).
import type { MonitorMaintenance } from '../monitors/contracts.js';
import { alertType } from './alert-types.js';
import type { Alert } from './alert.js';

export type RaisedDecision =
  | { send: true }
  | { send: false; window: NonNullable<MonitorMaintenance>; reason: string };

export class RaisedGate {
  private readonly held = new Map<string, { alert: Alert; window: NonNullable<MonitorMaintenance> }>();

  /** `windowAt`: the open window applying to every monitor at a time, or null. */
  constructor(private readonly windowAt: (at: number) => MonitorMaintenance) {}

  decide(alert: Alert, now: number): RaisedDecision {
    const def = alertType(alert.type);
    const window = this.windowAt(now);
    const before = this.held.get(alert.subject);
    if (def?.recovery && before) {
      // Its problem was never told: neither is this.
      this.held.delete(alert.subject);
      return { send: false, window: window ?? before.window, reason: `its problem was held by maintenance window "${before.window.name}"` };
    }
    if (!window) {
      this.held.delete(alert.subject);
      return { send: true };
    }
    // A recovery of a problem told before the window opened is told: whoever heard "down" hears "up".
    if (def?.recovery) return { send: true };
    if (def?.problem) this.held.set(alert.subject, { alert, window });
    return { send: false, window, reason: `maintenance window "${window.name}" until ${window.until}` };
  }

  /** The held problems due now that no window applies any more (forgotten here: the caller sends them). */
  due(now: number): { alert: Alert; window: NonNullable<MonitorMaintenance> }[] {
    if (!this.held.size || this.windowAt(now)) return [];
    const out = [...this.held.values()];
    this.held.clear();
    return out;
  }
}
