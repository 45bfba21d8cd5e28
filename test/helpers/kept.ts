// "Still there" for data compared across builds: a later build may add fields to a response, never drop
// or change what an earlier build returned.
import assert from 'node:assert/strict';

/** True when every field of `old` is in `now` with the same value (recursively; arrays element-wise). */
export function kept(old: unknown, now: unknown): boolean {
  if (Array.isArray(old)) {
    return Array.isArray(now) && now.length === old.length && old.every((v, i) => kept(v, now[i]));
  }
  if (old && typeof old === 'object') {
    if (!now || typeof now !== 'object') return false;
    return Object.entries(old).every(([k, v]) => kept(v, (now as Record<string, unknown>)[k]));
  }
  return Object.is(old, now);
}

export function assertKept(old: unknown, now: unknown, what: string): void {
  assert.ok(kept(old, now), `${what} changed:\n  before ${JSON.stringify(old)}\n  after  ${JSON.stringify(now)}`);
}

/** Every item of `old` is kept by some item of `now` (a list that may have grown). */
export function assertAllKept(old: unknown[], now: unknown[], what: string): void {
  for (const item of old) {
    assert.ok(now.some((n) => kept(item, n)), `${what}: missing after the upgrade: ${JSON.stringify(item)}`);
  }
}

export function pick(o: Record<string, unknown>, keys: string[]): Record<string, unknown> {
  return Object.fromEntries(keys.map((k) => [k, o[k]]));
}
