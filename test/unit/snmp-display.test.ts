// How values read: the JSON-safe raw form the client makes of net-snmp's varbinds, displayValue's
// rendering of each type, and toVarbind's names, against hand-made OID entries and a tiny lookup.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { displayValue, formatDateAndTime, formatTimeTicks, toVarbind } from '../../src/modules/snmp/display.js';
import { rawVarbind } from '../../src/modules/snmp/client/values.js';
import { snmp } from '../../src/modules/snmp/client/net-snmp.js';
import type { OidEntry, OidLookup, RawVarbind } from '../../src/modules/snmp/contracts.js';

const entry = (e: Partial<OidEntry> & Pick<OidEntry, 'oid' | 'name'>): OidEntry => ({ module: 'TEST-MIB', kind: 'column', ...e });

const IF_PHYS = entry({ oid: '1.3.6.1.2.1.2.2.1.6', name: 'ifPhysAddress', type: 'PhysAddress' });
const IF_OPER = entry({ oid: '1.3.6.1.2.1.2.2.1.8', name: 'ifOperStatus', type: 'INTEGER', enums: { 1: 'up', 2: 'down', 7: 'lowerLayerDown' } });
const IF_ENTRY = entry({ oid: '1.3.6.1.2.1.2.2.1', name: 'ifEntry', kind: 'row' });
const SYS_UPTIME = entry({ oid: '1.3.6.1.2.1.1.3', name: 'sysUpTime', kind: 'scalar', type: 'TimeTicks' });
const ENTRIES = [IF_PHYS, IF_OPER, IF_ENTRY, SYS_UPTIME];

const lookup: OidLookup = {
  resolve(oid) {
    const hit = ENTRIES.filter((e) => oid === e.oid || oid.startsWith(`${e.oid}.`)).sort((a, b) => b.oid.length - a.oid.length)[0];
    return hit && { entry: hit, suffix: oid.slice(hit.oid.length + 1) };
  },
  nameOf(oid) {
    const r = this.resolve(oid);
    return r ? (r.suffix ? `${r.entry.name}.${r.suffix}` : r.entry.name) : oid;
  },
  oidOf(name) { return ENTRIES.find((e) => e.name === name)?.oid; },
};

const vb = (type: RawVarbind['type'], value: RawVarbind['value'], hex?: boolean): RawVarbind =>
  ({ oid: '1.3.6.1.4.1.99999.1.0', type, value, ...(hex ? { hex } : {}) });

