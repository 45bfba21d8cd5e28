// The inventory (brain) API through real HTTP against the real service: validation per type naming the
// field, normalisation, short IDs, resolve, references (400, 409, detach), history, links (with real
// monitors of the monitors module), search, stats and recent.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { rm } from 'node:fs/promises';
import { after, before, describe, test } from 'node:test';
import { startTestApp, type TestApp, assertProblem } from '../helpers/harness.js';
import { freePort } from '../helpers/net.js';

let t: TestApp;
let key: string;
/** Set when a test restarted the service on the same data directory (removed at the end). */
let keptDir: string | undefined;

const api = <T = any>(method: string, path: string, body?: unknown, k = key) => t.request<T>(method, path, { key: k, body });


async function create(type: string, body: Record<string, unknown>): Promise<any> {
  const r = await api('POST', `/api/brain/${type}`, body);
  assert.equal(r.status, 201, r.text);
  return r.body;
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

before(async () => {
  t = await startTestApp();
  key = (await t.admin()).key;
});
after(async () => {
  await t.close();
  if (keptDir) await rm(keptDir, { recursive: true, force: true });
});

describe('types and stats', () => {
  test('an unknown :type is a 404', async () => {
    assertProblem(await api('GET', '/api/brain/widgets'), 404);
    assertProblem(await api('POST', '/api/brain/widgets', { name: 'x' }), 404);
    assertProblem(await api('GET', `/api/brain/widgets/${randomUUID()}`), 404);
    assertProblem(await api('GET', `/api/brain/history/widgets/${randomUUID()}`), 404);
    assertProblem(await api('GET', `/api/brain/sites/${randomUUID()}`), 404);
  });

  test('stats always has the seven keys', async () => {
    const r = await api('GET', '/api/brain/stats');
    assert.equal(r.status, 200);
    assert.deepEqual(Object.keys(r.body).sort(),
      ['applications', 'assets', 'credentials', 'endpoints', 'locations', 'sites', 'subnets']);
    for (const v of Object.values(r.body)) assert.equal(typeof v, 'number');
    assert.equal(r.body.credentials, 0);
  });

  test('a viewer reads, but cannot write', async () => {
    const v = await t.user('viewer', ['brain:read']);
    assert.equal((await api('GET', '/api/brain/sites', undefined, v.key)).status, 200);
    assertProblem(await api('POST', '/api/brain/sites', { name: 'nope' }, v.key), 403);
  });
});

describe('validation names the field', () => {
  test('every type', async () => {
    const site = await create('sites', { name: 'Validation site' });
    const cases: [string, Record<string, unknown>, string][] = [
      ['sites', {}, 'name'],
      ['sites', { name: 'x', latitude: 47.3 }, 'longitude'],
      ['sites', { name: 'x', latitude: 91, longitude: 8 }, 'latitude'],
      ['sites', { name: 'x', time_zone: 'Mars/Olympus' }, 'time_zone'],
      ['sites', { name: 'x', contact_email: 'not-an-email' }, 'contact_email'],
      ['sites', { name: 'x', colour: 'blue' }, 'colour'],
      ['sites', { name: 'x', tags: ['a', ''] }, 'tags.1'],
      ['sites', { name: 'x', custom_fields: { k: { nested: true } } }, 'custom_fields.k'],
      ['locations', { name: 'x' }, 'site_id'],
      ['locations', { name: 'x', site_id: 'ST-9999' }, 'site_id'],
      ['locations', { name: 'x', site_id: randomUUID() }, 'site_id'],
      ['endpoints', { name: 'x', ip_addresses: ['10.0.0.1', '300.1.1.1'] }, 'ip_addresses.1'],
      ['endpoints', { name: 'x', mac_addresses: ['aa:bb:cc'] }, 'mac_addresses.0'],
      ['endpoints', { name: 'x', role: 'toaster' }, 'role'],
      ['endpoints', { name: 'x', hostname: 'bad host!' }, 'hostname'],
      ['endpoints', { description: 'no name, host name or address' }, 'name'],
      ['endpoints', { name: 'x', site_id: site.short_id, location_id: site.id }, 'location_id'],
      ['endpoints', { name: 'x', credential_id: 'CR-1' }, 'credential_id'],
      ['assets', { name: 'x', purchase_date: '2024-13-01' }, 'purchase_date'],
      ['assets', { name: 'x', purchase_date: '2024-05-01', warranty_expires: '2023-05-01' }, 'warranty_expires'],
      ['assets', { name: 'x', endpoint_id: site.short_id }, 'endpoint_id'],
      ['assets', { name: 'x', status: 'lost' }, 'status'],
      ['applications', { name: 'x', url: 'not a url' }, 'url'],
      ['applications', { name: 'x', criticality: 'extreme' }, 'criticality'],
      ['applications', { name: 'x', endpoint_ids: ['EP-9999'] }, 'endpoint_ids.0'],
      ['subnets', { name: 'x' }, 'cidr'],
      ['subnets', { cidr: '10.50.0.0/33' }, 'cidr'],
      ['subnets', { cidr: '10.50.0.0/24', gateway: '10.51.0.1' }, 'gateway'],
      ['subnets', { cidr: '10.50.0.0/24', dhcp_ranges: [{ start: '10.50.0.100', end: '10.50.1.200' }] }, 'dhcp_ranges.0.end'],
      ['subnets', { cidr: '10.50.0.0/24', dhcp_ranges: [{ start: '10.50.0.200', end: '10.50.0.100' }] }, 'dhcp_ranges.0.end'],
      ['subnets', { cidr: '10.50.0.0/24', vlan_id: 5000 }, 'vlan_id'],
      ['subnets', { cidr: '10.50.0.0/24', dns_servers: ['dns.example'] }, 'dns_servers.0'],
    ];
    for (const [type, body, field] of cases) {
      const r = await api('POST', `/api/brain/${type}`, body);
      assertProblem(r, 400, field);
      assert.equal(r.body.code, 'validation_failed');
    }
    const hostBits = await api('POST', '/api/brain/subnets', { cidr: '10.50.0.5/24' });
    assertProblem(hostBits, 400, 'cidr');
    assert.match(hostBits.body.detail, /10\.50\.0\.0\/24/, 'the error names the network');
    // A failed update changes nothing.
    assertProblem(await api('PUT', `/api/brain/sites/${site.id}`, { latitude: 10 }), 400, 'longitude');
    assert.equal((await api('GET', `/api/brain/sites/${site.id}`)).body.latitude, null);
  });

  test('one 400 names every field at fault: the schema\'s, the cross-field checks\' and the references\'', async () => {
    const paths = (r: { body: { errors?: { path: string }[] } }) => (r.body.errors ?? []).map((e) => e.path).sort();
    // The site: a bad time zone beside a two-line address (which is fine) and more.
    const site = await api('POST', '/api/brain/sites', { name: 'Two lines', address: 'Bahnhofstrasse 1\n8001 Zürich',
      time_zone: 'Mars/Olympus', latitude: 91, contact_email: 'not-an-email' });
    assert.equal(site.status, 400, site.text);
    assert.deepEqual(paths(site), ['contact_email', 'latitude', 'time_zone']);
    // A subnet: host bits (offering the network), a VLAN out of range, a range in the wrong order, an unknown site.
    const subnet = await api('POST', '/api/brain/subnets', { cidr: '10.60.0.5/24', vlan_id: 5000, site_id: 'ST-9999',
      dhcp_ranges: [{ start: '10.60.0.200', end: '10.60.0.100' }] });
    assert.equal(subnet.status, 400, subnet.text);
    assert.deepEqual(paths(subnet), ['cidr', 'dhcp_ranges.0.end', 'site_id', 'vlan_id']);
    const cidr = subnet.body.errors.find((e: { path: string }) => e.path === 'cidr');
    assert.equal(cidr.suggestion, '10.60.0.0/24', 'the error offers the network');
    assert.match(cidr.message, /10\.60\.0\.5\/24 has host bits set: did you mean the network 10\.60\.0\.0\/24\?/);
    // No name at all, beside a bad field: both.
    assertProblem(await api('POST', '/api/brain/assets', { status: 'lost' }), 400, 'name');
    assert.deepEqual(paths(await api('POST', '/api/brain/assets', { status: 'lost' })), ['name', 'status']);
    // An update: its bad field, and what the stored record says with the valid ones (a latitude needs a longitude).
    const stored = await create('sites', { name: 'Update me' });
    const upd = await api('PUT', `/api/brain/sites/${stored.id}`, { latitude: 10, time_zone: 'Mars/Olympus' });
    assert.deepEqual(paths(upd), ['longitude', 'time_zone']);
    // The address keeps its line break.
    const ok = await create('sites', { name: 'Two lines', address: 'Bahnhofstrasse 1\n8001 Zürich', time_zone: 'Europe/Zurich' });
    assert.equal(ok.address, 'Bahnhofstrasse 1\n8001 Zürich');
  });
});

describe('records', () => {
  test('normalisation of addresses, host names, CIDRs; defaults for names and empty fields', async () => {
    const ep = await create('endpoints', {
      hostname: 'Core-SW1.Example.LAN.', role: 'switch',
      ip_addresses: ['2001:0DB8:0000::0001', '10.20.0.5', '10.20.0.5', '::FFFF:10.20.0.6'],
      mac_addresses: ['AABB.CCDD.EEFF', '00-11-22-33-44-55', '001122334455'],
      tags: [' core ', 'core', 'lan'],
      custom_fields: { rack_position: 12, managed: true },
    });
    assert.equal(ep.name, 'core-sw1.example.lan');
    assert.equal(ep.hostname, 'core-sw1.example.lan');
    assert.deepEqual(ep.ip_addresses, ['2001:db8::1', '10.20.0.5', '::ffff:10.20.0.6']);
    assert.deepEqual(ep.mac_addresses, ['aa:bb:cc:dd:ee:ff', '00:11:22:33:44:55']);
    assert.deepEqual(ep.tags, ['core', 'lan']);
    assert.deepEqual(ep.custom_fields, { rack_position: 12, managed: true });
    assert.equal(ep.vendor, null);
    assert.equal(ep.site_id, null);
    assert.match(ep.short_id, /^EP-\d+$/);
    assert.equal(ep.type, 'endpoints');

    const byIp = await create('endpoints', { ip_addresses: ['192.0.2.10'] });
    assert.equal(byIp.name, '192.0.2.10');

    const sn = await create('subnets', { cidr: '2001:DB8:AB::/48', gateway: '2001:db8:ab::1', dns_servers: ['2001:db8:ab:0::53'] });
    assert.equal(sn.cidr, '2001:db8:ab::/48');
    assert.equal(sn.name, '2001:db8:ab::/48');
    assert.deepEqual(sn.dns_servers, ['2001:db8:ab::53']);
    assert.deepEqual(sn.dhcp_ranges, []);

    const site = await create('sites', { name: 'Zurich HQ', time_zone: 'Europe/Zurich', latitude: 47.37, longitude: 8.54 });
    assert.equal(site.time_zone, 'Europe/Zurich');
    // Update: only the fields given change, null clears.
    const up = await api('PUT', `/api/brain/sites/${site.id}`, { address: 'Bahnhofstrasse 1', latitude: null, longitude: null });
    assert.equal(up.status, 200, up.text);
    assert.equal(up.body.address, 'Bahnhofstrasse 1');
    assert.equal(up.body.latitude, null);
    assert.equal(up.body.name, 'Zurich HQ');
    assert.equal(up.body.time_zone, 'Europe/Zurich');
  });

  test('short IDs are sequential per type and never reused, even after delete', async () => {
    const a = await create('applications', { name: 'seq-a' });
    const b = await create('applications', { name: 'seq-b' });
    const na = Number(a.short_id.split('-')[1]);
    assert.equal(a.short_id, `AP-${na}`);
    assert.equal(b.short_id, `AP-${na + 1}`);
    assert.equal((await api('DELETE', `/api/brain/applications/${b.short_id}`)).status, 204);
    // A refused create takes no number either.
    assertProblem(await api('POST', '/api/brain/applications', { name: 'seq-bad', endpoint_ids: ['EP-99999'] }), 400);
    const c = await create('applications', { name: 'seq-c' });
    assert.equal(c.short_id, `AP-${na + 2}`);
    // Another type has its own sequence.
    const l = await create('locations', { name: 'seq-room', site_id: (await create('sites', { name: 'seq-site' })).short_id });
    assert.match(l.short_id, /^LC-\d+$/);
  });

  test('resolve and every :id route accept the short ID, case-insensitively', async () => {
    const ep = await create('endpoints', { name: 'sid-ep', hostname: 'sid-ep' });
    const app = await create('applications', { name: 'sid-app', endpoint_ids: [ep.short_id.toLowerCase()] });
    assert.deepEqual(app.endpoint_ids, [ep.id], 'references are stored as UUIDs');
    const sn = await create('subnets', { cidr: '10.99.0.0/16' });
    const lower = (s: string) => s.toLowerCase();

    const res = await api('GET', `/api/brain/resolve/${lower(ep.short_id)}`);
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.type, 'endpoints');
    assert.equal(res.body.item.id, ep.id);
    assert.equal(res.body.item.hostname, 'sid-ep');
    assertProblem(await api('GET', '/api/brain/resolve/XX-1'), 404);
    assertProblem(await api('GET', '/api/brain/resolve/EP-999999'), 404);
    assertProblem(await api('GET', '/api/brain/resolve/CR-1'), 404);
    assertProblem(await api('GET', '/api/brain/resolve/nonsense'), 404);

    assert.equal((await api('GET', `/api/brain/endpoints/${lower(ep.short_id)}`)).body.id, ep.id);
    assert.equal((await api('GET', `/api/brain/endpoints/${ep.id.toUpperCase()}`)).body.id, ep.id);
    assertProblem(await api('GET', `/api/brain/sites/${ep.short_id}`), 404, undefined); // right ID, wrong type
    assert.equal((await api('PUT', `/api/brain/endpoints/${lower(ep.short_id)}`, { vendor: 'Acme' })).body.vendor, 'Acme');
    assert.equal((await api('GET', `/api/brain/history/endpoints/${lower(ep.short_id)}`)).body.total, 2);
    assert.equal((await api('GET', `/api/brain/links/endpoints/${lower(ep.short_id)}`)).status, 200);
    assert.equal((await api('GET', `/api/brain/endpoints/${lower(ep.short_id)}/monitors`)).status, 200);
    assert.equal((await api('GET', `/api/brain/applications/${lower(app.short_id)}/monitors`)).status, 200);
    const sessions = await api('GET', `/api/brain/subnets/${lower(sn.short_id)}/v1sion-sessions`);
    assert.deepEqual(sessions.body, { items: [], total: 0 });
    assertProblem(await api('GET', `/api/brain/subnets/${ep.short_id}/v1sion-sessions`), 404);
    assert.equal((await api('DELETE', `/api/brain/applications/${lower(app.short_id)}`)).status, 204);
    assertProblem(await api('GET', `/api/brain/applications/${app.short_id}`), 404);
    const gone = await api('GET', `/api/brain/resolve/${app.short_id}`);
    assertProblem(gone, 404);
    assert.match(gone.body.detail, /deleted/);
  });

  test('references: 409 on delete listing referrers; detach clears them and records it in their history', async () => {
    const site = await create('sites', { name: 'Ref site' });
    const room = await create('locations', { name: 'Ref room', site_id: site.short_id });
    const ep = await create('endpoints', { name: 'ref-ep', site_id: site.id, location_id: room.short_id });
    const ep2 = await create('endpoints', { name: 'ref-ep2' });
    const app = await create('applications', { name: 'Ref app', endpoint_ids: [ep.id, ep2.short_id] });
    const asset = await create('assets', { name: 'Ref asset', endpoint_id: ep.short_id, location_id: room.id });
    assert.equal(room.site_id, site.id);

    const refused = await api('DELETE', `/api/brain/sites/${site.short_id}`);
    assertProblem(refused, 409);
    assert.equal(refused.body.code, 'referenced');
    assert.deepEqual(refused.body.referrers.map((r: any) => `${r.short_id}.${r.field}`).sort(),
      [`${room.short_id}.site_id`, `${ep.short_id}.site_id`].sort());
    assert.equal((await api('GET', `/api/brain/sites/${site.id}`)).status, 200, 'still there');

    const refusedEp = await api('DELETE', `/api/brain/endpoints/${ep.id}`);
    assertProblem(refusedEp, 409);
    assert.deepEqual(refusedEp.body.referrers.map((r: any) => r.field).sort(), ['endpoint_id', 'endpoint_ids']);

    assert.equal((await api('DELETE', `/api/brain/endpoints/${ep.id}?detach=true`)).status, 204);
    const app2 = (await api('GET', `/api/brain/applications/${app.id}`)).body;
    assert.deepEqual(app2.endpoint_ids, [ep2.id]);
    assert.equal((await api('GET', `/api/brain/assets/${asset.id}`)).body.endpoint_id, null);
    const h = (await api('GET', `/api/brain/history/assets/${asset.short_id}`)).body;
    assert.equal(h.items[0].action, 'detach');
    assert.deepEqual(h.items[0].changes, { endpoint_id: { from: ep.id, to: null } });
    assert.match(h.items[0].note, new RegExp(ep.short_id));
    const ha = (await api('GET', `/api/brain/history/applications/${app.id}`)).body;
    assert.deepEqual(ha.items[0].changes, { endpoint_ids: { from: [ep.id, ep2.id], to: [ep2.id] } });

    assert.equal((await api('DELETE', `/api/brain/sites/${site.id}?detach=1`)).status, 204);
    assert.equal((await api('GET', `/api/brain/locations/${room.id}`)).body.site_id, null);
    // The deleted record cannot be referenced any more.
    assertProblem(await api('PUT', `/api/brain/endpoints/${ep2.id}`, { site_id: site.short_id }), 400, 'site_id');
  });

  test('history: create, update diffs, delete; reachable by UUID and short ID after delete; paged; audited', async () => {
    const sn = await create('subnets', { cidr: '10.60.0.0/24', vlan_id: 60, notes: 'office' });
    await api('PUT', `/api/brain/subnets/${sn.id}`, { vlan_id: 61, gateway: '10.60.0.1' });
    await api('PUT', `/api/brain/subnets/${sn.id}`, { vlan_id: 61 }); // no change: no entry
    await api('PUT', `/api/brain/subnets/${sn.id}`, { notes: null, name: 'Office LAN' });
    const found = (await api('GET', '/api/brain/search?q=office%20lan')).body.items;
    assert.equal(found[0]?.id, sn.id, 'the search index follows a rename');
    assert.ok(!(await api('GET', '/api/brain/search?q=10.60.0.0/24')).body.items.some((i: any) => i.name === '10.60.0.0/24'));
    assert.equal((await api('DELETE', `/api/brain/subnets/${sn.short_id}`)).status, 204);
    for (const id of [sn.id, sn.short_id, sn.short_id.toLowerCase()]) {
      const h = await api('GET', `/api/brain/history/subnets/${id}`);
      assert.equal(h.status, 200, h.text);
      assert.equal(h.body.total, 4);
      assert.deepEqual(h.body.item, { type: 'subnets', id: sn.id, short_id: sn.short_id, name: 'Office LAN', deleted: true });
      assert.deepEqual(h.body.items.map((e: any) => e.action), ['delete', 'update', 'update', 'create']);
    }
    const h = (await api('GET', `/api/brain/history/subnets/${sn.id}`)).body.items;
    assert.deepEqual(h[3].changes.cidr, { from: null, to: '10.60.0.0/24' });
    assert.deepEqual(h[2].changes, { vlan_id: { from: 60, to: 61 }, gateway: { from: null, to: '10.60.0.1' } });
    assert.deepEqual(h[1].changes, { name: { from: '10.60.0.0/24', to: 'Office LAN' }, notes: { from: 'office', to: null } });
    assert.deepEqual(h[0].changes.vlan_id, { from: 61, to: null });
    assert.ok(h.every((e: any) => e.actor && typeof e.at === 'string'));
    const page = (await api('GET', `/api/brain/history/subnets/${sn.id}?limit=1&offset=1`)).body;
    assert.equal(page.items.length, 1);
    assert.equal(page.items[0].action, 'update');
    assertProblem(await api('GET', `/api/brain/history/sites/${sn.id}`), 404, undefined);
    assertProblem(await api('GET', `/api/brain/history/subnets/${randomUUID()}`), 404);

    const audit = t.service.app.audit.query({ action: 'brain.*', limit: 1000 }).items.filter((e) => e.target === sn.short_id);
    assert.deepEqual(audit.map((e) => e.action).sort(), ['brain.create', 'brain.delete', 'brain.update', 'brain.update']);
  });

  test('lists: {items, total}, paging, q, tag and per-type filters; a filter of another type is a 400', async () => {
    const site = await create('sites', { name: 'List site' });
    for (let i = 0; i < 5; i++) {
      await create('endpoints', { name: `list-ep-${i}`, role: i % 2 ? 'router' : 'printer', site_id: i < 2 ? site.short_id : null, tags: i === 4 ? ['special'] : [] });
    }
    const all = (await api('GET', '/api/brain/endpoints?q=list-ep&limit=2&offset=1')).body;
    assert.equal(all.total, 5);
    assert.deepEqual(all.items.map((e: any) => e.name), ['list-ep-1', 'list-ep-2']);
    assert.equal((await api('GET', '/api/brain/endpoints?q=LIST-EP&role=router')).body.total, 2);
    assert.equal((await api('GET', `/api/brain/endpoints?site_id=${site.short_id}`)).body.total, 2);
    assert.equal((await api('GET', `/api/brain/endpoints?site_id=${site.id}&role=printer`)).body.total, 1);
    assert.deepEqual((await api('GET', '/api/brain/endpoints?tag=special')).body.items.map((e: any) => e.name), ['list-ep-4']);
    assertProblem(await api('GET', '/api/brain/sites?role=router'), 400, 'query.role');
    assertProblem(await api('GET', '/api/brain/endpoints?limit=0'), 400, 'query.limit');

    await create('subnets', { cidr: '172.16.0.0/12' });
    await create('subnets', { cidr: '172.16.5.0/24' });
    await create('subnets', { cidr: '2001:db8:cafe::/48' });
    const c4 = (await api('GET', '/api/brain/subnets?contains=172.16.5.9')).body;
    assert.deepEqual(c4.items.map((s: any) => s.cidr).sort(), ['172.16.0.0/12', '172.16.5.0/24']);
    assert.deepEqual((await api('GET', '/api/brain/subnets?contains=2001:db8:cafe:1::9')).body.items.map((s: any) => s.cidr), ['2001:db8:cafe::/48']);
    assertProblem(await api('GET', '/api/brain/subnets?contains=nope'), 400, 'query.contains');
    await create('subnets', { cidr: '172.17.0.0/24', vlan_id: 417 });
    assert.equal((await api('GET', '/api/brain/subnets?vlan_id=417')).body.total, 1);
    assertProblem(await api('GET', '/api/brain/subnets?vlan_id=x'), 400, 'query.vlan_id');
  });
});

