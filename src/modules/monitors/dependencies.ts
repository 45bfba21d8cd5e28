// The alert-dependency graph: a monitor's parents (monitor_parents), kept free of cycles when they are
// set, and walked up (ancestors) or down (descendants) from memory. The alert gate holds back a child's
// alert while a parent is down (alert-gate/dependency.ts).
import { badRequest, type FieldError } from '../../core/errors.js';
import type { Tx } from '../../core/store/types.js';
import type { LiveMonitor, Registry } from './live.js';
import type { MonitorStatus } from './schemas.js';

/**
 * Replaces a monitor's parents inside its write. Each must exist, differ from the monitor and not
 * depend on it (directly or through others): that would be a cycle. Errors name `parents.<i>`, and
 * nothing is written before they are known. `proposedFrom`: null when a person set them, else the
 * topology proposal that did (monitor_parents.proposed_from).
 */
export function setParents(tx: Tx, registry: Registry, pk: number, ids: readonly string[], proposedFrom: string | null = null): void {
  const errors: FieldError[] = [];
  const pks: number[] = [];
  const unique = [...new Set(ids)];
  unique.forEach((id) => {
    const i = ids.indexOf(id);
    const p = tx.get<{ pk: number; name: string }>('SELECT pk, name FROM monitors WHERE id = ?', [id]);
    if (!p) { errors.push({ path: `parents.${i}`, message: 'No monitor with this id' }); return; }
    if (p.pk === pk) { errors.push({ path: `parents.${i}`, message: 'A monitor cannot be its own parent' }); return; }
    // Would the parent (or one of its ancestors) be this monitor? Walk up from the parent.
    const seen = new Set<number>([p.pk]);
    let frontier = [p.pk];
    while (frontier.length) {
      const next: number[] = [];
      for (const f of frontier) {
        for (const r of tx.all<{ parent: number }>('SELECT parent FROM monitor_parents WHERE m = ?', [f])) {
          if (r.parent === pk) {
            errors.push({ path: `parents.${i}`, message: `"${p.name}" depends on this monitor: that would be a cycle` });
            return;
          }
          if (!seen.has(r.parent)) { seen.add(r.parent); next.push(r.parent); }
        }
      }
      frontier = next;
    }
    pks.push(p.pk);
  });
  if (errors.length) throw badRequest(`Invalid monitor: ${errors.map((e) => `${e.path}: ${e.message}`).join('; ')}`, errors);
  tx.run('DELETE FROM monitor_parents WHERE m = ?', [pk]);
  for (const parent of pks) {
    tx.run('INSERT INTO monitor_parents (m, parent, proposed_from) VALUES (?, ?, ?)', [pk, parent, proposedFrom]);
  }
  tx.onCommit(() => { const m = registry.get(pk); if (m) registry.setParents(m, pks); });
}

/** A monitor as alert dependencies see it: identity and current state. */
export interface DependencyNode {
  id: string;
  name: string;
  status: MonitorStatus;
  /** Consecutive failed checks so far (0 after a success). */
  fail_streak: number;
  /** Its problem alert is held back by the alert gate until what holds it lets go. */
  held: boolean;
}

/** Walks the dependency graph from a monitor (up to its ancestors or down to its descendants), nearest first. */
export function walk(registry: Registry, start: LiveMonitor, direction: 'up' | 'down'): DependencyNode[] {
  const seen = new Set<number>([start.row.pk]);
  const out: DependencyNode[] = [];
  let frontier = [start];
  while (frontier.length) {
    const next: LiveMonitor[] = [];
    for (const f of frontier) {
      const near = direction === 'up'
        ? f.parents.map((pk) => registry.get(pk)).filter((x): x is LiveMonitor => !!x)
        : registry.children(f.row.pk);
      for (const n of near) {
        if (seen.has(n.row.pk)) continue;
        seen.add(n.row.pk);
        next.push(n);
        out.push({ id: n.row.id, name: n.row.name, status: n.row.status, fail_streak: n.row.fail_streak, held: n.hold != null });
      }
    }
    frontier = next;
  }
  return out;
}
