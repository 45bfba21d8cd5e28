// The neighbour parsers on recordings of real devices: the shared snmprec corpus (../shared/fixtures/snmprec,
// read in place, never copied; see its MANIFEST.tsv). Each recording is walked in-process over exactly the
// roots a scan walks (NEIGHBOUR_ROOTS), the values rendered as the SNMP client renders them, and the figures
// asserted are the ones in the files. Tests skip, naming the missing path, when the corpus is not there.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import type { RawVarbind } from '../../src/modules/snmp/contracts.js';
import { neighbourRoots, parseDeviceTables, type DeviceTables } from '../../src/modules/v1sion/scan/neighbours/index.js';
import { CORPUS_DIR } from '../helpers/snmp-recordings.js';
import { loadSnmprec, recordingReader, toRaw } from '../helpers/snmprec.js';

const fileOf = (name: string) => join(CORPUS_DIR, `${name}.snmprec`);
const skipFor = (name: string): string | false =>
  existsSync(fileOf(name)) ? false : `the shared snmprec corpus recording ${fileOf(name)} is not there (it exists only beside the project's workspace)`;

/** The varbinds a scan walking NEIGHBOUR_ROOTS would get from this device. */
async function walked(name: string): Promise<RawVarbind[]> {
  const reader = recordingReader(loadSnmprec(fileOf(name)));
  const r = await reader.walk({ host: '192.0.2.1', version: 'v2c', community: 'public' }, neighbourRoots(), { max_varbinds: 100_000 });
  assert.equal(r.truncated, false);
  return r.varbinds;
}

const tablesOf = async (name: string): Promise<DeviceTables> => parseDeviceTables(await walked(name));

const RECORDINGS = [
  'arubaos-cx', 'dell-os10', 'edgeos', 'edgeswitch_10xp', 'fortigate_60f3g4g', 'ios_c3560', 'iosxe_ct5760', 'jetstream_jetstream-lldp',
  'junos_rpm', 'linux_icecast', 'netgear_3', 'nxos_n3k-3064pq', 'panos_440', 'pfsense', 'procurve_2520', 'routeros_rb750gr3',
];

describe('the walk roots', () => {
  for (const name of RECORDINGS) {
    test(`${name}: walking NEIGHBOUR_ROOTS gives the parsers everything the whole recording would`, { skip: skipFor(name) }, async () => {
      const all = loadSnmprec(fileOf(name)).vars.map(toRaw);
      const some = await walked(name);
      assert.ok(some.length < all.length, 'the roots are columns, not the whole recording');
      assert.deepEqual(parseDeviceTables(some), parseDeviceTables(all));
    });
  }
});

