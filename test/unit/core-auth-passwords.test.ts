import assert from 'node:assert/strict';
import { test } from 'node:test';
import { hashPassword, needsRehash, passwordPolicyErrors, verifyPassword } from '../../src/core/auth/passwords.js';

test('hash is self-describing and verifies', async () => {
  const h = await hashPassword('correct horse battery staple');
  assert.match(h, /^scrypt\$32768\$8\$1\$[A-Za-z0-9_-]{22}\$[A-Za-z0-9_-]{43}$/);
  assert.equal(await verifyPassword('correct horse battery staple', h), true);
  assert.equal(await verifyPassword('correct horse battery stapl', h), false);
  assert.equal(needsRehash(h), false);
});

test('same password, different salts', async () => {
  const [a, b] = await Promise.all([hashPassword('samesamesame'), hashPassword('samesamesame')]);
  assert.notEqual(a, b);
});

test('unicode is normalised before hashing', async () => {
  const h = await hashPassword('caf\u00e9-password');
  assert.equal(await verifyPassword('cafe\u0301-password', h), true);
});

test('unknown user (no hash) and corrupt hashes never verify', async () => {
  assert.equal(await verifyPassword('anything at all', null), false);
  assert.equal(await verifyPassword('anything at all', undefined), false);
  assert.equal(await verifyPassword('x', 'not-a-hash'), false);
  assert.equal(await verifyPassword('x', 'scrypt$3$8$1$AAAAAAAAAAAAAAAAAAAAAA$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA'), false);
  // An absurd cost in a stored hash is refused, not attempted.
  assert.equal(await verifyPassword('x', `scrypt$${2 ** 24}$8$1$AAAAAAAAAAAAAAAAAAAAAA$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA`), false);
  assert.equal(needsRehash('not-a-hash'), true);
});

test('weaker parameters still verify and ask for a rehash', async () => {
  const { scryptSync, randomBytes } = await import('node:crypto');
  const salt = randomBytes(16);
  const key = scryptSync('old-password!', salt, 32, { N: 1024, r: 8, p: 1 });
  const h = `scrypt$1024$8$1$${salt.toString('base64url')}$${key.toString('base64url')}`;
  assert.equal(await verifyPassword('old-password!', h), true);
  assert.equal(needsRehash(h), true);
});

test('many parallel hashes complete (bounded concurrency queue)', async () => {
  const hashes = await Promise.all(Array.from({ length: 6 }, (_, i) => hashPassword(`parallel-${i}-password`)));
  assert.equal(new Set(hashes).size, 6);
  assert.equal(await verifyPassword('parallel-3-password', hashes[3]), true);
});

test('policy: length bounds and not the username', () => {
  assert.deepEqual(passwordPolicyErrors('long enough password', 'alice'), []);
  assert.deepEqual(passwordPolicyErrors('short', 'alice'), [{ path: 'password', message: 'Must be at least 10 characters long' }]);
  assert.equal(passwordPolicyErrors('x'.repeat(201)).length, 1);
  assert.equal(passwordPolicyErrors('x'.repeat(200)).length, 0);
  const same = passwordPolicyErrors('Administrator', 'administrator');
  assert.equal(same.length, 1);
  assert.match(same[0]!.message, /username/);
  assert.equal(passwordPolicyErrors('short', 'u', 'new_password')[0]!.path, 'new_password');
  // Length counts characters, not UTF-16 units.
  assert.equal(passwordPolicyErrors('🔑🔑🔑🔑🔑🔑🔑🔑🔑🔑').length, 0);
});
