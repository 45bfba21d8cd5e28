import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ManualClock } from '../../src/core/clock.js';
import { HttpError } from '../../src/core/errors.js';
import { addressKey, RateLimiter } from '../../src/core/auth/ratelimit.js';

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

test('addressKey: IPv4 as is, IPv4-mapped unwrapped, IPv6 by /64', () => {
  assert.equal(addressKey('192.0.2.7'), '192.0.2.7');
  assert.equal(addressKey('::ffff:192.0.2.7'), '192.0.2.7');
  assert.equal(addressKey('2001:db8:1:2:aaaa::1'), '2001:db8:1:2::/64');
  assert.equal(addressKey('2001:db8:1:2:bbbb:cccc:dddd:eeee'), '2001:db8:1:2::/64');
  assert.equal(addressKey('2001:db8::1'), '2001:db8:0:0::/64');
  assert.equal(addressKey('fe80::1%eth0'), 'fe80:0:0:0::/64');
  assert.equal(addressKey('::1'), '0:0:0:0::/64');
});
