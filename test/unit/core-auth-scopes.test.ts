import assert from 'node:assert/strict';
import { test } from 'node:test';
import { denyReason, expandScopes, keyScopes, roleScopes, type Principal, type Scope } from '../../src/core/auth/scopes.js';

const p = (role: 'admin' | 'operator' | 'viewer', kind: 'session' | 'api_key', scopes?: Scope[]): Principal => ({
  kind, user: { id: 'u', username: 'u', role }, actor: 'u',
  scopes: kind === 'session' ? roleScopes(role) : keyScopes(scopes ?? [], role),
});

test('write implies read and admin implies everything', () => {
  assert.ok(expandScopes(['monitors:write']).has('monitors:read'));
  assert.ok(!expandScopes(['monitors:read']).has('monitors:write'));
  assert.ok(expandScopes(['admin']).has('brain:write'));
});

test('a key never exceeds its owner role', () => {
  const s = keyScopes(['admin'], 'viewer');
  assert.ok(s.has('brain:read'));
  assert.ok(!s.has('brain:write'));
  assert.ok(!s.has('admin'));
  assert.ok(!keyScopes(['admin'], 'operator').has('admin'));
});

test('denyReason applies scope, role and admin rules', () => {
  assert.equal(denyReason(p('viewer', 'session'), { scope: 'monitors:read' }), null);
  assert.match(denyReason(p('viewer', 'session'), { scope: 'monitors:write' })!, /role/);
  assert.match(denyReason(p('operator', 'session'), { admin: true })!, /admin role/);
  assert.match(denyReason(p('admin', 'api_key', ['monitors:write']), { admin: true })!, /admin scope/);
  assert.equal(denyReason(p('admin', 'api_key', ['admin']), { admin: true }), null);
  assert.match(denyReason(p('admin', 'api_key', ['brain:write']), { scope: 'monitors:read' })!, /lacks/);
  // Self-service: sessions pass the role gate (the handler restricts to the own record); keys need the scope.
  assert.equal(denyReason(p('viewer', 'session'), { scope: 'system:write', self: true }), null);
  assert.match(denyReason(p('viewer', 'api_key', ['monitors:read']), { scope: 'system:write', self: true })!, /read-only; sign in/);
  assert.match(denyReason(p('viewer', 'api_key', ['monitors:read']), { scope: 'system:read', self: true })!, /lacks the system:read/);
  assert.equal(denyReason(p('viewer', 'api_key', ['system:read']), { scope: 'system:read', self: true }), null);
  assert.match(denyReason(p('operator', 'api_key', ['system:read']), { scope: 'system:write', self: true })!, /lacks the system:write/);
});