describe('links and monitors', () => {
  let monitorId: string;
  let ep: any, app: any;

  before(async () => {
    const port = await freePort();
    const m = await api('POST', '/api/monitors', { name: 'brain-mon', check_type: 'tcp', target: `127.0.0.1:${port}`, interval: 3600, timeout: 2 });
    assert.equal(m.status, 201, m.text);
    monitorId = m.body.id;
    ep = await create('endpoints', { name: 'link-ep', ip_addresses: ['10.70.0.1'] });
    app = await create('applications', { name: 'link-app' });
  });

  test('create, list both directions, duplicates and rule violations', async () => {
    const l1 = await api('POST', '/api/brain/links', { from: { type: 'applications', id: app.short_id }, to: { type: 'endpoints', id: ep.short_id }, relation: 'runs_on', note: 'primary' });
    assert.equal(l1.status, 201, l1.text);
    assert.deepEqual(l1.body.from, { type: 'applications', id: app.id, short_id: app.short_id, name: 'link-app' });
    assert.equal(l1.body.to.id, ep.id);
    assert.equal(l1.body.note, 'primary');
    const dup = await api('POST', '/api/brain/links', { from: { type: 'applications', id: app.id }, to: { type: 'endpoints', id: ep.id }, relation: 'runs_on' });
    assertProblem(dup, 409);
    assert.equal(dup.body.code, 'duplicate_link');
    // Same pair, other relation: fine.
    assert.equal((await api('POST', '/api/brain/links', { from: { type: 'applications', id: app.id }, to: { type: 'endpoints', id: ep.id }, relation: 'depends_on' })).status, 201);
    // connected_to is symmetric.
    const ep2 = await create('endpoints', { name: 'link-ep2' });
    assert.equal((await api('POST', '/api/brain/links', { from: { type: 'endpoints', id: ep.id }, to: { type: 'endpoints', id: ep2.id }, relation: 'connected_to' })).status, 201);
    assertProblem(await api('POST', '/api/brain/links', { from: { type: 'endpoints', id: ep2.id }, to: { type: 'endpoints', id: ep.id }, relation: 'connected_to' }), 409);

    assertProblem(await api('POST', '/api/brain/links', { from: { type: 'endpoints', id: ep.id }, to: { type: 'endpoints', id: ep.id }, relation: 'depends_on' }), 400, 'to.id');
    assertProblem(await api('POST', '/api/brain/links', { from: { type: 'endpoints', id: ep.id }, to: { type: 'monitors', id: randomUUID() }, relation: 'monitored_by' }), 400, 'to.id');
    assertProblem(await api('POST', '/api/brain/links', { from: { type: 'endpoints', id: 'EP-99999' }, to: { type: 'sites', id: 'ST-99999' }, relation: 'located_in' }), 400, 'from.id');
    assertProblem(await api('POST', '/api/brain/links', { from: { type: 'endpoints', id: ep.id }, to: { type: 'endpoints', id: ep2.id }, relation: 'likes' }), 400, 'relation');
    assertProblem(await api('POST', '/api/brain/links', { from: { type: 'gadgets', id: ep.id }, to: { type: 'endpoints', id: ep2.id }, relation: 'depends_on' }), 400, 'from.type');

    const list = (await api('GET', `/api/brain/links/endpoints/${ep.short_id}`)).body;
    assert.equal(list.total, 3, JSON.stringify(list));
    assert.ok(list.items.some((l: any) => l.from.id === app.id && l.to.id === ep.id));
    assert.ok(list.items.some((l: any) => l.from.id === ep.id && l.to.id === ep2.id));
    assert.equal((await api('GET', `/api/brain/links/endpoints/${ep2.id}`)).body.total, 1);
    assertProblem(await api('GET', `/api/brain/links/endpoints/${randomUUID()}`), 404);

    assert.equal((await api('DELETE', `/api/brain/links/${l1.body.id}`)).status, 204);
    assertProblem(await api('DELETE', `/api/brain/links/${l1.body.id}`), 404);
    assert.equal((await api('GET', `/api/brain/links/endpoints/${ep.id}`)).body.total, 2);

    // Deleting a record removes its links.
    assert.equal((await api('DELETE', `/api/brain/endpoints/${ep2.id}`)).status, 204);
    assert.equal((await api('GET', `/api/brain/links/endpoints/${ep.id}`)).body.total, 1);
    const audit = t.service.app.audit.query({ action: 'brain.*', limit: 1000 }).items;
    assert.ok(audit.some((e) => e.action === 'brain.link') && audit.some((e) => e.action === 'brain.unlink'));
  });

  test('endpoint and application monitors come with their status; a deleted monitor takes its links along', async () => {
    const l = await api('POST', '/api/brain/links', { from: { type: 'endpoints', id: ep.id }, to: { type: 'monitors', id: monitorId }, relation: 'monitored_by' });
    assert.equal(l.status, 201, l.text);
    assert.equal(l.body.to.name, 'brain-mon');
    assert.equal((await api('POST', '/api/brain/links', { from: { type: 'monitors', id: monitorId }, to: { type: 'applications', id: app.id }, relation: 'monitored_by' })).status, 201);
    const em = (await api('GET', `/api/brain/endpoints/${ep.short_id}/monitors`)).body;
    assert.equal(em.total, 1);
    const m = em.items[0];
    assert.equal(m.id, monitorId);
    assert.equal(m.name, 'brain-mon');
    assert.equal(m.check_type, 'tcp');
    assert.ok(['up', 'down', 'degraded', 'paused', 'unknown'].includes(m.status));
    assert.ok('last_check' in m && 'response_time' in m && 'target' in m);
    assert.deepEqual(m.links.map((x: any) => x.relation), ['monitored_by']);
    assert.equal((await api('GET', `/api/brain/applications/${app.id}/monitors`)).body.total, 1);
    assert.equal((await api('GET', `/api/brain/links/monitors/${monitorId}`)).body.total, 2);

    assert.equal((await api('DELETE', `/api/monitors/${monitorId}`)).status, 204);
    for (let i = 0; i < 100 && (await api('GET', `/api/brain/links/endpoints/${ep.id}`)).body.items.some((x: any) => x.to.type === 'monitors'); i++) await sleep(20);
    assert.equal((await api('GET', `/api/brain/endpoints/${ep.id}/monitors`)).body.total, 0);
    assert.ok(!(await api('GET', `/api/brain/links/endpoints/${ep.id}`)).body.items.some((x: any) => x.to.type === 'monitors'));
    assert.equal((await api('GET', `/api/brain/applications/${app.id}/monitors`)).body.total, 0);
  });
});

