// The inventory bridge (/api/v1sion/brain/*) against the real service: scan results written through
// ScanResults.save as a finished scan writes them (hand-made devices: no packet leaves the process),
// sessions made from them through the API, an inventory with fields set by hand.
//
// The full cycle (diff -> create -> link -> rescan with changed fields -> diff shows both values ->
// auto-match apply; hand-set fields survive every write), one box seen on several addresses, bulk
// operations with a bad item in the middle, the record each device stands for (matches), validation 400s
// naming the field, 404s, scopes.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, test } from 'node:test';
import { BridgeService } from '../../src/modules/v1sion/brain/service.js';
import { ScanResults } from '../../src/modules/v1sion/scan/results.js';
import { SessionService } from '../../src/modules/v1sion/sessions/service.js';
import type { ScanDevice, ScanHost, ScanResult, SnmpFacts } from '../../src/modules/v1sion/scan/result.js';
import { assertProblem, startTestApp, type TestApp } from '../helpers/harness.js';

let t: TestApp;
let key: string;
let actor: string;
const api = (method: string, path: string, body?: unknown, k = key) => t.request(method, path, { key: k, body });

before(async () => {
  t = await startTestApp();
  const a = await t.admin();
  key = a.key;
  actor = `${a.username} (key test-admin)`;
});
after(() => t?.close());

// ---- hand-made scan results ----------------------------------------------------------------------------

interface Box {
  id: string;
  addresses: string[];
  mac?: string;
  hostname?: string;
  snmp?: Partial<SnmpFacts>;
  kind?: ScanDevice['kind'];
}

function snmpFacts(o: Partial<SnmpFacts>): SnmpFacts {
  return {
    credential: { credential_id: randomUUID(), short_id: 'CR-1', name: 'lab community', version: 'v2c' }, version: 'v2c',
    vendor_key: 'generic', vendor: null, kind: null, model: null, os: null, os_version: null, serial: null, sys_name: null,
    sys_descr: null, sys_object_id: null, sys_location: null, sys_services: null, engine_id: null, note: null, ...o,
  };
}

async function saveScan(subnet: string, boxes: Box[]): Promise<string> {
  const jobId = randomUUID();
  const hosts: ScanHost[] = [];
  const devices: ScanDevice[] = [];
  for (const b of boxes) {
    const snmp = b.snmp ? snmpFacts(b.snmp) : null;
    for (const ip of b.addresses) {
      hosts.push({ ip, alive_by: ['icmp'], rtt_ms: 1, mac: b.mac ?? null, mac_vendor: b.mac ? 'Intel Corporate' : null,
        hostname: b.hostname ?? null, open_ports: [], snmp, device_id: b.id });
    }
    devices.push({
      id: b.id, name: snmp?.sys_name ?? b.hostname ?? b.addresses[0]!, kind: b.kind ?? 'host', addresses: b.addresses,
      macs: b.mac ? [b.mac] : [], vendor_key: snmp?.vendor_key ?? null, vendor: snmp?.vendor ?? (b.mac ? 'Intel Corporate' : null),
      model: snmp?.model ?? null, serial: snmp?.serial ?? null, sys_name: snmp?.sys_name ?? null, engine_id: snmp?.engine_id ?? null,
      chassis_id: null, seen: 'scan', merged_by: b.addresses.length > 1 ? ['engine_id'] : [],
    });
  }
  const now = new Date().toISOString();
  const result: ScanResult = {
    job_id: jobId, subnet, state: 'completed', started_at: now, finished_at: now, duration_ms: 1000,
    counts: { addresses: 254, live: hosts.length, snmp: hosts.filter((h) => h.snmp).length, devices: devices.length, links: 0 },
    hosts, devices, links: [], routes: [], warnings: [],
  };
  await new ScanResults(t.service.app).save(result, 'test');
  return jobId;
}

const item = (diff: any, deviceId: string) => diff.items.find((i: any) => i.device.device_ids.includes(deviceId));
const change = (i: any, field: string) => i.changes.find((c: any) => c.field === field);

// ---- the full cycle -----------------------------------------------------------------------------------

