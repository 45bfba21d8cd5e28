// The neighbour parsers (src/modules/v1sion/scan/neighbours) on small hand-written walks, one per trap:
// TimeMark changing between reads, a local port number that is not an ifIndex, a bridge port that is not
// an ifIndex, a MAC whose six octets are printable, short and long port names, LLDP-V2-only agents,
// uplink ports, CDP next to LLDP, ARP states. Values are rendered from octets exactly as the SNMP client
// renders them (printable UTF-8 → text, otherwise hex), so the traps are the real ones.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { RawVarbind } from '../../src/modules/snmp/contracts.js';
import { octets } from '../../src/modules/snmp/client/values.js';
import {
  bytesOf, findUplinks, parseArp, parseCdp, parseDeviceTables, parseFdb, parseInterfaces, parseLldp, parseLocalChassis, uplinkPorts,
  type FdbEntry,
} from '../../src/modules/v1sion/scan/neighbours/index.js';

const os = (oid: string, v: string | Buffer): RawVarbind => ({ oid, type: 'OctetString', ...octets(Buffer.isBuffer(v) ? v : Buffer.from(v)) });
const int = (oid: string, n: number): RawVarbind => ({ oid, type: 'Integer', value: n });
const hexb = (s: string) => Buffer.from(s.replace(/[:.\s]/g, ''), 'hex');

const IFD = '1.3.6.1.2.1.2.2.1.2', IFT = '1.3.6.1.2.1.2.2.1.3', IFP = '1.3.6.1.2.1.2.2.1.6', IFN = '1.3.6.1.2.1.31.1.1.1.1', IFA = '1.3.6.1.2.1.31.1.1.1.18';
const REM = '1.0.8802.1.1.2.1.4.1.1', MAN = '1.0.8802.1.1.2.1.4.2.1', LOC = '1.0.8802.1.1.2.1.3.7.1';
const REM2 = '1.3.111.2.802.1.1.13.1.4.1.1', MAN2 = '1.3.111.2.802.1.1.13.1.4.2.1';
const CDPE = '1.3.6.1.4.1.9.9.23.1.2.1.1';
const BPIF = '1.3.6.1.2.1.17.1.4.1.2', TPPORT = '1.3.6.1.2.1.17.4.3.1.2', TPSTATUS = '1.3.6.1.2.1.17.4.3.1.3';
const QPORT = '1.3.6.1.2.1.17.7.1.2.2.1.2', QSTATUS = '1.3.6.1.2.1.17.7.1.2.2.1.3', VLANFDB = '1.3.6.1.2.1.17.7.1.4.2.1.3';

/** IF-MIB rows: [ifIndex, ifName, ifDescr]. */
const ifRows = (rows: [number, string | null, string][]) => rows.flatMap(([i, name, descr]) => [
  os(`${IFD}.${i}`, descr), int(`${IFT}.${i}`, 6), ...(name != null ? [os(`${IFN}.${i}`, name)] : []),
]);

/** An lldpRemTable row under one TimeMark: chassis MAC, port ID as an ifName, sysName. */
const remRow = (mark: number, port: number, idx: number, r: { chassis?: string; portId?: string; name?: string; caps?: Buffer }) => {
  const ix = `${mark}.${port}.${idx}`;
  return [
    ...(r.chassis ? [int(`${REM}.4.${ix}`, 4), os(`${REM}.5.${ix}`, hexb(r.chassis))] : []),
    ...(r.portId ? [int(`${REM}.6.${ix}`, 5), os(`${REM}.7.${ix}`, r.portId)] : []),
    ...(r.name ? [os(`${REM}.9.${ix}`, r.name)] : []),
    ...(r.caps ? [os(`${REM}.12.${ix}`, r.caps)] : []),
  ];
};

