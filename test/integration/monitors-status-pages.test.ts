// Status pages through the real HTTP API against the real service, with real targets on loopback:
// - the editors' API: every field error of a bad page in one 400, a taken slug a 409, an unknown monitor a
//   400 naming its field; a viewer reads and cannot write; every change is audited;
// - readers without signing in: /status/<slug> (HTML) and the JSON form show the groups, each monitor by its
//   alias with its state; a state change shows at once (the cached document is made again), an unchanged
//   page is the same document (304 on If-None-Match, not made again); an unknown slug is an HTML 404 at
//   /status/ and a problem at the API;
// - the 90-day bar from the day rollups (a down day, today from the hours in memory) and the maintenance
//   notice from a window that touches one of the page's monitors (and not from one that does not).
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import { statusDocumentsOf } from '../../src/modules/monitors/index.js';
import { assertProblem, startTestApp, type TestApp } from '../helpers/harness.js';

let t: TestApp;
let key: string;
let web: Server;
let base = '';
const fail = new Set<string>();
const ids: Record<string, string> = {};

const api = <T = any>(method: string, path: string, body?: unknown) => t.request<T>(method, path, { key, body });
const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

async function until(what: string, ok: () => Promise<boolean> | boolean): Promise<void> {
  for (let i = 0; i < 500; i++) { if (await ok()) return; await sleep(10); }
  throw new Error(`timed out waiting for ${what}`);
}

