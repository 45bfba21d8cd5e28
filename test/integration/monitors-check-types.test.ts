// GET /api/monitors/check-types against the real service: every check type with its label, icon, hint,
// target field, settings as JSON Schema that a real validator (Ajv, draft 2020-12, strict: no keyword it
// was not told of) accepts, with the defaults valid against it and a bound it states enforced by the API
// too; in the OpenAPI document; readable with monitors:read and refused without it.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { FORM_KEYWORDS } from '../../src/core/form-schema.js';
import { CHECK_TYPES } from '../../src/modules/monitors/checks/index.js';
import { assertProblem, startTestApp, type TestApp } from '../helpers/harness.js';

let t: TestApp;
let key: string;

before(async () => {
  t = await startTestApp();
  key = (await t.admin()).key;
});
after(() => t.close());

const PATH = '/api/monitors/check-types';

test('each check type with its label, icon, hint, target field, defaults and the monitor fields of its own', async () => {
  const r = await t.request('GET', PATH, { key });
  assert.equal(r.status, 200, r.text);
  assert.equal(r.body.total, r.body.items.length);
  assert.deepEqual(r.body.items.map((i: any) => i.type), CHECK_TYPES);
  for (const i of r.body.items) {
    for (const k of ['label', 'icon', 'hint']) assert.ok(typeof i[k] === 'string' && i[k], `${i.type}: ${k}`);
    for (const k of ['title', 'placeholder', 'description']) assert.ok(typeof i.target[k] === 'string' && i.target[k], `${i.type}: target.${k}`);
  }
  const byType = Object.fromEntries(r.body.items.map((i: any) => [i.type, i]));
  assert.equal(byType.http.label, 'HTTP(S)');
  assert.equal(byType.http.target.title, 'URL');
  assert.deepEqual(byType.ping.monitor_fields, ['max_loss_pct']);
  assert.deepEqual(byType.http.monitor_fields, []);
  assert.deepEqual(byType.ping.measurements, [{ name: 'loss_pct', unit: '%', label: 'Packet loss' }]);
  assert.deepEqual(byType.dns.measurements, []);
  assert.deepEqual(byType.dns.defaults, { record_type: 'A', port: 53, match: 'contains' });
  // A choice of variants with its secrets write-only; a titled choice; a map of header names to values.
  const auth = byType.http.settings.properties.auth;
  assert.deepEqual(auth.oneOf.map((v: any) => [v.title, v.properties.type.const]), [['Basic authentication', 'basic'], ['Bearer token', 'bearer']]);
  assert.equal(auth.oneOf[0].properties.password.writeOnly, true);
  assert.equal(auth.oneOf[1].properties.token.writeOnly, true);
  assert.equal(byType.dns.settings.properties.record_type.title, 'Record type');
  assert.deepEqual(byType.dns.settings.properties.match['x-enum-titles'], { contains: 'An answer contains it', equals: 'An answer equals it' });
  assert.equal(byType.http.settings.properties.headers.additionalProperties.title, 'Header value');
});

test('the settings are JSON Schema a validator accepts, the defaults valid, and a bound the schema states the API enforces', async () => {
  const ajv = new Ajv2020({ strict: true, allErrors: true });
  ajv.addVocabulary([...FORM_KEYWORDS]);
  const { items } = (await t.request('GET', PATH, { key })).body;
  for (const i of items) {
    assert.equal(ajv.validateSchema(i.settings), true, `${i.type}: ${JSON.stringify(ajv.errors)}`);
    const validate = ajv.compile(i.settings); // strict: throws on a keyword it was not told of
    assert.equal(validate(i.defaults), true, `${i.type} defaults: ${JSON.stringify(validate.errors)}`);
    assert.equal(validate({ ...i.defaults, no_such_setting: 1 }), false, `${i.type}: unknown settings are refused`);
  }
  // ping's count: at least 1 by the schema, and by the API (refused before any monitor exists).
  const ping = items.find((i: any) => i.type === 'ping');
  assert.equal(ping.settings.properties.count.minimum, 1);
  assert.equal(ajv.compile(ping.settings)({ count: 0 }), false);
  const refused = await t.request('POST', '/api/monitors', { key, body: { name: 'p', check_type: 'ping', target: '127.0.0.1', settings: { count: 0 } } });
  assertProblem(refused, 400, 'settings.count');
});

test('in the OpenAPI document with its response schema', async () => {
  const doc = (await t.request('GET', '/api/openapi.json')).body;
  const op = doc.paths[PATH]?.get;
  assert.ok(op, `${PATH} is in the document`);
  const schema = op.responses['200'].content['application/json'].schema;
  const item = schema.properties?.items?.items ?? {};
  assert.deepEqual(Object.keys(item.properties ?? {}).sort(),
    ['defaults', 'hint', 'icon', 'label', 'measurements', 'monitor_fields', 'settings', 'target', 'type']);
});

test('monitors:read reads it; a key without it, and no credentials, are refused', async () => {
  const viewer = await t.user('viewer', ['monitors:read']);
  assert.equal((await t.request('GET', PATH, { key: viewer.key })).status, 200);
  const other = await t.user('operator', ['webhooks:read']);
  assertProblem(await t.request('GET', PATH, { key: other.key }), 403);
  assertProblem(await t.request('GET', PATH), 401);
});