describe('values as the client renders them', () => {
  test('a MAC whose six octets are printable arrives as text and is still a MAC', () => {
    const vb = os(`${IFP}.1`, Buffer.from('ABCDEF'));
    assert.equal(vb.value, 'ABCDEF', 'the client gives printable octets as text');
    assert.equal(vb.hex, undefined);
    assert.deepEqual([...bytesOf(vb)], [0x41, 0x42, 0x43, 0x44, 0x45, 0x46]);
    const [i] = parseInterfaces([os(`${IFD}.1`, 'eth0'), vb]);
    assert.equal(i!.mac, '41:42:43:44:45:46');
    // The same in the other places a MAC comes from: an LLDP chassis ID, the bridge address, an ARP entry.
    const tables = parseDeviceTables([
      int('1.0.8802.1.1.2.1.3.1.0', 4), os('1.0.8802.1.1.2.1.3.2.0', Buffer.from('abc123')),
      os('1.3.6.1.2.1.17.1.1.0', Buffer.from('NETPRB')),
      ...remRow(0, 1, 1, { chassis: Buffer.from('switch').toString('hex'), portId: 'ge-0/0/1' }),
      os('1.3.6.1.2.1.4.22.1.2.1.10.0.0.9', Buffer.from('ZZZZZZ')),
    ]);
    assert.equal(tables.lldp_chassis_id, '61:62:63:31:32:33');
    assert.equal(tables.bridge_mac, '4e:45:54:50:52:42');
    assert.equal(tables.neighbours[0]!.remote.chassis_id, '73:77:69:74:63:68');
    assert.deepEqual(tables.arp, [{ ip: '10.0.0.9', mac: '5a:5a:5a:5a:5a:5a', if_index: 1, port: null }]);
  });

  test('MACs come out lowercase with colons, from hex, from text written as a MAC, never all zeros', () => {
    const ifs = parseInterfaces([
      os(`${IFP}.1`, hexb('001AC1409080')), os(`${IFP}.2`, 'E8:28:C1:3C:1C:D8'), os(`${IFP}.3`, Buffer.alloc(6)), os(`${IFP}.4`, ''),
      os(`${IFP}.5`, hexb('0011223344556677')),
    ]);
    assert.deepEqual(ifs.map((i) => i.mac), ['00:1a:c1:40:90:80', 'e8:28:c1:3c:1c:d8', null, null, null]);
  });

  test('interfaces: ifTable and ifXTable joined on ifIndex, also for an agent without ifXTable', () => {
    const ifs = parseInterfaces([
      os(`${IFD}.1`, 'GigabitEthernet1/0/1'), os(`${IFD}.2`, 'Null0'), int(`${IFT}.1`, 6), int(`${IFT}.2`, 1),
      os(`${IFP}.1`, hexb('20bbc0a29381')), os(`${IFN}.1`, 'Gi1/0/1'), os(`${IFA}.1`, 'to core\0\0'), os(`${IFA}.2`, ''),
      { oid: `${IFN}.2`, type: 'NoSuchInstance', value: null },
    ]);
    assert.deepEqual(ifs, [
      { if_index: 1, name: 'Gi1/0/1', descr: 'GigabitEthernet1/0/1', alias: 'to core', mac: '20:bb:c0:a2:93:81', type: 6 },
      { if_index: 2, name: null, descr: 'Null0', alias: null, mac: null, type: 1 },
    ]);
  });

  test('NUL-padded strings are trimmed', () => {
    const vb = os(`${REM}.9.0.1.1`, Buffer.from('core-sw\0\0\0\0'));
    assert.equal(vb.hex, true, 'NULs make the client send hex');
    const { neighbours } = parseLldp([vb, int(`${REM}.4.0.1.1`, 7), os(`${REM}.5.0.1.1`, Buffer.from('chassis-7\0'))], []);
    assert.equal(neighbours[0]!.remote.sys_name, 'core-sw');
    assert.equal(neighbours[0]!.remote.chassis_id, 'chassis-7');
  });
});