describe('rawVarbind: net-snmp values to JSON-safe ones', () => {
  const T = snmp.ObjectType;
  const cases: [string, { type: number; value: unknown }, Omit<RawVarbind, 'oid'>][] = [
    ['Integer', { type: T.Integer, value: -5 }, { type: 'Integer', value: -5 }],
    ['Counter32', { type: T.Counter, value: 4294967295 }, { type: 'Counter32', value: 4294967295 }],
    ['Gauge32', { type: T.Gauge, value: 1000000000 }, { type: 'Gauge32', value: 1000000000 }],
    ['TimeTicks', { type: T.TimeTicks, value: 12345 }, { type: 'TimeTicks', value: 12345 }],
    ['Counter64 with the sign octet', { type: T.Counter64, value: Buffer.from('00ffffffffffffffff', 'hex') },
      { type: 'Counter64', value: '18446744073709551615' }],
    ['Counter64 small', { type: T.Counter64, value: Buffer.from('0100', 'hex') }, { type: 'Counter64', value: '256' }],
    ['Counter64 zero (no octets)', { type: T.Counter64, value: Buffer.alloc(0) }, { type: 'Counter64', value: '0' }],
    ['printable text', { type: T.OctetString, value: Buffer.from('eth0 – uplink\ttagged') }, { type: 'OctetString', value: 'eth0 – uplink\ttagged' }],
    ['empty string', { type: T.OctetString, value: Buffer.alloc(0) }, { type: 'OctetString', value: '' }],
    ['binary (a MAC)', { type: T.OctetString, value: Buffer.from('001a2b3c4d5e', 'hex') }, { type: 'OctetString', value: '001a2b3c4d5e', hex: true }],
    ['invalid UTF-8', { type: T.OctetString, value: Buffer.from('c328', 'hex') }, { type: 'OctetString', value: 'c328', hex: true }],
    ['C1 control', { type: T.OctetString, value: Buffer.from('c285', 'hex') }, { type: 'OctetString', value: 'c285', hex: true }],
    ['OID', { type: T.OID, value: '1.3.6.1.4.1.8072.3.2.10' }, { type: 'OID', value: '1.3.6.1.4.1.8072.3.2.10' }],
    ['IpAddress', { type: T.IpAddress, value: '192.0.2.1' }, { type: 'IpAddress', value: '192.0.2.1' }],
    ['Opaque', { type: T.Opaque, value: Buffer.from('9f78043d4ccccd', 'hex') }, { type: 'Opaque', value: '9f78043d4ccccd', hex: true }],
    ['Null', { type: T.Null, value: null }, { type: 'Null', value: null }],
    ['noSuchObject', { type: T.NoSuchObject, value: null }, { type: 'NoSuchObject', value: null }],
    ['noSuchInstance', { type: T.NoSuchInstance, value: null }, { type: 'NoSuchInstance', value: null }],
    ['endOfMibView', { type: T.EndOfMibView, value: null }, { type: 'EndOfMibView', value: null }],
  ];
  for (const [label, input, want] of cases) {
    test(label, () => {
      const got = rawVarbind({ oid: '1.3.6.1.2.1.1.1.0', ...input });
      assert.deepEqual(got, { oid: '1.3.6.1.2.1.1.1.0', ...want });
      assert.deepEqual(JSON.parse(JSON.stringify(got)), got, 'JSON-safe');
    });
  }
});

