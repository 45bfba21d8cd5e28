// Matching a poll's interfaces to the known ones (polling/match.ts): unchanged, renumbered, added, gone,
// net-snmp's leftover row of a re-created interface, and ports that share one ifDescr and have no ifName.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { matchInterfaces, type KnownIf } from '../../src/modules/snmp/polling/match.js';
import type { IfSample } from '../../src/modules/snmp/polling/types.js';

const row = (index: number, name: string | null, over: Partial<IfSample> = {}): IfSample => ({
  index, name, descr: name, alias: null, type: 6, admin: 1, oper: 1, speed_bps: 1e9, last_change: 0, discontinuity: 0, hc: true,
  in_octets: 0n, out_octets: 0n, in_ucast: 0n, out_ucast: 0n, in_mcast: 0n, out_mcast: 0n, in_bcast: 0n, out_bcast: 0n,
  in_errors: 0n, out_errors: 0n, in_discards: 0n, out_discards: 0n, ...over,
});
const known = (key: string, index: number, name: string | null, descr = name): KnownIf => ({ key, index, name, descr });

test('same ifIndex and name: matched; nothing else', () => {
  const m = matchInterfaces([known('a', 1, 'lo'), known('b', 2, 'eth0')], [row(1, 'lo'), row(2, 'eth0')]);
  assert.deepEqual(m, { matched: [{ key: 'a', index: 1 }, { key: 'b', index: 2 }], renumbered: [], added: [], gone: [], stale: [] });
});

test('renumbered after a reboot, one new, one gone', () => {
  const m = matchInterfaces([known('a', 1, 'eth0'), known('b', 2, 'eth1'), known('c', 3, 'eth2')],
    [row(1, 'eth1'), row(2, 'eth0'), row(7, 'wlan0')]);
  assert.deepEqual(m.renumbered, [{ key: 'a', from: 1, to: 2 }, { key: 'b', from: 2, to: 1 }]);
  assert.deepEqual(m.added, [7]);
  assert.deepEqual(m.gone, ['c']);
});

test('a re-created interface: the up row at the higher ifIndex is it, the leftover is stale and not new', () => {
  const m = matchInterfaces([known('a', 59, 'veth9')], [row(59, 'veth9', { oper: 2 }), row(61, 'veth9')]);
  assert.deepEqual(m.renumbered, [{ key: 'a', from: 59, to: 61 }]);
  assert.deepEqual([m.stale, m.added, m.gone], [[59], [], []]);
  // Both down (the new one not up yet): the higher ifIndex.
  const down = matchInterfaces([], [row(61, 'veth9', { oper: 2 }), row(59, 'veth9', { oper: 2 })]);
  assert.deepEqual([down.added, down.stale], [[61], [59]]);
});

test('ports sharing one ifDescr without ifName match by ifIndex only, never as renumbered or stale', () => {
  const rows = [1, 2, 3].map((i) => row(i, null, { descr: 'Ethernet Interface', oper: i === 2 ? 2 : 1 }));
  const k = [known('p1', 1, null, 'Ethernet Interface'), known('p2', 2, null, 'Ethernet Interface'), known('p9', 9, null, 'Ethernet Interface')];
  const m = matchInterfaces(k, rows);
  assert.deepEqual(m.matched, [{ key: 'p1', index: 1 }, { key: 'p2', index: 2 }]);
  assert.deepEqual([m.renumbered, m.added, m.gone, m.stale], [[], [3], ['p9'], []]);
});

test('ifDescr stands in for a missing ifName', () => {
  const m = matchInterfaces([known('a', 4, null, 'Port 4')], [row(5, null, { descr: 'Port 4' })]);
  assert.deepEqual(m.renumbered, [{ key: 'a', from: 4, to: 5 }]);
});
