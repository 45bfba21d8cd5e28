// The inventory bridge's diff (src/modules/v1sion/brain/diff.ts) and its discovered devices
// (discovered.ts): statuses, field-by-field changes, ownership (hand-set fields shown, never written),
// list merging that never clobbers, missing endpoints, and one box seen as several devices merged.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fromScan, fromSession, identityKeys, mergeSameBox, type DiscoveredSource } from '../../src/modules/v1sion/brain/discovered.js';
import { cidrsOf, diffSource, fieldChanges, mergedAddresses, updateOf } from '../../src/modules/v1sion/brain/diff.js';
import { matchDevices } from '../../src/modules/v1sion/brain/match.js';
import type { ScanResult } from '../../src/modules/v1sion/scan/result.js';
import { device, record } from '../helpers/bridge.js';

const noHand = () => false;
const source = (devices: ReturnType<typeof device>[], subnets = ['10.9.0.0/24']): DiscoveredSource => ({
  type: 'scan', id: 'job', name: null, subnets, seen_at: '2026-01-01T00:00:00.000Z', scan_job_id: 'job', devices,
});

test('new, changed (field by field), unchanged and missing, with counts', () => {
  const same = record('endpoints', { ip_addresses: ['10.9.0.1'], mac_addresses: ['00:11:22:00:00:01'],
    data: { vendor: 'Cisco', model: 'C9300' } });
  const older = record('endpoints', { ip_addresses: ['10.9.0.2'], mac_addresses: ['00:11:22:00:00:02'], data: { os: 'IOS-XE', os_version: '16.9' } });
  const gone = record('endpoints', { ip_addresses: ['10.9.0.50', '192.0.2.1'] });
  const elsewhere = record('endpoints', { ip_addresses: ['10.10.0.5'] });
  const s = source([
    device('d1', { addresses: ['10.9.0.1'], macs: ['00:11:22:00:00:01'], vendor: 'cisco', model: 'C9300' }),
    device('d2', { addresses: ['10.9.0.2'], macs: ['00:11:22:00:00:02'], os: 'IOS-XE', os_version: '17.6' }),
    device('d3', { addresses: ['10.9.0.3'] }),
  ]);
  const records = [same, older, gone, elsewhere];
  const r = diffSource(s, records, matchDevices(s.devices, records), {
    handSet: noHand, lastSeen: (id) => (id === gone.id ? '2025-12-01T00:00:00.000Z' : null), linked: (id) => id === gone.id,
  });
  assert.deepEqual(r.items.map((i) => [i.device.device_id, i.status]), [['d1', 'unchanged'], ['d2', 'changed'], ['d3', 'new']]);
  assert.deepEqual(r.items[1]!.changes, [{ field: 'os_version', inventory: '16.9', discovered: '17.6', hand_set: false, writes: true }]);
  assert.deepEqual(r.missing, [{ inventory: { type: 'endpoints', id: gone.id, short_id: gone.short_id, name: gone.name },
    addresses: ['10.9.0.50'], last_seen: '2025-12-01T00:00:00.000Z', linked: true }]);
  assert.deepEqual(r.counts, { new: 1, changed: 1, unchanged: 1, missing: 1, certain: 2, candidates: 0 });
});

test('a hand-set field is shown beside the discovered value and never written; discovery never clears a field', () => {
  const rec = record('endpoints', { ip_addresses: ['10.9.0.7'], data: { os: 'Hand-written OS', model: 'M1', vendor: null } });
  const d = device('d1', { addresses: ['10.9.0.7'], os: 'RouterOS', model: null, vendor: 'MikroTik' });
  const changes = fieldChanges(d, rec, cidrsOf(['10.9.0.0/24']), (_r, f) => f === 'os');
  assert.deepEqual(changes, [
    { field: 'vendor', inventory: null, discovered: 'MikroTik', hand_set: false, writes: true },
    { field: 'os', inventory: 'Hand-written OS', discovered: 'RouterOS', hand_set: true, writes: false },
  ]);
  assert.deepEqual(updateOf(changes), { vendor: 'MikroTik' }, 'the model discovery did not learn stays; the hand-set OS stays');
});

test('addresses: kept outside the covered subnets, dropped inside when the device no longer has them; a neighbour removes nothing', () => {
  const cidrs = cidrsOf(['10.9.0.0/24']);
  const d = device('d1', { addresses: ['10.9.0.8', '10.9.0.9'] });
  assert.deepEqual(mergedAddresses(['10.9.0.8', '10.9.0.77', '172.16.5.1'], d, cidrs), ['10.9.0.8', '172.16.5.1', '10.9.0.9']);
  assert.deepEqual(mergedAddresses(['10.9.0.77'], { ...d, seen: 'neighbour' }, cidrs), ['10.9.0.77', '10.9.0.8', '10.9.0.9']);
  const rec = record('endpoints', { ip_addresses: ['10.9.0.9', '10.9.0.8'], mac_addresses: ['00:11:22:00:00:aa', '00:11:22:00:00:bb'] });
  assert.deepEqual(fieldChanges({ ...d, macs: ['00:11:22:00:00:aa'] }, rec, cidrs, noHand), [],
    'the same addresses in another order and a subset of the MACs change nothing');
});

