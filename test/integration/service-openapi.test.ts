// The OpenAPI document is generated from the registry and must be valid OpenAPI 3.1 by a real validator.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Validator } from '@seriousme/openapi-schema-validator';
import { startTestApp, type TestApp } from '../helpers/harness.js';

let t: TestApp;
before(async () => { t = await startTestApp(); });
after(() => t.close());

test('GET /api/openapi.json is valid OpenAPI 3.1 and lists every registered route', async () => {
  const res = await t.request('GET', '/api/openapi.json');
  assert.equal(res.status, 200);
  const doc = res.body;
  assert.equal(doc.openapi, '3.1.0');
  const v = new Validator();
  const result = await v.validate(doc);
  assert.equal(result.valid, true, JSON.stringify(result.errors, null, 2)?.slice(0, 4000));
  for (const r of t.service.app.routes.all()) {
    const p = r.path.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
    assert.ok(doc.paths[p]?.[r.method.toLowerCase()], `${r.method} ${r.path} missing from the document`);
  }
  const ids = Object.values(doc.paths).flatMap((ops: any) => Object.values(ops).map((o: any) => o.operationId));
  assert.equal(new Set(ids).size, ids.length, 'operationIds are unique');
});

test('every route describes its answer: a response schema, a declared content type, or no content (204)', async () => {
  // A route without a response schema is documented as 204 No Content: that must be what it answers.
  // Those are deletions and logout; any other route returns a body and must describe it.
  const bare = t.service.app.routes.all()
    .filter((r) => !r.response && !r.produces && r.status === undefined)
    .map((r) => `${r.method} ${r.path}`)
    .filter((r) => !r.startsWith('DELETE ') && r !== 'POST /api/auth/logout');
  assert.deepEqual(bare, [], 'routes that answer a body with no response schema (declare `response`)');
});

test('GET /api/developer/routes lists the registry for an admin', async () => {
  const a = await t.admin();
  const res = await t.request('GET', '/api/developer/routes', { key: a.key });
  assert.equal(res.status, 200);
  assert.equal(res.body.total, t.service.app.routes.all().length);
  const login = res.body.items.find((i: any) => i.path === '/api/auth/login');
  assert.equal(login.access, 'none');
  assert.equal(res.body.items.find((i: any) => i.path === '/api/developer/routes').access, 'admin');
});

test('GET /api/version answers without credentials and says alpha', async () => {
  const res = await t.request('GET', '/api/version');
  assert.equal(res.status, 200);
  assert.match(res.body.version, /^\d+\.\d+\.\d+-alpha/);
  assert.equal(res.body.prerelease, true);
});
