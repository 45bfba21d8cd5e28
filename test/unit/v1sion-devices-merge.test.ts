// Devices known over time (src/modules/v1sion/devices/merge.ts): what a completed scan changes, on scan
// results made by hand. New is an identity never seen (not an address that did not answer); the first scan
// of a subnet is its baseline; missing needs both the time and the scans; a move names both ports; a
// second MAC on a known address is said; nothing repeats on the next run.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { keysOf, mergeScan, type KnownDevice, type MergeOutcome } from '../../src/modules/v1sion/devices/merge.js';
import type { ScanDevice, ScanLink, ScanResult } from '../../src/modules/v1sion/scan/result.js';

const SUBNET = '10.9.0.0/24';
const MIN = 60_000;
const RULE = { after_ms: 30 * MIN, after_runs: 2 };

function dev(id: string, ip: string, mac: string | null, extra: Partial<ScanDevice> = {}): ScanDevice {
  return { id, name: ip, kind: 'host', addresses: [ip], macs: mac ? [mac] : [], vendor_key: null, vendor: null, model: null, serial: null,
    sys_name: null, engine_id: null, chassis_id: null, seen: 'scan', merged_by: [], ...extra };
}

function scan(devices: ScanDevice[], links: ScanLink[] = []): ScanResult {
  return { job_id: `job-${Math.random()}`, subnet: SUBNET, state: 'completed', started_at: '', finished_at: '', duration_ms: 1,
    counts: { addresses: 254, live: devices.length, snmp: 0, devices: devices.length, links: links.length },
    hosts: [], devices, links, warnings: [] };
}

/** Runs scans one after another as the service does, keeping the known state between them. */
function watcher() {
  let known: KnownDevice[] = [];
  let runs = 0;
  let n = 0;
  return {
    run(result: ScanResult, now: number): MergeOutcome {
      const out = mergeScan({ known, result, subnetKnown: runs++ > 0, now, missing: RULE, newId: () => `k${++n}` });
      const merged = new Map(known.map((d) => [d.id, d]));
      for (const m of out.merged) merged.delete(m.from);
      for (const d of out.upserts) merged.set(d.id, d);
      known = [...merged.values()];
      return out;
    },
    get known() { return known; },
  };
}
const alerts = (o: MergeOutcome) => o.changes.filter((c) => c.alert).map((c) => [c.alert, c.kind]);

const A = dev('d1', '10.9.0.10', '02:00:00:00:00:0a');
const B = dev('d2', '10.9.0.11', '02:00:00:00:00:0b');
const SW = dev('d3', '10.9.0.2', '02:00:00:00:00:02', { kind: 'switch', sys_name: 'sw1' });
const SW2 = dev('d4', '10.9.0.3', '02:00:00:00:00:03', { kind: 'switch', sys_name: 'sw2' });

test('the first scan of a subnet is its baseline: known, nothing new; an identity seen later is new once', () => {
  const w = watcher();
  const first = w.run(scan([A, SW]), 0);
  assert.equal(first.baseline, true);
  assert.deepEqual(alerts(first), []);
  assert.ok(w.known.every((d) => d.acknowledged), 'what the baseline found is not new');
  const second = w.run(scan([A, SW, B]), 15 * MIN);
  assert.deepEqual(alerts(second), [['device_discovered', 'discovered']]);
  assert.match(second.changes.find((c) => c.alert)!.text, /new device: 10\.9\.0\.11 \(10\.9\.0\.11, 02:00:00:00:00:0b\)/);
  assert.deepEqual(alerts(w.run(scan([A, SW, B]), 30 * MIN)), [], 'not again on the next run');
});

test('a new address of a known MAC is a change, not a new device', () => {
  const w = watcher();
  w.run(scan([A]), 0);
  const moved = w.run(scan([dev('x', '10.9.0.77', '02:00:00:00:00:0a')]), MIN);
  assert.deepEqual(alerts(moved), [['device_changed', 'addresses']]);
  assert.equal(w.known.length, 1);
  assert.deepEqual(w.known[0]!.addresses, ['10.9.0.77']);
});

test('missing: only after both the time and the scans, once; a transient device never; back again clears it', () => {
  const w = watcher();
  w.run(scan([A, B]), 0);
  w.run(scan([A, B]), 10 * MIN); // B seen regularly (twice)
  assert.deepEqual(alerts(w.run(scan([A]), 20 * MIN)), [], 'one scan missed');
  assert.deepEqual(alerts(w.run(scan([A]), 25 * MIN)), [], 'two scans missed but only 15 min since last seen');
  const due = w.run(scan([A]), 41 * MIN);
  assert.deepEqual(alerts(due), [['device_missing', 'missing']]);
  assert.deepEqual(alerts(w.run(scan([A]), 60 * MIN)), [], 'not again');
  const back = w.run(scan([A, B]), 70 * MIN);
  assert.deepEqual(back.changes.map((c) => c.kind), ['seen_again']);
  const b = w.known.find((d) => d.macs.includes('02:00:00:00:00:0b'))!;
  assert.equal(b.missing_since, null);
  // Marked transient: gone as long as it likes, never reported.
  b.presence = 'transient';
  for (let i = 1; i <= 5; i++) assert.deepEqual(alerts(w.run(scan([A]), (70 + i * 30) * MIN)), []);
});