describe('LLDP from real agents', () => {
  test('ArubaOS-CX 8325: 18 neighbours, two of them ESXi hosts per port, the iSCSI peer on 1/1/53 and 1/1/54', { skip: skipFor('arubaos-cx') }, async () => {
    const t = await tablesOf('arubaos-cx');
    assert.equal(t.neighbours.length, 18);
    assert.ok(t.neighbours.every((n) => n.protocols.join() === 'lldp'));
    const peer = t.neighbours.filter((n) => n.remote.sys_name === 'aruba-iscsi-2');
    assert.deepEqual(peer.map((n) => [n.local_if_index, n.local_port, n.remote.port]), [[53, '1/1/53', '1/1/53'], [54, '1/1/54', '1/1/54']]);
    assert.deepEqual(peer[0]!.remote, {
      chassis_id: '00:50:e7:40:a2:00', chassis_id_subtype: 'macAddress', port: '1/1/53', port_subtype: 'interfaceName', port_descr: '1/1/53',
      sys_name: 'aruba-iscsi-2', sys_descr: 'Aruba JL635A  GL.10.04.2000', platform: null, capabilities: ['bridge', 'router'],
      management_addresses: ['172.20.5.87'], device_id: null, native_vlan: null,
    });
    // Port 1/1/10: the NIC's own LLDP (station, chassis = its MAC) and the ESXi vSwitch's (bridge, chassis "vmnic5").
    const p10 = t.neighbours.filter((n) => n.local_port === '1/1/10').map((n) => [n.remote.chassis_id, n.remote.chassis_id_subtype, n.remote.capabilities]);
    assert.deepEqual(p10, [['00:0a:f7:ec:d1:61', 'macAddress', ['station']], ['vmnic5', 'interfaceName', ['bridge']]]);
    // A management address of subtype all802 (a MAC) is not an IP address.
    assert.deepEqual(t.neighbours.find((n) => n.remote.chassis_id === '00:0a:f7:ec:d1:61')!.remote.management_addresses, []);
  });

  test('Dell OS10: local port numbers (516…) are not ifIndexes (13…); "Not Advertised" is no name; capabilities sent as text', { skip: skipFor('dell-os10') }, async () => {
    const t = await tablesOf('dell-os10');
    assert.deepEqual(t.neighbours.map((n) => [n.local_if_index, n.local_port, n.remote.sys_name, n.remote.port]), [
      [10, 'mgmt1/1/1', '1007-mnt-1', 'Gi1/0/6'],
      [37, 'ethernet1/1/25', '1007-lan-2', 'ethernet1/1/25'],
      [38, 'ethernet1/1/26', '1007-lan-2', 'ethernet1/1/26'],
      [41, 'ethernet1/1/29', 'core-1', '517'],
      [42, 'ethernet1/1/30', null, 'TenGigabitEthernet 1/43'],
    ]);
    const core = t.neighbours[3]!.remote;
    assert.equal(core.port_subtype, 'local');
    assert.equal(core.port_descr, 'ae3');
    assert.equal(core.chassis_id, 'e4:fc:82:36:23:c0');
    assert.deepEqual(core.capabilities, ['bridge', 'router'], '"28 2 4" as the agent sent it');
    assert.deepEqual(t.neighbours[1]!.remote.capabilities, ['repeater', 'bridge', 'router'], '"68 1 2 4"');
    assert.deepEqual(t.neighbours[0]!.remote.capabilities, [], '"00"');
    assert.equal(t.neighbours[4]!.remote.sys_descr, null);
  });

  test('Junos SRX240: two neighbours, one naming its port by number (subtype local)', { skip: skipFor('junos_rpm') }, async () => {
    const t = await tablesOf('junos_rpm');
    assert.deepEqual(t.neighbours.map((n) => ({
      local: [n.local_if_index, n.local_port], name: n.remote.sys_name, port: [n.remote.port, n.remote.port_subtype, n.remote.port_descr],
      mgmt: n.remote.management_addresses, caps: n.remote.capabilities,
    })), [
      { local: [520, 'ge-0/0/0.0'], name: 'gsm-core-1', port: ['GigabitEthernet1/0/3', 'interfaceName', 'GigabitEthernet1/0/3'], mgmt: ['10.1.2.241'],
        caps: ['bridge', 'router'] },
      { local: [525, 'ge-0/0/1.0'], name: 'J9660A', port: ['3', 'local', 'Port #3'], mgmt: ['10.1.2.242'], caps: ['bridge'] },
    ]);
  });

  test('RouterOS: the management address served as a value, an IPv6 one among them', { skip: skipFor('routeros_rb750gr3') }, async () => {
    const t = await tablesOf('routeros_rb750gr3');
    assert.deepEqual(t.neighbours.map((n) => [n.local_if_index, n.local_port, n.remote.sys_name, n.remote.chassis_id, n.remote.management_addresses]), [
      [6, 'trunk: Down (eth5)', 'sw11.mzmol', 'e8:28:c1:3c:1c:d8', ['169.254.9.11']],
      [10, 'trunk: SoAda (eoip1)', 'r1.soada', '02:e8:54:fb:7c:76', ['fdfd:0:2:1::1']],
    ]);
  });

  test('FortiGate 60F: the FortiSwitch on wan2', { skip: skipFor('fortigate_60f3g4g') }, async () => {
    const t = await tablesOf('fortigate_60f3g4g');
    assert.equal(t.neighbours.length, 1);
    const n = t.neighbours[0]!;
    assert.deepEqual([n.local_if_index, n.local_port, n.remote.port, n.remote.sys_name, n.remote.chassis_id, n.remote.management_addresses],
      [16, 'wan2', 'port12', 'forti-60f-3g4g', 'e8:12:34:56:78:9a', ['169.254.1.2']]);
    assert.match(n.remote.sys_descr ?? '', /^FortiSwitchRugged-112D-POE/);
  });
});