describe('search', () => {
  test('q shorter than 2 characters, or none, is a 400', async () => {
    assertProblem(await api('GET', '/api/brain/search?q=a'), 400, 'query.q');
    assertProblem(await api('GET', '/api/brain/search?q=%20a%20'), 400, 'query.q');
    assertProblem(await api('GET', '/api/brain/search'), 400, 'query.q');
  });

  test('exact short ID, name, IP and MAC first; then text matches; at most 30', async () => {
    const target = await create('endpoints', {
      name: 'Frobnicator', hostname: 'frob01', ip_addresses: ['10.80.1.20', '2001:db8:80::20'], mac_addresses: ['de:ad:be:ef:00:01'],
      serial_number: 'SN-FROB-777',
    });
    for (let i = 0; i < 35; i++) await create('assets', { name: `frobnicator spare ${i}`, notes: 'frobnicator parts' });
    await create('applications', { name: 'Other', notes: 'talks to the frobnicator every hour', custom_fields: { owner_team: 'quuxteam' } });

    const byName = (await api('GET', '/api/brain/search?q=frobnicator')).body;
    assert.equal(byName.items.length, 30);
    assert.equal(byName.total, 30);
    assert.equal(byName.items[0].id, target.id, 'the exact name comes first');
    assert.equal(byName.items[0].match, 'exact');
    for (const it of byName.items) assert.deepEqual(Object.keys(it).sort(), ['id', 'match', 'name', 'short_id', 'snippet', 'type']);

    const bySid = (await api('GET', `/api/brain/search?q=${target.short_id.toLowerCase()}`)).body;
    assert.equal(bySid.items[0].id, target.id);
    assert.equal(bySid.items[0].match, 'short_id');

    for (const q of ['10.80.1.20', '2001:DB8:80:0::20', 'DEAD.BEEF.0001', 'de-ad-be-ef-00-01', 'frob01', 'sn-frob-777']) {
      const r = (await api('GET', `/api/brain/search?q=${encodeURIComponent(q)}`)).body;
      assert.equal(r.items[0]?.id, target.id, `${q}: ${JSON.stringify(r.items.slice(0, 3))}`);
      assert.equal(r.items[0].match, 'exact');
    }
    const custom = (await api('GET', '/api/brain/search?q=quuxteam')).body;
    assert.equal(custom.items[0]?.name, 'Other', 'custom field values are searched');
    assert.match(custom.items[0].snippet, /quuxteam/);
    const prefix = (await api('GET', '/api/brain/search?q=frobni')).body;
    assert.equal(prefix.items.length, 30);
    assert.ok(prefix.items.every((i: any) => i.match === 'text'), 'a prefix is no exact match');

    const inNotes = await create('applications', { name: 'Mentions', notes: 'the zebulon box is in the basement' });
    const inName = await create('endpoints', { name: 'Zebulon box' });
    const ranked = (await api('GET', '/api/brain/search?q=zebul')).body;
    assert.deepEqual(ranked.items.map((i: any) => i.id), [inName.id, inNotes.id], 'a name match ranks above a notes match');
    assert.match(ranked.items[1].snippet, /\[zebulon\]/);
  });

  test('an IP address finds the subnets that contain it (v4 and v6), most specific first', async () => {
    const wide = await create('subnets', { cidr: '10.90.0.0/16', name: 'campus' });
    const narrow = await create('subnets', { cidr: '10.90.4.0/24', name: 'floor 4' });
    await create('subnets', { cidr: '10.91.0.0/16', name: 'elsewhere' });
    const v6 = await create('subnets', { cidr: '2001:db8:90::/48', name: 'campus v6' });
    const ep = await create('endpoints', { name: 'printer-4', ip_addresses: ['10.90.4.77'] });

    const r = (await api('GET', '/api/brain/search?q=10.90.4.77')).body;
    assert.deepEqual(r.items.slice(0, 3).map((i: any) => i.id), [ep.id, narrow.id, wide.id]);
    assert.equal(r.items[1].match, 'subnet');
    assert.ok(!r.items.some((i: any) => i.name === 'elsewhere'));

    const r6 = (await api('GET', '/api/brain/search?q=2001:db8:90:1::abcd')).body;
    assert.equal(r6.items[0]?.id, v6.id);
    assert.equal(r6.items[0].match, 'subnet');
    const none = (await api('GET', '/api/brain/search?q=192.0.2.250')).body;
    assert.ok(!none.items.some((i: any) => i.type === 'subnets'));
  });
});