describe('LLDP', () => {
  test('TimeMark changes between reads: rows are keyed on (local port, remote index), the later mark wins', () => {
    const vbs = [
      // The walk read columns 4-7 before the row changed (mark 100) and 9-12 after (mark 1600); column 9
      // was also read under the old mark.
      ...remRow(100, 3, 1, { chassis: '00:11:22:33:44:55', portId: 'Gi1/0/4', name: 'old-name' }),
      ...remRow(1600, 3, 1, { name: 'sw2', caps: Buffer.from([0x28]) }),
      ...remRow(1700, 4, 2, { chassis: '00:11:22:33:44:66', portId: 'Gi1/0/5', name: 'sw3' }),
      // Management addresses under yet another mark.
      int(`${MAN}.3.1700.3.1.1.4.10.0.0.2`, 2),
      int(`${MAN}.3.1700.3.1.2.16.32.1.13.184.0.0.0.0.0.0.0.0.0.0.0.2`, 2),
      int(`${MAN}.3.1700.4.2.1.4.0.0.0.0`, 2),
      ...ifRows([[3, 'Gi1/0/1', 'GigabitEthernet1/0/1'], [4, 'Gi1/0/2', 'GigabitEthernet1/0/2']]),
    ];
    const { neighbours, mib } = parseLldp(vbs, parseInterfaces(vbs));
    assert.equal(mib, 'LLDP-MIB');
    assert.equal(neighbours.length, 2, 'one neighbour per (local port, remote index), not per TimeMark');
    const [a, b] = neighbours;
    assert.equal(a!.local_if_index, 3);
    assert.equal(a!.local_port, 'Gi1/0/1');
    assert.deepEqual(
      { chassis: a!.remote.chassis_id, port: a!.remote.port, name: a!.remote.sys_name, caps: a!.remote.capabilities, mgmt: a!.remote.management_addresses },
      { chassis: '00:11:22:33:44:55', port: 'Gi1/0/4', name: 'sw2', caps: ['bridge', 'router'], mgmt: ['10.0.0.2', '2001:db8::2'] },
    );
    assert.deepEqual(b!.remote.management_addresses, [], '0.0.0.0 is not an address');
    // The same neighbour read again later, every column under a new mark: the same result.
    const again = parseLldp([...remRow(9999, 3, 1, { chassis: '00:11:22:33:44:55', portId: 'Gi1/0/4', name: 'sw2', caps: Buffer.from([0x28]) }),
      int(`${MAN}.3.9999.3.1.1.4.10.0.0.2`, 2), int(`${MAN}.3.9999.3.1.2.16.32.1.13.184.0.0.0.0.0.0.0.0.0.0.0.2`, 2),
      ...ifRows([[3, 'Gi1/0/1', 'GigabitEthernet1/0/1']])], parseInterfaces(ifRows([[3, 'Gi1/0/1', 'GigabitEthernet1/0/1']])));
    assert.deepEqual(again.neighbours[0], a);
  });

  test('a local port number that is not an ifIndex is mapped by lldpLocPortTable, even when that number is another ifIndex', () => {
    const vbs = [
      ...ifRows([[13, 'ethernet1/1/1', 'ethernet1/1/1'], [516, 'vlan516', 'vlan516'], [10, 'mgmt1/1/1', 'mgmt1/1/1']]),
      os(`${LOC}.3.516`, 'ethernet1/1/1'), os(`${LOC}.3.4`, 'mgmt1/1/1'),
      ...remRow(0, 516, 1, { chassis: '4c:d9:8f:fb:1e:fe', portId: 'ethernet1/1/25', name: 'lan-2' }),
      ...remRow(0, 4, 2, { chassis: '14:18:77:dd:6f:ca', portId: 'Gi1/0/6', name: 'mnt-1' }),
    ];
    const n = parseLldp(vbs, parseInterfaces(vbs)).neighbours;
    assert.deepEqual(n.map((x) => [x.local_if_index, x.local_port]), [[10, 'mgmt1/1/1'], [13, 'ethernet1/1/1']]);
  });

  test('lldpLocPortId as a MAC (lldpd): the port description names the interface', () => {
    const vbs = [
      ...ifRows([[2, 'eth0', 'eth0'], [3, 'eth1', 'eth1']]),
      int(`${LOC}.2.7`, 3), os(`${LOC}.3.7`, hexb('02:00:00:00:00:03')), os(`${LOC}.4.7`, 'eth1'),
      ...remRow(0, 7, 1, { chassis: '02:00:00:00:00:99', portId: 'eth0', name: 'peer' }),
    ];
    assert.deepEqual(parseLldp(vbs, parseInterfaces(vbs)).neighbours.map((x) => [x.local_if_index, x.local_port]), [[3, 'eth1']]);
  });

  test('without lldpLocPortTable: bridge port numbers go through dot1dBasePortIfIndex, ifIndex numbers stay', () => {
    // Local port numbers 1 and 2 are bridge ports (the MIB's definition for bridges) and not ifIndexes.
    const bridged = [
      ...ifRows([[10101, 'Gi1/0/1', 'GigabitEthernet1/0/1'], [10102, 'Gi1/0/2', 'GigabitEthernet1/0/2']]),
      int(`${BPIF}.1`, 10101), int(`${BPIF}.2`, 10102),
      ...remRow(0, 1, 1, { chassis: '00:00:00:00:00:a1', portId: 'Gi0/1' }), ...remRow(0, 2, 2, { chassis: '00:00:00:00:00:a2', portId: 'Gi0/2' }),
    ];
    assert.deepEqual(parseLldp(bridged, parseInterfaces(bridged)).neighbours.map((x) => x.local_port), ['Gi1/0/1', 'Gi1/0/2']);
    // lldpd: local port numbers are ifIndexes (3, 4) although bridge ports 3 and 4 exist and map elsewhere.
    const ifIndexed = [
      ...ifRows([[3, 'veth-a', 'veth-a'], [4, 'veth-b', 'veth-b'], [5, 'veth-c', 'veth-c'], [6, 'veth-d', 'veth-d']]),
      int(`${BPIF}.1`, 3), int(`${BPIF}.2`, 4), int(`${BPIF}.3`, 5), int(`${BPIF}.4`, 6),
      ...remRow(0, 3, 1, { chassis: '00:00:00:00:00:b1', portId: 'eth0' }), ...remRow(0, 4, 2, { chassis: '00:00:00:00:00:b2', portId: 'eth0' }),
    ];
    assert.deepEqual(parseLldp(ifIndexed, parseInterfaces(ifIndexed)).neighbours.map((x) => [x.local_if_index, x.local_port]),
      [[3, 'veth-a'], [4, 'veth-b']]);
  });

  test('chassis and port IDs by subtype; capabilities BITS MSB first, also in net-snmp text form', () => {
    const ix = (i: number) => `0.1.${i}`;
    const vbs = [
      ...ifRows([[1, 'eth0', 'eth0']]),
      // 1: networkAddress chassis (family octet + IPv4), MAC port ID, capabilities 0x01 (station) as hex.
      int(`${REM}.4.${ix(1)}`, 5), os(`${REM}.5.${ix(1)}`, Buffer.from([1, 192, 0, 2, 7])),
      int(`${REM}.6.${ix(1)}`, 3), os(`${REM}.7.${ix(1)}`, hexb('0a0b0c0d0e0f')), os(`${REM}.12.${ix(1)}`, Buffer.from([0x01])),
      // 2: local chassis (text), local port ID (a number), port description, capabilities as net-snmp prints them.
      int(`${REM}.4.${ix(2)}`, 7), os(`${REM}.5.${ix(2)}`, 'host-2'), int(`${REM}.6.${ix(2)}`, 7), os(`${REM}.7.${ix(2)}`, '517'),
      os(`${REM}.8.${ix(2)}`, 'ae3'), os(`${REM}.12.${ix(2)}`, '28 2 4'),
      // 3: ifAlias port ID; capabilities text sent by the agent itself and recorded through snmpwalk (Dell OS10).
      int(`${REM}.6.${ix(3)}`, 1), os(`${REM}.7.${ix(3)}`, 'uplink to core'), os(`${REM}.12.${ix(3)}`, '36 38 20 31 20 32 20 34 2 3 5 6 10 11 12 18 26 27 31 34 42 43 46 50 58 59 61'),
      // 4: an IPv6 networkAddress chassis; telephone, twoPortMacRelay (LLDP-V2's bit 10) and a bit no MIB names.
      int(`${REM}.4.${ix(4)}`, 5), os(`${REM}.5.${ix(4)}`, Buffer.concat([Buffer.from([2]), hexb('20010db8000000000000000000000001')])),
      os(`${REM}.12.${ix(4)}`, Buffer.from([0x04, 0x21])), // bits 5, 10 and 15
    ];
    const n = parseLldp(vbs, parseInterfaces(vbs)).neighbours.map((x) => x.remote);
    assert.deepEqual(n.map((r) => [r.chassis_id, r.chassis_id_subtype, r.port, r.port_subtype, r.port_descr]), [
      ['192.0.2.7', 'networkAddress', '0a:0b:0c:0d:0e:0f', 'macAddress', null],
      ['host-2', 'local', '517', 'local', 'ae3'],
      [null, null, 'uplink to core', 'interfaceAlias', null],
      ['2001:db8::1', 'networkAddress', null, null, null],
    ]);
    assert.deepEqual(n.map((r) => r.capabilities), [['station'], ['bridge', 'router'], ['repeater', 'bridge', 'router'], ['telephone', 'twoPortMacRelay']]);
  });

  test('the local chassis ID by subtype', () => {
    const chassis = (subtype: number, v: string | Buffer) => parseLocalChassis([int('1.0.8802.1.1.2.1.3.1.0', subtype), os('1.0.8802.1.1.2.1.3.2.0', v)]);
    assert.deepEqual(chassis(4, hexb('54e032aaa6b0')), { chassis_id: '54:e0:32:aa:a6:b0', subtype: 'macAddress' });
    assert.deepEqual(chassis(5, Buffer.from([1, 10, 0, 0, 1])), { chassis_id: '10.0.0.1', subtype: 'networkAddress' });
    assert.deepEqual(chassis(7, 'local sw1'), { chassis_id: 'local sw1', subtype: 'local' });
    assert.deepEqual(parseLocalChassis([int('1.3.111.2.802.1.1.13.1.3.1.0', 4), os('1.3.111.2.802.1.1.13.1.3.2.0', hexb('020000000001'))]),
      { chassis_id: '02:00:00:00:00:01', subtype: 'macAddress' }, 'LLDP-V2-MIB when LLDP-MIB has none');
    assert.deepEqual(parseLocalChassis([]), { chassis_id: null, subtype: null });
  });

  test('RouterOS serves the management address as a value (columns 1 and 2), not in the index', () => {
    const vbs = [
      ...remRow(0, 6, 2, { chassis: 'e8:28:c1:3c:1c:d8', portId: 'p24', name: 'sw11' }),
      int(`${MAN}.1.0.6.2`, 2), os(`${MAN}.2.0.6.2`, 'fdfd:0:2:1:0:0:0:1'),
    ];
    assert.deepEqual(parseLldp(vbs, []).neighbours[0]!.remote.management_addresses, ['fdfd:0:2:1::1']);
  });

  test('LLDP-V2-MIB is read (columns shifted by one, local port = ifIndex) only when LLDP-MIB has no rows', () => {
    // TimeMark.LocalIfIndex.DestAddressIndex.RemIndex; the same neighbour seen by the nearest-bridge (1)
    // and nearest-customer-bridge (2) agents of the port is one neighbour.
    const v2 = (dest: number) => {
      const ix = `500.7.${dest}.1`;
      return [
        int(`${REM2}.5.${ix}`, 4), os(`${REM2}.6.${ix}`, hexb('001122334455')), int(`${REM2}.7.${ix}`, 5), os(`${REM2}.8.${ix}`, 'xe-0/0/1'),
        os(`${REM2}.9.${ix}`, 'to-access'), os(`${REM2}.10.${ix}`, 'mx1'), os(`${REM2}.11.${ix}`, 'Juniper MX'), os(`${REM2}.13.${ix}`, Buffer.from([0x08])),
        int(`${MAN2}.3.${ix}.1.4.192.0.2.${dest}`, 2),
      ];
    };
    const vbs = [...ifRows([[7, 'Te1/1', 'TenGigabitEthernet1/1']]), ...v2(1), ...v2(2)];
    const tables = parseDeviceTables(vbs);
    assert.equal(parseLldp(vbs, tables.interfaces).mib, 'LLDP-V2-MIB');
    assert.deepEqual(tables.neighbours, [{
      protocol: 'lldp', protocols: ['lldp'], local_port: 'Te1/1', local_if_index: 7,
      remote: {
        chassis_id: '00:11:22:33:44:55', chassis_id_subtype: 'macAddress', port: 'xe-0/0/1', port_subtype: 'interfaceName', port_descr: 'to-access',
        sys_name: 'mx1', sys_descr: 'Juniper MX', platform: null, capabilities: ['router'], management_addresses: ['192.0.2.1', '192.0.2.2'],
        device_id: null, native_vlan: null,
      },
    }]);
    // With LLDP-MIB rows present, LLDP-V2-MIB is ignored.
    const both = [...vbs, ...remRow(0, 7, 1, { chassis: '00:11:22:33:44:55', portId: 'xe-0/0/1', name: 'mx1' })];
    const r = parseLldp(both, tables.interfaces);
    assert.equal(r.mib, 'LLDP-MIB');
    assert.equal(r.neighbours.length, 1);
    assert.equal(r.neighbours[0]!.remote.port_descr, null);
  });
});

