// The HTTP side of RateLimitRule (core/context.ts): keys built the same way for every route that
// declares one, checked and counted before its handler runs (so parallel guesses are counted as they
// arrive, not after scrypt), and refunded unless the handler calls it a failure. The limiter itself is
// core/auth/ratelimit.ts.
import { addressKey, WIDE_FACTOR, type Attempt, type LimitKey, type RateLimiter } from '../auth/ratelimit.js';
import type { Principal } from '../auth/scopes.js';
import type { RateLimitCtx, RateLimitRule } from '../context.js';

type Kind = RateLimitRule['by'][number];

/** The rule's keys for one request (a `user` key only for a signed-in caller, a body key only when sent). */
export function rateLimitKeys(rule: RateLimitRule, ip: string, principal: Principal | null, body: unknown): Map<Kind, string> {
  const keys = new Map<Kind, string>();
  const fieldOf = (field: string) => {
    const v = (body as Record<string, unknown> | null)?.[field];
    return typeof v === 'string' && v ? v.toLowerCase() : null;
  };
  for (const kind of rule.by) {
    if (kind === 'ip') keys.set(kind, `${rule.bucket}:ip:${addressKey(ip)}`);
    else if (kind === 'user') { if (principal) keys.set(kind, `${rule.bucket}:user:${principal.user.id}`); }
    else if (kind.startsWith('ip+body.')) {
      const field = kind.slice('ip+body.'.length);
      const v = fieldOf(field);
      if (v) keys.set(kind, `${rule.bucket}:ip+${field}:${addressKey(ip)}|${v}`);
    } else {
      const field = kind.slice('body.'.length);
      const v = fieldOf(field);
      if (v) keys.set(kind, `${rule.bucket}:${field}:${v}`);
    }
  }
  return keys;
}

const NOT_COUNTED: Attempt = { startedLockout: false, refund: () => {} };

/**
 * Throws 429 while any key is locked out; else counts this request as an attempt and returns the counter
 * the handler reports to. The caller calls `settle()` when the handler is done.
 */
export function enforceRateLimit(limiter: RateLimiter, rule: RateLimitRule, ip: string, principal: Principal | null,
  body: unknown): RateLimitCtx & { settle(): void } {
  const byKind = rateLimitKeys(rule, ip, principal, body);
  const keys = [...byKind.values()];
  const wide = new Set(rule.wide ?? []);
  const limitKeys: LimitKey[] = [...byKind].map(([kind, key]) => (wide.has(kind) ? { key, factor: WIDE_FACTOR } : key));
  const attempt = rule.countedByService ? (limiter.check(limitKeys, rule.what), NOT_COUNTED) : limiter.attempt(limitKeys, rule.what);
  let state: 'open' | 'failed' | 'settled' = 'open';
  const keysOf = (...kinds: Kind[]) => kinds.flatMap((k) => byKind.get(k) ?? []);
  const refund = () => { if (state === 'open') { state = 'settled'; attempt.refund(); } };
  return {
    keys, keysOf,
    failure: () => {
      if (state === 'open') state = 'failed';
      return attempt.startedLockout;
    },
    success: (...kinds) => {
      refund();
      limiter.success(kinds.length ? keysOf(...kinds) : keys);
    },
    refund,
    settle: refund,
  };
}