describe('displayValue', () => {
  const cases: [string, RawVarbind, OidEntry | undefined, string][] = [
    ['TimeTicks under a day', vb('TimeTicks', 301), undefined, '00:00:03.01'],
    ['TimeTicks zero', vb('TimeTicks', 0), undefined, '00:00:00.00'],
    ['TimeTicks one day', vb('TimeTicks', 8_640_000), undefined, '1 day, 00:00:00.00'],
    ['TimeTicks days', vb('TimeTicks', 27_390_607), SYS_UPTIME, '3 days, 04:05:06.07'],
    ['TimeTicks maximum', vb('TimeTicks', 4_294_967_295), undefined, '497 days, 02:27:52.95'],
    ['PhysAddress from hex', vb('OctetString', '001a2b3c4d5e', true), IF_PHYS, '00:1a:2b:3c:4d:5e'],
    ['PhysAddress that looked like text', vb('OctetString', 'ABCDEF'), IF_PHYS, '41:42:43:44:45:46'],
    ['empty PhysAddress', vb('OctetString', ''), IF_PHYS, ''],
    ['PhysAddress of another length', vb('OctetString', '0011223344556677', true), IF_PHYS, '00:11:22:33:44:55:66:77'],
    ['MacAddress', vb('OctetString', 'a0b1c2d3e4f5', true), entry({ oid: '1.3.6.1.2.1.17.4.3.1.1', name: 'dot1dTpFdbAddress', type: 'MacAddress' }), 'a0:b1:c2:d3:e4:f5'],
    ['any 6-byte binary', vb('OctetString', '00005e0053ff', true), undefined, '00:00:5e:00:53:ff'],
    ['other binary as spaced hex', vb('OctetString', '0001020a0bff10', true), undefined, '00 01 02 0A 0B FF 10'],
    ['printable text', vb('OctetString', 'Linux vm 6.1'), undefined, 'Linux vm 6.1'],
    ['text ending in NULs', vb('OctetString', Buffer.from('Gi0/1\0\0\0').toString('hex'), true), undefined, 'Gi0/1'],
    ['only NULs stay hex', vb('OctetString', '0000', true), undefined, '00 00'],
    ['IpAddress', vb('IpAddress', '192.0.2.10'), undefined, '192.0.2.10'],
    ['enum', vb('Integer', 1), IF_OPER, 'up(1)'],
    ['enum, another value', vb('Integer', 7), IF_OPER, 'lowerLayerDown(7)'],
    ['enum without a label for the value', vb('Integer', 9), IF_OPER, '9'],
    ['BITS by name', vb('OctetString', '28', true), entry({ oid: '1.0.8802.1.1.2.1.4.1.1.12', name: 'lldpRemSysCapEnabled', type: 'BITS',
      enums: { 0: 'other', 1: 'repeater', 2: 'bridge', 3: 'wlanAccessPoint', 4: 'router' } }), 'bridge(2) router(4)'],
    ['BITS, none set', vb('OctetString', '00', true), entry({ oid: '1.0.8802.1.1.2.1.4.1.1.12', name: 'lldpRemSysCapEnabled', type: 'BITS', enums: { 0: 'other' } }), ''],
    ['BITS, an unnamed bit', vb('OctetString', '8001', true), entry({ oid: '1.0.8802.1.1.2.1.4.1.1.12', name: 'lldpRemSysCapEnabled', type: 'BITS', enums: { 0: 'other' } }), 'other(0) bit(15)'],
    ['Integer with units', vb('Integer', 42), entry({ oid: '1.3.6.1.4.1.2021.11.9', name: 'ssCpuUser', kind: 'scalar', units: '%' }), '42 %'],
    ['Gauge32 with units', vb('Gauge32', 1000), entry({ oid: '1.3.6.1.2.1.31.1.1.1.15', name: 'ifHighSpeed', units: 'Mbps' }), '1000 Mbps'],
    ['Counter32', vb('Counter32', 4294967295), undefined, '4294967295'],
    ['Counter64 as given', vb('Counter64', '18446744073709551615'), undefined, '18446744073709551615'],
    ['Counter64 with units', vb('Counter64', '123'), entry({ oid: '1.3.6.1.2.1.31.1.1.1.6', name: 'ifHCInOctets', units: 'octets' }), '123 octets'],
    ['DateAndTime with zone', vb('OctetString', '07e80102030405062b0100', true), entry({ oid: '1.3.6.1.2.1.25.1.2', name: 'hrSystemDate', kind: 'scalar', type: 'DateAndTime' }),
      '2024-01-02T03:04:05.6+01:00'],
    ['DateAndTime without zone', vb('OctetString', '07e8020d17003b00', true), entry({ oid: '1.3.6.1.2.1.25.6.3.1.5', name: 'hrSWInstalledDate', type: 'DateAndTime' }),
      '2024-02-13T23:00:59'],
    ['DateAndTime west of UTC', vb('OctetString', '07e8020d17003b002d051e', true), entry({ oid: '1.3.6.1.2.1.25.1.2', name: 'hrSystemDate', kind: 'scalar', type: 'DateAndTime' }),
      '2024-02-13T23:00:59-05:30'],
    ['DateAndTime that is not one', vb('OctetString', '0000000000000000', true), entry({ oid: '1.3.6.1.2.1.25.6.3.1.5', name: 'hrSWInstalledDate', type: 'DateAndTime' }),
      '00 00 00 00 00 00 00 00'],
    ['InetAddress IPv4', vb('OctetString', 'c0000201', true), entry({ oid: '1.3.6.1.2.1.4.34.1.3', name: 'ipAddressIfIndex', type: 'InetAddress' }), '192.0.2.1'],
    ['InetAddress IPv6', vb('OctetString', '20010db8000000000000000000000001', true), entry({ oid: '1.3.6.1.2.1.4.35.1.4', name: 'x', type: 'InetAddress' }), '2001:db8::1'],
    ['InetAddress IPv6, one zero group', vb('OctetString', '20010db8000100000001000100010001', true), entry({ oid: '1.3.6.1.2.1.4.35.1.4', name: 'x', type: 'InetAddress' }), '2001:db8:1:0:1:1:1:1'],
    ['OID', vb('OID', '1.3.6.1.4.1.9.1.1745'), undefined, '1.3.6.1.4.1.9.1.1745'],
    ['Opaque float (UCD laLoadFloat)', vb('Opaque', '9f78043d4ccccd', true), undefined, '0.05'],
    ['other Opaque', vb('Opaque', '0102', true), undefined, '01 02'],
    ['Null', vb('Null', null), undefined, 'NULL'],
    ['noSuchObject', vb('NoSuchObject', null), undefined, 'No Such Object available on this agent at this OID'],
    ['noSuchInstance', vb('NoSuchInstance', null), undefined, 'No Such Instance currently exists at this OID'],
    ['endOfMibView', vb('EndOfMibView', null), undefined, 'No more variables left in this MIB View'],
  ];
  for (const [label, input, e, want] of cases) {
    test(label, () => assert.equal(displayValue(input, e), want));
  }

  test('formatTimeTicks and formatDateAndTime directly', () => {
    assert.equal(formatTimeTicks(99), '00:00:00.99');
    assert.equal(formatTimeTicks(360_000), '01:00:00.00');
    assert.equal(formatDateAndTime(Buffer.from('07e8010203040506', 'hex')), '2024-01-02T03:04:05.6');
    assert.equal(formatDateAndTime(Buffer.from('07e8010203', 'hex')), undefined);
    assert.equal(formatDateAndTime(Buffer.from('07e80d0203040506', 'hex')), undefined, 'month 13');
  });
});