test('seen once and gone is not missed unless marked expected; a device outside the scanned subnet is not missed', () => {
  const w = watcher();
  w.run(scan([A]), 0);
  w.run(scan([A, B]), MIN);
  for (let i = 2; i <= 6; i++) assert.deepEqual(alerts(w.run(scan([A]), i * 30 * MIN)), [], 'B was seen once: not regular');
  const b = w.known.find((d) => d.macs.includes('02:00:00:00:00:0b'))!;
  b.presence = 'expected';
  assert.deepEqual(alerts(w.run(scan([A]), 7 * 30 * MIN)), [['device_missing', 'missing']]);
  const other = mergeScan({ known: w.known, result: { ...scan([]), subnet: '10.8.0.0/24' }, subnetKnown: true, now: 8 * 30 * MIN,
    missing: RULE, newId: () => 'z' });
  assert.deepEqual(other.upserts, [], 'a scan of another subnet misses nobody here');
});

test('moved to another switch port: both ports said, once; the edge port comes from the scan\'s forwarding-table link', () => {
  const w = watcher();
  const at = (sw: ScanDevice, port: string, vlan?: number): ScanLink => ({ from: sw.id, to: A.id, from_port: port, to_port: null, source: 'fdb',
    ...(vlan ? { vlan } : {}) });
  w.run(scan([A, SW, SW2], [at(SW, 'ge-0/0/3', 10)]), 0);
  assert.deepEqual(w.known.find((d) => d.id === 'k1')!.attachment, { switch: 'sw1', port: 'ge-0/0/3', vlan: 10 });
  const moved = w.run(scan([A, SW, SW2], [at(SW2, 'port7', 10)]), MIN);
  assert.deepEqual(alerts(moved), [['device_changed', 'moved']]);
  const c = moved.changes.find((x) => x.kind === 'moved')!;
  assert.equal(c.text, 'moved from sw1 port ge-0/0/3 (VLAN 10) to sw2 port port7 (VLAN 10)');
  assert.deepEqual(alerts(w.run(scan([A, SW, SW2], [at(SW2, 'port7', 10)]), 2 * MIN)), []);
  const vlan = w.run(scan([A, SW, SW2], [at(SW2, 'port7', 20)]), 3 * MIN);
  assert.deepEqual(alerts(vlan), [['device_changed', 'vlan']]);
  assert.deepEqual(alerts(w.run(scan([A, SW, SW2]), 4 * MIN)), [], 'no link this time: not a move');
});

test('a second MAC answering on a known address is said, naming both', () => {
  const w = watcher();
  w.run(scan([A, B]), 0);
  const spoof = dev('x', '10.9.0.10', '02:00:00:00:00:ee');
  const out = w.run(scan([spoof, B]), MIN);
  const claimed = out.changes.find((c) => c.kind === 'address_claimed')!;
  assert.equal(claimed.alert, 'device_changed');
  assert.match(claimed.text, /^10\.9\.0\.10 now answers from 02:00:00:00:00:ee \(10\.9\.0\.10\); it was 10\.9\.0\.10 \(02:00:00:00:00:0a\)$/);
  assert.deepEqual(alerts(out), [['device_discovered', 'discovered'], ['device_changed', 'address_claimed']]);
  assert.deepEqual(w.known.find((d) => d.macs.includes('02:00:00:00:00:0a'))!.addresses, [], 'the address is the new MAC\'s now');
  assert.deepEqual(alerts(w.run(scan([spoof, B]), 2 * MIN)), [], 'said once');
});

test('identity: engine ID, serial, chassis and MACs are keys; one learnt later joins two known devices into one', () => {
  assert.deepEqual(keysOf({ engine_id: '80001F88', serial: ' SN1 ', vendor_key: 'cisco', chassis_id: 'AA:BB', macs: ['02:00:00:00:00:01'],
    addresses: ['10.0.0.1'] }), ['engine:80001f88', 'serial:cisco:sn1', 'chassis:aa:bb', 'mac:02:00:00:00:00:01']);
  assert.deepEqual(keysOf({ engine_id: null, serial: null, vendor_key: null, chassis_id: null, macs: [], addresses: ['10.0.5.1'] }),
    ['ip:10.0.5.1'], 'a routed host without SNMP: its address, the only key there is');
  const w = watcher();
  const r1 = dev('a', '10.9.0.1', '02:00:00:00:00:01', { engine_id: '8000aa' });
  const r2 = dev('b', '10.9.0.254', '02:00:00:00:00:02');
  w.run(scan([r1, r2]), 0);
  assert.equal(w.known.length, 2);
  const joined = w.run(scan([dev('c', '10.9.0.1', '02:00:00:00:00:02', { engine_id: '8000aa', addresses: ['10.9.0.1', '10.9.0.254'] })]), MIN);
  assert.equal(w.known.length, 1, 'one device');
  assert.deepEqual(joined.merged.length, 1);
  assert.ok(joined.changes.some((c) => c.kind === 'identity'));
  assert.deepEqual(alerts(joined), [], 'the same device, nothing to tell');
});
