// The HTTP core's contract through real HTTP: problem+json for every failure, limits, request ids,
// static UI serving. Test-only routes are added to the live registry.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { z } from 'zod';
import { route } from '../../src/core/http/registry.js';
import { startTestApp, type TestApp } from '../helpers/harness.js';

let t: TestApp;
let key: string;
before(async () => {
  t = await startTestApp();
  t.service.app.routes.add(
    route({
      method: 'POST', path: '/api/test-echo/:n', scope: 'system:write', summary: 'echo',
      params: z.object({ n: z.coerce.number().int().min(1) }),
      query: z.object({ flag: z.enum(['a', 'b']).optional() }),
      body: z.object({ name: z.string().min(2), count: z.number().int().max(10), tags: z.array(z.string()).optional() }).strict(),
      handler: ({ params, query, body }) => ({ params, query, body }),
    }),
    route({ method: 'GET', path: '/api/test-boom', scope: 'system:read', summary: 'boom', handler: () => { throw new Error('secret internals'); } }),
    // What the request and response carry of their own: accessors and functions added per request.
    route({ method: 'GET', path: '/api/test-own', scope: 'system:read', summary: 'own properties', handler: ({ req, res }) => {
      const own = (o: object) => Object.entries(Object.getOwnPropertyDescriptors(o))
        // Node's own (res._onPendingData) start with an underscore.
        .filter(([k, d]) => d.get || d.set || (typeof d.value === 'function' && !k.startsWith('_'))).map(([k]) => k).sort();
      return { req: own(req), res: own(res) };
    } }),
    route({ method: 'GET', path: '/api/test-unique', scope: 'system:read', summary: 'unique', handler: () => { throw new Error('UNIQUE constraint failed: users.username'); } }),
  );
  key = (await t.admin()).key;
});
after(() => t.close());

test('a valid request passes params, query and body through their schemas', async () => {
  const r = await t.request('POST', '/api/test-echo/3?flag=a', { key, body: { name: 'ok', count: 2 } });
  assert.equal(r.status, 200, r.text);
  assert.deepEqual(r.body, { params: { n: 3 }, query: { flag: 'a' }, body: { name: 'ok', count: 2 } });
});

test('invalid bodies give 400 naming each field', async () => {
  const r = await t.request('POST', '/api/test-echo/3', { key, body: { name: 'x', count: 'many', extra: 1 } });
  assert.equal(r.status, 400);
  assert.equal(r.body.code, 'validation_failed');
  const paths = r.body.errors.map((e: any) => e.path);
  assert.ok(paths.includes('name') && paths.includes('count'), JSON.stringify(r.body.errors));
  assert.ok(r.body.errors.some((e: any) => /extra/.test(e.message) || e.path === 'extra'), 'unknown key reported');
  const q = await t.request('POST', '/api/test-echo/3?flag=z', { key, body: { name: 'ok', count: 1 } });
  assert.equal(q.status, 400);
  assert.equal(q.body.errors[0].path, 'query.flag');
});

test('a bad path parameter is a 404, not a 500', async () => {
  const r = await t.request('POST', '/api/test-echo/zero', { key, body: { name: 'ok', count: 1 } });
  assert.equal(r.status, 404);
});

test('malformed JSON is 400, a wrong content type 415, an oversized body 413', async () => {
  const bad = await t.request('POST', '/api/test-echo/1', { key, raw: '{"name": ', headers: { 'content-type': 'application/json' } });
  assert.equal(bad.status, 400);
  assert.equal(bad.body.code, 'malformed_json');
  const form = await t.request('POST', '/api/test-echo/1', { key, raw: 'name=x', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
  assert.equal(form.status, 415);
  const big = await t.request('POST', '/api/test-echo/1', { key, raw: JSON.stringify({ name: 'x'.repeat(2 * 1024 * 1024), count: 1 }), headers: { 'content-type': 'application/json' } });
  assert.equal(big.status, 413);
  assert.equal(big.body.code, 'body_too_large');
  // The service is still fine afterwards.
  assert.equal((await t.request('GET', '/api/version')).status, 200);
});

// tinyhttp's extensions defined accessors (req.fresh, req.stale) on every request: a hidden class per
// request in the old generation kept all of each request's garbage through young collections, so back-to-back
// requests grew the old space by about 20 MiB a second (app.ts).
test('requests and responses get no accessors or functions of their own', async () => {
  const r = await t.request('GET', '/api/test-own', { key });
  assert.equal(r.status, 200, r.text);
  assert.deepEqual(r.body, { req: [], res: [] });
});

test('405 lists the allowed methods', async () => {
  const r = await t.request('DELETE', '/api/version', { key });
  assert.equal(r.status, 405);
  assert.equal(r.headers.get('allow'), 'GET');
  assert.match(r.headers.get('content-type')!, /problem\+json/);
});

test('an unexpected error is a 500 problem that hides internals and quotes the request id', async () => {
  const r = await t.request('GET', '/api/test-boom', { key, headers: { 'x-request-id': 'trace-123' } });
  assert.equal(r.status, 500);
  assert.equal(r.headers.get('x-request-id'), 'trace-123');
  assert.equal(r.body.request_id, 'trace-123');
  assert.doesNotMatch(r.text, /secret internals/);
  assert.ok(t.logs.some((l) => l.includes('trace-123') && l.includes('secret internals')), 'the log has the detail');
});

test('a constraint violation escaping a handler is a 409, not a 500', async () => {
  const r = await t.request('GET', '/api/test-unique', { key });
  assert.equal(r.status, 409);
});

test('every response has a request id; insane incoming ids are replaced', async () => {
  const r = await t.request('GET', '/api/version', { headers: { 'x-request-id': 'bad id with spaces' } });
  assert.match(r.headers.get('x-request-id')!, /^[0-9a-f-]{36}$/);
});

test('the UI is served with a single-page fallback and nothing outside ui/', async () => {
  const index = await t.request('GET', '/');
  assert.equal(index.status, 200);
  assert.match(index.headers.get('content-type')!, /text\/html/);
  assert.match(index.text, /netprobe/);
  const deep = await t.request('GET', '/monitors/123');
  assert.equal(deep.status, 200);
  assert.match(deep.text, /<html/);
  const missingAsset = await t.request('GET', '/app/missing.js');
  assert.equal(missingAsset.status, 404);
  for (const p of ['/../package.json', '/%2e%2e/package.json', '/..%2fpackage.json', '/%2e%2e%2f%2e%2e%2fetc/passwd']) {
    const r = await t.request('GET', p);
    assert.ok(!/"name": "netprobe"|root:/.test(r.text), `${p} leaked a file`);
  }
  const etag = index.headers.get('etag')!;
  assert.equal((await t.request('GET', '/', { headers: { 'if-none-match': etag } })).status, 304);
});
