// The alert gate: the one place that decides whether a monitor event should alert anybody. It runs where
// the fact is made (results.ts, inside the result's write) and its decision travels on the bus event as
// `alert`; every consumer (webhooks, the controller link, the event log) reads that field and decides
// nothing of its own. Rules (rules.ts) say what may hold an alert back: a paused monitor, a parent that
// is down, a maintenance window, and whatever comes next (one file and one line in rules.ts).
//
// A hold by a rule that `releases` is remembered (monitor_alert_holds): when the rule lets go while the
// monitor is still down, the next failed check carries `released`, so the down that nobody heard of is
// told then; a recovery of a problem that was held is held too, so nobody hears "up" without its "down".
import type { Tx } from '../../../core/store/types.js';
import { iso } from '../../../core/clock.js';
import type { DependencyNode } from '../dependencies.js';
import type { LiveMonitor } from '../live.js';
import type { MonitorStatus } from '../schemas.js';
import type { MonitorMaintenance } from '../maintenance/schemas.js';
import type { Hold } from './hold.js';

export type { Hold } from './hold.js';

/**
 * The gate's decision, carried on every monitor event. `send: false`: the event must alert nobody;
 * `held_by` says why. `released`: a problem alert held earlier (the hold it was under) is due now.
 */
export type AlertDecision =
  | { send: true; released?: Hold }
  | { send: false; held_by: Hold };

/**
 * Which events a rule looks at: problems (down, degraded, failed checks), a still-down monitor, recoveries,
 * certificates, and changes a check noticed (a path monitor's route).
 */
export type GateEvent = 'problem' | 'still_down' | 'recovery' | 'certificate' | 'change';

/** What a rule sees of the monitor. */
export interface GateSubject {
  id: string;
  name: string;
  status: MonitorStatus;
  tags: readonly string[];
  /** The monitor's ancestors in the dependency graph, nearest first (computed on first use). */
  ancestors(): readonly DependencyNode[];
  /** The maintenance window open for it at the event's time, or null (maintenance/windows.ts). */
  maintenance(): MonitorMaintenance;
}

export interface GateRule {
  name: string;
  /** The events it may hold. */
  events: readonly GateEvent[];
  /** Whether a hold is remembered and released when the rule lets go while the monitor is still down. */
  releases: boolean;
  /** A hold (without rule and since), or null when this rule lets the event through. Pure. */
  hold(m: GateSubject, at: number): Omit<Hold, 'rule' | 'since'> | null;
}

export const SEND: AlertDecision = Object.freeze({ send: true });

export class AlertGate {
  constructor(
    private readonly rules: readonly GateRule[],
    private readonly ancestors: (m: LiveMonitor) => DependencyNode[],
    private readonly maintenanceOf: (m: LiveMonitor, at: number) => MonitorMaintenance = () => null,
  ) {}

  /** The rules by name (the API lists them; tests check each against every consumer). */
  names(): string[] { return this.rules.map((r) => r.name); }

  /**
   * Decides for one event of monitor `m` at `at`, inside the write that records it: a remembered hold is
   * written, moved or dropped in the same transaction, and `m.hold` follows at commit.
   */
  decide(tx: Tx, m: LiveMonitor, event: GateEvent, at: number): AlertDecision {
    let anc: DependencyNode[] | undefined;
    const subject: GateSubject = {
      id: m.row.id, name: m.row.name, status: m.row.status, tags: m.tags,
      ancestors: () => (anc ??= this.ancestors(m)),
      maintenance: () => this.maintenanceOf(m, at),
    };
    const found = this.first(subject, event, at);
    const kept = m.hold;
    if (event === 'recovery') {
      // The recovery of a problem nobody was told of is not news either.
      if (kept) this.forget(tx, m);
      if (found) return { send: false, held_by: { ...found.hold, rule: found.rule.name, since: iso(at) } };
      return kept ? { send: false, held_by: kept } : SEND;
    }
    if (event === 'certificate' || event === 'change') {
      return found ? { send: false, held_by: { ...found.hold, rule: found.rule.name, since: iso(at) } } : SEND;
    }
    if (found) {
      const hold: Hold = { ...found.hold, rule: found.rule.name, since: kept?.since ?? iso(at) };
      // A down already told needs no release: only a hold of an untold problem is remembered.
      if (found.rule.releases && (event !== 'still_down' || kept)) this.remember(tx, m, hold, kept);
      return { send: false, held_by: hold };
    }
    if (!kept) return SEND;
    this.forget(tx, m);
    // Still down with nothing holding it any more: the down that was held goes out now. A new problem
    // (a down after a held failed check, say) speaks for itself.
    return event === 'still_down' ? { send: true, released: kept } : SEND;
  }

  private first(s: GateSubject, event: GateEvent, at: number): { rule: GateRule; hold: Omit<Hold, 'rule' | 'since'> } | null {
    for (const rule of this.rules) {
      if (!rule.events.includes(event)) continue;
      const hold = rule.hold(s, at);
      if (hold) return { rule, hold };
    }
    return null;
  }

  private remember(tx: Tx, m: LiveMonitor, hold: Hold, kept: Hold | null): void {
    if (kept && kept.rule === hold.rule && kept.reason === hold.reason && kept.state === hold.state && kept.by?.id === hold.by?.id) return;
    tx.run(`INSERT INTO monitor_alert_holds (m, rule, reason, by_id, by_name, state, held_at) VALUES (?, ?, ?, ?, ?, ?, ?)
            ON CONFLICT (m) DO UPDATE SET rule = excluded.rule, reason = excluded.reason, by_id = excluded.by_id,
              by_name = excluded.by_name, state = excluded.state`,
    [m.row.pk, hold.rule, hold.reason, hold.by?.id ?? null, hold.by?.name ?? null, hold.state ?? null, Date.parse(hold.since)]);
    tx.onCommit(() => { m.hold = hold; });
  }

  private forget(tx: Tx, m: LiveMonitor): void {
    tx.run('DELETE FROM monitor_alert_holds WHERE m = ?', [m.row.pk]);
    tx.onCommit(() => { m.hold = null; });
  }
}
