// Port names short and long (src/modules/v1sion/scan/neighbours/port-names.ts): the names a neighbour
// gives and the names IF-MIB gives must meet (netdisco#380: LLDP "Gi1/0/4" vs ifDescr "GigabitEthernet1/0/4").
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { normalisePortName, resolvePort, samePort, type Interface } from '../../src/modules/v1sion/scan/neighbours/index.js';

test('short and long forms of one port are the same port', () => {
  const same: [string, string][] = [
    ['Gi1/0/4', 'GigabitEthernet1/0/4'],
    ['gi1/0/4', 'GIGABITETHERNET1/0/4'],
    ['Te1/0/3', 'TenGigabitEthernet1/0/3'],
    ['TenGigabitEthernet 1/43', 'Te1/43'],
    ['Ten-GigabitEthernet1/0/25', 'XGE1/0/25'],
    ['Fa0/1', 'FastEthernet0/1'],
    ['Eth1/49', 'Ethernet1/49'],
    ['Et1', 'Ethernet1'],
    ['ethernet1/1/25', 'Eth1/1/25'],
    ['Po1', 'Port-channel1'],
    ['port-channel10', 'Po10'],
    ['Vl10', 'Vlan10'],
    ['Vlan-interface1', 'Vlan1'],
    ['Hu1/0/49', 'HundredGigE1/0/49'],
    ['Twe1/0/1', 'TwentyFiveGigE1/0/1'],
    ['Fo1/1/1', 'FortyGigabitEthernet1/1/1'],
    ['Gi0/0.100', 'GigabitEthernet0/0.100'],
    ['gigabitEthernet 1/0/1', 'Gi1/0/1'],
    ['Gi1/0/4\0\0\0', ' Gi1/0/4 '],
    ['xe-0/0/1', 'xe-0/0/1'],
    ['XE-0/0/1', 'xe-0/0/1'],
  ];
  for (const [a, b] of same) assert.ok(samePort(a, b), `${JSON.stringify(a)} ≡ ${JSON.stringify(b)}`);
});

test('different ports stay different; Junos and Linux names are left as they are', () => {
  const different: [string, string][] = [
    ['Gi1/0/4', 'Gi1/0/40'],
    ['Gi1/0/4', 'Te1/0/4'],
    ['Eth1/1', 'Gi1/1'],
    ['xe-0/0/1', 'Te0/0/1'],
    ['ge-0/0/1', 'GigabitEthernet0/0/1'],
    ['Po1', 'Po10'],
    ['eth0', 'Ethernet0/0'],
    ['', ''],
  ];
  for (const [a, b] of different) assert.ok(!samePort(a, b), `${JSON.stringify(a)} ≢ ${JSON.stringify(b)}`);
  assert.equal(normalisePortName('xe-0/0/1'), 'xe-0/0/1');
  assert.equal(normalisePortName('ge-0/0/0.0'), 'ge-0/0/0.0');
  assert.equal(normalisePortName('eth0'), 'ethernet0', 'an abbreviation is an abbreviation wherever it is met');
  assert.equal(normalisePortName('mgmt0'), 'mgmt0');
  assert.equal(normalisePortName('GigabitEthernet1/0/4'), normalisePortName('Gi1/0/4'));
});

test('resolvePort finds the interface a remote names, only on a unique hit', () => {
  const i = (if_index: number, name: string | null, descr: string, alias: string | null = null): Interface =>
    ({ if_index, name, descr, alias, mac: null, type: 6 });
  const ios = [i(1, 'Gi1/0/1', 'GigabitEthernet1/0/1'), i(4, 'Gi1/0/4', 'GigabitEthernet1/0/4', 'uplink core'), i(40, 'Gi1/0/40', 'GigabitEthernet1/0/40'),
    i(100, 'Po1', 'Port-channel1')];
  assert.equal(resolvePort('GigabitEthernet1/0/4', ios)?.if_index, 4);
  assert.equal(resolvePort('Gi1/0/4', ios)?.if_index, 4);
  assert.equal(resolvePort('gigabitethernet 1/0/4', ios)?.if_index, 4);
  assert.equal(resolvePort('Gi1/0/4\0\0', ios)?.if_index, 4);
  assert.equal(resolvePort('Port-channel1', ios)?.if_index, 100);
  assert.equal(resolvePort('uplink core', ios)?.if_index, 4, 'port ID subtype ifAlias');
  assert.equal(resolvePort('Gi1/0/5', ios), null);
  assert.equal(resolvePort('', ios), null);
  assert.equal(resolvePort(null, ios), null);
  // Without ifName (an agent without ifXTable), ifDescr; two interfaces with one description: no guess.
  assert.equal(resolvePort('Te1/43', [i(7, null, 'TenGigabitEthernet 1/43')])?.if_index, 7);
  assert.equal(resolvePort('port', [i(1, null, 'port'), i(2, null, 'port')]), null);
  // An exact ifName beats a normalised match of another interface's ifDescr.
  assert.equal(resolvePort('Gi0/1', [i(1, 'x', 'GigabitEthernet0/1'), i(2, 'Gi0/1', 'something')])?.if_index, 2);
});