describe('CDP from real agents', () => {
  test('NX-OS 3064PQ: CDP and LLDP of the peer on Ethernet1/49 are one neighbour; mgmt0 has a CDP neighbour only', { skip: skipFor('nxos_n3k-3064pq') }, async () => {
    const t = await tablesOf('nxos_n3k-3064pq');
    assert.deepEqual(t.neighbours.map((n) => [n.local_if_index, n.local_port, n.protocol, n.protocols, n.remote.port]), [
      [83886080, 'mgmt0', 'cdp', ['cdp'], 'GigabitEthernet0/0'],
      [436404224, 'Ethernet1/49', 'lldp', ['lldp', 'cdp'], 'Ethernet1/49'],
    ]);
    const peer = t.neighbours[1]!.remote;
    assert.equal(peer.chassis_id, '18:e7:28:92:28:78');
    assert.equal(peer.platform, 'N3K-C3064PQ-10GE');
    assert.equal(peer.native_vlan, 1);
    assert.equal(peer.port_descr, 'Uplink');
    assert.deepEqual(peer.management_addresses, ['172.30.192.161']);
    assert.match(peer.sys_descr ?? '', /^Cisco Nexus Operating System \(NX-OS\) Software 7\.0\(3\)I7\(8\)/);
    assert.deepEqual(t.neighbours[0]!.remote.capabilities, ['router', 'switch', 'igmp']);
  });

  test('IOS-XE 5760: the Nexus on Te1/0/3, its address, platform and serial-suffixed Device-ID', { skip: skipFor('iosxe_ct5760') }, async () => {
    const t = await tablesOf('iosxe_ct5760');
    assert.deepEqual(t.neighbours, [{
      protocol: 'cdp', protocols: ['cdp'], local_port: 'Te1/0/3', local_if_index: 5,
      remote: {
        chassis_id: 'core.example.com(SSI18110EXV)', chassis_id_subtype: 'cdpDeviceId', port: 'Ethernet1/28', port_subtype: 'cdpPortId',
        port_descr: null, sys_name: 'core.example.com', sys_descr: 'Cisco Nexus Operating System (NX-OS) Software, Version 6.0(2)N2(5)',
        platform: 'N5K-C5548UP', capabilities: ['router', 'switch', 'igmp', 'cvta'], management_addresses: ['192.168.10.2'],
        device_id: 'core.example.com(SSI18110EXV)', native_vlan: 1,
      },
    }]);
    assert.equal(t.bridge_mac, '20:bb:c0:a2:93:80');
  });
});

describe('forwarding tables from real agents', () => {
  test('ProCurve 2520: 741 learned entries, VLAN through dot1qVlanFdbId (FdbId 2 = VLAN 95), port 28 the uplink', { skip: skipFor('procurve_2520') }, async () => {
    const t = await tablesOf('procurve_2520');
    assert.equal(t.fdb.length, 741, 'the 8 entries on port 0 left out');
    assert.deepEqual(t.fdb.find((e) => e.mac === '00:00:74:f5:de:af'), { mac: '00:00:74:f5:de:af', vlan: 95, if_index: 28, port: '28', bridge_port: 28 });
    assert.deepEqual(new Set(t.fdb.map((e) => e.vlan)), new Set([1, 95, 252, 450, 636, 999, 2044, 2081]));
    assert.deepEqual(t.uplink_ports, [{ if_index: 28, port: '28', bridge_port: null, macs: 725, reasons: ['mac-count'] }]);
  });

  test('NX-OS: bridge port 4105 is port-channel10 (ifIndex 369098761)', { skip: skipFor('nxos_n3k-3064pq') }, async () => {
    const t = await tablesOf('nxos_n3k-3064pq');
    assert.equal(t.bridge_mac, 'f8:72:ea:e0:09:bc');
    assert.equal(t.fdb.length, 4);
    assert.ok(t.fdb.every((e) => e.bridge_port === 4105 && e.if_index === 369098761 && e.port === 'port-channel10' && e.vlan === null));
    assert.equal(t.fdb[0]!.mac, '34:e3:80:15:ee:a0');
  });

  test('RouterOS: bridge ports 1 and 2 are ifIndexes 6 and 10; FdbIds are VLAN IDs', { skip: skipFor('routeros_rb750gr3') }, async () => {
    const t = await tablesOf('routeros_rb750gr3');
    assert.equal(t.bridge_mac, '64:d1:54:9a:51:40');
    assert.equal(t.fdb.length, 88);
    assert.deepEqual(new Set(t.fdb.map((e) => `${e.bridge_port}->${e.if_index}`)), new Set(['1->6', '2->10']));
    assert.deepEqual(t.fdb.find((e) => e.mac === 'e8:28:c1:3c:1c:d8'), { mac: 'e8:28:c1:3c:1c:d8', vlan: 1, if_index: 6, port: 'trunk: Down (eth5)', bridge_port: 1 });
    // The LLDP neighbour sw11.mzmol (a bridge) is learned on eth5: an uplink for that reason too.
    assert.deepEqual(t.uplink_ports.find((u) => u.if_index === 6)?.reasons, ['infrastructure-mac', 'mac-count', 'neighbour']);
  });

  test('ArubaOS-CX: a length arc before the MAC in the index; 29 learned entries', { skip: skipFor('arubaos-cx') }, async () => {
    const t = await tablesOf('arubaos-cx');
    assert.equal(t.fdb.length, 29);
    assert.deepEqual(t.fdb.filter((e) => e.port === '1/1/43').map((e) => e.mac).sort(),
      ['00:50:56:5e:87:f2', '00:50:56:6f:18:21', '00:50:56:84:2e:3e', '1c:34:da:41:d5:d1']);
  });

  test('JetStream: FDB ports 2 and 28 are not in dot1dBasePortIfIndex (49153…): no interface is guessed', { skip: skipFor('jetstream_jetstream-lldp') }, async () => {
    const t = await tablesOf('jetstream_jetstream-lldp');
    assert.deepEqual(t.fdb.map((e) => [e.bridge_port, e.if_index, e.vlan]), [[2, null, 100], [28, null, 100], [28, null, 100], [28, null, 254]]);
  });
});

