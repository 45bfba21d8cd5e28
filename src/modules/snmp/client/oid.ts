// Numeric OIDs as arrays of arcs: the order agents walk in, and subtree membership.

export function arcs(oid: string): number[] {
  return oid.split('.').map(Number);
}

/** Negative, zero or positive as `a` sorts before, equal to or after `b` (lexicographic by arc). */
export function compareArcs(a: readonly number[], b: readonly number[]): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return a[i]! - b[i]!;
  return a.length - b.length;
}

/** True when `oid` lies strictly below `root`. */
export function inSubtree(root: readonly number[], oid: readonly number[]): boolean {
  if (oid.length <= root.length) return false;
  for (let i = 0; i < root.length; i++) if (oid[i] !== root[i]) return false;
  return true;
}
