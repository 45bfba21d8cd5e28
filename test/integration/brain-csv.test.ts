// The inventory's CSV export and import through real HTTP against the real service: every one of the seven
// types goes out and comes back (a dry run first, which changes nothing and says what would happen, down to
// the short IDs), references by name, formula-safe cells read back as they were written; what an import refuses
// and why (the field errors, by column); updates by id; limits, media types, scopes and the audit entry.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { parseCsv } from '../../src/core/csv.js';
import { BRAIN_TYPES } from '../../src/modules/brain/contracts.js';
import { assertProblem, startTestApp, type TestApp } from '../helpers/harness.js';

let t: TestApp;
let key: string;

const api = (method: string, path: string, body?: unknown, k = key) => t.request(method, path, { key: k, body });
const csvImport = (type: string, csv: string, opts: { dry?: boolean; k?: string; type?: string } = {}) =>
  t.request('POST', `/api/brain/${type}/import${opts.dry ? '?dry_run=true' : ''}`,
    { key: opts.k ?? key, raw: csv, headers: { 'content-type': opts.type ?? 'text/csv' } });

async function create(type: string, body: Record<string, unknown>): Promise<any> {
  const r = await api('POST', `/api/brain/${type}`, body);
  assert.equal(r.status, 201, r.text);
  return r.body;
}

/** The export's rows as objects keyed by the header. */
function rowsOf(csv: string): Record<string, string>[] {
  const [head, ...rows] = parseCsv(csv);
  return rows.map((r) => Object.fromEntries(head!.cells.map((h, i) => [h, r.cells[i]!])));
}

/** What a record is, whatever probe holds it: its row without ids, times and figures the probe works out. */
const content = (row: Record<string, string>) => {
  const { id: _id, short_id: _s, created_at: _c, updated_at: _u, status, last_seen: _l, ...rest } = row;
  return row.ip_addresses !== undefined ? rest : { ...rest, ...(status !== undefined ? { status } : {}) };
};

// In the order their references need: an import resolves a reference to a record that exists.
const TYPES = ['sites', 'locations', 'credentials', 'endpoints', 'assets', 'applications', 'subnets'] as const;

before(async () => {
  t = await startTestApp();
  key = (await t.admin()).key;
  assert.equal((await api('POST', '/api/brain/vault/setup', { passphrase: 'csv round trip passphrase 1' })).status, 200);
});
after(() => t.close());

