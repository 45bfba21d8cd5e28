// A held alert as the gate remembers it (monitor_alert_holds) and as events carry it. Apart from gate.ts
// so that the monitor registry (live.ts) can hold one without importing the gate.
import { iso } from '../../../core/clock.js';

/** What a rule found that holds an alert back. */
export interface Hold {
  /** The rule's name: `paused`, `dependency`, ... */
  rule: string;
  /** One line for a person: "switch is down". */
  reason: string;
  /** dependency: the parent holding it (the farthest one down, else the nearest failing one); maintenance: the window. */
  by?: { id: string; name: string };
  /** dependency: `suppressed` while the parent is down, `pending` while it fails below its threshold. */
  state?: 'pending' | 'suppressed';
  /** When the alert was first held (ISO 8601). */
  since: string;
}

export interface HoldRow {
  m: number; rule: string; reason: string; by_id: string | null; by_name: string | null; state: string | null; held_at: number;
}

export function holdOfRow(r: HoldRow): Hold {
  return {
    rule: r.rule, reason: r.reason, since: iso(r.held_at),
    ...(r.by_id ? { by: { id: r.by_id, name: r.by_name ?? '' } } : {}),
    ...(r.state === 'pending' || r.state === 'suppressed' ? { state: r.state } : {}),
  };
}

