import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ManualClock } from '../../src/core/clock.js';
import { HttpError } from '../../src/core/errors.js';
import { addressKey, RateLimiter, WIDE_FACTOR } from '../../src/core/auth/ratelimit.js';

const policy = () => ({ maxFailures: 3, windowMs: 10 * 60_000, lockoutMs: 15 * 60_000 });

function rejects429(fn: () => void): HttpError {
  try { fn(); } catch (e) {
    assert.ok(e instanceof HttpError);
    assert.equal(e.status, 429);
    return e;
  }
  assert.fail('expected a 429');
}

test('locks out after maxFailures within the window, with Retry-After', () => {
  const clock = new ManualClock();
  const rl = new RateLimiter(clock, policy);
  const keys = ['login:ip:10.0.0.1', 'login:user:alice'];
  rl.check(keys);
  assert.equal(rl.failure(keys), false);
  assert.equal(rl.failure(keys), false);
  rl.check(keys); // two failures: still allowed
  assert.equal(rl.failure(keys), true); // the third starts the lockout
  const e = rejects429(() => rl.check(keys));
  assert.equal(e.code, 'rate_limited');
  assert.equal(e.headers?.['Retry-After'], String(15 * 60));
  clock.advance(5 * 60_000);
  assert.equal(rejects429(() => rl.check(keys)).headers?.['Retry-After'], String(10 * 60));
  clock.advance(10 * 60_000);
  rl.check(keys); // lockout over
  assert.equal(rl.retryAfter(keys), 0);
});

test('the window slides: old failures stop counting', () => {
  const clock = new ManualClock();
  const rl = new RateLimiter(clock, policy);
  const k = ['k'];
  rl.failure(k);
  clock.advance(6 * 60_000);
  rl.failure(k);
  clock.advance(5 * 60_000); // the first failure is now 11 minutes old
  assert.equal(rl.failure(k), false);
  rl.check(k);
  assert.equal(rl.failure(k), true);
});

test('success clears only the keys given; any locked key blocks', () => {
  const clock = new ManualClock();
  const rl = new RateLimiter(clock, policy);
  const ip = 'login:ip:10.0.0.2', user = 'login:user:bob';
  rl.failure([ip, user]);
  rl.failure([ip, user]);
  rl.success([user]);
  rl.failure([ip, 'login:user:carol']); // the address reaches 3
  rejects429(() => rl.check([ip, 'login:user:dave']));
  rl.check(['login:ip:10.0.0.3', user]);
});

test('policy changes apply at once', () => {
  const clock = new ManualClock();
  let max = 5;
  const rl = new RateLimiter(clock, () => ({ ...policy(), maxFailures: max }));
  rl.failure(['k']);
  max = 2;
  assert.equal(rl.failure(['k']), true);
});

test('memory is bounded; locked-out keys survive a flood of new keys', () => {
  const clock = new ManualClock();
  const rl = new RateLimiter(clock, policy, 100);
  for (let i = 0; i < 3; i++) rl.failure(['login:user:admin']);
  for (let i = 0; i < 1000; i++) rl.failure([`login:ip:192.0.2.${i}`]);
  assert.ok(rl.size <= 100);
  rejects429(() => rl.check(['login:user:admin']));
});

test('prune drops idle entries but keeps lockouts', () => {
  const clock = new ManualClock();
  const rl = new RateLimiter(clock, policy);
  rl.failure(['a']);
  for (let i = 0; i < 3; i++) rl.failure(['b']);
  clock.advance(11 * 60_000);
  rl.prune();
  assert.equal(rl.size, 1);
  rejects429(() => rl.check(['b']));
});

test('attempt counts before the guess is checked: parallel attempts beyond the limit are refused at once', () => {
  const clock = new ManualClock();
  const rl = new RateLimiter(clock, policy);
  const k = ['login:ip+username:10.0.0.9|alice'];
  const first = [rl.attempt(k), rl.attempt(k), rl.attempt(k)]; // none verified yet
  assert.deepEqual(first.map((a) => a.startedLockout), [false, false, true]);
  rejects429(() => rl.attempt(k));
});

test('a refunded attempt is not counted, and ends a lockout it completed', () => {
  const clock = new ManualClock();
  const rl = new RateLimiter(clock, policy);
  const k = ['k'];
  rl.attempt(k);
  const right = rl.attempt(k);
  const third = rl.attempt(k); // locks: three counted
  rejects429(() => rl.check(k));
  right.refund(); // one of them was not a guess
  rl.check(k);
  third.refund();
  third.refund(); // once only
  assert.equal(rl.attempt(k).startedLockout, false);
  assert.equal(rl.attempt(k).startedLockout, true);
});

test('a wide key allows WIDE_FACTOR times the limit', () => {
  const clock = new ManualClock();
  const rl = new RateLimiter(clock, policy);
  const wide = { key: 'login:ip:10.0.0.10', factor: WIDE_FACTOR };
  for (let i = 0; i < 3 * WIDE_FACTOR - 1; i++) rl.attempt([wide, `login:ip+username:10.0.0.10|user${i}`]);
  rl.check([wide]);
  assert.equal(rl.attempt([wide, 'login:ip+username:10.0.0.10|last']).startedLockout, true);
  rejects429(() => rl.check([wide]));
});

test('addressKey: IPv4 as is, IPv4-mapped unwrapped, IPv6 by /64', () => {
  assert.equal(addressKey('192.0.2.7'), '192.0.2.7');
  assert.equal(addressKey('::ffff:192.0.2.7'), '192.0.2.7');
  assert.equal(addressKey('2001:db8:1:2:aaaa::1'), '2001:db8:1:2::/64');
  assert.equal(addressKey('2001:db8:1:2:bbbb:cccc:dddd:eeee'), '2001:db8:1:2::/64');
  assert.equal(addressKey('2001:db8::1'), '2001:db8:0:0::/64');
  assert.equal(addressKey('fe80::1%eth0'), 'fe80:0:0:0::/64');
  assert.equal(addressKey('::1'), '0:0:0:0::/64');
});
