// Walks every route in the registry, so it grows with every module: no credentials -> 401, a key
// without the scope -> 403, a viewer on a write -> 403, a non-admin on an admin route -> 403.
import { randomUUID } from 'node:crypto';
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { SCOPES, type Scope } from '../../src/core/auth/scopes.js';
import type { AnyRoute } from '../../src/core/http/registry.js';
import { startTestApp, type TestApp } from '../helpers/harness.js';

let t: TestApp;
let routes: readonly AnyRoute[];
before(async () => {
  t = await startTestApp();
  routes = t.service.app.routes.all();
});
after(() => t.close());

const pathOf = (r: AnyRoute) => r.path.replace(/:[A-Za-z0-9_]+/g, () => randomUUID());
const label = (r: AnyRoute) => `${r.method} ${r.path}`;

function assertProblem(res: { status: number; headers: Headers; body: any }, status: number, what: string) {
  assert.equal(res.status, status, `${what}: expected ${status}, got ${res.status} ${JSON.stringify(res.body)}`);
  assert.match(res.headers.get('content-type') ?? '', /application\/problem\+json/, `${what}: problem+json`);
  assert.equal(res.body.status, status, `${what}: body.status`);
  assert.ok(res.body.detail && res.body.code && res.body.title, `${what}: detail, code, title`);
}

const send = (r: AnyRoute, auth: { cookie?: string; key?: string }) =>
  t.request(r.method, pathOf(r), { ...auth, body: r.method === 'GET' ? undefined : {} });

test('the registry is not empty and every route has a summary', () => {
  assert.ok(routes.length >= 20, `only ${routes.length} routes`);
  for (const r of routes) assert.ok(r.summary, `${label(r)} has no summary`);
});

test('no credentials gives 401 on every route except auth: none', async () => {
  for (const r of routes.filter((r) => r.auth !== 'none')) assertProblem(await send(r, {}), 401, label(r));
});

test('a garbage API key and a garbage session cookie give 401', async () => {
  for (const r of routes.filter((r) => r.auth !== 'none')) {
    assertProblem(await send(r, { key: 'np_not-a-real-key' }), 401, `${label(r)} with a bad key`);
    assertProblem(await send(r, { cookie: 'np_session=forged' }), 401, `${label(r)} with a bad cookie`);
  }
});

test('a key without the needed scope gives 403', async () => {
  const a = await t.admin();
  const keys = new Map<string, string>();
  const keyWithout = async (needed: Scope | 'admin'): Promise<string> => {
    // Every scope except the needed one and those implying it.
    const area = needed.split(':')[0];
    const scopes = SCOPES.filter((s) => s !== 'admin' && (needed === 'admin' || !s.startsWith(area + ':')));
    const id = scopes.join(',');
    if (!keys.has(id)) {
      const k = await t.request('POST', '/api/api-keys', { cookie: a.cookie, body: { name: `without-${needed}`, scopes } });
      assert.equal(k.status, 201, k.text);
      keys.set(id, k.body.key);
    }
    return keys.get(id)!;
  };
  for (const r of routes.filter((r) => r.auth !== 'none' && r.auth !== 'user')) {
    const needed = r.admin ? 'admin' : r.scope!;
    assertProblem(await send(r, { key: await keyWithout(needed) }), 403, `${label(r)} with a key lacking ${needed}`);
  }
});

test('a viewer on a write gives 403', async () => {
  const v = await t.user('viewer');
  const writes = routes.filter((r) => r.method !== 'GET' && r.auth !== 'none' && r.auth !== 'user' && !r.self);
  assert.ok(writes.length > 0);
  for (const r of writes) {
    assertProblem(await send(r, { cookie: v.cookie }), 403, `viewer session on ${label(r)}`);
    assertProblem(await send(r, { key: v.key }), 403, `viewer key on ${label(r)}`);
  }
});

test('self-service routes refuse another user\'s record', async () => {
  const v = await t.user('viewer', ['system:read']);
  for (const r of routes.filter((r) => r.self && r.path.includes(':'))) {
    assertProblem(await send(r, { cookie: v.cookie }), 403, `viewer on someone else's ${label(r)}`);
  }
});

