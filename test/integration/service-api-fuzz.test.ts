// Walks every route in the registry, like the authorisation matrix, so it grows with every module:
// malformed path parameters, query values and body fields (wrong types, huge and deep values, control
// characters, prototype keys), whole bodies of the wrong shape, wrong content types and broken bytes.
// No answer may be a 500, every error must be problem+json, the service must live, and the data made
// before the walk must be intact after it.
//
// Only parts a route declares a schema for are fuzzed, so every request fails validation before the
// handler runs, or reaches it with junk it must refuse: a route with no schema at all (lock the vault,
// clear the event log, restart) has nothing to fuzz and is left alone.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { z } from 'zod';
import type { AnyRoute } from '../../src/core/http/registry.js';
import { startTestApp, type TestApp } from '../helpers/harness.js';

let t: TestApp;
let key: string;
const made: Record<string, string> = {};

const json = (v: unknown) => JSON.stringify(v);
const nest = (depth: number, leaf: unknown = 1): unknown => {
  let v = leaf;
  for (let i = 0; i < depth; i++) v = i % 2 ? [v] : { a: v };
  return v;
};

/** Values that are wrong for most fields; whatever one of them is accepted must not hurt. */
const BAD_VALUES: unknown[] = [
  12345, -1, 1.5, 1e308, true, null, '', 'x', [], {}, [1, 'a', null], { nested: { x: 1 } },
  'x'.repeat(100_000), nest(20), 'a\u0000b', 'two\nlines', 'esc\u001b[0m', '\ud800', '../../etc/passwd',
  "' OR 1=1 --", '%00', '${jndi:x}', '<script>alert(1)</script>', '9'.repeat(400), '2026-13-45T99:99:99Z',
];
/** Values no field of any route may accept: sent to the records made before, which must not change. */
const NEVER_VALID: unknown[] = [nest(20), nest(20, 'x'), 'a\u0000b', '\ud800', 'esc\u001b[0m', 'x'.repeat(100_000), ['a\u0000']];
/** Raw bodies that are wrong as a whole. */
const BAD_BODIES: string[] = [
  '[]', '"a string"', 'null', '123', 'true', '{', '{"a":1,}', json(nest(40)), json(nest(30)),
  '{"__proto__":{"polluted":true}}', '{"constructor":{"prototype":{"polluted":true}}}', '{"\u0000":1}',
];
const BAD_SEGMENTS = [
  '%00', '%0a', 'x'.repeat(5000), '%E0%A4%A', '..%2F..%2Fetc%2Fpasswd', '__proto__', 'constructor', '-1',
  '99999999999999999999', '%F0%9F%92%A9', "'%20OR%201=1--", '%C0%AE', 'EP-0', 'EP-99999999999999999999',
];
const BAD_QUERY_VALUES = ['', 'abc', '-1', '1e309', 'NaN', '%00', '%0d%0a', 'x'.repeat(10_000), '2026-99-99', '[]', '{}'];

function fieldsOf(schema: z.ZodType | undefined): string[] {
  if (!schema) return [];
  const js = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>;
  const names = new Set<string>();
  const collect = (s: unknown) => {
    if (!s || typeof s !== 'object') return;
    const o = s as Record<string, unknown>;
    for (const k of Object.keys((o.properties as object | undefined) ?? {})) names.add(k);
    for (const alt of ['anyOf', 'oneOf', 'allOf'] as const) for (const b of (o[alt] as unknown[] | undefined) ?? []) collect(b);
  };
  collect(js);
  return [...names];
}

/** The route's path with each parameter a harmless value (a fresh UUID; a real type for :type). */
function pathWith(r: AnyRoute, fuzzed?: { name: string; value: string }): string {
  return r.path.replace(/:([A-Za-z0-9_]+)/g, (_m, name: string) => {
    if (fuzzed?.name === name) return fuzzed.value;
    if (name === 'type') return 'endpoints';
    if (name === 'key') return '1'; // a polled interface's key is a number
    return randomUUID();
  });
}

let sent = 0;
const failures: string[] = [];

/**
 * One request; records what is wrong with its answer (given `code`, any answer but that problem). SSE and other
 * streams are cut after the headers.
 */