describe('every type goes out and comes back', () => {
  const exported: Record<string, string> = {};

  test('the round trip below covers every inventory type', () => {
    assert.deepEqual([...TYPES].sort(), [...BRAIN_TYPES].sort(), 'a new type joins TYPES (and gets a record below)');
  });

  test('records of every type, with the fields that are hard to put in a cell', async () => {
    const site = await create('sites', {
      name: 'Head office', address: 'Bahnhofstrasse 1, 8001 Zürich', time_zone: 'Europe/Zurich', latitude: -33.86, longitude: 151.2,
      contact_name: '=HYPERLINK("http://evil")', contact_phone: '+41 44 000 00 00', tags: ['hq', 'a, b'],
      custom_fields: { rack_units: 42, audited: true, owner: 'ops' }, notes: 'two\nlines, and "quotes"',
    });
    await create('sites', { name: 'Branch', description: '@sum(1)' });
    const room = await create('locations', { name: 'Server room', site_id: site.id, building: 'A', floor: '-1', room: '0.12', rack: 'R1' });
    const cred = await create('credentials', { name: 'Switch SNMP', kind: 'snmp_v2c', community: 'csv-secret-community', scope: ['10.30.0.0/24'],
      port: 1161, tags: ['snmp'] });
    const ep = await create('endpoints', {
      name: 'core-sw1', hostname: 'core-sw1.lan', ip_addresses: ['10.30.0.2', '2001:db8::2'], mac_addresses: ['aa:bb:cc:00:00:02'],
      role: 'switch', vendor: 'Cisco', model: 'C9300', serial_number: 'FOC123', os: 'IOS-XE', os_version: '17.9',
      site_id: site.id, location_id: room.id, credential_id: cred.id,
    });
    const ep2 = await create('endpoints', { name: 'web01', ip_addresses: ['10.30.0.10'], role: 'server' });
    await create('assets', { name: 'Switch chassis', asset_tag: 'A-0001', serial_number: 'FOC123', manufacturer: 'Cisco', model: 'C9300',
      status: 'in_use', purchase_date: '2024-01-15', warranty_expires: '2027-01-15', assigned_to: 'Ops', location_id: room.id,
      endpoint_id: ep.id });
    await create('applications', { name: 'Intranet', url: 'https://intranet.example.lan/', owner: 'IT', criticality: 'high',
      endpoint_ids: [ep2.id, ep.id] });
    await create('subnets', { cidr: '10.30.0.0/24', name: 'Servers', vlan_id: 30, vlan_name: 'srv', gateway: '10.30.0.1',
      dhcp_ranges: [{ start: '10.30.0.100', end: '10.30.0.199' }], dns_servers: ['10.30.0.53', '10.30.0.54'], site_id: site.id });
  });

  test('each type exports its list as CSV: header, every record, formula cells neutralised, no secret', async () => {
    for (const type of TYPES) {
      const r = await api('GET', `/api/brain/${type}/export.csv`);
      assert.equal(r.status, 200, `${type}: ${r.text}`);
      assert.match(r.headers.get('content-type') ?? '', /^text\/csv; charset=utf-8/);
      assert.match(r.headers.get('content-disposition') ?? '', new RegExp(`attachment; filename="inventory-${type}-\\d{8}-\\d{6}\\.csv"`));
      assert.ok(r.text.endsWith('\r\n'));
      exported[type] = r.text;
      const list = (await api('GET', `/api/brain/${type}`)).body;
      const rows = rowsOf(r.text);
      assert.deepEqual(rows.map((x) => x.short_id), list.items.map((x: any) => x.short_id), `${type}: the list, in its order`);
    }
    assert.ok(!exported.credentials!.includes('csv-secret-community'), 'no secret leaves the probe');
    const hq = rowsOf(exported.sites!).find((x) => x.name === 'Head office')!;
    assert.equal(hq.contact_name, `'=HYPERLINK("http://evil")`, 'a formula is shown as text');
    assert.equal(hq.contact_phone, "'+41 44 000 00 00");
    assert.equal(hq.latitude, '-33.86', 'a number is a number');
    assert.equal(hq.tags, '["hq","a, b"]', 'a list whose item holds a comma is JSON');
    assert.equal(hq.custom_fields, '{"rack_units":42,"audited":true,"owner":"ops"}');
    const sw = rowsOf(exported.endpoints!).find((x) => x.name === 'core-sw1')!;
    assert.equal(sw.ip_addresses, '10.30.0.2, 2001:db8::2');
    assert.equal(sw.site_id, 'Head office', 'a reference is the name of the record');
    assert.equal(sw.credential_id, 'Switch SNMP');
    assert.equal(sw.status, '', 'no monitor watches it');
    assert.equal(rowsOf(exported.applications!)[0]!.endpoint_ids, 'web01, core-sw1');
    assert.equal(rowsOf(exported.subnets!)[0]!.dhcp_ranges, '[{"start":"10.30.0.100","end":"10.30.0.199"}]');
    // The list's filters apply.
    const filtered = await api('GET', '/api/brain/endpoints/export.csv?role=server');
    assert.deepEqual(rowsOf(filtered.text).map((x) => x.name), ['web01']);
  });

  test('an export read back here is unchanged, and a dry run changes nothing', async () => {
    const before = (await api('GET', '/api/brain/recent?limit=100')).body;
    for (const type of TYPES) {
      const r = await csvImport(type, exported[type]!, { dry: true });
      assert.equal(r.status, 200, `${type}: ${r.text}`);
      assert.equal(r.body.dry_run, true);
      assert.deepEqual(r.body.rows.map((x: any) => x.action), rowsOf(exported[type]!).map(() => 'unchanged'), `${type}: ${r.text}`);
      const real = await csvImport(type, exported[type]!);
      assert.equal(real.status, 200);
      assert.equal(real.body.unchanged, rowsOf(exported[type]!).length);
    }
    assert.deepEqual((await api('GET', '/api/brain/recent?limit=100')).body, before, 'nothing changed');
  });

  test('on an empty inventory: a dry run says what each row would create, then the import creates it all again', async () => {
    for (const type of [...TYPES].reverse()) {
      const ids = (await api('GET', `/api/brain/${type}?limit=500`)).body.items.map((x: any) => x.id);
      if (ids.length) assert.equal((await api('POST', `/api/brain/${type}/bulk-delete`, { ids })).status, 200);
    }
    assert.deepEqual(Object.values((await api('GET', '/api/brain/stats')).body), [0, 0, 0, 0, 0, 0, 0]);
    for (const type of TYPES) {
      const csv = exported[type]!;
      const dry = await csvImport(type, csv, { dry: true });
      assert.equal(dry.status, 200, dry.text);
      assert.equal(dry.body.refused, 0, `${type}: ${dry.text}`);
      assert.equal(dry.body.created, rowsOf(csv).length);
      const prefix = (await api('GET', '/api/brain/stats')).body;
      assert.equal(prefix[type], 0, `${type}: a dry run creates nothing`);
      const real = await csvImport(type, csv);
      assert.equal(real.status, 200, real.text);
      assert.deepEqual(real.body.rows.map((x: any) => [x.action, x.short_id]), dry.body.rows.map((x: any) => [x.action, x.short_id]),
        `${type}: the import does what the dry run said, to the short IDs`);
      const again = (await api('GET', `/api/brain/${type}/export.csv`)).text;
      assert.deepEqual(rowsOf(again).map(content), rowsOf(csv).map(content), `${type}: the same records`);
      assert.notDeepEqual(rowsOf(again).map((x) => x.id), rowsOf(csv).map((x) => x.id), 'new records get ids of their own');
    }
    // The credential's secret did not travel: it is not set, and the kind still asks for it.
    const cred = (await api('GET', '/api/brain/credentials')).body.items[0];
    assert.deepEqual(cred.community, { set: false });
    const h = await api('GET', `/api/brain/history/sites/${(await api('GET', '/api/brain/sites?q=Head')).body.items[0].id}`);
    assert.equal(h.body.items[0].action, 'create');
    assert.equal(h.body.items[0].note, 'CSV import');
  });
});

