// The authorisation matrix again, with every registered route's path spelt differently: each literal
// segment with one character percent-encoded (upper- and lower-case hex) and every literal segment fully
// encoded. Each spelling must get the same access decision, for the same route, as the plain one, for
// each kind of caller. A guard added for the walk refuses every request that passes the route's access
// rule, naming the route it matched, so no handler runs; unsafe methods carry a foreign Origin, which
// stops the few routes without authentication before theirs.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { request } from 'node:http';
import { after, before, test } from 'node:test';
import type { RequestGuard } from '../../src/core/auth/index.js';
import { SCOPES } from '../../src/core/auth/scopes.js';
import type { AnyRoute } from '../../src/core/http/registry.js';
import { startTestApp, type TestApp } from '../helpers/harness.js';

let t: TestApp;
let routes: readonly AnyRoute[];
let callers: { name: string; cookie?: string; key?: string }[];
/** An operator with every scope but admin. */
let operator: { cookie: string; key: string };

const reached: RequestGuard = (_p, r) => ({ code: 'reached', detail: `${r.method} ${r.path}` });

before(async () => {
  t = await startTestApp();
  routes = t.service.app.routes.all();
  const a = await t.admin();
  const op = await t.user('operator', ['brain:read', 'monitors:write']);
  const v = await t.user('viewer');
  operator = await t.user('operator', SCOPES.filter((s) => s !== 'admin'));
  callers = [
    { name: 'anonymous' }, { name: 'admin session', cookie: a.cookie }, { name: 'operator session', cookie: op.cookie },
    { name: 'operator key (brain:read, monitors:write)', key: op.key }, { name: 'viewer session', cookie: v.cookie },
  ];
  t.service.app.auth.guards.push(reached);
});
after(() => t.close());

const UNSAFE = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
const hex = (c: string) => c.charCodeAt(0).toString(16).padStart(2, '0');
/** A character whose code has a hex letter, so upper- and lower-case spellings differ (else the first). */
const pick = (s: string) => Math.max(0, [...s].findIndex((c) => /[a-f]/.test(hex(c))));
const encodeAt = (s: string, i: number, upper: boolean) => {
  const h = hex(s[i]!);
  return `${s.slice(0, i)}%${upper ? h.toUpperCase() : h}${s.slice(i + 1)}`;
};
const encodeAll = (s: string) => [...s].map((c, i) => `%${i % 2 ? hex(c) : hex(c).toUpperCase()}`).join('');

/** The plain path (parameters a fresh UUID, a real type for :type) and its other spellings. */
function spellings(r: AnyRoute): { plain: string; others: string[] } {
  const segs = r.path.split('/').filter(Boolean).map((s) => (s === ':type' ? 'endpoints' : s.startsWith(':') ? randomUUID() : s));
  const literal = r.path.split('/').filter(Boolean).map((s) => !s.startsWith(':'));
  const join = (parts: string[]) => '/' + parts.join('/');
  const others: string[] = [];
  segs.forEach((s, i) => {
    if (!literal[i]) return;
    for (const upper of [true, false]) others.push(join(segs.map((x, j) => (j === i ? encodeAt(x, pick(x), upper) : x))));
  });
  others.push(join(segs.map((x, j) => (literal[j] ? encodeAll(x) : x))));
  return { plain: join(segs), others: [...new Set(others)] };
}

/**
 * One request with the path sent exactly as written (fetch would resolve %2e%2e and . segments first);
 * an unsafe method carries `{}` and a foreign Origin.
 */
function send(method: string, path: string, caller: { cookie?: string; key?: string }): Promise<{ status: number; type: string; body: any }> {
  const headers: Record<string, string> = {};
  if (caller.cookie) headers.cookie = caller.cookie;
  if (caller.key) headers['x-api-key'] = caller.key;
  if (UNSAFE.has(method)) Object.assign(headers, { origin: 'http://elsewhere.invalid', 'content-type': 'application/json', 'content-length': '2' });
  const { hostname, port } = new URL(t.url);
  return new Promise((resolve, reject) => {
    const req = request({ hostname, port, method, path, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const type = res.headers['content-type'] ?? '';
        const text = Buffer.concat(chunks).toString();
        resolve({ status: res.statusCode!, type, body: /json/.test(type) && text ? JSON.parse(text) : text });
      });
    });
    req.on('error', reject);
    req.end(UNSAFE.has(method) ? '{}' : undefined);
  });
}

