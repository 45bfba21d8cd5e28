// The inventory connected to what watches it, through real HTTP against the real service: an endpoint's
// monitors are those whose target is one of its addresses (no link needed) and those linked by hand, each
// once; its `watch` summary (worst status, how many down, last seen by a monitor or by a real discovery scan
// of loopback; failing below its threshold told apart from slow, and ranked between down and slow); links
// in the records' history; a subnet's live addresses nobody documented and its free ranges; bulk delete
// and bulk tag with their limits, scopes, history and audit.
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { assertProblem, startTestApp, type TestApp } from '../helpers/harness.js';
import { freePort } from '../helpers/net.js';

let dir: string;
let t: TestApp;
let key: string;
let web: Server;
let webPort: number;

const api = (method: string, path: string, body?: unknown, k = key) => t.request(method, path, { key: k, body });
async function ok(method: string, path: string, body?: unknown): Promise<any> {
  const r = await api(method, path, body);
  assert.ok(r.status < 300, `${method} ${path}: ${r.status} ${r.text}`);
  return r.body;
}
const history = async (type: string, id: string) => (await ok('GET', `/api/brain/history/${type}/${id}`)).items;

before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'netprobe-watch-'));
  // A loopback scan must not ask the machine's resolver.
  await writeFile(join(dir, 'config.yaml'), 'discovery:\n  reverse_dns: false\n');
  t = await startTestApp({ dataDir: dir });
  key = (await t.admin()).key;
  web = createServer((_req, res) => res.end('ok')).listen(0, '127.0.0.2');
  await new Promise((r) => web.once('listening', r));
  webPort = (web.address() as AddressInfo).port;
});
after(async () => {
  await t?.close();
  web?.close();
  await rm(dir, { recursive: true, force: true });
});

