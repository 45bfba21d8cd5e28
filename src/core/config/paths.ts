// Small helpers on plain configuration data: dotted paths, removal, differences, freezing.

export type PathKey = string | number;
const REMOVED = Symbol('removed');

export function toKey(k: PropertyKey): PathKey { return typeof k === 'number' ? k : String(k); }
export function dotted(p: readonly PathKey[]): string { return p.join('.'); }

export function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export function withoutNulls(v: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(v)) {
    if (x === null || x === undefined) continue;
    out[k] = isPlainObject(x) ? withoutNulls(x) : x;
  }
  return out;
}

export function setPath(obj: Record<string, unknown>, p: string[], value: unknown): void {
  let cur = obj;
  for (const k of p.slice(0, -1)) {
    if (!isPlainObject(cur[k])) cur[k] = {};
    cur = cur[k] as Record<string, unknown>;
  }
  cur[p[p.length - 1]!] = value;
}

/** Remove the value at a path; array elements are marked and swept by pruneHoles so indices stay valid. */
export function removePath(root: unknown, p: PathKey[]): void {
  let cur: unknown = root;
  for (const k of p.slice(0, -1)) {
    if (cur === null || typeof cur !== 'object') return;
    cur = (cur as Record<PathKey, unknown>)[k];
  }
  const last = p[p.length - 1]!;
  if (Array.isArray(cur) && typeof last === 'number') cur[last] = REMOVED;
  else if (isPlainObject(cur)) delete cur[String(last)];
}

export function pruneHoles(v: unknown): void {
  if (Array.isArray(v)) {
    for (let i = v.length - 1; i >= 0; i--) if (v[i] === REMOVED) v.splice(i, 1);
    v.forEach(pruneHoles);
  } else if (isPlainObject(v)) {
    Object.values(v).forEach(pruneHoles);
  }
}

export function diffKeys(a: unknown, b: unknown, prefix = ''): string[] {
  if (isPlainObject(a) && isPlainObject(b)) {
    const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
    return [...keys].flatMap((k) => diffKeys(a[k], b[k], prefix ? `${prefix}.${k}` : k));
  }
  return JSON.stringify(a) === JSON.stringify(b) ? [] : [prefix];
}

export function deepFreeze<T>(v: T): T {
  if (v && typeof v === 'object' && !Object.isFrozen(v)) {
    Object.freeze(v);
    for (const x of Object.values(v)) deepFreeze(x);
  }
  return v;
}

export function getPath(obj: unknown, p: readonly string[]): unknown {
  let cur = obj;
  for (const k of p) {
    if (!isPlainObject(cur) || !Object.hasOwn(cur, k)) return undefined;
    cur = cur[k];
  }
  return cur;
}

export function setPathOn(obj: Record<string, unknown>, p: readonly string[], value: unknown): Record<string, unknown> {
  setPath(obj, [...p], value);
  return obj;
}