async function probe(r: AnyRoute, what: string, path: string, body?: { raw: string | Buffer; type: string }, code?: string): Promise<void> {
  sent++;
  const headers: Record<string, string> = { 'x-api-key': key };
  if (body) headers['content-type'] = body.type;
  let res: Response;
  try {
    res = await fetch(t.url + path, { method: r.method, headers, body: body?.raw as BodyInit | undefined, signal: AbortSignal.timeout(15_000) });
  } catch (e) {
    failures.push(`${r.method} ${r.path} ${what}: no answer (${(e as Error).message})`);
    return;
  }
  const type = res.headers.get('content-type') ?? '';
  if (type.startsWith('text/event-stream')) { await res.body?.cancel(); return; }
  const text = await res.text();
  const where = `${r.method} ${r.path} ${what}: ${res.status}`;
  if (code && !text.includes(`"code":"${code}"`)) failures.push(`${where} is not a ${code} problem: ${text.slice(0, 200)}`);
  // A program the probe drives that is not installed is a 503 with its install hint, whatever the input:
  // the overlay programs are pointed at paths that do not exist (before()), so junk can never start them.
  if (res.status >= 500 && !(res.status === 503 && /"code":"program_missing"/.test(text))) failures.push(`${where} ${text.slice(0, 300)}`);
  else if (res.status >= 400) {
    if (!/application\/problem\+json/.test(type)) { failures.push(`${where} is not problem+json (${type})`); return; }
    const p = JSON.parse(text) as { status?: number; code?: string; detail?: string };
    if (p.status !== res.status || !p.code || !p.detail) failures.push(`${where} problem lacks status/code/detail: ${text.slice(0, 200)}`);
  }
}

/** What the walk must leave as it was, read through the API. */
async function snapshot(): Promise<string> {
  const get = async (path: string) => {
    const r = await t.request('GET', path, { key });
    assert.equal(r.status, 200, `${path}: ${r.text}`);
    return r.body;
  };
  const m = await get(`/api/monitors/${made.monitor}`);
  const e = await get(`/api/brain/endpoints/${made.endpoint}`);
  const w = (await get('/api/webhooks')).items.find((x: { id: string }) => x.id === made.webhook);
  const u = await get(`/api/users/${made.user}`);
  const c = await get(`/api/brain/credentials/${made.credential}`);
  const tpl = await get(`/api/snmp/templates/${made.template}`);
  const polled = await get(`/api/snmp/polling/${made.polled}`);
  return json({
    monitor: [m.name, m.check_type, m.target, m.interval, m.tags, m.settings],
    endpoint: [e.name, e.updated_at, e.ip_addresses ?? e.addresses, e.notes],
    webhook: [w?.name, w?.url, w?.type, w?.updated_at],
    user: [u.username, u.role, u.updated_at],
    credential: [c.name, c.kind ?? c.type, c.updated_at],
    template: [tpl.name, tpl.target, tpl.oids, tpl.updated_at],
    polled: [polled.name, polled.target, polled.port, polled.interval_s, polled.enabled, polled.updated_at],
    statusPage: await get(`/api/monitors/status-pages/${made.statusPage}`),
    monitors: (await get('/api/monitors')).monitors.length,
    vault: (await get('/api/brain/vault/status')),
  });
}

before(async () => {
  const dataDir = await mkdtemp(join(tmpdir(), 'netprobe-fuzz-'));
  await writeFile(join(dataDir, 'config.yaml'),
    'oob:\n  zerotier_cli: /nonexistent/zerotier-cli\n  tailscale_cli: /nonexistent/tailscale\n');
  t = await startTestApp({ dataDir });
  key = (await t.admin()).key;
  const ok = async (method: string, path: string, body: unknown) => {
    const r = await t.request(method, path, { key, body });
    assert.ok(r.status === 200 || r.status === 201, `${method} ${path}: ${r.status} ${r.text}`);
    return r.body;
  };
  made.monitor = (await ok('POST', '/api/monitors', { name: 'keep-me', check_type: 'tcp', target: '127.0.0.1:9', interval: 3600, tags: ['fuzz'] })).id;
  made.endpoint = (await ok('POST', '/api/brain/endpoints', { name: 'keep-endpoint', notes: 'two\nlines' })).id;
  made.webhook = (await ok('POST', '/api/webhooks', { name: 'keep-hook', url: 'http://127.0.0.1:9/hook' })).id;
  made.user = (await ok('POST', '/api/users', { username: 'keep-user', password: 'a long enough password', role: 'viewer' })).id;
  await ok('POST', '/api/brain/vault/setup', { passphrase: 'a passphrase long enough for the vault' });
  made.credential = (await ok('POST', '/api/brain/credentials', { scope: ['127.0.0.0/8'], name: 'keep-cred', kind: 'snmp_v2c', community: 'keep' })).id;
  made.template = (await ok('POST', '/api/snmp/templates', { name: 'keep-template', target: '127.0.0.1', credential_id: made.credential, oids: ['sysDescr'] })).id;
  // Polled every 5 minutes from a port nothing answers on: it keeps its settings whatever the walk sends.
  made.polled = (await ok('POST', '/api/snmp/polling', { name: 'keep-polled', target: '127.0.0.1', port: 9, credential_id: made.credential, interval_s: 300, enabled: false })).id;
  made.statusPage = (await ok('POST', '/api/monitors/status-pages', { slug: 'keep-page', title: 'keep-page',
    groups: [{ name: 'keep', monitors: [{ id: made.monitor, alias: 'kept' }] }] })).id;
});
after(() => t.close());