describe("an endpoint's monitors", () => {
  let ep: any;
  const mons: Record<string, any> = {};

  test('monitors on its addresses are found without a link; a linked one is listed once; one on a name only by its link', async () => {
    ep = await ok('POST', '/api/brain/endpoints', { name: 'watched', ip_addresses: ['127.0.0.2', '::ffff:127.0.0.9'] });
    const closed = await freePort();
    const base = { interval: 3600, timeout: 2, failure_threshold: 1 };
    mons.http = await ok('POST', '/api/monitors', { ...base, name: 'web on it', check_type: 'http', target: `http://127.0.0.2:${webPort}/` });
    mons.tcp = await ok('POST', '/api/monitors', { ...base, name: 'closed port on it', check_type: 'tcp', target: `127.0.0.2:${closed}` });
    mons.mapped = await ok('POST', '/api/monitors', { ...base, name: 'mapped address', check_type: 'tcp', target: `127.0.0.9:${closed}` });
    mons.name = await ok('POST', '/api/monitors', { ...base, name: 'by name', check_type: 'tcp', target: `localhost:${webPort}` });
    mons.other = await ok('POST', '/api/monitors', { ...base, name: 'elsewhere', check_type: 'tcp', target: `127.0.0.3:${closed}` });
    for (const m of Object.values(mons)) await ok('POST', `/api/monitors/${m.id}/check`);
    const linkHttp = await ok('POST', '/api/brain/links', { from: { type: 'endpoints', id: ep.short_id }, to: { type: 'monitors', id: mons.http.id },
      relation: 'monitored_by' });
    await ok('POST', '/api/brain/links', { from: { type: 'endpoints', id: ep.id }, to: { type: 'monitors', id: mons.name.id }, relation: 'monitored_by' });

    const list = await ok('GET', `/api/brain/endpoints/${ep.short_id}/monitors`);
    assert.deepEqual(list.items.map((m: any) => [m.name, m.address, m.links.map((l: any) => l.relation)]), [
      ['by name', null, ['monitored_by']],
      ['closed port on it', '127.0.0.2', []],
      ['mapped address', '127.0.0.9', []],
      ['web on it', '127.0.0.2', ['monitored_by']],
    ]);
    assert.equal(list.total, 4);
    assert.equal(list.items.find((m: any) => m.name === 'web on it').links[0].id, linkHttp.id);
    // Nothing listens for the name's port: it is down, and listed all the same.
    assert.deepEqual(list.items.map((m: any) => m.status), ['down', 'down', 'down', 'up']);
  });

  test("the endpoint's record and list carry its watch: worst status, how many, how many down, last seen", async () => {
    const rec = await ok('GET', `/api/brain/endpoints/${ep.id}`);
    assert.deepEqual({ ...rec.watch, last_seen: typeof rec.watch.last_seen }, { status: 'down', degraded_reason: null,
      failing_streak: null, failure_threshold: null, maintenance: null, monitors: 4, down: 3, in_maintenance: 0, last_seen: 'string', seen_by: 'monitor' });
    assert.equal(rec.watch.last_seen, (await ok('GET', `/api/monitors/${mons.http.id}`)).last_check, 'the latest check of a monitor that finds it up');
    const listed = (await ok('GET', '/api/brain/endpoints?q=watched')).items[0];
    assert.deepEqual(listed.watch, rec.watch);
    const lone = await ok('POST', '/api/brain/endpoints', { name: 'lone', ip_addresses: ['127.0.0.4'] });
    assert.deepEqual(lone.watch, { status: null, degraded_reason: null, failing_streak: null, failure_threshold: null,
      maintenance: null, monitors: 0, down: 0, in_maintenance: 0, last_seen: null, seen_by: null });
    // The export carries the same figures.
    const csv = (await api('GET', '/api/brain/endpoints/export.csv?q=watched')).text;
    assert.match(csv.split('\r\n')[1]!, /,down,\d{4}-\d\d-\d\dT[\d:.]+Z,/);
  });

  test('a maintenance window over its down monitors: the watch and the map say "Maintenance", not down (issue 34 §2)', async () => {
    const held = [mons.tcp.id, mons.mapped.id, mons.name.id];
    const now = Date.now();
    const w = await ok('POST', '/api/monitors/maintenance', { name: 'Rack move', applies_to: 'monitors', monitor_ids: held,
      schedule: { kind: 'once', from: new Date(now - 60_000).toISOString(), to: new Date(now + 3_600_000).toISOString() } });
    try {
      const rec = await ok('GET', `/api/brain/endpoints/${ep.id}`);
      assert.deepEqual([rec.watch.status, rec.watch.maintenance, rec.watch.down, rec.watch.in_maintenance, rec.watch.monitors],
        ['down', { id: w.id, name: 'Rack move', until: w.current.to }, 0, 3, 4], 'the held ones rank above the one up');
      const list = (await ok('GET', `/api/brain/endpoints/${ep.id}/monitors`)).items;
      assert.deepEqual(list.map((m: any) => [m.name, m.maintenance?.name ?? null]), [
        ['by name', 'Rack move'], ['closed port on it', 'Rack move'], ['mapped address', 'Rack move'], ['web on it', null],
      ]);
      const map = (await api('GET', '/api/v1sion/monitor/status/by-ip?ips=127.0.0.2')).body.addresses[0];
      assert.deepEqual(map.services, { total: 2, down: 0, failing: 0, degraded: 0, maintenance: 1 }, 'the map counts it held, not down');
      assert.equal(map.status, 'down', 'the worst status stays what the checks say');
    } finally {
      await ok('DELETE', `/api/monitors/maintenance/${w.id}`);
    }
    const after = await ok('GET', `/api/brain/endpoints/${ep.id}`);
    assert.deepEqual([after.watch.maintenance, after.watch.down, after.watch.in_maintenance], [null, 3, 0]);
  });

  test("links go in both records' history; a deleted monitor's links too", async () => {
    const site = await ok('POST', '/api/brain/sites', { name: 'Linked site' });
    const link = await ok('POST', '/api/brain/links', { from: { type: 'endpoints', id: ep.id }, to: { type: 'sites', id: site.id },
      relation: 'located_in', note: 'rack 4' });
    assert.deepEqual((await history('endpoints', ep.id)).slice(0, 1).map((h: any) => [h.action, h.note]),
      [['link', `Linked: located in ${site.short_id} Linked site`]]);
    assert.deepEqual((await history('sites', site.id)).slice(0, 1).map((h: any) => [h.action, h.note]),
      [['link', `Linked: contains ${ep.short_id} watched`]]);
    await ok('DELETE', `/api/brain/links/${link.id}`);
    assert.equal((await history('sites', site.id))[0].note, `Unlinked: contains ${ep.short_id} watched`);
    const all = await history('endpoints', ep.id);
    assert.ok(all.some((h: any) => h.action === 'link' && h.note === 'Linked: monitored by monitor web on it'));
    await ok('DELETE', `/api/monitors/${mons.name.id}`);
    for (let i = 0; i < 100 && (await history('endpoints', ep.id))[0].action !== 'unlink'; i++) await new Promise((r) => setTimeout(r, 20));
    assert.deepEqual((await history('endpoints', ep.id)).slice(0, 1).map((h: any) => [h.action, h.note]),
      [['unlink', 'monitor by name was deleted, and its link with it']]);
    // Deleting a record tells the records it was linked to.
    const app = await ok('POST', '/api/brain/applications', { name: 'Linked app' });
    await ok('POST', '/api/brain/links', { from: { type: 'applications', id: app.id }, to: { type: 'sites', id: site.id }, relation: 'depends_on' });
    await ok('DELETE', `/api/brain/applications/${app.id}`);
    assert.equal((await history('sites', site.id))[0].note, `${app.short_id} Linked app was deleted, and its link with it`);
  });
});