describe('what an import refuses, and updates', () => {
  test('refused rows say why, by column; the good rows are imported; the dry run said the same', async () => {
    await create('sites', { name: 'Twin' });
    await create('sites', { name: 'Twin' });
    const csv = [
      'name,ip_addresses,role,site_id,custom_fields,mac_addresses',
      'good-1,10.31.0.1,server,Head office,,',
      'bad-ip,10.31.0.300,server,,,',
      'bad-role,10.31.0.3,toaster,,,',
      'no-site,10.31.0.4,,Nowhere,,',
      'twin-site,10.31.0.5,,Twin,,',
      'bad-json,10.31.0.6,,,{oops,',
      'short,row',
      ',,,,,',
      '"good-2",10.31.0.7,,,"{""floor"": 2}","aa-bb-cc-00-00-07"',
    ].join('\r\n');
    const dry = await csvImport('endpoints', csv, { dry: true });
    assert.equal(dry.status, 200, dry.text);
    const real = await csvImport('endpoints', csv);
    assert.equal(real.status, 200, real.text);
    const sum = (b: any) => b.rows.map((r: any) => `${r.line} ${r.action} ${(r.errors ?? []).map((e: any) => e.path).join('+')}`);
    assert.deepEqual(sum(real.body), sum(dry.body));
    assert.deepEqual(sum(real.body), [
      '2 create ', '3 refused ip_addresses.0', '4 refused role', '5 refused site_id', '6 refused site_id', '7 refused custom_fields',
      '8 refused ', '10 create ',
    ]);
    const byLine = (n: number) => real.body.rows.find((r: any) => r.line === n);
    assert.match(byLine(3).errors[0].message, /Not an IPv4 or IPv6 address: 10\.31\.0\.300/);
    assert.match(byLine(5).errors[0].message, /No record in sites is named "Nowhere"/);
    assert.match(byLine(6).errors[0].message, /2 records in sites are named "Twin": give the short ID/);
    assert.match(byLine(7).errors[0].message, /Not valid JSON/);
    assert.match(byLine(8).detail, /2 cells; the header names 6 columns/);
    assert.deepEqual([real.body.created, real.body.refused], [2, 6]);
    const good = (await api('GET', '/api/brain/endpoints?q=good-2')).body.items[0];
    assert.deepEqual([good.custom_fields, good.mac_addresses], [{ floor: 2 }, ['aa:bb:cc:00:00:07']]);
    assert.equal((await api('GET', '/api/brain/endpoints?q=bad-')).body.total, 0);
  });

  test('a row whose id names a record updates the columns it gives; an empty cell clears a field', async () => {
    const ep = await create('endpoints', { name: 'upd-1', ip_addresses: ['10.32.0.1'], vendor: 'Old', model: 'M1', tags: ['x'] });
    const csv = `id,vendor,model,tags\r\n${ep.short_id},New,,"x, y"\r\n`;
    const dry = await csvImport('endpoints', csv, { dry: true });
    assert.deepEqual(dry.body.rows[0], { line: 2, action: 'update', id: ep.id, short_id: ep.short_id, name: 'upd-1',
      fields: ['tags', 'vendor', 'model'] });
    assert.equal((await api('GET', `/api/brain/endpoints/${ep.id}`)).body.vendor, 'Old');
    assert.equal((await csvImport('endpoints', csv)).body.updated, 1);
    const after = (await api('GET', `/api/brain/endpoints/${ep.id}`)).body;
    assert.deepEqual([after.vendor, after.model, after.tags, after.ip_addresses], ['New', null, ['x', 'y'], ['10.32.0.1']]);
    const other = await create('sites', { name: 'not an endpoint' });
    const wrong = await csvImport('endpoints', `id,vendor\r\n${other.id},X\r\n`);
    assert.equal(wrong.body.rows[0].action, 'refused');
    assert.match(wrong.body.rows[0].detail, /is a record in sites, not in endpoints/);
  });

  test('JSON {csv} is the same as a text/csv body', async () => {
    const r = await t.request('POST', '/api/brain/sites/import?dry_run=1', { key, body: { csv: 'name\r\nJSON site\r\n' } });
    assert.equal(r.status, 200, r.text);
    assert.equal(r.body.rows[0].action, 'create');
    assertProblem(await t.request('POST', '/api/brain/sites/import', { key, body: { text: 'name' } }), 400, 'text');
    // A cell is held to what a JSON body's field is: a name is one line.
    const two = await csvImport('sites', 'name,notes\r\n"two\nlines","notes may\nhave lines"\r\n');
    assert.deepEqual(two.body.rows[0].errors, [{ path: 'name', message: 'Must be one line without control characters (line breaks, tabs, escapes)' }]);
  });
});

