// Alert dependencies: whether a monitor's problem alert goes out now or is held back because a monitor
// it depends on (a parent, or a parent's parent) is down or failing. Pure; the alerter acts on it.
//
//   an ancestor is down                  -> suppressed: the ancestor's own alert speaks for it
//   an ancestor is failing (a failed
//   check, not yet at its threshold)     -> pending: wait for the ancestor to go down or recover
//   otherwise                            -> send
//
// The farthest ancestor that is down is named (the root cause: a dead gateway, not the switch behind it).
import type { DependencyNode } from '../monitors/contracts.js';

export type Gate =
  | { hold: false }
  | { hold: true; state: 'pending' | 'suppressed'; parent: DependencyNode };

/** `ancestors` nearest first, as MonitorService.ancestors returns them. */
export function gate(ancestors: readonly DependencyNode[]): Gate {
  const down = ancestors.filter((a) => a.status === 'down');
  if (down.length) return { hold: true, state: 'suppressed', parent: down[down.length - 1]! };
  const failing = ancestors.find((a) => a.status !== 'paused' && a.fail_streak > 0);
  if (failing) return { hold: true, state: 'pending', parent: failing };
  return { hold: false };
}

export interface DependentsSummary {
  /** Monitors depending on this one, directly or not. */
  total: number;
  /** Of those, how many are down now. */
  down: number;
  /** Up to 50 of them, down ones first. */
  monitors: { id: string; name: string; status: string }[];
}

export function summarise(descendants: readonly DependencyNode[]): DependentsSummary {
  const sorted = [...descendants].sort((a, b) => Number(b.status === 'down') - Number(a.status === 'down'));
  return {
    total: descendants.length,
    down: descendants.filter((d) => d.status === 'down').length,
    monitors: sorted.slice(0, 50).map((d) => ({ id: d.id, name: d.name, status: d.status })),
  };
}

const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

/** The sentence a parent's down alert ends with. */
export function downSummaryText(s: DependentsSummary): string {
  return ` ${plural(s.total, 'dependent monitor is', 'dependent monitors are')} affected; their alerts are held back while it is down` +
    (s.down ? ` (${s.down} down already).` : '.');
}

/** The sentence a parent's recovery alert ends with. */
export function upSummaryText(heldBack: number, stillDown: readonly DependencyNode[]): string {
  let text = heldBack
    ? ` ${plural(heldBack, 'dependent monitor alert was', 'dependent monitor alerts were')} held back during the outage.` : '';
  if (stillDown.length) {
    const names = stillDown.slice(0, 5).map((d) => d.name).join(', ') + (stillDown.length > 5 ? ', …' : '');
    text += ` ${plural(stillDown.length, 'dependent monitor is', 'dependent monitors are')} still down (${names}); ` +
      'an alert follows for each that stays down at its next check.';
  }
  return text;
}
