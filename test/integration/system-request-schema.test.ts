// GET /api/request-schema against the real service: the JSON Schema of the body a request takes, for a form
// to check its fields with the server's rules (ui/lib/request-check.js). Without signing in, like the
// OpenAPI document; an inventory type's own fields for the inventory's one route; null for a request
// without a JSON body; 404 for no such endpoint.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { assertProblem, startTestApp, type TestApp } from '../helpers/harness.js';

let t: TestApp;
before(async () => { t = await startTestApp(); });
after(() => t.close());

const ask = (method: string, path: string) =>
  t.request('GET', `/api/request-schema?${new URLSearchParams({ method, path })}`);

test('an inventory type\'s fields, for a new record and for a change', async () => {
  const created = await ask('POST', '/api/brain/sites');
  assert.equal(created.status, 200, created.text);
  assert.equal(created.body.path, '/api/brain/:type');
  const site = created.body.schema;
  assert.deepEqual(site.required, ['name']);
  assert.equal(site.additionalProperties, false);
  const lat = site.properties.latitude.anyOf.find((s: { type: string }) => s.type === 'number');
  assert.deepEqual([lat.minimum, lat.maximum], [-90, 90]);
  assert.ok(!('cidr' in site.properties), 'a site\'s fields, not a subnet\'s');
  const changed = await ask('PUT', '/api/brain/subnets/SN-1');
  assert.equal(changed.body.path, '/api/brain/:type/:id');
  assert.ok('cidr' in changed.body.schema.properties);
  assert.equal(changed.body.schema.required, undefined, 'a change may leave any field out');
  const cred = await ask('POST', '/api/brain/credentials');
  assert.ok('kind' in cred.body.schema.properties);
});

test('any endpoint\'s body as its route declares it; none without a JSON body; 404 and 400 otherwise', async () => {
  const users = await ask('PUT', '/api/users/42');
  assert.equal(users.body.path, '/api/users/:id');
  assert.ok('current_password' in users.body.schema.properties);
  const del = await ask('DELETE', '/api/users/42');
  assert.equal(del.status, 200, del.text);
  assert.equal(del.body.schema, null);
  assertProblem(await ask('POST', '/api/nothing-here'), 404);
  assertProblem(await ask('GET', '/api/users'), 400, 'query.method');
  assertProblem(await ask('POST', '/users'), 400, 'query.path');
});