describe('what discovery found alive', () => {
  test('a real scan of loopback: the endpoint is seen by discovery; the subnet shows live addresses nobody documented and the free ones', async () => {
    const ep = (await ok('GET', '/api/brain/endpoints?q=watched')).items[0];
    const before = ep.watch.last_seen;
    const subnet = await ok('POST', '/api/brain/subnets', { cidr: '127.0.0.0/28', gateway: '127.0.0.1',
      dhcp_ranges: [{ start: '127.0.0.10', end: '127.0.0.12' }] });
    const empty = await ok('GET', `/api/brain/subnets/${subnet.id}/addresses`);
    assert.deepEqual(empty.discovered, { items: [], total: 0 });
    assert.equal(empty.free.size, 11, '14 usable; the gateway, 127.0.0.2 and 127.0.0.4 documented');

    const scan = await api('POST', '/api/v1sion/scan', { subnet: '127.0.0.0/29', snmp_enabled: false });
    assert.equal(scan.status, 202, scan.text);
    const stream = await fetch(`${t.url}/api/v1sion/scan/${scan.body.job_id}/stream`, { headers: { 'x-api-key': key } });
    assert.match(await stream.text(), /"type":"completed"/);
    // The hosts are written when the scan's end is announced (a 'group' write right after).
    let a: any;
    for (let i = 0; i < 200; i++) {
      a = await ok('GET', `/api/brain/subnets/${subnet.id}/addresses`);
      if (a.discovered.total) break;
      await new Promise((r) => setTimeout(r, 20));
    }
    assert.deepEqual(a.items.map((x: any) => [x.address, x.gateway, typeof x.last_seen]),
      [['127.0.0.1', true, 'string'], ['127.0.0.2', false, 'string'], ['127.0.0.4', false, 'string']]);
    assert.deepEqual(a.discovered.items.map((x: any) => x.address), ['127.0.0.3', '127.0.0.5', '127.0.0.6']);
    assert.equal(a.discovered.total, 3);
    assert.deepEqual(a.free, { size: 8, total: 3, ranges: [
      { start: '127.0.0.7', end: '127.0.0.9', size: 3, dhcp: false },
      { start: '127.0.0.10', end: '127.0.0.12', size: 3, dhcp: true },
      { start: '127.0.0.13', end: '127.0.0.14', size: 2, dhcp: false },
    ] });
    const seen = (await ok('GET', `/api/brain/endpoints/${ep.id}`)).watch;
    assert.equal(seen.seen_by, 'discovery');
    assert.ok(seen.last_seen > before, `${seen.last_seen} after ${before}`);
  });
});