describe('recent', () => {
  test('newest first, limit default 20, at most 100', async () => {
    const a = await create('sites', { name: 'recent-1' });
    const b = await create('sites', { name: 'recent-2' });
    await sleep(5);
    await api('PUT', `/api/brain/sites/${a.id}`, { notes: 'touched' });
    const r = (await api('GET', '/api/brain/recent')).body;
    assert.ok(r.items.length <= 20);
    assert.ok(r.total >= r.items.length);
    assert.equal(r.items[0].id, a.id);
    assert.ok(r.items.findIndex((i: any) => i.id === b.id) > 0);
    assert.deepEqual(Object.keys(r.items[0]).sort(), ['created_at', 'id', 'name', 'short_id', 'type', 'updated_at']);
    assert.equal((await api('GET', '/api/brain/recent?limit=3')).body.items.length, 3);
    assertProblem(await api('GET', '/api/brain/recent?limit=101'), 400, 'query.limit');
    const s = (await api('GET', '/api/brain/stats')).body;
    assert.ok(s.sites >= 2 && s.endpoints > 0 && s.credentials === 0);
  });
});

describe('restart', () => {
  test('records, sequences, history and the search index survive a restart', async () => {
    const first = await create('sites', { name: 'Persistent Place', notes: 'survives restarts' });
    const n = Number(first.short_id.split('-')[1]);
    keptDir = t.dataDir;
    await t.close({ keepData: true });
    t = await startTestApp({ dataDir: keptDir });
    assert.equal((await api('GET', `/api/brain/sites/${first.short_id}`)).body.id, first.id);
    assert.equal((await create('sites', { name: 'After restart' })).short_id, `ST-${n + 1}`);
    assert.equal((await api('GET', '/api/brain/search?q=survives')).body.items[0]?.id, first.id);
    assert.equal((await api('GET', `/api/brain/history/sites/${first.id}`)).body.total, 1);
  });
});