describe('CDP and merging', () => {
  const cdpRow = (ifIndex: number, dev: number, r: { id: string; port: string; addr?: Buffer; platform?: string; caps?: string; vlan?: number }) => {
    const ix = `${ifIndex}.${dev}`;
    return [
      ...(r.addr ? [int(`${CDPE}.3.${ix}`, 1), os(`${CDPE}.4.${ix}`, r.addr)] : []),
      os(`${CDPE}.5.${ix}`, 'Cisco IOS Software'), os(`${CDPE}.6.${ix}`, r.id), os(`${CDPE}.7.${ix}`, r.port),
      ...(r.platform ? [os(`${CDPE}.8.${ix}`, r.platform)] : []), ...(r.caps ? [os(`${CDPE}.9.${ix}`, hexb(r.caps))] : []),
      ...(r.vlan != null ? [int(`${CDPE}.11.${ix}`, r.vlan)] : []),
    ];
  };

  test('cdpCacheTable: ifIndex.DeviceIndex, IPv4 address from type 1 + 4 octets (printable too), capabilities, native VLAN', () => {
    const vbs = [
      ...ifRows([[5, 'Te1/0/3', 'TenGigabitEthernet1/0/3']]),
      ...cdpRow(5, 1, { id: 'core.example.com(SSI18110EXV)', port: 'Ethernet1/28', addr: hexb('c0a80a02'), platform: 'N5K-C5548UP', caps: '00000229', vlan: 1 }),
      ...cdpRow(5, 2, { id: 'SEP001122334455', port: 'Port 1', addr: Buffer.from('ABCD'), caps: '00000490', vlan: 0 }),
    ];
    assert.equal(vbs.find((v) => v.oid === `${CDPE}.4.5.2`)!.value, 'ABCD', 'four printable octets arrive as text');
    const [a, b] = parseCdp(vbs, parseInterfaces(vbs));
    assert.deepEqual(a, {
      protocol: 'cdp', protocols: ['cdp'], local_port: 'Te1/0/3', local_if_index: 5,
      remote: {
        chassis_id: 'core.example.com(SSI18110EXV)', chassis_id_subtype: 'cdpDeviceId', port: 'Ethernet1/28', port_subtype: 'cdpPortId',
        port_descr: null, sys_name: 'core.example.com', sys_descr: 'Cisco IOS Software', platform: 'N5K-C5548UP',
        capabilities: ['router', 'switch', 'igmp', 'cvta'], management_addresses: ['192.168.10.2'], device_id: 'core.example.com(SSI18110EXV)',
        native_vlan: 1,
      },
    });
    assert.deepEqual(b!.remote.management_addresses, ['65.66.67.68']);
    assert.deepEqual(b!.remote.capabilities, ['station', 'telephone', 'twoPortMacRelay']);
    assert.equal(b!.remote.native_vlan, null);
  });

  test('CDP and LLDP rows for the same port and remote end become one neighbour; others stay apart', () => {
    const vbs = [
      ...ifRows([[1, 'Gi1/0/1', 'GigabitEthernet1/0/1'], [2, 'Gi1/0/2', 'GigabitEthernet1/0/2'], [3, 'Gi1/0/3', 'GigabitEthernet1/0/3']]),
      // Port 1: the same switch, long name over LLDP and short over CDP.
      ...remRow(0, 1, 1, { chassis: '00:aa:00:00:00:01', portId: 'GigabitEthernet0/48', name: 'dist-1.example.com', caps: Buffer.from([0x28]) }),
      int(`${MAN}.3.0.1.1.1.4.10.9.9.1`, 2),
      ...cdpRow(1, 7, { id: 'dist-1', port: 'Gi0/48', addr: hexb('0a090901'), platform: 'WS-C3850', caps: '00000029' }),
      // Port 2: a phone over CDP and a PC behind it over LLDP.
      ...remRow(0, 2, 3, { chassis: '00:bb:00:00:00:02', portId: 'eth0', name: 'pc-17' }),
      ...cdpRow(2, 8, { id: 'SEP00BB00000003', port: 'Port 1', caps: '00000490' }),
      // Port 3: LLDP gives a MAC port ID, CDP a name; one neighbour each and the same sysName.
      int(`${REM}.4.0.3.4`, 4), os(`${REM}.5.0.3.4`, hexb('00cc00000004')), int(`${REM}.6.0.3.4`, 3), os(`${REM}.7.0.3.4`, hexb('00cc00000005')),
      os(`${REM}.9.0.3.4`, 'ap-3'),
      ...cdpRow(3, 9, { id: 'ap-3', port: 'GigabitEthernet0', platform: 'AIR-AP3802I' }),
    ];
    const n = parseDeviceTables(vbs).neighbours;
    assert.deepEqual(n.map((x) => [x.local_port, x.protocol, x.protocols, x.remote.sys_name]), [
      ['Gi1/0/1', 'lldp', ['lldp', 'cdp'], 'dist-1.example.com'],
      ['Gi1/0/2', 'lldp', ['lldp'], 'pc-17'],
      ['Gi1/0/2', 'cdp', ['cdp'], 'SEP00BB00000003'],
      ['Gi1/0/3', 'lldp', ['lldp', 'cdp'], 'ap-3'],
    ]);
    const merged = n[0]!.remote;
    assert.equal(merged.chassis_id, '00:aa:00:00:00:01', "LLDP's chassis ID");
    assert.equal(merged.port, 'GigabitEthernet0/48');
    assert.equal(merged.platform, 'WS-C3850', "CDP's platform");
    assert.equal(merged.device_id, 'dist-1');
    assert.deepEqual(merged.capabilities, ['bridge', 'router', 'switch', 'igmp']);
    assert.deepEqual(merged.management_addresses, ['10.9.9.1']);
  });
});