describe('failing below the threshold, apart from slow (issue 33 §1)', () => {
  const servers: Server[] = [];
  const urls: Record<string, string> = {};
  const mons: Record<string, any> = {};
  /** A web server on a loopback address: /fail answers 500, /slow after 120 ms, anything else at once. */
  const site = async (host: string) => {
    const s = createServer((req, res) => {
      if (req.url === '/fail') { res.statusCode = 500; res.end('broken'); return; }
      if (req.url === '/slow') { setTimeout(() => res.end('ok'), 120); return; }
      res.end('ok');
    });
    servers.push(s);
    await new Promise<void>((r) => s.listen(0, host, r));
    return `http://${host}:${(s.address() as AddressInfo).port}`;
  };
  before(async () => {
    urls.a = await site('127.0.0.20');
    urls.b = await site('127.0.0.22');
    const make = async (name: string, target: string, extra: Record<string, unknown>) =>
      ok('POST', '/api/monitors', { name, check_type: 'http', target, interval: 3600, timeout: 5, ...extra });
    mons.fail3 = await make('fails, 3 make it down', `${urls.a}/fail`, { failure_threshold: 3 });
    mons.fail5 = await make('fails, 5 make it down', `${urls.a}/fail`, { failure_threshold: 5 });
    mons.slow = await make('slow', `${urls.a}/slow`, { degraded_ms: 20 });
    mons.ok = await make('answers', `${urls.a}/`, {});
    mons.refused = await make('refused', `http://127.0.0.21:${await freePort()}/`, { failure_threshold: 3 });
    mons.down = await make('down', `http://127.0.0.23:${await freePort()}/`, { failure_threshold: 1 });
    mons.slowOnly = await make('slow alone', `${urls.b}/slow`, { degraded_ms: 20 });
    // Each is checked once when it is made.
    for (const m of Object.values(mons)) {
      for (let i = 0; i < 300 && !(await ok('GET', `/api/monitors/${m.id}`)).last_check; i++) await new Promise((r) => setTimeout(r, 20));
    }
  });
  after(() => { for (const s of servers) { s.closeAllConnections(); s.close(); } });

  test("an endpoint's monitors say why they are degraded: failing with its streak and threshold, or slow", async () => {
    const ep = await ok('POST', '/api/brain/endpoints', { name: 'flaky', ip_addresses: ['127.0.0.20'] });
    const list = (await ok('GET', `/api/brain/endpoints/${ep.id}/monitors`)).items;
    assert.deepEqual(list.map((m: any) => [m.name, m.status, m.degraded_reason, m.failing_streak, m.failure_threshold]), [
      ['answers', 'up', null, 0, 3],
      ['fails, 3 make it down', 'degraded', 'failing', 1, 3],
      ['fails, 5 make it down', 'degraded', 'failing', 1, 5],
      ['slow', 'degraded', 'slow', 0, 3],
    ]);
    // Its watch is the worst of them: failing ranks above slow; of two failing, the one nearer down.
    const { watch } = await ok('GET', `/api/brain/endpoints/${ep.id}`);
    assert.deepEqual({ ...watch, last_seen: undefined }, { status: 'degraded', degraded_reason: 'failing', failing_streak: 1, failure_threshold: 3,
      maintenance: null, monitors: 4, down: 0, in_maintenance: 0, last_seen: undefined, seen_by: 'monitor' });
    const answered = await Promise.all([mons.ok, mons.slow].map(async (m) => (await ok('GET', `/api/monitors/${m.id}`)).last_check));
    assert.equal(watch.last_seen, answered.sort().pop(), 'seen alive by the checks that answered (up or slow), not by a failed one');
  });

  test('a failed check sees nothing alive; down ranks above failing; slow alone is degraded and slow', async () => {
    const refused = await ok('POST', '/api/brain/endpoints', { name: 'refuses', ip_addresses: ['127.0.0.21'] });
    assert.deepEqual(refused.watch, { status: 'degraded', degraded_reason: 'failing', failing_streak: 1, failure_threshold: 3,
      maintenance: null, monitors: 1, down: 0, in_maintenance: 0, last_seen: null, seen_by: null });
    const mixed = await ok('POST', '/api/brain/endpoints', { name: 'mixed', ip_addresses: ['127.0.0.21', '127.0.0.23'] });
    assert.deepEqual([mixed.watch.status, mixed.watch.degraded_reason, mixed.watch.failing_streak, mixed.watch.down], ['down', null, null, 1]);
    const slow = await ok('POST', '/api/brain/endpoints', { name: 'slow only', ip_addresses: ['127.0.0.22'] });
    assert.deepEqual([slow.watch.status, slow.watch.degraded_reason, slow.watch.failing_streak, slow.watch.failure_threshold, slow.watch.seen_by],
      ['degraded', 'slow', null, null, 'monitor']);
    // The list carries the same.
    const listed = (await ok('GET', '/api/brain/endpoints?q=refuses')).items[0];
    assert.deepEqual(listed.watch, refused.watch);
  });
});