test('a MAC registrant fills an empty vendor but never replaces one; an asset gets manufacturer, model and serial', () => {
  const cidrs = cidrsOf([]);
  const d = device('d1', { vendor: 'Intel Corporate', vendor_from_mac: true });
  assert.deepEqual(fieldChanges(d, record('endpoints', { data: { vendor: 'Dell' } }), cidrs, noHand), []);
  assert.equal(fieldChanges(d, record('endpoints'), cidrs, noHand)[0]!.discovered, 'Intel Corporate');
  const asset = record('assets', { data: { manufacturer: 'Juniper', model: null } });
  const changes = fieldChanges(device('d2', { vendor: 'Juniper Networks', model: 'EX2300', serial: 'JN1234', os: 'Junos' }), asset, cidrs, noHand);
  assert.deepEqual(changes.map((c) => [c.field, c.discovered]),
    [['manufacturer', 'Juniper Networks'], ['model', 'EX2300'], ['serial_number', 'JN1234']]);
});

test('a device matched through the asset that is its endpoint does not leave that endpoint missing', () => {
  const ep = record('endpoints', { serial_number: 'SN-1', ip_addresses: ['10.9.0.20'] });
  const asset = record('assets', { serial_number: 'SN-1', endpoint_id: ep.id });
  const s = source([device('d1', { serial: 'SN-1', addresses: ['10.9.0.21'] })]);
  const r = diffSource(s, [ep, asset], matchDevices(s.devices, [ep, asset]), { handSet: noHand, lastSeen: () => null, linked: () => false });
  assert.equal(r.items[0]!.match!.inventory.id, ep.id);
  assert.deepEqual(r.missing, []);
});

test('one box seen as several devices is merged: a shared MAC, engine ID or serial; never across different engine IDs', () => {
  const a = device('d1', { addresses: ['10.9.0.5'], macs: ['00:11:22:00:01:01'] });
  const b = device('d2', { addresses: ['10.9.0.6'], macs: ['00:11:22:00:01:01'], vendor: 'Acme', model: 'X1' });
  const c = device('d3', { addresses: ['10.9.0.7'], engine_id: '80001f8880aa00000001', macs: ['00:11:22:00:02:02'] });
  const e = device('d4', { addresses: ['10.9.0.8'], engine_id: '80001f8880bb00000002', macs: ['00:11:22:00:02:02'] });
  const merged = mergeSameBox([a, b, c, e]);
  assert.deepEqual(merged.map((d) => d.device_ids), [['d1', 'd2'], ['d3'], ['d4']]);
  assert.deepEqual(merged[0]!.addresses, ['10.9.0.5', '10.9.0.6']);
  assert.equal(merged[0]!.device_id, 'd1');
  assert.equal(merged[0]!.model, 'X1');
  // A MAC answered for by many addresses is proxy ARP: not one box.
  const proxied = Array.from({ length: 9 }, (_, i) => device(`p${i}`, { addresses: [`10.9.1.${i + 1}`], macs: ['00:11:22:00:03:03'] }));
  assert.equal(mergeSameBox(proxied).length, 9);
  assert.deepEqual(identityKeys(device('x', { engine_id: '80001F88', serial: 'ABC123', macs: ['00:00:5e:00:01:01', '00:11:22:00:04:04'] })),
    ['engine:80001f88', 'serial:abc123', 'mac:00:11:22:00:04:04']);
});

test('a scan result: hosts give the device its OS, reverse DNS names and SNMP vendor; a non-SNMP vendor is the MAC registrant', () => {
  const snmp = { credential: null, version: 'v2c' as const, vendor_key: 'cisco', vendor: 'Cisco', kind: 'switch', model: 'C9300',
    os: 'IOS-XE', os_version: '17.6', serial: 'FOC1', sys_name: 'sw1', sys_descr: null, sys_object_id: null, sys_location: null,
    sys_services: null, engine_id: null, note: null };
  const result: ScanResult = {
    job_id: 'job', subnet: '10.9.0.0/24', state: 'completed', started_at: '2026-01-01T00:00:00.000Z',
    finished_at: '2026-01-01T00:00:02.000Z', duration_ms: 2000, counts: { addresses: 254, live: 2, snmp: 1, devices: 2, links: 0 },
    hosts: [
      { ip: '10.9.0.1', alive_by: ['icmp'], rtt_ms: 1, mac: '00:11:22:00:05:01', mac_vendor: 'Cisco Systems', hostname: 'sw1.lab.',
        open_ports: [22], snmp, device_id: 'd1' },
      { ip: '10.9.0.9', alive_by: ['arp'], rtt_ms: null, mac: '00:11:22:00:05:09', mac_vendor: 'Intel Corporate', hostname: null,
        open_ports: [], snmp: null, device_id: 'd2' },
    ],
    devices: [
      { id: 'd1', name: 'sw1', kind: 'switch', addresses: ['10.9.0.1'], macs: ['00:11:22:00:05:01'], vendor_key: 'cisco', vendor: 'Cisco',
        model: 'C9300', serial: 'FOC1', sys_name: 'sw1', engine_id: null, chassis_id: null, seen: 'scan', merged_by: [] },
      { id: 'd2', name: '10.9.0.9', kind: 'host', addresses: ['10.9.0.9'], macs: ['00:11:22:00:05:09'], vendor_key: null,
        vendor: 'Intel Corporate', model: null, serial: null, sys_name: null, engine_id: null, chassis_id: null, seen: 'scan', merged_by: [] },
    ],
    links: [], routes: [], warnings: [],
  };
  const s = fromScan(result);
  assert.equal(s.seen_at, '2026-01-01T00:00:02.000Z');
  assert.deepEqual([s.devices[0]!.os, s.devices[0]!.os_version, s.devices[0]!.vendor_from_mac], ['IOS-XE', '17.6', false]);
  assert.deepEqual(s.devices[0]!.hostnames, ['sw1.lab', 'sw1']);
  assert.deepEqual([s.devices[1]!.vendor, s.devices[1]!.vendor_from_mac], ['Intel Corporate', true]);
});

