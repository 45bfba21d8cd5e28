// The HTTP side of RateLimitRule (core/context.ts): keys built the same way for every route that
// declares one, checked before its handler runs. The limiter itself is core/auth/ratelimit.ts.
import { addressKey, type RateLimiter } from '../auth/ratelimit.js';
import type { Principal } from '../auth/scopes.js';
import type { RateLimitCtx, RateLimitRule } from '../context.js';

type Kind = RateLimitRule['by'][number];

/** The rule's keys for one request (a `user` key only for a signed-in caller, a body key only when sent). */
export function rateLimitKeys(rule: RateLimitRule, ip: string, principal: Principal | null, body: unknown): Map<Kind, string> {
  const keys = new Map<Kind, string>();
  for (const kind of rule.by) {
    if (kind === 'ip') keys.set(kind, `${rule.bucket}:ip:${addressKey(ip)}`);
    else if (kind === 'user') { if (principal) keys.set(kind, `${rule.bucket}:user:${principal.user.id}`); }
    else {
      const field = kind.slice('body.'.length);
      const v = (body as Record<string, unknown> | null)?.[field];
      if (typeof v === 'string' && v) keys.set(kind, `${rule.bucket}:${field}:${v.toLowerCase()}`);
    }
  }
  return keys;
}

/** Throws 429 while any key is locked out; else the counter the handler reports to. */
export function enforceRateLimit(limiter: RateLimiter, rule: RateLimitRule, ip: string, principal: Principal | null,
  body: unknown): RateLimitCtx {
  const byKind = rateLimitKeys(rule, ip, principal, body);
  const keys = [...byKind.values()];
  limiter.check(keys, rule.what);
  const keysOf = (...kinds: Kind[]) => kinds.flatMap((k) => byKind.get(k) ?? []);
  return {
    keys, keysOf,
    failure: () => limiter.failure(keys),
    success: (...kinds) => limiter.success(kinds.length ? keysOf(...kinds) : keys),
  };
}