describe('limits, media types, access and audit', () => {
  test('a file that is not an import of the type is a 400 for the whole file', async () => {
    assertProblem(await csvImport('sites', 'name,colour\r\nA,red\r\n'), 400, 'columns.1');
    assertProblem(await csvImport('sites', 'name,name\r\nA,B\r\n'), 400, 'columns.1');
    assertProblem(await csvImport('sites', ''), 400);
    assertProblem(await csvImport('sites', 'name\r\n"unterminated\r\n'), 400);
    const many = `name\r\n${Array.from({ length: 2001 }, (_, i) => `s${i}`).join('\r\n')}\r\n`;
    assertProblem(await csvImport('sites', many), 400);
    assertProblem(await csvImport('sites', 'name\r\nA\r\n', { type: 'text/plain' }), 415);
    assertProblem(await csvImport('widgets', 'name\r\nA\r\n'), 404);
    const big = `name,notes\r\nA,"${'x'.repeat(1100 * 1024)}"\r\n`;
    assertProblem(await csvImport('sites', big), 413);
  });

  test('scopes: a viewer exports but does not import; credentials are imported by an administrator only', async () => {
    const viewer = await t.user('viewer', ['brain:read']);
    assert.equal((await api('GET', '/api/brain/sites/export.csv', undefined, viewer.key)).status, 200);
    assertProblem(await csvImport('sites', 'name\r\nV\r\n', { k: viewer.key }), 403);
    const op = await t.user('operator', ['brain:write']);
    assert.equal((await api('GET', '/api/brain/credentials/export.csv', undefined, op.key)).status, 200);
    assertProblem(await csvImport('credentials', 'name,kind\r\nC,snmp_v2c\r\n', { k: op.key }), 403);
    // An operator's import that binds an endpoint to a credential: that row is refused, the others are imported.
    const r = await csvImport('endpoints', 'name,ip_addresses,credential_id\r\nop-1,10.33.0.1,\r\nop-2,10.33.0.2,Switch SNMP\r\n', { k: op.key });
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(r.body.rows.map((x: any) => [x.action, x.code ?? null]), [['create', null], ['refused', 'credential_binding']]);
    // Reading back an export that holds bound endpoints changes no binding: nothing is refused.
    const all = (await api('GET', '/api/brain/endpoints/export.csv', undefined, op.key)).text;
    assert.ok(rowsOf(all).some((x) => x.credential_id === 'Switch SNMP'));
    const again = await csvImport('endpoints', all, { k: op.key, dry: true });
    assert.deepEqual([again.body.refused, again.body.unchanged], [0, rowsOf(all).length], again.text);
    // Binding one through an update row is refused like a create's.
    const rebind = await csvImport('endpoints', `id,credential_id\r\n${rowsOf(all).find((x) => x.name === 'op-1')!.id},Switch SNMP\r\n`, { k: op.key });
    assert.equal(rebind.body.rows[0].code, 'credential_binding');
    // An administrator imports credentials with their secrets (the vault is open).
    const a = await csvImport('credentials', 'name,kind,community,scope\r\nImported v2c,snmp_v2c,imported-secret,10.34.0.0/24\r\n');
    assert.equal(a.body.created, 1, a.text);
    const cred = (await api('GET', '/api/brain/credentials?q=Imported')).body.items[0];
    assert.deepEqual([cred.community, cred.scope], [{ set: true }, ['10.34.0.0/24']]);
    assert.ok(!JSON.stringify(a.body).includes('imported-secret'));
  });

  test('an import that writes is audited once; a dry run is not', async () => {
    const count = async () => (await api('GET', '/api/audit-log?action=brain.import&limit=100')).body.total;
    const n = await count();
    await csvImport('sites', 'name\r\nAudited 1\r\nAudited 2\r\n', { dry: true });
    assert.equal(await count(), n);
    await csvImport('sites', 'name\r\nAudited 1\r\nAudited 2\r\n');
    const log = (await api('GET', '/api/audit-log?action=brain.import&limit=1')).body.items[0];
    assert.equal(await count(), n + 1);
    assert.equal(log.target, 'sites');
    assert.equal(log.details.created, 2);
    assert.equal(log.details.short_ids.length, 2);
  });
});