test('a session: its scan\'s nodes the last scan saw, with the scan\'s facts and what SSH enrichment learnt', () => {
  const node = (id: string, o: Record<string, unknown> = {}) => ({
    id, label: id, addresses: [] as string[], mac: null, vendor_key: null, kind: 'host' as const, inventory: null, position: null,
    manual: false, scan_state: null, facts: null, ...o,
  });
  const session = {
    id: 's1', name: 'lab', subnets: ['10.9.0.0/24'], scan_job_id: 'job', notes: '', created_at: '2026-01-01T00:00:00.000Z',
    updated_at: '2026-01-02T00:00:00.000Z', edges: [],
    nodes: [
      node('m-001122000701', { addresses: ['10.9.0.71'], mac: '00:11:22:00:07:01',
        facts: { hostname: 'web-1', os: 'Debian GNU/Linux 12', os_version: '12.5', serial: null } }),
      node('drawn', { manual: true, addresses: ['10.9.0.99'] }),
      node('gone', { scan_state: 'missing', addresses: ['10.9.0.98'] }),
    ],
  };
  const result: ScanResult = {
    job_id: 'job', subnet: '10.9.0.0/24', state: 'completed', started_at: '2026-01-01T00:00:00.000Z', finished_at: null,
    duration_ms: null, counts: { addresses: 254, live: 1, snmp: 1, devices: 1, links: 0 },
    hosts: [{ ip: '10.9.0.71', alive_by: ['icmp'], rtt_ms: 1, mac: '00:11:22:00:07:01', mac_vendor: 'Intel Corporate', hostname: null,
      open_ports: [22], snmp: null, device_id: 'd1' }],
    devices: [{ id: 'd1', name: '10.9.0.71', kind: 'host', addresses: ['10.9.0.71'], macs: ['00:11:22:00:07:01'], vendor_key: null,
      vendor: 'Intel Corporate', model: null, serial: null, sys_name: null, engine_id: null, chassis_id: null, seen: 'scan', merged_by: [] }],
    links: [], routes: [], warnings: [],
  };
  const s = fromSession(session as unknown as Parameters<typeof fromSession>[0], result);
  assert.deepEqual([s.type, s.seen_at, s.subnets], ['session', '2026-01-01T00:00:00.000Z', ['10.9.0.0/24']]);
  assert.deepEqual(s.devices.map((d) => d.device_id), ['m-001122000701'], 'drawn and missing nodes are not discovered devices');
  const d = s.devices[0]!;
  assert.deepEqual([d.os, d.os_version, d.vendor, d.vendor_from_mac, d.hostnames], ['Debian GNU/Linux 12', '12.5', 'Intel Corporate', true, ['web-1']]);
  assert.equal(fromSession(session as unknown as Parameters<typeof fromSession>[0], undefined).devices[0]!.os, 'Debian GNU/Linux 12',
    'without the scan result, the node and its SSH facts still describe it');
});

test('one box recorded twice in the inventory (one endpoint per address): candidates, not a match, and neither is missing', () => {
  const a = record('endpoints', { ip_addresses: ['10.9.0.61'] });
  const b = record('endpoints', { ip_addresses: ['10.9.0.62'] });
  const s = source(mergeSameBox([device('d1', { addresses: ['10.9.0.61'], macs: ['00:11:22:00:06:01'] }),
    device('d2', { addresses: ['10.9.0.62'], macs: ['00:11:22:00:06:01'] })]));
  const r = diffSource(s, [a, b], matchDevices(s.devices, [a, b]), { handSet: noHand, lastSeen: () => null, linked: () => false });
  assert.equal(r.items.length, 1);
  assert.equal(r.items[0]!.status, 'new');
  assert.deepEqual(r.items[0]!.candidates.map((c) => c.id).sort(), [a.id, b.id].sort());
  assert.deepEqual(r.missing, []);
  assert.equal(r.counts.candidates, 1);
});
