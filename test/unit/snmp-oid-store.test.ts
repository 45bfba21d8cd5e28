// The compiled OID store: coverage of the MIBs the issue names, what it knows about types, enums,
// units and descriptions, lookups both ways, list filters, enterprise numbers, and that every OID the
// vendor profiles name is in it.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { OidStore } from '../../src/modules/snmp/oids/oid-store.js';
import { VENDOR_PROFILES, cardsFor } from '../../src/modules/snmp/vendors/index.js';
import { profileOidNames } from '../../src/modules/snmp/vendors/describe.js';

const store = OidStore.load();

describe('OID store coverage', () => {
  const required: Record<string, Record<string, string>> = {
    'SNMPv2-MIB': { sysDescr: '1.3.6.1.2.1.1.1', sysObjectID: '1.3.6.1.2.1.1.2', sysUpTime: '1.3.6.1.2.1.1.3', sysName: '1.3.6.1.2.1.1.5', sysORDescr: '1.3.6.1.2.1.1.9.1.3' },
    'IF-MIB': { ifDescr: '1.3.6.1.2.1.2.2.1.2', ifOperStatus: '1.3.6.1.2.1.2.2.1.8', ifName: '1.3.6.1.2.1.31.1.1.1.1', ifHCInOctets: '1.3.6.1.2.1.31.1.1.1.6', ifAlias: '1.3.6.1.2.1.31.1.1.1.18' },
    'IP-MIB': {
      ipAdEntAddr: '1.3.6.1.2.1.4.20.1.1', ipNetToMediaPhysAddress: '1.3.6.1.2.1.4.22.1.2', ipNetToPhysicalPhysAddress: '1.3.6.1.2.1.4.35.1.4',
      ipAddressIfIndex: '1.3.6.1.2.1.4.34.1.3',
    },
    'IP-FORWARD-MIB': { ipCidrRouteNextHop: '1.3.6.1.2.1.4.24.4.1.4', inetCidrRouteNextHop: '1.3.6.1.2.1.4.24.7.1.6', ipForwardNextHop: '1.3.6.1.2.1.4.24.2.1.4' },
    'RFC1213-MIB': { ipRouteDest: '1.3.6.1.2.1.4.21.1.1', ipRouteNextHop: '1.3.6.1.2.1.4.21.1.7' },
    'LLDP-MIB': { lldpRemSysName: '1.0.8802.1.1.2.1.4.1.1.9', lldpRemPortId: '1.0.8802.1.1.2.1.4.1.1.7', lldpLocChassisId: '1.0.8802.1.1.2.1.3.2', lldpRemManAddrIfId: '1.0.8802.1.1.2.1.4.2.1.4' },
    'CISCO-CDP-MIB': { cdpCacheDeviceId: '1.3.6.1.4.1.9.9.23.1.2.1.1.6', cdpCacheDevicePort: '1.3.6.1.4.1.9.9.23.1.2.1.1.7', cdpCacheAddress: '1.3.6.1.4.1.9.9.23.1.2.1.1.4' },
    'BRIDGE-MIB': { dot1dBaseBridgeAddress: '1.3.6.1.2.1.17.1.1', dot1dTpFdbAddress: '1.3.6.1.2.1.17.4.3.1.1', dot1dBasePortIfIndex: '1.3.6.1.2.1.17.1.4.1.2' },
    'Q-BRIDGE-MIB': { dot1qTpFdbPort: '1.3.6.1.2.1.17.7.1.2.2.1.2', dot1qVlanStaticName: '1.3.6.1.2.1.17.7.1.4.3.1.1', dot1qPvid: '1.3.6.1.2.1.17.7.1.4.5.1.1' },
    'ENTITY-MIB': { entPhysicalClass: '1.3.6.1.2.1.47.1.1.1.1.5', entPhysicalSerialNum: '1.3.6.1.2.1.47.1.1.1.1.11', entPhysicalModelName: '1.3.6.1.2.1.47.1.1.1.1.13' },
    'HOST-RESOURCES-MIB': { hrSystemUptime: '1.3.6.1.2.1.25.1.1', hrStorageUsed: '1.3.6.1.2.1.25.2.3.1.6', hrProcessorLoad: '1.3.6.1.2.1.25.3.3.1.2', hrSWInstalledName: '1.3.6.1.2.1.25.6.3.1.2' },
    'UCD-SNMP-MIB': { memTotalReal: '1.3.6.1.4.1.2021.4.5', laLoad: '1.3.6.1.4.1.2021.10.1.3', ssCpuIdle: '1.3.6.1.4.1.2021.11.11', dskPercent: '1.3.6.1.4.1.2021.9.1.9' },
  };

  for (const [module, objects] of Object.entries(required)) {
    test(module, () => {
      assert.ok(store.modules().includes(module), `${module} is compiled in`);
      for (const [name, oid] of Object.entries(objects)) {
        assert.equal(store.oidOf(`${module}::${name}`), oid, `${module}::${name}`);
        assert.equal(store.entry(oid)?.module, module, `${name} is ${module}'s`);
      }
    });
  }

  test('table structure: tables, rows, columns, scalars and nodes', () => {
    assert.equal(store.entry('1.3.6.1.2.1.2.2')?.kind, 'table');
    assert.equal(store.entry('1.3.6.1.2.1.2.2.1')?.kind, 'row');
    assert.equal(store.entry('1.3.6.1.2.1.2.2.1.2')?.kind, 'column');
    assert.equal(store.entry('1.3.6.1.2.1.31.1.1.1.6')?.kind, 'column', 'an AUGMENTS row has columns too');
    assert.equal(store.entry('1.3.6.1.2.1.1.1')?.kind, 'scalar');
    assert.equal(store.entry('1.3.6.1.2.1.2')?.kind, 'node');
    assert.equal(store.oidOf('linkDown'), '1.3.6.1.6.3.1.1.5.3');
    assert.equal(store.entry('1.3.6.1.6.3.1.1.5.3')?.kind, 'notification');
  });

  test('types resolved far enough to render values', () => {
    const type = (name: string) => store.entry(store.oidOf(name)!)?.type;
    assert.equal(type('sysDescr'), 'DisplayString');
    assert.equal(type('ifPhysAddress'), 'PhysAddress');
    assert.equal(type('dot1dTpFdbAddress'), 'MacAddress');
    assert.equal(type('hrSystemDate'), 'DateAndTime');
    assert.equal(type('ipNetToPhysicalNetAddress'), 'InetAddress');
    assert.equal(type('inetCidrRouteDestType'), 'InetAddressType');
    assert.equal(type('hrSWInstalledName'), 'DisplayString', 'InternationalDisplayString is text');
    assert.equal(type('lldpRemSysName'), 'SnmpAdminString');
    assert.equal(type('ifHCInOctets'), 'Counter64');
    assert.equal(type('sysUpTime'), 'TimeTicks');
    assert.equal(type('ipAdEntAddr'), 'IpAddress');
    assert.equal(type('sysObjectID'), 'OBJECT IDENTIFIER');
  });

  test('enumerations, including those of textual conventions', () => {
    const ifOper = store.entry('1.3.6.1.2.1.2.2.1.8')!;
    assert.equal(ifOper.type, 'INTEGER');
    assert.deepEqual([ifOper.enums?.['1'], ifOper.enums?.['2'], ifOper.enums?.['7']], ['up', 'down', 'lowerLayerDown']);
    assert.equal(store.entry('1.3.6.1.2.1.2.2.1.3')?.enums?.['6'], 'ethernetCsmacd', 'ifType from IANAifType-MIB');
    assert.equal(store.entry(store.oidOf('inetCidrRouteDestType')!)?.enums?.['2'], 'ipv6');
    assert.equal(store.entry(store.oidOf('entPhysicalClass')!)?.enums?.['3'], 'chassis');
  });

  test('units and the first sentence of the description', () => {
    assert.equal(store.entry(store.oidOf('memTotalReal')!)?.units, 'kB');
    assert.equal(store.entry(store.oidOf('cpmCPUTotal5minRev')!)?.units, 'percent');
    assert.equal(store.entry('1.3.6.1.2.1.2.2.1.2')?.description, 'A textual string containing information about the interface.');
    for (const e of store.list().items) {
      if (e.description) assert.ok(e.description.length <= 200 && !/\s{2}/.test(e.description), `${e.name}: one tidy sentence`);
    }
  });
});