test('malformed input on every route gets a 4xx problem, never a 500, and the data made before is intact', { timeout: 600_000 }, async () => {
  const before = await snapshot();
  const routes = t.service.app.routes.all().filter((r) => r.params || r.query || (r.body && !r.rawBody));
  assert.ok(routes.length >= 40, `only ${routes.length} routes with a schema`);

  for (const r of routes) {
    for (const name of (r.path.match(/:[A-Za-z0-9_]+/g) ?? []).map((p) => p.slice(1))) {
      for (const value of BAD_SEGMENTS) {
        // Leave unsafe methods' bodies out: the point is the parameter (and an empty body is `{}`).
        await probe(r, `:${name}=${value.slice(0, 20)}`, pathWith(r, { name, value }));
      }
    }
    if (r.query) {
      const base = pathWith(r);
      for (const field of [...fieldsOf(r.query), '__proto__', 'constructor']) {
        for (const v of BAD_QUERY_VALUES) await probe(r, `?${field}=${v.slice(0, 20)}`, `${base}?${encodeURIComponent(field)}=${v}`);
        await probe(r, `?${field} twice`, `${base}?${field}=1&${field}=2`);
      }
    }
    if (r.body && !r.rawBody) {
      const path = pathWith(r);
      for (const field of fieldsOf(r.body)) {
        for (const v of BAD_VALUES) await probe(r, `body.${field}=${json(v).slice(0, 20)}`, path, { raw: json({ [field]: v }), type: 'application/json' });
      }
      for (const raw of BAD_BODIES) await probe(r, `body ${raw.slice(0, 20)}`, path, { raw, type: 'application/json' });
      await probe(r, 'invalid UTF-8', path, { raw: Buffer.from([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x3a, 0x31, 0x7d]), type: 'application/json' });
      // Not UTF-8 in a field's value: refused as such, never stored with U+FFFD in its place.
      for (const field of fieldsOf(r.body)) {
        const raw = Buffer.concat([Buffer.from(`{"${field}":"`), Buffer.from([0xff, 0xfe]), Buffer.from('"}')]);
        await probe(r, `body.${field} not UTF-8`, path, { raw, type: 'application/json' }, 'invalid_utf8');
      }
      await probe(r, 'text/plain', path, { raw: '{"name":"x"}', type: 'text/plain' });
      await probe(r, 'multipart', path, { raw: '--b\r\n\r\nx\r\n--b--', type: 'multipart/form-data; boundary=b' });
      await probe(r, 'a body over the limit', path, { raw: json({ x: 'x'.repeat(2 * 1024 * 1024) }), type: 'application/json' });
    }
  }
  // Updates of the real records, with values no field may accept, reach deeper into the handlers.
  const real: Record<string, string> = {
    '/api/monitors/:id': made.monitor!, '/api/brain/:type/:id': `endpoints/${made.endpoint}`, '/api/webhooks/:id': made.webhook!,
    '/api/users/:id': made.user!, '/api/brain/credentials/:id': made.credential!, '/api/snmp/templates/:id': made.template!,
    '/api/snmp/polling/:id': made.polled!,
    '/api/monitors/status-pages/:id': made.statusPage!,
  };
  for (const r of routes.filter((r) => r.body && real[r.path])) {
    const path = r.path.replace(/:type\/:id|:id/, real[r.path]!);
    for (const field of fieldsOf(r.body)) {
      for (const v of NEVER_VALID) await probe(r, `real body.${field}=${json(v).slice(0, 20)}`, path, { raw: json({ [field]: v }), type: 'application/json' });
    }
  }
  assert.deepEqual(failures, [], `${failures.length} of ${sent} requests went wrong`);
  assert.ok(sent > 2000, `only ${sent} requests`);
  // The service lives and answers, and what was there before is as it was.
  assert.equal((await t.request('GET', '/api/version')).status, 200);
  assert.equal(await snapshot(), before);
  assert.equal(({} as Record<string, unknown>).polluted, undefined, 'Object.prototype was polluted');
});
