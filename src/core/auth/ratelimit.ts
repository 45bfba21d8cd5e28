// In-memory sliding-window limiter for brute-forceable endpoints (login, the bootstrap setup code, the
// vault passphrase). Callers name what they count with keys such as `login:ip:10.0.0.7` and
// `login:user:admin`: after `maxFailures` failures of one key within `windowMs`, every attempt that
// involves that key gets 429 with Retry-After until `lockoutMs` has passed.
//
// State lives in memory on purpose: it costs no SD-card writes, and a restart (which takes the attacker
// longer than a lockout) forgetting it is harmless. Memory is bounded: past `maxKeys` entries the least
// recently touched are evicted, keys that are not locked out first, so a flood of new addresses cannot
// push a locked-out username out of the map cheaply.
import type { Clock } from '../clock.js';
import { tooMany } from '../errors.js';

export interface LimitPolicy {
  maxFailures: number;
  windowMs: number;
  lockoutMs: number;
}

interface Entry {
  /** Failure times within the window, oldest first; never longer than maxFailures. */
  failures: number[];
  lockedUntil: number;
}

export class RateLimiter {
  private entries = new Map<string, Entry>();

  constructor(
    private clock: Clock,
    private policy: () => LimitPolicy,
    private maxKeys = 10_000,
  ) {}

  /** Seconds until `keys` may be tried again; 0 when none of them is locked out. */
  retryAfter(keys: string[]): number {
    const now = this.clock.now();
    let until = 0;
    for (const k of keys) {
      const e = this.entries.get(k);
      if (e && e.lockedUntil > now) until = Math.max(until, e.lockedUntil);
    }
    return until ? Math.ceil((until - now) / 1000) : 0;
  }

  /** Throws 429 with Retry-After when any of `keys` is locked out. Call before checking credentials. */
  check(keys: string[], what = 'attempts'): void {
    const wait = this.retryAfter(keys);
    if (wait > 0) throw tooMany(`Too many failed ${what}; try again in ${formatWait(wait)}`, wait);
  }

  /** Counts a failure against each key; returns true when this failure started a lockout. */
  failure(keys: string[]): boolean {
    const { maxFailures, windowMs, lockoutMs } = this.policy();
    const now = this.clock.now();
    let locked = false;
    for (const k of keys) {
      const e = this.touch(k);
      if (e.lockedUntil > now) continue;
      e.failures = e.failures.filter((t) => t > now - windowMs);
      e.failures.push(now);
      if (e.failures.length >= maxFailures) {
        e.lockedUntil = now + lockoutMs;
        e.failures = [];
        locked = true;
      }
      if (e.failures.length > maxFailures) e.failures.splice(0, e.failures.length - maxFailures);
    }
    this.evict();
    return locked;
  }

  /** Forgets the failures of `keys` (e.g. the username after a successful login; not the address). */
  success(keys: string[]): void {
    for (const k of keys) this.entries.delete(k);
  }

  /** Drops entries with no recent failures and no lockout. Optional; eviction bounds memory anyway. */
  prune(): void {
    const { windowMs } = this.policy();
    const now = this.clock.now();
    for (const [k, e] of this.entries) {
      const last = e.failures[e.failures.length - 1] ?? 0;
      if (e.lockedUntil <= now && last <= now - windowMs) this.entries.delete(k);
    }
  }

  get size(): number { return this.entries.size; }

  private touch(key: string): Entry {
    let e = this.entries.get(key);
    if (e) this.entries.delete(key); // re-insert: Map order is our recency order
    else e = { failures: [], lockedUntil: 0 };
    this.entries.set(key, e);
    return e;
  }

  private evict(): void {
    if (this.entries.size <= this.maxKeys) return;
    const now = this.clock.now();
    let excess = this.entries.size - this.maxKeys;
    // First pass: oldest entries that are not locked out; bounded scan so a failure stays cheap.
    let scanned = 0;
    for (const [k, e] of this.entries) {
      if (excess <= 0 || scanned++ > 1000) break;
      if (e.lockedUntil <= now) { this.entries.delete(k); excess--; }
    }
    for (const k of this.entries.keys()) {
      if (excess-- <= 0) break;
      this.entries.delete(k);
    }
  }
}

/**
 * The key under which an address is counted. IPv6 clients usually own a whole /64, so they are counted
 * per /64, or one host could rotate through addresses and never be limited.
 */
export function addressKey(ip: string): string {
  const v4 = ip.startsWith('::ffff:') && ip.includes('.') ? ip.slice(7) : ip;
  if (!v4.includes(':')) return v4;
  const [head = '', tail = ''] = v4.toLowerCase().split('%')[0]!.split('::');
  const left = head ? head.split(':') : [];
  const right = tail ? tail.split(':') : [];
  const full = v4.includes('::') ? [...left, ...Array(Math.max(0, 8 - left.length - right.length)).fill('0'), ...right] : left;
  return full.slice(0, 4).map((h) => h.replace(/^0+(?=.)/, '')).join(':') + '::/64';
}

function formatWait(sec: number): string {
  if (sec < 90) return `${sec} seconds`;
  return `${Math.ceil(sec / 60)} minutes`;
}