describe('OID store lookups', () => {
  test('resolve gives the longest known prefix and the instance suffix', () => {
    const r = store.resolve('1.3.6.1.2.1.2.2.1.2.3');
    assert.equal(r?.entry.name, 'ifDescr');
    assert.equal(r?.suffix, '3');
    assert.equal(store.resolve('.1.3.6.1.2.1.1.5.0')?.entry.name, 'sysName');
    assert.deepEqual(store.resolve('1.3.6.1.2.1.2.2.1.2')?.suffix, '');
    assert.equal(store.resolve('2.999.1'), undefined);
  });

  test('nameOf', () => {
    assert.equal(store.nameOf('1.3.6.1.2.1.2.2.1.2.3'), 'ifDescr.3');
    assert.equal(store.nameOf('1.3.6.1.2.1.1.3.0'), 'sysUpTime.0');
    assert.equal(store.nameOf('1.3.6.1.2.1.4.35.1.4.2.1.4.192.0.2.1'), 'ipNetToPhysicalPhysAddress.2.1.4.192.0.2.1');
    assert.equal(store.nameOf('1.3.6.1.4.1.99999.1.2'), 'enterprises.99999.1.2');
    assert.equal(store.nameOf('1.3.6.1.4.1.9.1.634'), 'ciscoProducts.634');
    assert.equal(store.nameOf('2.999.1'), '2.999.1');
    assert.equal(store.nameOf('1.3.6.1.2.1.1'), 'system');
  });

  test('oidOf: names, module-qualified names, instances and numeric OIDs', () => {
    assert.equal(store.oidOf('sysDescr'), '1.3.6.1.2.1.1.1');
    assert.equal(store.oidOf('IF-MIB::ifDescr'), '1.3.6.1.2.1.2.2.1.2');
    assert.equal(store.oidOf('ifDescr.3'), '1.3.6.1.2.1.2.2.1.2.3');
    assert.equal(store.oidOf('IF-MIB::ifDescr.3'), '1.3.6.1.2.1.2.2.1.2.3');
    assert.equal(store.oidOf('enterprises.9'), '1.3.6.1.4.1.9');
    assert.equal(store.oidOf('.1.3.6.1.2.1.1.1.0'), '1.3.6.1.2.1.1.1.0');
    assert.equal(store.oidOf(' 1.3.6.1 '), '1.3.6.1');
    assert.equal(store.oidOf('noSuchName'), undefined);
    assert.equal(store.oidOf('BRIDGE-MIB::ifDescr'), undefined, 'the module must define the name');
    assert.equal(store.oidOf('ifDescr.x'), undefined);
    assert.equal(store.oidOf('1..3'), undefined);
    assert.equal(store.oidOf(''), undefined);
    for (const name of ['sysName', 'ifHCOutOctets', 'lldpRemPortDesc', 'dot1qTpFdbPort', 'hrStorageDescr']) {
      assert.equal(store.nameOf(store.oidOf(name)!), name, `${name} round-trips`);
    }
  });

  test('a name several modules define at different OIDs resolves only with its module', () => {
    assert.equal(store.oidOf('linux'), undefined, 'UCD-SNMP-MIB and NET-SNMP-TC both define it');
    assert.equal(store.oidOf('NET-SNMP-TC::linux'), '1.3.6.1.4.1.8072.3.2.10');
    assert.equal(store.oidOf('UCD-SNMP-MIB::linux'), '1.3.6.1.4.1.2021.250.10');
    assert.deepEqual(store.definitions('linux'), ['UCD-SNMP-MIB::linux', 'NET-SNMP-TC::linux']);
    assert.deepEqual(store.definitions('linux.0'), ['UCD-SNMP-MIB::linux', 'NET-SNMP-TC::linux']);
    assert.deepEqual(store.definitions('sysDescr'), ['SNMPv2-MIB::sysDescr']);
    assert.deepEqual(store.definitions('noSuchName'), []);
    // The same name at the same OID in two modules (SNMPv2-MIB and RFC1213-MIB) is not a collision.
    assert.equal(store.oidOf('sysDescr'), '1.3.6.1.2.1.1.1');
    const names = store.ambiguousNames();
    assert.ok(names.includes('linux') && names.includes('router'), names.join(' '));
    for (const name of names) {
      assert.equal(store.oidOf(name), undefined, name);
      assert.ok(store.definitions(name).length > 1, name);
    }
  });

  test('list: everything, a prefix, text search, paging', () => {
    const all = store.list();
    assert.equal(all.total, store.size);
    assert.ok(all.total > 3000, `${all.total} entries`);
    const sorted = all.items.map((e) => e.oid.split('.').map(Number));
    for (let i = 1; i < sorted.length; i++) {
      const [a, b] = [sorted[i - 1]!, sorted[i]!];
      const k = a.findIndex((x, j) => x !== b[j]);
      assert.ok(k === -1 ? a.length < b.length : a[k]! < b[k]!, 'in OID order');
    }

    const system = store.list({ prefix: '1.3.6.1.2.1.1' });
    assert.ok(system.items.every((e) => e.oid === '1.3.6.1.2.1.1' || e.oid.startsWith('1.3.6.1.2.1.1.')));
    assert.ok(system.items.some((e) => e.name === 'sysContact'));
    assert.ok(!system.items.some((e) => e.oid.startsWith('1.3.6.1.2.1.10')), 'a prefix ends at an arc boundary');
    assert.deepEqual(store.list({ prefix: 'system' }).total, system.total, 'a prefix may be a name');
    assert.deepEqual(store.list({ prefix: 'noSuchThing' }), { items: [], total: 0 });

    const lldp = store.list({ q: 'LLDP-MIB' });
    assert.ok(lldp.total > 50 && lldp.items.every((e) => e.module === 'LLDP-MIB' || /lldp/i.test(e.name + e.description)));
    const mac = store.list({ q: 'physaddress' });
    assert.ok(mac.items.some((e) => e.name === 'ipNetToMediaPhysAddress'), 'case-insensitive, in names');
    const fdb = store.list({ prefix: 'dot1dTpFdbTable', q: 'port' });
    assert.ok(fdb.items.some((e) => e.name === 'dot1dTpFdbPort'), 'prefix and text together');

    const page = store.list({ prefix: 'ifTable', limit: 5, offset: 2 });
    assert.equal(page.items.length, 5);
    assert.equal(page.total, store.list({ prefix: 'ifTable' }).total);
    assert.equal(page.items[0]!.oid, store.list({ prefix: 'ifTable' }).items[2]!.oid);
    assert.equal(store.list({ limit: 0 }).items.length, 0);
  });

  test('enterprise numbers name manufacturers', () => {
    const cases: Array<[string, number, string]> = [
      ['1.3.6.1.4.1.9.1.634', 9, 'Cisco'], ['1.3.6.1.4.1.2636.1.1.1.2.39', 2636, 'Juniper Networks'],
      ['1.3.6.1.4.1.25461.2.3.54', 25461, 'Palo Alto Networks'], ['1.3.6.1.4.1.674.11000.5000.100.2.1.7', 674, 'Dell'],
      ['1.3.6.1.4.1.4526.100.11.22', 4526, 'Netgear'], ['1.3.6.1.4.1.8072.3.2.10', 8072, 'net-snmp'],
      ['.1.3.6.1.4.1.14988.1', 14988, 'MikroTik'], ['1.3.6.1.4.1.30065.1', 30065, 'Arista Networks'],
    ];
    for (const [oid, number, name] of cases) assert.deepEqual(store.enterprise(oid), { number, name }, oid);
    assert.match(store.enterprise('1.3.6.1.4.1.12325.1.1.2.1.1')!.name!, /pfSense/);
    assert.deepEqual(store.enterprise('1.3.6.1.4.1.4294967.1'), { number: 4294967, name: null }, 'unknown number');
    assert.equal(store.enterprise('1.3.6.1.2.1.1'), undefined, 'not under enterprises');
    assert.equal(store.enterprise(null), undefined);
  });
});

