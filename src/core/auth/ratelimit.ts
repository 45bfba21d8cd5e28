// In-memory sliding-window limiter for brute-forceable endpoints (login, the bootstrap setup code, the
// vault passphrase). Callers name what they count with keys such as `login:ip+username:10.0.0.7|admin`:
// after `maxFailures` failures of one key within `windowMs`, every attempt that involves that key gets
// 429 with Retry-After until `lockoutMs` has passed. A wide key (`{key, factor}`: a whole address, which
// may be an office behind one NAT) allows `factor` times as many, so one person's mistakes never lock it.
//
// `attempt()` counts before the guess is verified (verification awaits scrypt): parallel requests are
// counted as they arrive, so no more than the limit ever reach the check. An attempt that turns out
// not to be a guess (the right password, a code that was valid but already used) is refunded.
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

/** A key counted against the limit, or a wide one counted against `factor` times it. */
export type LimitKey = string | { key: string; factor: number };

/** The wide keys' factor: an address's limit, far above one person's mistakes. */
export const WIDE_FACTOR = 10;

/** One counted attempt (RateLimiter.attempt). */
export interface Attempt {
  /** Whether counting it started a lockout of any key. */
  startedLockout: boolean;
  /** Uncounts it: it was not a guess. A lockout that it started (or that it alone kept) ends. */
  refund(): void;
}

interface Entry {
  /** Counted attempts within the window (time and the attempt's id), oldest first; at most the key's limit. */
  failures: { t: number; id: number }[];
  lockedUntil: number;
}

const nameOf = (k: LimitKey) => (typeof k === 'string' ? k : k.key);

export class RateLimiter {
  private entries = new Map<string, Entry>();
  private nextId = 1;

  constructor(
    private clock: Clock,
    private policy: () => LimitPolicy,
    private maxKeys = 10_000,
  ) {}

  /** Seconds until `keys` may be tried again; 0 when none of them is locked out. */
  retryAfter(keys: LimitKey[]): number {
    const now = this.clock.now();
    let until = 0;
    for (const k of keys) {
      const e = this.entries.get(nameOf(k));
      if (e && e.lockedUntil > now) until = Math.max(until, e.lockedUntil);
    }
    return until ? Math.ceil((until - now) / 1000) : 0;
  }

  /** Throws 429 with Retry-After when any of `keys` is locked out. Call before checking credentials. */
  check(keys: LimitKey[], what = 'attempts'): void {
    const wait = this.retryAfter(keys);
    if (wait > 0) throw tooMany(`Too many failed ${what}; try again in ${formatWait(wait)}`, wait);
  }

  /**
   * Checks (429 while any key is locked out) and counts an attempt in one synchronous step, before it is
   * verified; refund it when it was not a guess.
   */
  attempt(keys: LimitKey[], what = 'attempts'): Attempt {
    this.check(keys, what);
    const id = this.nextId++;
    const startedLockout = this.count(keys, id);
    return { startedLockout, refund: () => this.refund(keys, id) };
  }

  /** Counts a failure against each key; returns true when this failure started a lockout. */
  failure(keys: LimitKey[]): boolean {
    return this.count(keys, this.nextId++);
  }

  /** Forgets the failures of `keys` (e.g. the account at this address after a successful login). */
  success(keys: LimitKey[]): void {
    for (const k of keys) this.entries.delete(nameOf(k));
  }

  private count(keys: LimitKey[], id: number): boolean {
    const { windowMs, lockoutMs } = this.policy();
    const now = this.clock.now();
    let locked = false;
    for (const k of keys) {
      const e = this.touch(nameOf(k));
      if (e.lockedUntil > now) continue;
      if (e.lockedUntil) { e.lockedUntil = 0; e.failures = []; } // a lockout that ended starts afresh
      const max = this.limitOf(k);
      e.failures = e.failures.filter((f) => f.t > now - windowMs);
      e.failures.push({ t: now, id });
      if (e.failures.length > max) e.failures.splice(0, e.failures.length - max);
      if (e.failures.length >= max) {
        e.lockedUntil = now + lockoutMs;
        locked = true;
      }
    }
    this.evict();
    return locked;
  }

  private refund(keys: LimitKey[], id: number): void {
    for (const k of keys) {
      const e = this.entries.get(nameOf(k));
      if (!e) continue;
      const i = e.failures.findIndex((f) => f.id === id);
      if (i < 0) continue;
      e.failures.splice(i, 1);
      // A lockout stands on the attempts that reached the limit; without this one they no longer do.
      if (e.lockedUntil > this.clock.now() && e.failures.length < this.limitOf(k)) e.lockedUntil = 0;
    }
  }

  private limitOf(k: LimitKey): number {
    return this.policy().maxFailures * (typeof k === 'string' ? 1 : k.factor);
  }

  /** Drops entries with no recent failures and no lockout. Optional; eviction bounds memory anyway. */
  prune(): void {
    const { windowMs } = this.policy();
    const now = this.clock.now();
    for (const [k, e] of this.entries) {
      const last = e.failures[e.failures.length - 1]?.t ?? 0;
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
