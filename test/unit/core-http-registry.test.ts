import assert from 'node:assert/strict';
import { test } from 'node:test';
import { HttpError } from '../../src/core/errors.js';
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

test('the path is decoded once before matching, literals and parameters alike', () => {
  const reg = new RouteRegistry();
  reg.add(route({ method: 'POST', path: '/api/brain/:type', scope: 'brain:write', summary: 'generic', handler: h }));
  reg.add(route({ method: 'POST', path: '/api/brain/credentials', admin: true, summary: 'credentials', handler: h }));
  reg.add(route({ method: 'GET', path: '/api/x/:id', scope: 'system:read', summary: 'get', handler: h }));
  for (const p of ['/api/brain/credentials', '/api/brain/%63redentials', '/api/brain/%63%72%65%64%65%6E%74%69%61%6C%73',
    '/api/brain/cr%65d%65nti%61ls', '/%61pi/%62rain/%63%72%65%64%65%6e%74%69%61%6c%73', '/api//brain/credentials/'])
    assert.equal(reg.match('POST', p).route?.summary, 'credentials', p);
  // Case is not folded: an upper-case letter is another segment, left to the parameter's schema.
  assert.equal(reg.match('POST', '/api/brain/%43redentials').params.type, 'Credentials');
  // A parameter is decoded once only: %2525 is the text %25, not %.
  assert.deepEqual(reg.match('GET', '/api/x/%2525').params, { id: '%25' });
  assert.deepEqual(reg.match('GET', '/api/x/a%20b%C3%A9').params, { id: 'a bé' });
});

test('a segment that does not decode to one plain segment is a 400, not a miss', () => {
  const reg = new RouteRegistry();
  reg.add(route({ method: 'GET', path: '/api/x/:id', scope: 'system:read', summary: 'get', handler: h }));
  reg.add(route({ method: 'GET', path: '/api/x/:id/y', scope: 'system:read', summary: 'y', handler: h }));
  for (const p of ['/api/x/%E0%A4%A', '/api/x/%zz', '/api/x/a%2Fb/y', '/api/x/a%2fb', '/api/x/%5C', '/api/x/a%5cb/y', '/api/x/%00',
    '/api/x/a%0Ab', '/api/x/%7F', '/api/x/%2e%2e', '/api/x/%2E', '/api/%2e%2e/x/1', '/api/x/..', '/api%2Fx/1']) {
    assert.throws(() => reg.match('GET', p), (e: unknown) => e instanceof HttpError && e.status === 400 && e.code === 'invalid_path', p);
  }
});
