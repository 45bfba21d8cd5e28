// What a parent's alerts say of the monitors that depend on it: how many, how many are down, and how many
// alerts the outage held back. Pure. Whether a child's alert is held is the alert gate's decision
// (monitors/alert-gate/dependency.ts), carried on the event.
import type { DependencyNode } from '../monitors/contracts.js';

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
