// A monitor's problem alert waits while a monitor it depends on (a parent, or a parent's parent) is down
// or failing: the parent's own alert speaks for the outage.
//
//   an ancestor is down                    -> suppressed, under the farthest one down (the root cause:
//                                             a dead gateway, not the switch behind it)
//   an ancestor is failing (a failed check,
//   not yet at its threshold)              -> pending: wait for it to go down or recover
//   otherwise                              -> no hold
//
// Paused ancestors hold nothing back. When the parent recovers and the monitor is still down, its alert
// is released at its next failed check (gate.ts).
import type { DependencyNode } from '../dependencies.js';
import type { GateRule, Hold } from './gate.js';

export function dependencyHold(ancestors: readonly DependencyNode[]): Omit<Hold, 'rule' | 'since'> | null {
  const down = ancestors.filter((a) => a.status === 'down');
  if (down.length) {
    const p = down[down.length - 1]!;
    return { reason: `${p.name} is down`, by: { id: p.id, name: p.name }, state: 'suppressed' };
  }
  const p = ancestors.find((a) => a.status !== 'paused' && a.fail_streak > 0);
  if (p) return { reason: `${p.name} is failing`, by: { id: p.id, name: p.name }, state: 'pending' };
  return null;
}

export const dependency: GateRule = {
  name: 'dependency',
  events: ['problem', 'still_down'],
  releases: true,
  hold: (m) => dependencyHold(m.ancestors()),
};