test('the full cycle: diff, create, link, rescan, diff shows both values, auto-match; hand-set fields survive', async () => {
  const site = (await api('POST', '/api/brain/sites', { name: 'Head office' })).body;
  assert.equal((await api('POST', '/api/brain/subnets', { cidr: '10.66.0.0/24', site_id: site.short_id })).status, 201);
  // A person's records: the core switch with an OS written by hand; a NAS the scan will not see.
  const core = (await api('POST', '/api/brain/endpoints', { name: 'core-sw', ip_addresses: ['10.66.0.1'], os: 'Hand OS' })).body;
  const nas = (await api('POST', '/api/brain/endpoints', { name: 'old-nas', ip_addresses: ['10.66.0.40'] })).body;

  const swFacts = { vendor: 'Cisco', vendor_key: 'cisco', model: 'C9300-24T', serial: 'FOC2233X0AB', os: 'IOS-XE', os_version: '17.3',
    sys_name: 'core-sw', kind: 'switch' };
  const scanA = await saveScan('10.66.0.0/24', [
    { id: 'd1', addresses: ['10.66.0.1'], mac: '00:1b:54:00:00:01', snmp: swFacts, kind: 'switch' },
    { id: 'd2', addresses: ['10.66.0.20'], mac: '3c:97:0e:00:00:20', hostname: 'ws-20.lab.example' },
    { id: 'd3', addresses: ['10.66.0.30'], mac: '00:80:77:00:00:30' },
  ]);

  const d1 = await api('POST', '/api/v1sion/brain/diff', { scan_job_id: scanA });
  assert.equal(d1.status, 200, d1.text);
  assert.doesNotMatch(d1.text, /"credential|lab community/, 'no credential of the scan is part of a diff');
  assert.deepEqual(d1.body.source, { type: 'scan', id: scanA, name: null, subnets: ['10.66.0.0/24'], seen_at: d1.body.source.seen_at,
    scan_job_id: scanA, devices: 3 });
  const sw = item(d1.body, 'd1');
  assert.equal(sw.status, 'changed');
  assert.deepEqual([sw.match.inventory.id, sw.match.reason, sw.match.matched_on, sw.match.certain], [core.id, 'address', '10.66.0.1', false]);
  assert.deepEqual(change(sw, 'os'), { field: 'os', inventory: 'Hand OS', discovered: 'IOS-XE', hand_set: true, writes: false });
  assert.deepEqual(change(sw, 'serial_number'), { field: 'serial_number', inventory: null, discovered: 'FOC2233X0AB', hand_set: false, writes: true });
  assert.deepEqual(change(sw, 'mac_addresses').discovered, ['00:1b:54:00:00:01']);
  assert.deepEqual([item(d1.body, 'd2').status, item(d1.body, 'd3').status], ['new', 'new']);
  assert.deepEqual(d1.body.missing.map((m: any) => [m.inventory.short_id, m.addresses, m.last_seen]), [[nas.short_id, ['10.66.0.40'], null]]);
  assert.deepEqual(d1.body.counts, { new: 2, changed: 1, unchanged: 0, missing: 1, certain: 0, candidates: 0 });

  // Create from d2: addresses, MAC, vendor, host name and the site of its subnet; written by the discovery actor.
  const made = await api('POST', '/api/v1sion/brain/create', { scan_job_id: scanA, device_id: 'd2' });
  assert.equal(made.status, 201, made.text);
  assert.doesNotMatch(made.text, /"credential"|lab community/);
  const ws = made.body.record;
  assert.deepEqual([ws.ip_addresses, ws.mac_addresses, ws.vendor, ws.hostname, ws.site_id, ws.name],
    [['10.66.0.20'], ['3c:97:0e:00:00:20'], 'Intel Corporate', 'ws-20.lab.example', site.id, 'ws-20.lab.example']);
  assert.match(ws.short_id, /^EP-\d+$/);
  const wsHistory = (await api('GET', `/api/brain/history/endpoints/${ws.id}`)).body.items;
  assert.deepEqual(wsHistory.map((h: any) => [h.action, h.actor]), [['create', `discovery for ${actor}`]]);
  assert.equal((await api('GET', '/api/brain/search?q=3c97.0e00.0020')).body.items[0]?.id, ws.id, 'search finds the record by its MAC');
  assertProblem(await api('POST', '/api/v1sion/brain/create', { scan_job_id: scanA, device_id: 'd2' }), 409);
  // d1 matches core-sw: creating it would be a duplicate unless forced.
  const dup = await api('POST', '/api/v1sion/brain/create', { scan_job_id: scanA, device_id: 'd1' });
  assertProblem(dup, 409);
  assert.equal(dup.body.code, 'possible_duplicate');
  assert.equal(dup.body.matches[0].id, core.id);

  // Link d1 to the core switch: owned fields written, the hand-set OS kept.
  const linked = await api('POST', '/api/v1sion/brain/link', { scan_job_id: scanA, device_id: 'd1', inventory: { type: 'endpoints', id: core.short_id } });
  assert.equal(linked.status, 200, linked.text);
  assert.equal(linked.body.status, 'linked');
  assert.deepEqual(linked.body.written.map((c: any) => c.field).sort(), ['mac_addresses', 'model', 'os_version', 'serial_number', 'vendor']);
  assert.deepEqual(linked.body.kept.map((c: any) => [c.field, c.inventory, c.discovered]), [['os', 'Hand OS', 'IOS-XE']]);
  let coreNow = (await api('GET', `/api/brain/endpoints/${core.id}`)).body;
  assert.deepEqual([coreNow.os, coreNow.os_version, coreNow.vendor, coreNow.serial_number], ['Hand OS', '17.3', 'Cisco', 'FOC2233X0AB']);

  // A person changes the workstation: vendor and OS by hand.
  assert.equal((await api('PUT', `/api/brain/endpoints/${ws.id}`, { vendor: 'Dell', os: 'Windows 11' })).status, 200);

  // Rescan: the switch answers on a second address and runs a newer release; the workstation moved address.
  const scanB = await saveScan('10.66.0.0/24', [
    { id: 'd1', addresses: ['10.66.0.1', '10.66.0.2'], mac: '00:1b:54:00:00:01', snmp: { ...swFacts, os_version: '17.6' }, kind: 'switch' },
    { id: 'd2', addresses: ['10.66.0.21'], mac: '3c:97:0e:00:00:20' },
  ]);
  const d2 = await api('POST', '/api/v1sion/brain/diff', { scan_job_id: scanB });
  assert.equal(d2.status, 200, d2.text);
  const sw2 = item(d2.body, 'd1');
  assert.deepEqual([sw2.status, sw2.linked, sw2.match.reason, sw2.match.certain], ['changed', true, 'linked', true]);
  assert.deepEqual(change(sw2, 'os_version'), { field: 'os_version', inventory: '17.3', discovered: '17.6', hand_set: false, writes: true });
  assert.deepEqual(change(sw2, 'ip_addresses'), { field: 'ip_addresses', inventory: ['10.66.0.1'], discovered: ['10.66.0.1', '10.66.0.2'],
    hand_set: true, writes: false }, 'the addresses a person typed are theirs: shown, not written');
  assert.equal(change(sw2, 'os').hand_set, true);
  const ws2 = item(d2.body, 'd2');
  assert.deepEqual([ws2.status, ws2.linked], ['changed', true]);
  assert.deepEqual(change(ws2, 'ip_addresses'), { field: 'ip_addresses', inventory: ['10.66.0.20'], discovered: ['10.66.0.21'],
    hand_set: false, writes: true }, 'addresses discovery wrote are discovery\'s to update');
  assert.equal(change(ws2, 'vendor'), undefined, 'a MAC registrant never replaces a vendor');
  assert.equal(d2.body.missing.find((m: any) => m.inventory.id === nas.id).last_seen, null);

  // Auto-match without apply writes nothing; with apply it links the certain pairings.
  const dry = await api('POST', '/api/v1sion/brain/auto-match', { scan_job_id: scanB });
  assert.equal(dry.status, 200, dry.text);
  assert.deepEqual(dry.body.items.map((p: any) => [p.device_id, p.reason, p.result]).sort(), [['d1', 'linked', null], ['d2', 'linked', null]]);
  assert.equal((await api('GET', `/api/brain/endpoints/${core.id}`)).body.os_version, '17.3');
  const applied = await api('POST', '/api/v1sion/brain/auto-match', { scan_job_id: scanB, apply: true });
  assert.equal(applied.status, 200, applied.text);
  assert.doesNotMatch(applied.text + linked.text, /"credential"|lab community/, 'no credential of the scans in any answer');
  assert.deepEqual(applied.body.counts, { certain: 2, left: 0, unmatched: 0, linked: 2, skipped: 0 });
  coreNow = (await api('GET', `/api/brain/endpoints/${core.id}`)).body;
  assert.deepEqual([coreNow.os, coreNow.os_version, coreNow.ip_addresses], ['Hand OS', '17.6', ['10.66.0.1']]);
  const wsNow = (await api('GET', `/api/brain/endpoints/${ws.id}`)).body;
  assert.deepEqual([wsNow.vendor, wsNow.os, wsNow.ip_addresses], ['Dell', 'Windows 11', ['10.66.0.21']]);

  // After applying, the same scan diffs as unchanged but for the hand-set fields, still shown.
  const d3 = await api('POST', '/api/v1sion/brain/diff', { scan_job_id: scanB });
  assert.deepEqual(item(d3.body, 'd1').changes.map((c: any) => [c.field, c.hand_set]), [['ip_addresses', true], ['os', true]]);
  assert.equal(item(d3.body, 'd2').status, 'unchanged');

  // History tells the discovery actor from the person; the audit log has the links under the person.
  const coreHistory = (await api('GET', `/api/brain/history/endpoints/${core.id}`)).body.items;
  assert.deepEqual(coreHistory.map((h: any) => h.actor), [`discovery for ${actor}`, `discovery for ${actor}`, actor]);
  assert.deepEqual(Object.keys(coreHistory[0].changes), ['os_version']);
  const audit = (await api('GET', '/api/audit-log?action=v1sion.inventory_link')).body.items;
  assert.ok(audit.length >= 3, JSON.stringify(audit));
  assert.ok(audit.every((a: any) => a.actor === actor));
  const updates = (await api('GET', '/api/audit-log?action=brain.update')).body.items;
  assert.ok(updates.some((a: any) => a.details?.via === 'discovery'));
  // Nothing was deleted: the NAS the scans never saw is still there.
  assert.equal((await api('GET', `/api/brain/endpoints/${nas.id}`)).status, 200);
});

// ---- one box on several addresses -------------------------------------------------------------------------

test('one box on several addresses is one device: matched, created and linked once', async () => {
  const existing = (await api('POST', '/api/brain/endpoints', { name: 'file-server', ip_addresses: ['10.67.0.6'] })).body;
  const scan = await saveScan('10.67.0.0/24', [
    // Two addresses on one NIC, no SNMP: the scan has two devices sharing a MAC.
    { id: 'd1', addresses: ['10.67.0.5'], mac: '52:54:00:67:00:05' },
    { id: 'd2', addresses: ['10.67.0.6'], mac: '52:54:00:67:00:05' },
    // A router the scan merged already (engine ID), three addresses.
    { id: 'd3', addresses: ['10.67.0.1', '10.67.0.65', '10.67.0.129'], mac: '00:0c:42:67:00:01',
      snmp: { vendor: 'MikroTik', vendor_key: 'mikrotik', sys_name: 'gw-67', engine_id: '80003a8c04a1b2c3d4e5f60708' }, kind: 'router' },
  ]);
  const d = (await api('POST', '/api/v1sion/brain/diff', { scan_job_id: scan })).body;
  assert.equal(d.items.length, 2, 'd1 and d2 are one item');
  const nic = item(d, 'd2');
  assert.deepEqual(nic.device.device_ids, ['d1', 'd2']);
  assert.deepEqual(nic.device.addresses, ['10.67.0.5', '10.67.0.6']);
  assert.equal(nic.match.inventory.id, existing.id);
  assert.equal(item(d, 'd3').status, 'new');

  const bulk = await api('POST', '/api/v1sion/brain/bulk-create', { scan_job_id: scan, items: [{ device_id: 'd3' }, { device_id: 'd1' }] });
  assert.equal(bulk.status, 200, bulk.text);
  assert.deepEqual(bulk.body.items.map((i: any) => [i.device_id, i.status, i.code]), [['d3', 'created', undefined], ['d1', 'skipped', 'possible_duplicate']]);
  assert.deepEqual(bulk.body.items[0].record.ip_addresses, ['10.67.0.1', '10.67.0.65', '10.67.0.129']);
  assert.equal(bulk.body.items[0].record.role, 'router');
  // Either id of the merged device links it; the link holds for both addresses.
  const l = await api('POST', '/api/v1sion/brain/link', { scan_job_id: scan, device_id: 'd1', inventory: { type: 'endpoints', id: existing.id } });
  assert.equal(l.status, 200, l.text);
  assert.deepEqual([l.body.device_id, l.body.device_ids], ['d1', ['d1', 'd2']]);
  assert.deepEqual(l.body.written.find((c: any) => c.field === 'mac_addresses')?.discovered, ['52:54:00:67:00:05']);
  assert.deepEqual(l.body.kept.map((c: any) => c.field), ['ip_addresses']);
  const again = (await api('POST', '/api/v1sion/brain/diff', { scan_job_id: scan })).body;
  assert.deepEqual(again.items.map((i: any) => [i.device.device_id, i.match?.reason]), [['d1', 'linked'], ['d3', 'linked']]);
});

// ---- bulk operations with a bad item in the middle ------------------------------------------------------

test('bulk create and link from a session: a bad item in the middle is skipped whole, the others are done', async () => {
  const scan = await saveScan('10.68.0.0/24', [
    { id: 'd1', addresses: ['10.68.0.11'], mac: '02:00:00:68:00:11', hostname: 'cam-11' },
    { id: 'd2', addresses: ['10.68.0.12'], mac: '02:00:00:68:00:12', hostname: 'cam-12' },
    { id: 'd3', addresses: ['10.68.0.13'], mac: '02:00:00:68:00:13', hostname: 'cam-13' },
  ]);
  const session = (await api('POST', '/api/v1sion/sessions', { name: 'cameras', scan_job_id: scan })).body;
  const [n1, n2, n3] = session.nodes.map((n: any) => n.id).sort();
  assert.equal(n1, 'm-020000680011');
  const before = (await api('GET', '/api/brain/stats')).body;

  const r = await api('POST', '/api/v1sion/brain/bulk-create', { session_id: session.id, items: [
    { device_id: n1, role: 'camera' },
    { device_id: 'no-such-node' },
    { device_id: n3, site_id: 'ST-99999' },
    { device_id: n2, type: 'assets', name: 'Camera 12 hardware' },
  ] });
  assert.equal(r.status, 200, r.text);
  assert.deepEqual(r.body.items.map((i: any) => [i.device_id, i.status, i.code ?? null]), [
    [n1, 'created', null], ['no-such-node', 'skipped', 'not_found'], [n3, 'skipped', 'validation_failed'], [n2, 'created', null]]);
  assert.equal(r.body.items[2].errors[0].path, 'site_id');
  assert.deepEqual(r.body.counts, { linked: 0, created: 2, skipped: 2 });
  const after = (await api('GET', '/api/brain/stats')).body;
  assert.deepEqual([after.endpoints - before.endpoints, after.assets - before.assets], [1, 1], 'the bad items wrote nothing');
  const cam11 = r.body.items[0].record;
  assert.equal(cam11.role, 'camera');
  const nodes = (await api('GET', `/api/v1sion/sessions/${session.id}`)).body.nodes;
  const byId = (id: string) => nodes.find((n: any) => n.id === id);
  assert.deepEqual(byId(n1).inventory, { type: 'endpoints', id: cam11.id });
  assert.deepEqual(byId(n2).inventory, { type: 'assets', id: r.body.items[3].record.id });
  assert.equal(byId(n3).inventory, null, 'the skipped item left its node unlinked');

  // bulk-link: the good items linked, an unknown record and an unknown device skipped.
  const spare = (await api('POST', '/api/brain/endpoints', { name: 'camera spare', ip_addresses: ['10.99.0.1'] })).body;
  const bl = await api('POST', '/api/v1sion/brain/bulk-link', { session_id: session.id, items: [
    { device_id: n3, inventory: { type: 'endpoints', id: spare.short_id }, apply_fields: false },
    { device_id: n3, inventory: { type: 'endpoints', id: 'EP-99999' } },
    { device_id: 'nobody', inventory: { type: 'endpoints', id: spare.id } },
  ] });
  assert.equal(bl.status, 200, bl.text);
  assert.deepEqual(bl.body.items.map((i: any) => [i.status, i.code ?? null]), [['linked', null], ['skipped', 'not_found'], ['skipped', 'not_found']]);
  assert.deepEqual(bl.body.items[0].written, [], 'apply_fields: false writes no field');
  assert.deepEqual((await api('GET', `/api/brain/endpoints/${spare.id}`)).body.mac_addresses, []);

  // The pickers: search, paging, the node linked in this session.
  const picks = await api('GET', `/api/v1sion/brain/endpoints?session_id=${session.id}&q=02:00:00:68:00:11`);
  assert.equal(picks.status, 200, picks.text);
  assert.deepEqual(picks.body.items.map((e: any) => [e.short_id, e.linked_node]), [[cam11.short_id, { session_id: session.id, node_id: n1 }]]);
  assert.equal((await api('GET', `/api/v1sion/brain/endpoints?q=${cam11.short_id.toLowerCase()}`)).body.total, 1);
  assert.equal((await api('GET', '/api/v1sion/brain/endpoints?q=10.68.0.1')).body.items[0].id, cam11.id, 'an address prefix');
  assert.equal((await api('GET', '/api/v1sion/brain/endpoints?q=')).body.total, (await api('GET', '/api/brain/stats')).body.endpoints);
  const page = (await api('GET', '/api/v1sion/brain/endpoints?limit=1&offset=1')).body;
  assert.equal(page.items.length, 1);
  assert.ok(page.total >= 3);
  const app = (await api('POST', '/api/brain/applications', { name: 'Video recorder', endpoint_ids: [cam11.short_id] })).body;
  const apps = (await api('GET', `/api/v1sion/brain/applications?session_id=${session.id}&q=video`)).body;
  assert.deepEqual(apps.items.map((a: any) => [a.id, a.addresses, a.linked_node?.node_id]), [[app.id, ['10.68.0.11'], n1]]);
});

test('matches: the record each device stands for, linked or only matched, and a session\'s linked nodes drawn by hand', async () => {
  const web = (await api('POST', '/api/brain/endpoints', { name: 'web01', ip_addresses: ['10.72.0.10'] })).body;
  const core = (await api('POST', '/api/brain/endpoints', { name: 'core-sw1', ip_addresses: ['10.72.0.1'] })).body;
  const patch = (await api('POST', '/api/brain/endpoints', { name: 'patch panel 3' })).body;
  const scan = await saveScan('10.72.0.0/24', [
    { id: 'd1', addresses: ['10.72.0.1'], mac: '02:00:00:72:00:01', kind: 'switch' },
    { id: 'd2', addresses: ['10.72.0.10'], mac: '02:00:00:72:00:10' },
    { id: 'd3', addresses: ['10.72.0.99'], mac: '02:00:00:72:00:99' },
  ]);
  const m = await api('GET', `/api/v1sion/brain/matches?scan_job_id=${scan}`);
  assert.equal(m.status, 200, m.text);
  assert.deepEqual(m.body.items.map((i: any) => [i.device_id, i.addresses, i.inventory.name, i.linked, i.reason]).sort(),
    [['d1', ['10.72.0.1'], 'core-sw1', false, 'address'], ['d2', ['10.72.0.10'], 'web01', false, 'address']]);
  assert.equal(m.body.source.devices, 3);

  // Linked: d1 in a session; a node drawn by hand and linked is named too.
  const session = (await api('POST', '/api/v1sion/sessions', { name: 'named', scan_job_id: scan })).body;
  const nodeOf = (ip: string) => session.nodes.find((n: any) => n.addresses.includes(ip)).id;
  assert.equal((await api('POST', '/api/v1sion/brain/link', { session_id: session.id, device_id: nodeOf('10.72.0.1'),
    inventory: { type: 'endpoints', id: core.short_id }, apply_fields: false })).status, 200);
  assert.equal((await api('PATCH', `/api/v1sion/sessions/${session.id}`, { add_nodes: [{ id: 'manual-pp3', label: 'PP3',
    inventory: { type: 'endpoints', id: patch.short_id } }] })).status, 200);
  const s = await api('GET', `/api/v1sion/brain/matches?session_id=${session.id}`);
  assert.equal(s.status, 200, s.text);
  const by = new Map(s.body.items.map((i: any) => [i.device_id, i]));
  assert.deepEqual(pick(by.get(nodeOf('10.72.0.1'))), [core.short_id, 'core-sw1', true, 'linked']);
  assert.deepEqual(pick(by.get(nodeOf('10.72.0.10'))), [web.short_id, 'web01', false, 'address']);
  assert.deepEqual(pick(by.get('manual-pp3')), [patch.short_id, 'patch panel 3', true, 'linked']);
  assert.equal(by.has(nodeOf('10.72.0.99')), false, 'a device no record stands for is not listed');

  assertProblem(await api('GET', '/api/v1sion/brain/matches'), 400, 'query.scan_job_id');
  assertProblem(await api('GET', `/api/v1sion/brain/matches?scan_job_id=${scan}&session_id=${session.id}`), 400, 'query.session_id');
  assertProblem(await api('GET', `/api/v1sion/brain/matches?session_id=${randomUUID()}`), 404);
  const op = await t.user('operator', ['v1sion:read']);
  assertProblem(await api('GET', `/api/v1sion/brain/matches?scan_job_id=${scan}`, undefined, op.key), 403);
  const viewer = await t.user('viewer', ['v1sion:read', 'brain:read']);
  assert.equal((await api('GET', `/api/v1sion/brain/matches?scan_job_id=${scan}`, undefined, viewer.key)).status, 200);
});

const pick = (i: any) => (i ? [i.inventory.short_id, i.inventory.name, i.linked, i.reason] : null);

// ---- validation, unknown ids, scopes -----------------------------------------------------------------------

test('invalid bodies are 400s naming the field; unknown sources, devices and records are 404s', async () => {
  const scan = await saveScan('10.69.0.0/24', [{ id: 'd1', addresses: ['10.69.0.1'], mac: '02:00:00:69:00:01' }]);
  const post = (path: string, body: unknown) => api('POST', `/api/v1sion/brain/${path}`, body);
  const bad = async (path: string, body: unknown, field: string) => assertProblem(await post(path, body), 400, field);
  await bad('diff', {}, 'scan_job_id');
  await bad('diff', { scan_job_id: scan, session_id: randomUUID() }, 'session_id');
  await bad('diff', { scan_job_id: 'not-a-uuid' }, 'scan_job_id');
  await bad('diff', { scan_job_id: scan, extra: 1 }, 'extra');
  await bad('auto-match', { scan_job_id: scan, apply: 'yes' }, 'apply');
  await bad('link', { scan_job_id: scan, device_id: 'd1' }, 'inventory');
  await bad('link', { scan_job_id: scan, device_id: 'd1', inventory: { type: 'sites', id: 'ST-1' } }, 'inventory.type');
  await bad('link', { scan_job_id: scan, device_id: '', inventory: { type: 'endpoints', id: 'EP-1' } }, 'device_id');
  await bad('bulk-link', { scan_job_id: scan, items: [] }, 'items');
  await bad('bulk-create', { scan_job_id: scan, items: [{ device_id: 'd1' }, { type: 'endpoints' }] }, 'items.1.device_id');
  await bad('create', { scan_job_id: scan, device_id: 'd1', type: 'assets', site_id: 'ST-1' }, 'site_id');
  await bad('create', { scan_job_id: scan, device_id: 'd1', role: 'toaster' }, 'role');
  assertProblem(await api('GET', '/api/v1sion/brain/endpoints?limit=0'), 400, 'query.limit');
  assertProblem(await api('GET', '/api/v1sion/brain/applications?session_id=nope'), 400, 'query.session_id');

  assertProblem(await post('diff', { scan_job_id: randomUUID() }), 404);
  assertProblem(await post('diff', { session_id: randomUUID() }), 404);
  assertProblem(await post('link', { scan_job_id: scan, device_id: 'd9', inventory: { type: 'endpoints', id: 'EP-1' } }), 404);
  assertProblem(await post('link', { scan_job_id: scan, device_id: 'd1', inventory: { type: 'endpoints', id: 'EP-99999' } }), 404);
  assertProblem(await post('link', { scan_job_id: scan, device_id: 'd1', inventory: { type: 'assets', id: randomUUID() } }), 404);
  assertProblem(await post('create', { scan_job_id: scan, device_id: 'nope' }), 404);
  assertProblem(await api('GET', `/api/v1sion/brain/endpoints?session_id=${randomUUID()}`), 404);
  // Nothing above wrote a record.
  assert.equal((await post('diff', { scan_job_id: scan })).body.items[0].status, 'new');
});

test('the routes need the inventory scope besides their own: a v1sion-only key reads and writes no inventory', async () => {
  const scan = await saveScan('10.70.0.0/24', [{ id: 'd1', addresses: ['10.70.0.1'], mac: '02:00:00:70:00:01' }]);
  const op = await t.user('operator', ['v1sion:write']);
  assertProblem(await api('POST', '/api/v1sion/brain/diff', { scan_job_id: scan }, op.key), 403);
  assertProblem(await api('GET', '/api/v1sion/brain/endpoints', undefined, op.key), 403);
  const reader = await t.user('operator', ['v1sion:write', 'brain:read']);
  assert.equal((await api('POST', '/api/v1sion/brain/diff', { scan_job_id: scan }, reader.key)).status, 200);
  assert.equal((await api('POST', '/api/v1sion/brain/auto-match', { scan_job_id: scan }, reader.key)).status, 200);
  assertProblem(await api('POST', '/api/v1sion/brain/auto-match', { scan_job_id: scan, apply: true }, reader.key), 403);
  assertProblem(await api('POST', '/api/v1sion/brain/create', { scan_job_id: scan, device_id: 'd1' }, reader.key), 403);
  const writer = await t.user('operator', ['v1sion:write', 'brain:write']);
  assert.equal((await api('POST', '/api/v1sion/brain/create', { scan_job_id: scan, device_id: 'd1' }, writer.key)).status, 201);
  const viewer = await t.user('viewer', ['v1sion:read', 'brain:read']);
  assert.equal((await api('GET', '/api/v1sion/brain/endpoints', undefined, viewer.key)).status, 200);
  assertProblem(await api('POST', '/api/v1sion/brain/diff', { scan_job_id: scan }, viewer.key), 403);
});

test('a create whose link cannot be written leaves no record behind', async () => {
  const scan = await saveScan('10.71.0.0/24', [{ id: 'd1', addresses: ['10.71.0.1'], mac: '02:00:00:71:00:01', hostname: 'orphan-test' }]);
  const session = (await api('POST', '/api/v1sion/sessions', { name: 'failing link', scan_job_id: scan })).body;
  const app = t.service.app;
  const results = new ScanResults(app);
  // The session's node cannot be linked (as if the store refused the link's write).
  class Failing extends SessionService {
    override setNodeInventory(): boolean { throw new Error('the link write failed'); }
  }
  const bridge = new BridgeService(app, results, new Failing(app, results));
  const by = { actor: 'tester', auditEntry: (action: string) => ({ action, actor: 'tester' }) };
  const before = (await api('GET', '/api/brain/stats')).body.endpoints;
  const out = await bridge.bulkCreate({ session_id: session.id }, [{ device_id: session.nodes[0].id }], by);
  assert.deepEqual([out.items[0]!.status, out.items[0]!.code], ['skipped', 'failed']);
  assert.equal((await api('GET', '/api/brain/stats')).body.endpoints, before, 'the record made before the link is gone again');
  assert.equal((await api('GET', '/api/brain/search?q=orphan-test')).body.total, 0);
  assert.equal((await api('GET', `/api/v1sion/sessions/${session.id}`)).body.nodes[0].inventory, null);
});