/** What the service decided: status, code and detail (which name the route for a request that passed). */
async function decision(method: string, path: string, caller: { cookie?: string; key?: string }): Promise<string> {
  const res = await send(method, path, caller);
  const p = typeof res.body === 'object' && res.body ? res.body as { code?: string; detail?: string } : {};
  return res.status >= 400 ? `${res.status} ${p.code} ${p.detail}` : `${res.status}`;
}

test('every route answers every caller the same whichever way its literal segments are percent-encoded', { timeout: 600_000 }, async () => {
  assert.ok(routes.length >= 100, `only ${routes.length} routes`);
  const mismatches: string[] = [];
  let sent = 0, passed = 0;
  for (const r of routes) {
    const { plain, others } = spellings(r);
    for (const c of callers) {
      const want = await decision(r.method, plain, c);
      // The plain spelling reaches its own route, or is refused before it (never a routing miss).
      assert.doesNotMatch(want, /route_not_found|method_not_allowed|invalid_path/, `${c.name} ${r.method} ${plain}`);
      if (want.includes(' reached ')) { assert.equal(want, `403 reached ${r.method} ${r.path}`); passed++; }
      for (const p of others) {
        sent++;
        const got = await decision(r.method, p, c);
        if (got !== want) mismatches.push(`${c.name} ${r.method} ${p}: ${got}, plain ${plain}: ${want}`);
      }
    }
  }
  assert.deepEqual(mismatches.slice(0, 20), [], `${mismatches.length} of ${sent} spellings were decided differently`);
  // Both outcomes were exercised: requests that passed the access rule and requests it refused.
  assert.ok(passed > routes.length && passed < routes.length * callers.length, `${passed} passed`);
});

test('an operator cannot reach the admin-only credential writes through an encoded path', async () => {
  const id = randomUUID();
  for (const [method, path] of [['POST', '/api/brain/%63redentials'], ['POST', '/api/brain/cr%65d%65nti%61ls'],
    ['PUT', `/api/brain/%63redentials/${id}`], ['DELETE', `/api/brain/%63redentials/${id}`], ['PUT', `/%61pi/brain/credential%73/${id}`]]) {
    for (const caller of [{ cookie: operator.cookie }, { key: operator.key }]) {
      const d = await decision(method!, path!, caller);
      assert.match(d, /^403 forbidden /, `operator ${method} ${path}: ${d}`);
    }
  }
});

test('a path segment that encodes a separator, a relative step or a control character is a 400 problem for every caller', async () => {
  const bad = ['/api/brain/endpoints%2Fx', '/api/brain/endpoints%2fx/1', '/api/brain%2Fcredentials', '/api/brain/endpoints/a%5Cb',
    '/api/brain/%2e%2e/credentials', '/api/brain/x/../credentials', '/api/brain/endpoints/%2E', '/api/brain/./credentials', '/api/brain/endpoints/a%00b', '/api/brain/endpoints/a%0Ab',
    '/api/brain/endpoints/%E0%A4%A', '/api/monitors/%C0%AE'];
  for (const c of callers) {
    for (const p of bad) {
      for (const method of ['GET', 'POST', 'PUT', 'DELETE']) {
        const res = await send(method, p, c);
        assert.equal(res.status, 400, `${c.name} ${method} ${p}: ${JSON.stringify(res.body)}`);
        assert.match(res.type, /application\/problem\+json/);
        assert.equal(res.body.code, 'invalid_path', `${c.name} ${method} ${p}`);
        assert.ok(res.body.detail && res.body.title && res.body.status === 400);
      }
    }
  }
});
