// The inventory bridge's matching (src/modules/v1sion/brain/match.ts): the order of the keys, unique
// hits both ways, reasons, agreement, conflicts and confidence.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { matchDevices } from '../../src/modules/v1sion/brain/match.js';
import { device, record } from '../helpers/bridge.js';

const pairOf = (r: ReturnType<typeof matchDevices>, deviceId: string) => r.pairings.find((p) => p.device_id === deviceId);

test('each key pairs on a unique hit and says why; strong keys are certain, address and name are not', () => {
  const bySerial = record('endpoints', { serial_number: 'FOC1234X0AB' });
  const byMac = record('endpoints', { mac_addresses: ['00:11:22:33:44:55'] });
  const byEngine = record('endpoints', { engine_id: '0x80001F8880ABCDEF0123456789' });
  const byAddress = record('endpoints', { ip_addresses: ['10.0.0.9'] });
  const byName = record('endpoints', { name: 'printer-2nd-floor' });
  const r = matchDevices([
    device('d1', { serial: 'foc1234x0ab' }),
    device('d2', { macs: ['00:11:22:33:44:55'] }),
    device('d3', { engine_id: '80001f8880abcdef0123456789' }),
    device('d4', { addresses: ['10.0.0.9'] }),
    device('d5', { hostnames: ['printer-2nd-floor.lab.example'] }),
    device('d6', { addresses: ['10.0.0.200'], name: 'nobody' }),
  ], [bySerial, byMac, byEngine, byAddress, byName]);
  const expect = [['d1', bySerial, 'serial', true], ['d2', byMac, 'mac', true], ['d3', byEngine, 'engine_id', true],
    ['d4', byAddress, 'address', false], ['d5', byName, 'name', false]] as const;
  for (const [d, rec, reason, certain] of expect) {
    const p = pairOf(r, d);
    assert.ok(p, `${d} paired`);
    assert.equal(p.inventory.id, rec.id, d);
    assert.equal(p.reason, reason, d);
    assert.equal(p.certain, certain, `${d} certain`);
  }
  assert.equal(pairOf(r, 'd1')!.matched_on, 'foc1234x0ab');
  assert.equal(pairOf(r, 'd5')!.matched_on, 'printer-2nd-floor');
  assert.deepEqual(r.unmatched, [{ device_id: 'd6', candidates: [] }]);
});

test('the order: an existing link, then serial, then MAC; a record paired earlier is not available later', () => {
  const a = record('endpoints', { serial_number: 'SER-A', mac_addresses: ['00:11:22:00:00:0b'] });
  const b = record('endpoints', { mac_addresses: ['00:11:22:00:00:0a'] });
  const c = record('endpoints', { name: 'core' });
  // d1: serial says a, MAC says b -> a by serial. d2's MAC hits a, which d1 took -> unpaired, a candidate.
  const r = matchDevices([
    device('d1', { serial: 'SER-A', macs: ['00:11:22:00:00:0a'] }),
    device('d2', { macs: ['00:11:22:00:00:0b'] }),
    device('d3', { serial: 'SER-A', name: 'core' }),
  ], [a, b, c], new Map([['d3', c.id]]));
  assert.equal(pairOf(r, 'd3')!.reason, 'linked');
  assert.equal(pairOf(r, 'd3')!.confidence, 1);
  assert.equal(pairOf(r, 'd1')!.inventory.id, a.id);
  assert.equal(pairOf(r, 'd1')!.reason, 'serial');
  assert.match(pairOf(r, 'd1')!.conflicts.join(), /no MAC address in common/);
  assert.equal(pairOf(r, 'd2'), undefined);
  const d2 = r.unmatched.find((u) => u.device_id === 'd2')!;
  assert.deepEqual(d2.candidates.map((x) => [x.short_id, x.reason]), [[a.short_id, 'mac']]);
  assert.match(d2.candidates[0]!.note!, /already paired with device d1/);
});

test('a link to a record that no longer exists is ignored', () => {
  const a = record('endpoints', { ip_addresses: ['10.1.1.1'] });
  const r = matchDevices([device('d1', { addresses: ['10.1.1.1'] })], [a], new Map([['d1', 'gone-record']]));
  assert.equal(pairOf(r, 'd1')!.reason, 'address');
});