test('a non-admin on an admin route gives 403', async () => {
  const op = await t.user('operator', SCOPES.filter((s) => s !== 'admin'));
  for (const r of routes.filter((r) => r.admin)) {
    assertProblem(await send(r, { cookie: op.cookie }), 403, `operator session on ${label(r)}`);
    assertProblem(await send(r, { key: op.key }), 403, `operator key on ${label(r)}`);
  }
});

test('an admin key without the admin scope cannot reach admin routes; an admin-scoped key of an operator neither', async () => {
  const op = await t.user('operator');
  const k = await t.request('POST', '/api/api-keys', { cookie: op.cookie, body: { name: 'escalate', scopes: ['admin'] } });
  assert.equal(k.status, 403, 'an operator cannot mint an admin-scoped key');
});

test('unknown /api paths give a problem+json 404', async () => {
  const a = await t.admin();
  for (const p of ['/api/nope', '/api/monitors-typo/1', '/api/', '/api']) {
    assertProblem(await t.request('GET', p, {}), 404, `anonymous GET ${p}`);
    assertProblem(await t.request('POST', p, { key: a.key, body: {} }), 404, `admin POST ${p}`);
  }
});

// The routes open to all, named: a new one must be added here on purpose (and say in its docs what it shows).
const OPEN_TO_ALL = [
  'GET /api/auth/forgot-password', 'POST /api/auth/forgot-password', 'POST /api/auth/login', 'GET /api/auth/session',
  'GET /api/metrics', 'GET /api/openapi.json', 'GET /api/request-schema', 'POST /api/setup/bootstrap',
  'GET /api/setup/bootstrap-needed', 'GET /api/setup/needed', 'GET /api/v1sion/monitor/status', 'GET /api/v1sion/monitor/status/by-ip',
  'GET /api/version', 'GET /api/web-identity', 'GET /api/web-identity/favicon', 'GET /api/web-identity/logo',
  // Public status pages (docs/monitors.md, "Status pages"): the JSON form and the HTML (also at /status/<slug>).
  'GET /api/monitors/status-pages/public/:slug', 'GET /api/monitors/status-pages/public/:slug/page',
];

test('the routes open to all are exactly the listed ones', () => {
  assert.deepEqual(routes.filter((r) => r.auth === 'none').map(label).sort(), [...OPEN_TO_ALL].sort());
});

test('a public status page answers without credentials, and its editors\' routes do not', async () => {
  const a = await t.admin();
  const made = await t.request('POST', '/api/monitors/status-pages', { key: a.key, body: { slug: 'matrix', title: 'Matrix' } });
  assert.equal(made.status, 201, made.text);
  for (const p of ['/api/monitors/status-pages/public/matrix', '/api/monitors/status-pages/public/matrix/page', '/status/matrix']) {
    assert.equal((await t.request('GET', p)).status, 200, p);
  }
  assertProblem(await t.request('GET', `/api/monitors/status-pages/${made.body.id}`), 401, 'the page as its editors see it');
  assertProblem(await t.request('GET', '/api/monitors/status-pages'), 401, 'the list of pages');
});

// Routes that need a second scope besides the route's (`alsoScope`, core/auth/scopes.ts; docs/discovery.md, "Monitor
// parents from the topology"): a key with the route's scope but not the other is refused before anything is read. Taken
// from the registry, so a new such route is covered; the two known ones must be among them.
test('routes that need two scopes refuse a key with only the route\'s', async () => {
  const two = routes.filter((r) => r.alsoScope);
  for (const p of ['/api/v1sion/sessions/:id/parent-proposals', '/api/v1sion/sessions/:id/parent-proposals/apply']) {
    assert.ok(two.some((r) => r.path === p), `${p} declares its second scope`);
  }
  for (const r of two) {
    const { key } = await t.user('operator', [r.scope as Scope]);
    const res = await t.request(r.method, pathOf(r), { key, body: r.method === 'GET' ? undefined : {} });
    assertProblem(res, 403, `${label(r)} without ${r.alsoScope}`);
    assert.match(res.body.detail, new RegExp(r.alsoScope!), `${label(r)} names ${r.alsoScope}`);
  }
});