describe('forwarding table', () => {
  test('a bridge port is not an ifIndex (Linux bridge): dot1dBasePortIfIndex decides, unknown ports get no interface', () => {
    const vbs = [
      ...ifRows([[1, 'lo', 'lo'], [2, 'eth0', 'eth0'], [3, 'br0', 'br0'], [4, 'veth-a', 'veth-a'], [5, 'veth-b', 'veth-b']]),
      int(`${BPIF}.1`, 4), int(`${BPIF}.2`, 5),
      int(`${TPPORT}.2.0.0.0.0.1`, 1), int(`${TPSTATUS}.2.0.0.0.0.1`, 3),
      int(`${TPPORT}.2.0.0.0.0.2`, 2), int(`${TPSTATUS}.2.0.0.0.0.2`, 3),
      int(`${TPPORT}.2.0.0.0.0.3`, 1), int(`${TPSTATUS}.2.0.0.0.0.3`, 4), // self: the bridge's own
      int(`${TPPORT}.2.0.0.0.0.4`, 0), // port 0: not known
      int(`${TPPORT}.2.0.0.0.0.5`, 7), // bridge port 7 is in no mapping
    ];
    assert.deepEqual(parseFdb(vbs, parseInterfaces(vbs)), [
      { mac: '02:00:00:00:00:01', vlan: null, if_index: 4, port: 'veth-a', bridge_port: 1 },
      { mac: '02:00:00:00:00:02', vlan: null, if_index: 5, port: 'veth-b', bridge_port: 2 },
      { mac: '02:00:00:00:00:05', vlan: null, if_index: null, port: null, bridge_port: 7 },
    ]);
  });

  test('Q-BRIDGE: VLAN through dot1qVlanFdbId, else the FdbId; a length arc before the MAC is tolerated; BRIDGE-MIB duplicates dropped', () => {
    const vbs = [
      ...ifRows([[10101, 'Gi1/0/1', 'GigabitEthernet1/0/1']]),
      int(`${BPIF}.1`, 10101),
      { oid: `${VLANFDB}.0.95`, type: 'Gauge32', value: 2 } as RawVarbind, { oid: `${VLANFDB}.0.450`, type: 'Gauge32', value: 4 } as RawVarbind,
      int(`${QPORT}.2.0.0.116.245.222.175`, 1), int(`${QSTATUS}.2.0.0.116.245.222.175`, 3),
      int(`${QPORT}.4.6.0.10.247.236.209.97`, 1),
      int(`${QPORT}.9.0.0.116.0.0.1`, 1), // an FdbId no VLAN maps to
      int(`${QPORT}.2.0.0.116.0.0.2`, 1), int(`${QSTATUS}.2.0.0.116.0.0.2`, 5), // mgmt (static)
      int(`${TPPORT}.0.0.116.245.222.175`, 1), // the same MAC and port again in BRIDGE-MIB
    ];
    assert.deepEqual(parseFdb(vbs, parseInterfaces(vbs)).map((e) => [e.mac, e.vlan, e.port]), [
      ['00:00:74:f5:de:af', 95, 'Gi1/0/1'], ['00:0a:f7:ec:d1:61', 450, 'Gi1/0/1'], ['00:00:74:00:00:01', null, 'Gi1/0/1'],
    ]);
    // No dot1qVlanFdbId at all: FdbIds are VLAN IDs.
    const bare = [int(`${BPIF}.1`, 3), int(`${QPORT}.31.0.48.103.153.136.128`, 1), int(`${QPORT}.0.100.209.84.154.81.64`, 1)];
    assert.deepEqual(parseFdb(bare, []).map((e) => [e.vlan, e.if_index]), [[31, 3], [null, 3]]);
  });

  test('uplinks: a port carrying another switch\'s MAC, or more than N MACs; attachments stay', () => {
    const e = (port: string, ifIndex: number, mac: string): FdbEntry => ({ mac, vlan: 1, if_index: ifIndex, port, bridge_port: ifIndex });
    const entries: FdbEntry[] = [
      e('Gi1/0/1', 1, '02:00:00:00:01:01'), e('Gi1/0/1', 1, '02:00:00:00:01:02'),
      e('Gi1/0/24', 24, '00:aa:00:00:00:01'), e('Gi1/0/24', 24, '02:00:00:00:24:01'),
      ...Array.from({ length: 20 }, (_, i) => e('Gi1/0/48', 48, `02:00:00:00:48:${i.toString(16).padStart(2, '0')}`)),
      { mac: '02:00:00:00:99:01', vlan: 1, if_index: null, port: null, bridge_port: 99 },
      { mac: '00:AA:00:00:00:02'.toLowerCase(), vlan: 1, if_index: null, port: null, bridge_port: 99 },
    ];
    const infra = ['00:AA:00:00:00:01', '00:aa:00:00:00:02'];
    assert.deepEqual(uplinkPorts(entries, infra), ['Gi1/0/24', 'Gi1/0/48']);
    assert.deepEqual(findUplinks(entries, infra), [
      { if_index: 24, port: 'Gi1/0/24', bridge_port: null, macs: 2, reasons: ['infrastructure-mac'] },
      { if_index: 48, port: 'Gi1/0/48', bridge_port: null, macs: 20, reasons: ['mac-count'] },
      { if_index: null, port: null, bridge_port: 99, macs: 2, reasons: ['infrastructure-mac'] },
    ]);
    assert.deepEqual(uplinkPorts(entries, [], { maxMacs: 1 }), ['Gi1/0/1', 'Gi1/0/24', 'Gi1/0/48']);
    assert.deepEqual(uplinkPorts(entries, [], { maxMacs: 50 }), []);
  });

  test('parseDeviceTables: the MACs of switch neighbours and the ports of switch neighbours make uplinks', () => {
    const vbs = [
      ...ifRows([[1, 'Gi1/0/1', 'GigabitEthernet1/0/1'], [2, 'Gi1/0/2', 'GigabitEthernet1/0/2'], [3, 'Gi1/0/3', 'GigabitEthernet1/0/3']]),
      int(`${BPIF}.1`, 1), int(`${BPIF}.2`, 2), int(`${BPIF}.3`, 3),
      // A bridge neighbour on port 1 whose MAC is learned on port 2 (a loop through another path, say),
      // and a station on port 3 whose MAC is learned there: port 3 is an attachment.
      ...remRow(0, 1, 1, { chassis: '00:aa:00:00:00:01', portId: 'Gi0/1', name: 'sw2', caps: Buffer.from([0x20]) }),
      ...remRow(0, 3, 2, { chassis: '02:00:00:00:03:01', portId: 'eth0', name: 'pc', caps: Buffer.from([0x01]) }),
      int(`${TPPORT}.0.170.0.0.0.1`, 2), int(`${TPPORT}.2.0.0.0.3.1`, 3),
    ];
    assert.deepEqual(parseDeviceTables(vbs).uplink_ports, [
      { if_index: 1, port: 'Gi1/0/1', bridge_port: null, macs: 0, reasons: ['neighbour'] },
      { if_index: 2, port: 'Gi1/0/2', bridge_port: null, macs: 1, reasons: ['infrastructure-mac'] },
    ]);
    assert.deepEqual(parseDeviceTables(vbs, { infrastructureMacs: ['02:00:00:00:03:01'] }).uplink_ports.map((u) => u.if_index), [1, 2, 3]);
  });
});

