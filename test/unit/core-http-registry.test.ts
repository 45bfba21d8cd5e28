import assert from 'node:assert/strict';
import { test } from 'node:test';
import { route, RouteRegistry } from '../../src/core/http/registry.js';

const h = () => null;

test('literal segments win over parameters whatever the declaration order', () => {
  const reg = new RouteRegistry();
  reg.add(route({ method: 'GET', path: '/api/monitors/:id', scope: 'monitors:read', summary: 'one', handler: h }));
  reg.add(route({ method: 'GET', path: '/api/monitors/stats', scope: 'monitors:read', summary: 'stats', handler: h }));
  reg.add(route({ method: 'GET', path: '/api/monitors/:id/results', scope: 'monitors:read', summary: 'results', handler: h }));
  assert.equal(reg.match('GET', '/api/monitors/stats').route?.summary, 'stats');
  const one = reg.match('GET', '/api/monitors/abc');
  assert.equal(one.route?.summary, 'one');
  assert.deepEqual(one.params, { id: 'abc' });
  assert.equal(reg.match('GET', '/api/monitors/a%2Fb/results').params.id, 'a/b');
  assert.equal(reg.match('GET', '/api/monitors').route, undefined);
});

test('method mismatches report the allowed methods; HEAD matches GET', () => {
  const reg = new RouteRegistry();
  reg.add(route({ method: 'GET', path: '/api/x/:id', scope: 'system:read', summary: 'get', handler: h }));
  reg.add(route({ method: 'PUT', path: '/api/x/:id', scope: 'system:write', summary: 'put', handler: h }));
  const m = reg.match('DELETE', '/api/x/1');
  assert.equal(m.route, undefined);
  assert.deepEqual(m.allowed.sort(), ['GET', 'PUT']);
  assert.equal(reg.match('HEAD', '/api/x/1').route?.summary, 'get');
});

test('declarations are checked: duplicates, missing access rule, scope that does not fit the method', () => {
  const reg = new RouteRegistry();
  reg.add(route({ method: 'GET', path: '/api/a/:id', scope: 'system:read', summary: 'a', handler: h }));
  assert.throws(() => reg.add(route({ method: 'GET', path: '/api/a/:other', scope: 'system:read', summary: 'dup', handler: h })), /twice/);
  assert.throws(() => reg.add(route({ method: 'GET', path: '/api/b', summary: 'none', handler: h })), /needs a scope/);
  assert.throws(() => reg.add(route({ method: 'POST', path: '/api/c', scope: 'system:read', summary: 'w', handler: h })), /:write/);
  assert.throws(() => reg.add(route({ method: 'GET', path: '/x', auth: 'none', summary: 'w', handler: h })), /\/api\//);
});

test('a malformed percent escape does not match instead of throwing', () => {
  const reg = new RouteRegistry();
  reg.add(route({ method: 'GET', path: '/api/x/:id', scope: 'system:read', summary: 'get', handler: h }));
  assert.equal(reg.match('GET', '/api/x/%E0%A4%A').route, undefined);
});