describe('bulk actions', () => {
  const made: any[] = [];
  before(async () => {
    for (let i = 1; i <= 3; i++) made.push(await ok('POST', '/api/brain/endpoints', { name: `bulk-${i}`, ip_addresses: [`10.40.0.${i}`], tags: ['old'] }));
  });

  test('bulk tag adds and removes tags on each record, with history and one audit entry', async () => {
    const r = await ok('POST', '/api/brain/endpoints/bulk-tag', { ids: made.map((m) => m.short_id), add: ['rack-4', 'core'], remove: ['old'] });
    assert.deepEqual([r.updated, r.unchanged], [3, 0]);
    assert.deepEqual(r.items.map((x: any) => x.tags), [['rack-4', 'core'], ['rack-4', 'core'], ['rack-4', 'core']]);
    assert.deepEqual((await ok('GET', `/api/brain/endpoints/${made[0].id}`)).tags, ['rack-4', 'core']);
    const h = (await history('endpoints', made[1].id))[0];
    assert.deepEqual([h.action, h.note, h.changes.tags], ['update', 'Bulk tag: +rack-4 +core -old', { from: ['old'], to: ['rack-4', 'core'] }]);
    const again = await ok('POST', '/api/brain/endpoints/bulk-tag', { ids: [made[0].id], add: ['core'] });
    assert.deepEqual([again.updated, again.unchanged], [0, 1]);
    const log = (await ok('GET', '/api/audit-log?action=brain.bulk_tag')).items;
    assert.equal(log.length, 1, 'a change that changes nothing is not audited');
    assert.deepEqual(log[0].details.short_ids, made.map((m) => m.short_id));
  });

  test('bulk bodies are checked: ids that name nothing, too many, no tags, too many tags', async () => {
    assertProblem(await api('POST', '/api/brain/endpoints/bulk-tag', { ids: [made[0].id, 'EP-99999'], add: ['x'] }), 400, 'ids.1');
    assertProblem(await api('POST', '/api/brain/endpoints/bulk-tag', { ids: [made[0].id] }), 400, 'add');
    assertProblem(await api('POST', '/api/brain/endpoints/bulk-tag', { ids: Array.from({ length: 501 }, () => made[0].id), add: ['x'] }), 400, 'ids');
    const many = Array.from({ length: 19 }, (_, i) => `t${i}`);
    assertProblem(await api('POST', '/api/brain/endpoints/bulk-tag', { ids: [made[0].id], add: many }), 400, 'ids.0');
    assertProblem(await api('POST', '/api/brain/endpoints/bulk-delete', { ids: [] }), 400, 'ids');
    assertProblem(await api('POST', '/api/brain/endpoints/bulk-delete', { ids: [made[0].id], force: true }), 400, 'force');
    assert.deepEqual((await ok('GET', `/api/brain/endpoints/${made[0].id}`)).tags, ['rack-4', 'core'], 'all or none');
  });

  test('bulk delete: a referenced record is a 409 naming it, unless detach; each deletion in its history; one audit entry', async () => {
    const asset = await ok('POST', '/api/brain/assets', { name: 'bulk asset', endpoint_id: made[0].id });
    const refused = await api('POST', '/api/brain/endpoints/bulk-delete', { ids: made.map((m) => m.id) });
    assertProblem(refused, 409);
    assert.equal(refused.body.code, 'referenced');
    assert.deepEqual(refused.body.referenced.map((r: any) => [r.short_id, r.referrers[0].short_id]), [[made[0].short_id, asset.short_id]]);
    assert.equal((await ok('GET', '/api/brain/endpoints?q=bulk-')).total, 3, 'nothing deleted');
    const r = await ok('POST', '/api/brain/endpoints/bulk-delete', { ids: made.map((m) => m.short_id), detach: true });
    assert.equal(r.deleted, 3);
    assert.equal((await ok('GET', '/api/brain/endpoints?q=bulk-')).total, 0);
    assert.equal((await history('endpoints', made[2].id))[0].note, 'Bulk delete of 3 endpoints');
    assert.equal((await ok('GET', `/api/brain/assets/${asset.id}`)).endpoint_id, null);
    const log = (await ok('GET', '/api/audit-log?action=brain.bulk_delete')).items[0];
    assert.deepEqual([log.target, log.details.short_ids], ['3 endpoints', made.map((m) => m.short_id)]);
  });

  test('scopes: a viewer may not; credentials are an administrator\'s', async () => {
    const s = await ok('POST', '/api/brain/sites', { name: 'scoped' });
    const viewer = await t.user('viewer', ['brain:read']);
    assertProblem(await api('POST', '/api/brain/sites/bulk-tag', { ids: [s.id], add: ['x'] }, viewer.key), 403);
    assertProblem(await api('POST', '/api/brain/sites/bulk-delete', { ids: [s.id] }, viewer.key), 403);
    const op = await t.user('operator', ['brain:write']);
    assert.equal((await api('POST', '/api/brain/sites/bulk-tag', { ids: [s.id], add: ['x'] }, op.key)).status, 200);
    const c = await ok('POST', '/api/brain/credentials', { name: 'bulk cred', kind: 'api_token' });
    assertProblem(await api('POST', '/api/brain/credentials/bulk-tag', { ids: [c.id], add: ['x'] }, op.key), 403);
    assertProblem(await api('POST', '/api/brain/credentials/bulk-delete', { ids: [c.id] }, op.key), 403);
    assert.equal((await ok('POST', '/api/brain/credentials/bulk-tag', { ids: [c.id], add: ['x'] })).updated, 1);
    assert.equal((await ok('POST', '/api/brain/credentials/bulk-delete', { ids: [c.id] })).deleted, 1);
  });
});