test('several records hit: no pairing at that step, candidates kept; a later unique key pairs but is not certain', () => {
  const a = record('endpoints', { mac_addresses: ['00:aa:00:00:00:01'], ip_addresses: ['10.2.0.1'] });
  const b = record('endpoints', { mac_addresses: ['00:aa:00:00:00:01'] });
  const r = matchDevices([device('d1', { macs: ['00:aa:00:00:00:01'], addresses: ['10.2.0.1'] })], [a, b]);
  const p = pairOf(r, 'd1')!;
  assert.equal(p.reason, 'address');
  assert.equal(p.inventory.id, a.id);
  assert.deepEqual(p.agrees, ['mac']);
  assert.ok(p.conflicts.some((c) => c.includes(b.short_id)), 'the other record hit by the MAC speaks against it');
  assert.equal(p.certain, false);

  const only = matchDevices([device('d1', { macs: ['00:aa:00:00:00:01'] })], [a, b]);
  assert.equal(only.pairings.length, 0);
  assert.deepEqual(only.unmatched[0]!.candidates.map((c) => c.id).sort(), [a.id, b.id].sort());
});

test('unique both ways: two devices hitting one record pair neither', () => {
  const a = record('endpoints', { name: 'web' });
  const r = matchDevices([device('d1', { sys_name: 'web' }), device('d2', { hostnames: ['web.example'] })], [a]);
  assert.equal(r.pairings.length, 0);
  for (const u of r.unmatched) assert.match(u.candidates[0]!.note!, /other devices match/);
});

test('virtual router MACs, placeholder serials and factory names never match', () => {
  const vrrp = record('endpoints', { mac_addresses: ['00:00:5e:00:01:0a'] });
  const junk = record('endpoints', { serial_number: 'To be filled by O.E.M.' });
  const generic = record('endpoints', { name: 'localhost' });
  const r = matchDevices([
    device('d1', { macs: ['00:00:5e:00:01:0a'] }), device('d2', { serial: 'To be filled by O.E.M.' }), device('d3', { sys_name: 'localhost' }),
  ], [vrrp, junk, generic]);
  assert.equal(r.pairings.length, 0);
});

test('a different serial on the record makes a MAC pairing uncertain; agreeing keys raise confidence', () => {
  const a = record('endpoints', { mac_addresses: ['00:11:22:33:44:66'], serial_number: 'OLD-SERIAL' });
  const p = pairOf(matchDevices([device('d1', { macs: ['00:11:22:33:44:66'], serial: 'NEW-SERIAL' })], [a]), 'd1')!;
  assert.equal(p.reason, 'mac');
  assert.equal(p.certain, false);
  assert.match(p.conflicts[0]!, /OLD-SERIAL.*NEW-SERIAL/);

  const b = record('endpoints', { mac_addresses: ['00:11:22:33:44:77'], ip_addresses: ['10.3.0.1'], name: 'sw3' });
  const q = pairOf(matchDevices([device('d1', { macs: ['00:11:22:33:44:77'], addresses: ['10.3.0.1'], sys_name: 'sw3' })], [b]), 'd1')!;
  assert.deepEqual(q.agrees, ['address', 'name']);
  assert.ok(q.confidence > 0.93 && q.confidence < 1);
});

test('an asset that is the endpoint hit at the same step folds into the endpoint; an asset alone pairs by asset tag', () => {
  const ep = record('endpoints', { serial_number: 'SN-77' });
  const asset = record('assets', { serial_number: 'SN-77', endpoint_id: ep.id });
  const tagged = record('assets', { asset_tag: 'INV-0042' });
  const r = matchDevices([device('d1', { serial: 'SN-77' }), device('d2', { asset_tag: 'inv-0042' })], [ep, asset, tagged]);
  const p = pairOf(r, 'd1')!;
  assert.equal(p.inventory.id, ep.id);
  assert.deepEqual(p.related.map((x) => x.id), [asset.id]);
  assert.equal(p.certain, true);
  assert.equal(pairOf(r, 'd2')!.reason, 'asset_tag');
  assert.equal(pairOf(r, 'd2')!.inventory.id, tagged.id);
});