before(async () => {
  t = await startTestApp();
  key = (await t.admin()).key;
  web = createServer((req, res) => { res.statusCode = fail.has(req.url ?? '') ? 500 : 200; res.end('ok'); });
  await new Promise<void>((r) => web.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(web.address() as AddressInfo).port}`;
  for (const [name, tags] of [['core-switch', ['core']], ['edge-router', ['edge']], ['backup-nas', ['nas']]] as const) {
    const r = await api('POST', '/api/monitors', { name, check_type: 'http', target: `${base}/${name}`, interval: 3600, timeout: 2,
      failure_threshold: 1, tags });
    assert.equal(r.status, 201, r.text);
    ids[name] = r.body.id;
  }
  await until('first checks', async () => (await api('GET', '/api/monitors')).body.monitors.every((m: any) => m.status === 'up'));
});
after(async () => {
  await t.close();
  web.close();
});

test('a bad page gets every field error in one 400; a taken slug is a 409; an unknown monitor names its field', async () => {
  const bad = await api('POST', '/api/monitors/status-pages', {
    slug: 'Not A Slug', title: '', groups: [{ name: '', monitors: [{ id: ids['core-switch'] }, { id: ids['core-switch'] }] }], extra: 1,
  });
  assertProblem(bad, 400);
  const paths = bad.body.errors.map((e: any) => e.path).sort();
  for (const p of ['slug', 'title', 'groups.0.name', 'groups.0.monitors.1.id', 'extra']) assert.ok(paths.includes(p), `${p} in ${paths}`);
  assertProblem(await api('POST', '/api/monitors/status-pages', { slug: '-x', title: 'x' }), 400, 'slug');
  assertProblem(await api('POST', '/api/monitors/status-pages', { slug: 'ok', title: 'x',
    groups: [{ name: 'g', monitors: [{ id: '00000000-0000-4000-8000-000000000000' }] }] }), 400, 'groups.0.monitors.0.id');

  const a = await api('POST', '/api/monitors/status-pages', { slug: 'taken', title: 'First' });
  assert.equal(a.status, 201, a.text);
  assert.equal(a.body.url, '/status/taken');
  const dup = await api('POST', '/api/monitors/status-pages', { slug: 'taken', title: 'Second' });
  assertProblem(dup, 409, 'slug');
  assert.equal(dup.body.code, 'slug_taken');
  const b = await api('POST', '/api/monitors/status-pages', { slug: 'other', title: 'Second' });
  assertProblem(await api('PUT', `/api/monitors/status-pages/${b.body.id}`, { slug: 'taken' }), 409, 'slug');
  assert.equal((await api('PUT', `/api/monitors/status-pages/${b.body.id}`, { slug: 'moved' })).body.slug, 'moved');
  assert.equal((await t.request('GET', '/api/monitors/status-pages/public/other')).status, 404, 'the old address is gone');
  assert.equal((await t.request('GET', '/api/monitors/status-pages/public/moved')).status, 200);
  for (const id of [a.body.id, b.body.id]) assert.equal((await api('DELETE', `/api/monitors/status-pages/${id}`)).status, 204);
  assertProblem(await t.request('GET', '/api/monitors/status-pages/public/taken'), 404);
});

test('a viewer reads pages and cannot change them; an operator can; each change is audited', async () => {
  const viewer = await t.user('viewer');
  const op = await t.user('operator');
  const made = await t.request('POST', '/api/monitors/status-pages', { key: op.key, body: { slug: 'ops', title: 'Ops' } });
  assert.equal(made.status, 201, made.text);
  assert.equal((await t.request('GET', '/api/monitors/status-pages', { key: viewer.key })).status, 200);
  assertProblem(await t.request('POST', '/api/monitors/status-pages', { key: viewer.key, body: { slug: 'v', title: 'V' } }), 403);
  assertProblem(await t.request('PUT', `/api/monitors/status-pages/${made.body.id}`, { cookie: viewer.cookie, body: { title: 'V' } }), 403);
  assertProblem(await t.request('GET', '/api/monitors/status-pages'), 401);
  assert.equal((await t.request('PUT', `/api/monitors/status-pages/${made.body.id}`, { key: op.key, body: { title: 'Ops 2' } })).status, 200);
  assert.equal((await t.request('DELETE', `/api/monitors/status-pages/${made.body.id}`, { key: op.key })).status, 204);
  const audit = (await api('GET', '/api/audit-log?action=monitors.status_page.*&limit=50')).body.items
    .filter((e: any) => e.details?.id === made.body.id).map((e: any) => e.action).sort();
  assert.deepEqual(audit, ['monitors.status_page.create', 'monitors.status_page.delete', 'monitors.status_page.update']);
});

test('readers see the page signed out, a state change at once, and the same document while nothing changes', async () => {
  const made = await api('POST', '/api/monitors/status-pages', {
    slug: 'public-services', title: 'Example services', description: 'What our customers use',
    groups: [{ name: 'Network', monitors: [{ id: ids['core-switch'], alias: 'Core network' }, { id: ids['edge-router'] }] }],
  });
  assert.equal(made.status, 201, made.text);
  const page = await fetch(`${t.url}/status/public-services`);
  assert.equal(page.status, 200);
  assert.match(page.headers.get('content-type') ?? '', /^text\/html/);
  assert.match(page.headers.get('content-security-policy') ?? '', /default-src 'none'/);
  assert.equal(page.headers.get('x-frame-options'), 'DENY');
  assert.match(page.headers.get('cache-control') ?? '', /public, max-age=10/);
  const html = await page.text();
  for (const s of ['<h1>Example services</h1>', 'What our customers use', '<h2>Network</h2>', 'Core network', 'edge-router',
    'All systems operational']) assert.ok(html.includes(s), `page shows ${s}`);
  assert.ok(!html.includes('core-switch'), 'the alias replaces the name');
  assert.ok(!html.includes('<script'), 'no script');

  const json = await (await fetch(`${t.url}/api/monitors/status-pages/public/public-services`)).json() as any;
  assert.deepEqual(json.groups[0].monitors.map((m: any) => [m.name, m.status]), [['Core network', 'up'], ['edge-router', 'up']]);
  assert.equal(json.groups[0].monitors[0].days.length, 90);
  assert.equal(json.groups[0].monitors[0].days.at(-1).state, 'up', 'today, from the hours in memory');

  // Unchanged: the same document (304 on its ETag), not made again.
  const docs = statusDocumentsOf(t.service.app);
  const etag = page.headers.get('etag')!;
  const builds = docs.builds;
  const again = await fetch(`${t.url}/status/public-services`, { headers: { 'if-none-match': etag } });
  assert.equal(again.status, 304);
  assert.equal(docs.builds, builds);

  // A state change shows at once (at most a second later).
  await sleep(1100);
  fail.add('/edge-router');
  assert.equal((await api('POST', `/api/monitors/${ids['edge-router']}/check`)).status, 200);
  await until('the page shows the outage', async () => {
    const j = await (await fetch(`${t.url}/api/monitors/status-pages/public/public-services`)).json() as any;
    return j.groups[0].monitors[1].status === 'down' && j.status === 'down' && j.summary === 'Partial outage';
  });
  const after = await fetch(`${t.url}/status/public-services`, { headers: { 'if-none-match': etag } });
  assert.equal(after.status, 200, 'a new document');
  assert.ok((await after.text()).includes('Partial outage'));
  fail.delete('/edge-router');
  await api('POST', `/api/monitors/${ids['edge-router']}/check`);

  // A compressed copy for clients that take one.
  const gz = await fetch(`${t.url}/status/public-services`, { headers: { 'accept-encoding': 'gzip' } });
  assert.equal(gz.headers.get('content-encoding'), 'gzip');
});

test('an unknown address is an HTML 404 page at /status/ and a problem at the API', async () => {
  const r = await fetch(`${t.url}/status/no-such-page`);
  assert.equal(r.status, 404);
  assert.match(r.headers.get('content-type') ?? '', /^text\/html/);
  assert.ok((await r.text()).includes('No such status page'));
  assertProblem(await t.request('GET', '/api/monitors/status-pages/public/no-such-page/page'), 404);
  assertProblem(await t.request('GET', '/api/monitors/status-pages/public/no-such-page'), 404);
  // An address that is no slug at all is no page either: HTML for a browser, not a JSON 400.
  const odd = await fetch(`${t.url}/status/Not%20A%20Slug!`);
  assert.equal(odd.status, 404);
  assert.match(odd.headers.get('content-type') ?? '', /^text\/html/);
  assertProblem(await t.request('GET', '/api/monitors/status-pages/public/Not%20A%20Slug!/page'), 404);
});

test('the 90-day bar reads the day rollups; the notice names maintenance that touches the page, not other maintenance', async () => {
  const made = await api('POST', '/api/monitors/status-pages', {
    slug: 'bars', title: 'Bars', notice: 'Phones are answered 08:00-18:00',
    groups: [{ name: 'Storage', monitors: [{ id: ids['backup-nas'], alias: 'Backups' }] }],
  });
  assert.equal(made.status, 201, made.text);
  // A day ten days ago with an hour down (its rollup row as the hour closer writes it).
  const app = t.service.app;
  const pk = app.store.all<{ pk: number }>('SELECT pk FROM monitors WHERE id = ?', [ids['backup-nas']])[0]!.pk;
  const day = Math.floor(Date.now() / 86_400_000) * 86_400 - 10 * 86_400;
  await app.store.write((tx) => tx.run(`INSERT INTO monitor_rollups (m, k, b, checks, up, degraded, down, rt_sum, rt_count, ms_up,
    ms_degraded, ms_down) VALUES (?, 2, ?, 24, 23, 0, 1, 0, 0, ?, 0, ?)`, [pk, day, 23 * 3_600_000, 3_600_000]));

  // A window for the page's monitor's tag, next week; and one for another monitor only.
  // 06:00-08:00 UTC two days ahead: one day, whatever the time the test runs (at 22:00 "now + 2 h" crosses midnight).
  const from = (Math.floor(Date.now() / 86_400_000) + 2) * 86_400_000 + 6 * 3_600_000, to = from + 2 * 3_600_000;
  const once = { kind: 'once', from: new Date(from).toISOString(), to: new Date(to).toISOString() };
  assert.equal((await api('POST', '/api/monitors/maintenance', { name: 'Secret NAS swap', description: 'rack 7', schedule: once,
    applies_to: 'tags', tags: ['nas'] })).status, 201);
  assert.equal((await api('POST', '/api/monitors/maintenance', { name: 'Other', schedule: once, applies_to: 'monitors',
    monitor_ids: [ids['core-switch']] })).status, 201);

  const j = await (await fetch(`${t.url}/api/monitors/status-pages/public/bars`)).json() as any;
  const days = j.groups[0].monitors[0].days;
  assert.deepEqual(days[79], { date: new Date(day * 1000).toISOString().slice(0, 10), state: 'down', uptime: 95.833 });
  assert.equal(days[78].state, 'none');
  assert.ok(j.groups[0].monitors[0].uptime_90d < 100);
  assert.equal(j.notices.length, 2, JSON.stringify(j.notices));
  assert.deepEqual(j.notices[0], { kind: 'notice', text: 'Phones are answered 08:00-18:00', from: null, to: null, open: false, monitors: [] });
  assert.equal(j.notices[1].kind, 'maintenance');
  assert.match(j.notices[1].text, /^Planned maintenance \w+day \d+ \w+ \d\d:\d\d–\d\d:\d\d \(UTC\)$/);
  assert.deepEqual(j.notices[1].monitors, ['Backups']);
  assert.ok(!JSON.stringify(j).includes('Secret NAS swap') && !JSON.stringify(j).includes('rack 7'), 'no window name or description');

  // show_maintenance off: only the page's own notice.
  await api('PUT', `/api/monitors/status-pages/${made.body.id}`, { show_maintenance: false });
  const k = await (await fetch(`${t.url}/api/monitors/status-pages/public/bars`)).json() as any;
  assert.deepEqual(k.notices.map((n: any) => n.kind), ['notice']);
});

test('a deleted monitor leaves the page', async () => {
  const m = await api('POST', '/api/monitors', { name: 'short-lived', check_type: 'http', target: `${base}/x`, interval: 3600 });
  const p = await api('POST', '/api/monitors/status-pages', { slug: 'gone', title: 'Gone',
    groups: [{ name: 'G', monitors: [{ id: m.body.id }, { id: ids['core-switch'] }] }] });
  assert.equal(p.body.groups[0].monitors.length, 2);
  assert.equal((await api('DELETE', `/api/monitors/${m.body.id}`)).status, 204);
  assert.deepEqual((await api('GET', `/api/monitors/status-pages/${p.body.id}`)).body.groups[0].monitors.map((x: any) => x.id), [ids['core-switch']]);
  const j = await (await fetch(`${t.url}/api/monitors/status-pages/public/gone`)).json() as any;
  assert.deepEqual(j.groups[0].monitors.map((x: any) => x.name), ['core-switch']);
});
