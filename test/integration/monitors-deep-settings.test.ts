// PUT /api/monitors/:id validates the shape of `settings` before it merges stored secrets into them
// (issue 12, item 4): settings nested deep are a 400 naming the field, as on create, whether they come
// through HTTP (under the parser's own nesting bound) or straight into the service (100,000 levels,
// which used to overflow the stack in mergeSecrets); the stored monitor is left as it was.
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { HttpError } from '../../src/core/errors.js';
import type { Actor } from '../../src/core/http/registry.js';
import { monitorsServiceOf } from '../../src/modules/monitors/index.js';
import { assertProblem, startTestApp, type TestApp } from '../helpers/harness.js';

function nested(depth: number, key = 'a', leaf: unknown = 'x'): Record<string, unknown> {
  let v: unknown = leaf;
  for (let i = 0; i < depth; i++) v = { [key]: v };
  return v as Record<string, unknown>;
}

const actor: Actor = { actor: 'test', auditEntry: (action, target, details) => ({ action, actor: 'test', target, details }) };

describe('monitor update: settings shape before merge', () => {
  let t: TestApp;
  let key: string;
  let web: Server;
  let id: string;
  const api = (method: string, path: string, body?: unknown) => t.request(method, path, { key, body });

  before(async () => {
    web = createServer((req, res) => {
      res.writeHead(req.headers.authorization === `Basic ${Buffer.from('probe:pw-1').toString('base64')}` ? 200 : 401).end();
    });
    await new Promise<void>((r) => web.listen(0, '127.0.0.1', r));
    t = await startTestApp();
    key = (await t.admin()).key;
    const r = await api('POST', '/api/monitors', {
      name: 'deep', check_type: 'http', target: `http://127.0.0.1:${(web.address() as AddressInfo).port}/`, interval: 3600,
      settings: { auth: { type: 'basic', username: 'probe', password: 'pw-1' }, headers: { 'X-API-Key': 'k-1' } },
    });
    assert.equal(r.status, 201, r.text);
    id = r.body.id;
  });
  after(async () => {
    await t.close();
    web.closeAllConnections();
    await new Promise<void>((r) => web.close(() => r()));
  });

  test('through HTTP: wrong settings nested 20 deep are a 400 naming the field, on update as on create', async () => {
    const cases: [unknown, string][] = [
      [nested(20), 'settings'],
      [{ auth: nested(20) }, 'settings.auth.type'],
      [{ auth: { type: 'basic', username: 'probe', password: nested(20) } }, 'settings.auth.password'],
      [{ headers: { 'X-API-Key': nested(20) } }, 'settings.headers.X-API-Key'],
    ];
    for (const [settings, field] of cases) {
      assertProblem(await api('PUT', `/api/monitors/${id}`, { settings }), 400, field);
      const create = { name: 'x', check_type: 'http', target: 'http://127.0.0.1/', settings };
      assertProblem(await api('POST', '/api/monitors', create), 400, field);
    }
  });

  test('straight into the service: 60 and 100,000 levels are a 400 naming the field, never a stack overflow', async () => {
    const service = monitorsServiceOf(t.service.app)!;
    const before = t.service.app.store.get('SELECT * FROM monitors WHERE id = ?', [id]);
    for (const depth of [60, 100_000]) {
      const cases: [Record<string, unknown>, string][] = [
        [nested(depth), 'settings'],
        [{ auth: nested(depth) }, 'settings.auth.type'],
        [{ auth: { type: 'basic', username: 'probe', password: nested(depth) } }, 'settings.auth.password'],
        [{ headers: nested(depth, 'Authorization') }, 'settings.headers.Authorization'],
        [{ auth: { type: 'basic', username: 'probe', password: { set: true } }, body: nested(depth) }, 'settings.body'],
      ];
      for (const [settings, field] of cases) {
        await assert.rejects(service.update(id, { settings }, actor), (e: unknown) => {
          assert.ok(e instanceof HttpError, String(e));
          assert.equal(e.status, 400);
          assert.ok(e.errors?.some((x) => x.path === field), `${depth}: ${JSON.stringify(e.errors)}`);
          return true;
        });
      }
    }
    assert.deepEqual(t.service.app.store.get('SELECT * FROM monitors WHERE id = ?', [id]), before, 'nothing changed');
    const c = await api('POST', `/api/monitors/${id}/check`);
    assert.equal(c.body.result.status, 'up', 'the stored secrets still work');
  });

  test('markers and secrets left out still keep the stored values', async () => {
    const settings = { auth: { type: 'basic', username: 'probe' }, headers: { 'X-API-Key': { set: true } } };
    const r = await api('PUT', `/api/monitors/${id}`, { settings });
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(r.body.settings.auth, { type: 'basic', username: 'probe', password: { set: true } });
    assert.equal((await api('POST', `/api/monitors/${id}/check`)).body.result.status, 'up');
  });
});