describe('ARP tables from real agents', () => {
  test('EdgeOS: 20 IPv4 entries (both tables) and 8 IPv6 neighbours (ipNetToPhysicalTable only)', { skip: skipFor('edgeos') }, async () => {
    const t = await tablesOf('edgeos');
    assert.equal(t.arp.length, 28);
    assert.equal(t.arp.filter((a) => a.ip.includes(':')).length, 8);
    assert.deepEqual(t.arp.find((a) => a.ip === 'fe80::a00:27ff:fe47:3d07'), { ip: 'fe80::a00:27ff:fe47:3d07', mac: '08:00:27:47:3d:07', if_index: 5, port: 'eth7' });
    assert.deepEqual(t.arp.find((a) => a.ip === '192.168.1.200'), { ip: '192.168.1.200', mac: '00:1b:9d:06:6f:ed', if_index: 21, port: 'eth6.501' });
  });

  test('Linux (net-snmp), pfSense, RouterOS, NX-OS, IOS-XE, Junos', async (t) => {
    const expected: [string, number, { ip: string; mac: string; if_index: number; port: string }][] = [
      ['linux_icecast', 25, { ip: '10.136.44.28', mac: '4e:18:db:9e:0a:e9', if_index: 3, port: 'eth1' }],
      ['pfsense', 16, { ip: '192.168.80.124', mac: '44:4e:6d:77:b7:27', if_index: 3, port: 'em2' }],
      // One of 10 entries has an empty MAC (unresolved).
      ['routeros_rb750gr3', 9, { ip: '169.254.9.11', mac: 'e8:28:c1:3c:1c:c0', if_index: 14, port: 'Vlan255' }],
      // ipNetToMediaTable's MAC is redacted in the recording, ipNetToPhysicalTable's is not.
      ['nxos_n3k-3064pq', 1, { ip: '172.30.192.1', mac: 'a8:0c:0d:98:8f:3f', if_index: 83886080, port: 'mgmt0' }],
      ['iosxe_ct5760', 7, { ip: '192.168.20.2', mac: '44:03:a7:8b:06:6c', if_index: 15, port: 'Vl11' }],
      ['junos_rpm', 98, { ip: '10.1.2.2', mac: 'f0:9f:c2:a6:34:bd', if_index: 513, port: 'vlan.1' }],
    ];
    for (const [name, count, sample] of expected) {
      await t.test(name, { skip: skipFor(name) }, async () => {
        const arp = (await tablesOf(name)).arp;
        assert.equal(arp.length, count);
        assert.deepEqual(arp.find((a) => a.ip === sample.ip), sample);
      });
    }
  });
});