describe('toVarbind', () => {
  test('a column instance: name with its index, display from the column', () => {
    const got = toVarbind({ oid: '1.3.6.1.2.1.2.2.1.6.2', type: 'OctetString', value: '001a2b3c4d5e', hex: true }, lookup);
    assert.deepEqual(got, { oid: '1.3.6.1.2.1.2.2.1.6.2', name: 'ifPhysAddress.2', type: 'OctetString', value: '001a2b3c4d5e', hex: true,
      display: '00:1a:2b:3c:4d:5e' });
    assert.deepEqual(Object.keys(got), ['oid', 'name', 'type', 'value', 'hex', 'display']);
  });

  test('enums and scalars', () => {
    assert.deepEqual(toVarbind({ oid: '1.3.6.1.2.1.2.2.1.8.1', type: 'Integer', value: 2 }, lookup),
      { oid: '1.3.6.1.2.1.2.2.1.8.1', name: 'ifOperStatus.1', type: 'Integer', value: 2, display: 'down(2)' });
    assert.equal(toVarbind({ oid: '1.3.6.1.2.1.1.3.0', type: 'TimeTicks', value: 8_640_001 }, lookup).display, '1 day, 00:00:00.01');
    assert.equal(toVarbind({ oid: '1.3.6.1.2.1.1.3.0', type: 'TimeTicks', value: 1 }, lookup).name, 'sysUpTime.0');
  });

  test('an unknown OID keeps its number; a row or node entry says nothing about the value', () => {
    assert.deepEqual(toVarbind({ oid: '1.3.6.1.4.1.99999.1.0', type: 'Integer', value: 1 }, lookup),
      { oid: '1.3.6.1.4.1.99999.1.0', name: '1.3.6.1.4.1.99999.1.0', type: 'Integer', value: 1, display: '1' });
    // An unknown column of ifEntry resolves to the row: named below it, displayed by its own type.
    const got = toVarbind({ oid: '1.3.6.1.2.1.2.2.1.99.1', type: 'OctetString', value: 'x' }, lookup);
    assert.equal(got.name, 'ifEntry.99.1');
    assert.equal(got.display, 'x');
    assert.equal('hex' in got, false);
  });
});