describe('ARP', () => {
  const PHYS = '1.3.6.1.2.1.4.35.1', MEDIA = '1.3.6.1.2.1.4.22.1';
  test('ipNetToPhysicalTable (v4 and v6) skips invalid and incomplete; ipNetToMediaTable adds what it lacks', () => {
    const v6 = '254.128.0.0.0.0.0.0.10.0.39.255.254.71.61.7';
    const vbs = [
      ...ifRows([[5, 'eth7', 'eth7'], [21, 'eth6.501', 'eth6.501']]),
      os(`${PHYS}.4.5.1.4.83.166.203.89`, hexb('d867d961d965')), int(`${PHYS}.6.5.1.4.83.166.203.89`, 3), int(`${PHYS}.7.5.1.4.83.166.203.89`, 1),
      os(`${PHYS}.4.5.2.16.${v6}`, hexb('080027473d07')), int(`${PHYS}.7.5.2.16.${v6}`, 2),
      os(`${PHYS}.4.21.1.4.10.10.255.11`, hexb('000000000000')), int(`${PHYS}.7.21.1.4.10.10.255.11`, 7), // incomplete
      os(`${PHYS}.4.21.1.4.10.10.255.12`, hexb('4098ad3308f0')), int(`${PHYS}.6.21.1.4.10.10.255.12`, 2), // invalid
      os(`${PHYS}.4.21.1.4.10.10.255.13`, hexb('4098ad3308f1')), int(`${PHYS}.7.21.1.4.10.10.255.13`, 5), // invalid state
      os(`${MEDIA}.2.5.83.166.203.89`, hexb('d867d961d965')), // also in the physical table
      os(`${MEDIA}.2.21.10.10.255.20`, hexb('ACBC32B710AD')), int(`${MEDIA}.4.21.10.10.255.20`, 3),
      os(`${MEDIA}.2.21.10.10.255.21`, hexb('ACBC32B710AE')), int(`${MEDIA}.4.21.10.10.255.21`, 2), // invalid
      os(`${MEDIA}.2.21.10.10.255.22`, ''), // unresolved (RouterOS)
      os(`${MEDIA}.2.21.10.10.255.255`, hexb('ffffffffffff')),
    ];
    assert.deepEqual(parseArp(vbs, parseInterfaces(vbs)), [
      { ip: '83.166.203.89', mac: 'd8:67:d9:61:d9:65', if_index: 5, port: 'eth7' },
      { ip: 'fe80::a00:27ff:fe47:3d07', mac: '08:00:27:47:3d:07', if_index: 5, port: 'eth7' },
      { ip: '10.10.255.20', mac: 'ac:bc:32:b7:10:ad', if_index: 21, port: 'eth6.501' },
    ]);
  });
});