describe('vendor profiles use only OIDs the store knows', () => {
  for (const profile of VENDOR_PROFILES) {
    test(profile.key, () => {
      const names = profileOidNames(profile);
      assert.ok(names.length > 5);
      for (const name of names) {
        assert.doesNotMatch(name, /^\.?\d+(\.\d+)*$/, `${profile.key}: "${name}" is written by name`);
        const oid = store.oidOf(name);
        assert.ok(oid, `${profile.key}: ${name} is in the OID store`);
        const base = name.replace(/(\.\d+)+$/, '');
        assert.ok(store.oidOf(base), `${profile.key}: ${base} is a known name`);
      }
      // Row filters that compare OID-valued columns name the OID they expect.
      for (const v of profile.variants) {
        for (const card of cardsFor(profile, v.key)) {
          for (const item of card.items) {
            const filters = [item.rows?.where, ...[item.value, item.percent].flat().flatMap((x) => {
              if (!x) return [];
              if ('walk' in x) return [x.where];
              if ('used' in x || 'free' in x || 'total' in x) return [x.used, x.free, x.total].map((s) => (s && 'walk' in s ? s.where : undefined));
              return [];
            })];
            for (const f of filters) {
              if (!f?.column || typeof f.equals !== 'string') continue;
              const col = store.entry(store.oidOf(f.column)!);
              if (col?.type === 'OBJECT IDENTIFIER' || col?.type === 'AutonomousType') {
                assert.ok(store.oidOf(f.equals), `${profile.key}/${card.key}/${item.key}: ${f.equals} is known`);
              }
            }
          }
        }
      }
    });
  }
});
