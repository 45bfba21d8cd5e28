// Vendor profiles, identification and cards against recordings parsed in-process (test/helpers/
// snmprec.ts answers as an agent holding exactly the recorded variables). The same recordings are
// served over UDP in test/integration/snmp-identify.test.ts.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { HttpError } from '../../src/core/errors.js';
import type { SnmpReader } from '../../src/modules/snmp/contracts.js';
import { readCards, type CardReading, type ItemReading } from '../../src/modules/snmp/cards.js';
import { identify, matchProfile, readSystem, type SystemGroup } from '../../src/modules/snmp/identify.js';
import { OidStore } from '../../src/modules/snmp/oids/oid-store.js';
import { SourceReader } from '../../src/modules/snmp/sources.js';
import { describeCards, describeProfile } from '../../src/modules/snmp/vendors/describe.js';
import { cardsFor, profileByKey, VENDOR_PROFILES } from '../../src/modules/snmp/vendors/index.js';
import { CORPUS_SKIP, knownRecordings, recordingName } from '../helpers/snmp-recordings.js';
import { loadSnmprec, parseSnmprec, recordingReader } from '../helpers/snmprec.js';

const store = OidStore.load();
const target = { host: '127.0.0.1', version: 'v2c' as const, community: 'public' };
const NOW = Date.parse('2025-03-04T05:06:07.000Z');
const now = () => NOW;
const recordings = knownRecordings();

/** A reader that must not be used: match rules without probes decide from the system group alone. */
const noReads: SnmpReader = {
  get: () => Promise.reject(new Error('unexpected read')),
  walk: () => Promise.reject(new Error('unexpected read')),
};

const sys = (object_id: string | null, descr: string | null): SystemGroup =>
  ({ object_id, descr, name: null, uptime_ticks: null, contact: null, location: null });

async function cardsOf(name: string): Promise<CardReading[]> {
  const rec = recordings.find((r) => recordingName(r.file) === name)!;
  const reader = recordingReader(loadSnmprec(rec.file));
  const id = await identify(reader, target, store, now);
  return readCards(reader, target, cardsFor(profileByKey(id.vendor_key)!, id.variant), store, now);
}

function item(cards: CardReading[], card: string, key: string): ItemReading {
  const found = cards.find((c) => c.key === card)?.items.find((i) => i.key === key);
  assert.ok(found, `${card}/${key} exists`);
  return found;
}

describe('the built-in profiles', () => {
  test('eight profiles in match order, generic MIB-II last', () => {
    assert.deepEqual(VENDOR_PROFILES.map((p) => p.key), ['cisco', 'juniper', 'aruba', 'ubiquiti', 'tplink', 'fortinet', 'mikrotik', 'generic']);
    assert.deepEqual(VENDOR_PROFILES.map((p) => p.kind), ['switch', 'router', 'switch', 'switch', 'switch', 'firewall', 'router', 'device']);
    assert.deepEqual(profileByKey('aruba')!.variants.map((v) => [v.key, v.os]),
      [['aos-cx', 'ArubaOS-CX'], ['procurve', 'ArubaOS-Switch'], ['other', null]]);
    assert.deepEqual(profileByKey('cisco')!.variants.map((v) => v.os), ['NX-OS', 'IOS-XE', 'IOS', null]);
    assert.deepEqual([...new Set(profileByKey('ubiquiti')!.variants.map((v) => v.os))], ['EdgeOS', 'UniFi', 'EdgeSwitch', null]);
    for (const p of VENDOR_PROFILES.filter((x) => x.key !== 'generic')) {
      const last = p.variants.at(-1)!;
      assert.ok(p.enterprises?.length, `${p.key} names the enterprise arcs its maker owns`);
      assert.deepEqual([last.key, last.fallback, last.match], ['other', 'enterprise', [{ sys_object_id: p.enterprises }]], `${p.key}: other products last`);
    }
    assert.deepEqual(profileByKey('generic')!.variants.at(-1)!.match, [{}], 'the last rule holds for every agent');
    assert.equal(profileByKey('nope'), undefined);
  });

  test('every variant shows the standard cards; the vendor extras are there', () => {
    for (const p of VENDOR_PROFILES) {
      for (const v of p.variants) {
        const keys = cardsFor(p, v.key).map((c) => c.key);
        for (const k of ['system', 'hardware', 'cpu', 'memory', 'interfaces']) assert.ok(keys.includes(k), `${p.key}/${v.key} has ${k}`);
        assert.equal(new Set(keys).size, keys.length, `${p.key}/${v.key}: card keys are unique`);
        assert.equal(keys[1], 'hardware', 'hardware follows system');
      }
    }
    assert.ok(cardsFor(profileByKey('fortinet')!).some((c) => c.key === 'sessions'));
    const health = cardsFor(profileByKey('mikrotik')!).find((c) => c.key === 'health')!;
    assert.equal(health.items.find((i) => i.key === 'gauges')?.rows?.unit_column, 'mtxrGaugeUnit');
    const procurve = cardsFor(profileByKey('aruba')!, 'procurve');
    assert.equal(procurve.find((c) => c.key === 'cpu')!.items[0]!.value && JSON.stringify(procurve.find((c) => c.key === 'cpu')!.items[0]!.value), '{"get":"hpSwitchCpuStat.0"}', 'the variant replaces the CPU card');
    assert.ok(cardsFor(profileByKey('aruba')!, 'aos-cx').find((c) => c.key === 'cpu')!.items.some((i) => JSON.stringify(i.value).includes('hrProcessorLoad')));
  });

  test('profiles and cards describe themselves as JSON with numeric OIDs', () => {
    for (const p of VENDOR_PROFILES) {
      const d = describeProfile(p, store);
      const text = JSON.stringify(d);
      assert.equal(JSON.stringify(JSON.parse(text)), text);
      assert.ok(!text.includes('"oid":null'), `${p.key}: every name resolves`);
    }
    const cisco = describeProfile(profileByKey('cisco')!, store);
    assert.deepEqual(cisco.variants[0]!.match[0], { sys_object_id: [{ name: 'cisco', oid: '1.3.6.1.4.1.9' }], sys_descr: ['/\\bNX-OS\\b/i'] });
    const cards = describeCards(cardsFor(profileByKey('cisco')!), store);
    const cpu = cards.find((c) => c.key === 'cpu')!.items[2]!;
    assert.deepEqual(cpu.value, [{ walk: { name: 'cpmCPUTotal5minRev', oid: '1.3.6.1.4.1.9.9.109.1.1.1.1.8' }, reduce: 'avg' }]);
  });
});

describe('match rules', () => {
  const sources = new SourceReader(noReads, target, store, now);
  const key = async (s: SystemGroup) => {
    const m = await matchProfile(s, sources, store);
    return m && `${m.profile.key}/${m.variant.key}`;
  };

  test('sysObjectID prefixes end at an arc boundary; sysDescr patterns are needed where given', async () => {
    assert.equal(await key(sys('1.3.6.1.4.1.9.1.1208', 'Cisco IOS Software, C2960X Software, Version 15.2(7)E4')), 'cisco/ios');
    assert.equal(await key(sys('1.3.6.1.4.1.90.1', 'Cisco IOS Software, Version 15.2(7)E4')), 'generic/mib-2', 'enterprise 90 is not 9');
    assert.equal(await key(sys('1.3.6.1.4.1.9.1.1208', '')), 'cisco/other', 'no OS it knows: Cisco\'s other products, not generic');
    assert.equal(await key(sys('1.3.6.1.4.1.9.1.1208', '"Cisco IOS Software, IOS-XE Software, Version 16.12.4')), 'cisco/ios-xe', 'NX-OS, IOS-XE, then IOS');
    assert.equal(await key(sys('1.3.6.1.4.1.41112', 'UAP-AC-Lite 6.6.77.15402')), 'ubiquiti/unifi-ap', 'a prefix matches itself');
    // UniFi access points answer with net-snmp's linux sysObjectID (NET-SNMP-TC, not UCD-SNMP-MIB's).
    assert.equal(await key(sys('1.3.6.1.4.1.8072.3.2.10', 'UAP-AC-Pro 6.5.28.14491')), 'ubiquiti/unifi-ap');
    assert.equal(await key(sys('1.3.6.1.4.1.8072.3.2.10', 'Linux nas 6.1.0-18-amd64 #1 SMP')), 'generic/net-snmp', 'other Linux hosts');
    assert.equal(await key(sys(null, 'RouterOS hAP ac^2')), 'mikrotik/routeros', 'sysDescr alone can decide');
    assert.equal(await key(sys(null, null)), 'generic/mib-2');
  });

  test('exclusions win over a matching rule', async () => {
    assert.equal(await key(sys('1.3.6.1.4.1.9.1.1639', 'Cisco IOS XR Software (Cisco ASR9K Series), Version 6.5.3')), 'cisco/other',
      'excluded from IOS, still Cisco\'s');
    assert.equal(await key(sys('1.3.6.1.4.1.11.2.3.7.11.153', 'HPE OfficeConnect Switch 1820 24G J9980A, PT.02.12')), 'generic/mib-2',
      'HP\'s enterprise 11 is not Aruba\'s alone');
    assert.equal(await key(sys('1.3.6.1.4.1.11.2.3.7.11.181.17', 'Aruba JL253A 2930F-24G-4SFP+ Switch, revision WC.16.11.0015, ROM WC.16.01.0010')), 'aruba/procurve');
  });

  test('a probe is read only for the rule that needs it', async () => {
    const realtek = sys('1.3.6.1.4.1.27282.3.2.10', 'RTL8380-8GE-2GEF');
    const withModel = (model: string) => recordingReader(parseSnmprec(`1.3.6.1.2.1.47.1.1.1.1.13.67108992|4|${model}\n`));
    const es = withModel('ES-10X');
    assert.equal((await matchProfile(realtek, new SourceReader(es, target, store, now), store))?.variant.key, 'edgeswitch');
    assert.equal(es.reads, 1, 'one walk of entPhysicalModelName');
    const zyxel = withModel('GS1900-10HP');
    assert.equal((await matchProfile(realtek, new SourceReader(zyxel, target, store, now), store))?.profile.key, 'generic');
  });
});

describe('identification of recordings (in-process)', () => {
  if (CORPUS_SKIP) test('the shared corpus of real devices', { skip: CORPUS_SKIP }, () => undefined);
  for (const rec of recordings) {
    test(`${rec.corpus ? 'corpus' : 'fixture'} ${recordingName(rec.file)}`, async () => {
      const recording = loadSnmprec(rec.file);
      const id = await identify(recordingReader(recording), target, store, now);
      const { vendor_key, variant, kind, os, model, serial, version, firmware, manufacturer } = id;
      assert.deepEqual({ vendor_key, variant, kind, os, model, serial, version, firmware, manufacturer }, rec.expect);
      const objectId = recording.vars.find((v) => v.oid === '1.3.6.1.2.1.1.2.0')!.ref!;
      assert.equal(id.sys.object_id, objectId);
      assert.equal(id.enterprise?.number, Number(objectId.split('.')[6]));
      const profile = profileByKey(id.vendor_key)!;
      assert.equal(id.vendor, id.variant === 'other' ? profile.manufacturer : profile.name);
    });
  }

  test('each profile claims its own recordings and leaves the others alone', async () => {
    for (const profile of VENDOR_PROFILES.filter((p) => p.key !== 'generic')) {
      for (const rec of recordings) {
        const reader = recordingReader(loadSnmprec(rec.file));
        const sources = new SourceReader(reader, target, store, now);
        const m = await matchProfile(await readSystem(reader, target, sources, now), sources, store, [profile]);
        assert.equal(m?.profile.key, rec.expect.vendor_key === profile.key ? profile.key : undefined, `${profile.key} on ${recordingName(rec.file)}`);
      }
    }
  });

  test('vendors without a profile fall to generic MIB-II, named from the enterprise number', { skip: CORPUS_SKIP }, () => {
    const byName = new Map(recordings.map((r) => [recordingName(r.file), r.expect]));
    for (const [name, maker] of [['panos_440', 'Palo Alto Networks'], ['pfsense', 'Fraunhofer FOKUS (bsnmpd: FreeBSD, pfSense)'],
      ['dell-os10', 'Dell'], ['netgear_3', 'Netgear'], ['linux_icecast', 'net-snmp']]) {
      assert.equal(byName.get(name!)?.vendor_key, 'generic', name);
      assert.equal(byName.get(name!)?.manufacturer, maker, name);
    }
  });

  test('few round trips: the system group, then what the profile reads', async () => {
    const reads = async (name: string) => {
      const reader = recordingReader(loadSnmprec(recordings.find((r) => recordingName(r.file) === name)!.file));
      await identify(reader, target, store, now);
      return reader.reads;
    };
    assert.equal(await reads('cisco-ios-c2960x'), 3, 'GET system, walk entPhysicalClass, GET the chassis row');
    assert.equal(await reads('juniper-ex2300'), 2, 'GET system, GET jnxBox*');
    assert.equal(await reads('mikrotik-ccr2004'), 2, 'GET system, GET MIKROTIK-MIB scalars');
    assert.equal(await reads('fortinet-fortigate-60f'), 4, 'GET system, GET fgSysVersion, walk entPhysicalClass, GET the chassis row');
  });

  test('a device that does not answer: identify rejects with the reader error', async () => {
    const down: SnmpReader = { get: () => Promise.reject(new HttpError(504, 'snmp_timeout', 'no answer')), walk: () => Promise.reject(new Error('no')) };
    await assert.rejects(identify(down, target, store, now), (e: unknown) => e instanceof HttpError && e.code === 'snmp_timeout');
  });
});

describe('cards read from recordings (in-process)', () => {
  test('the hardware card shows what identification read, for every recording', async () => {
    for (const rec of recordings) {
      const cards = await cardsOf(recordingName(rec.file));
      const hw = cards.find((c) => c.key === 'hardware')!;
      for (const field of ['model', 'serial', 'version', 'firmware'] as const) {
        const it = hw.items.find((i) => i.key === field);
        assert.equal(it?.value ?? null, rec.expect[field], `${recordingName(rec.file)} ${field}`);
        if (it?.value !== null && it?.value !== undefined) assert.equal(it.display, rec.expect[field]);
      }
      for (const card of cards) {
        assert.equal(card.error, undefined);
        for (const i of card.items) assert.equal(i.read_at, i.value === null ? null : '2025-03-04T05:06:07.000Z', `${card.key}/${i.key} read_at`);
      }
    }
  });

  test('Cisco IOS: CPU, processor pool, CISCO-ENVMON temperatures, interface counts', async () => {
    const c = await cardsOf('cisco-ios-c2960x');
    assert.deepEqual([item(c, 'cpu', 'cpu_5m').value, item(c, 'cpu', 'cpu_5m').display], [10, '10 %']);
    assert.equal(item(c, 'cpu', 'cpu_5m').name, null, 'a reduced value is no single variable');
    assert.deepEqual([item(c, 'memory', 'used').value, item(c, 'memory', 'used').display], [25, '25 %']);
    assert.equal(item(c, 'memory', 'processor_pool_free').display, '90000000 bytes', 'MIB units');
    assert.equal(item(c, 'memory', 'processor_pool_free').name, 'ciscoMemoryPoolFree.1');
    assert.deepEqual(item(c, 'temperature', 'sensors').value, [{ index: '1006', label: 'SW#1, Sensor#1, GREEN', value: 37, display: '37 °C' }]);
    assert.deepEqual(['total', 'oper_up', 'oper_down', 'admin_down'].map((k) => item(c, 'interfaces', k).value), [3, 1, 2, 1]);
    assert.equal(item(c, 'system', 'uptime').display, '105 days, 14:17:36.78');
    assert.equal(item(c, 'system', 'uptime').oid, '1.3.6.1.2.1.1.3.0');
    assert.equal(item(c, 'system', 'object_id').value, '1.3.6.1.4.1.9.1.1208');
    assert.match(String(item(c, 'system', 'description').value), /^Cisco IOS Software, C2960X Software/);
  });

  test('NX-OS memory from CISCO-PROCESS-MIB when there is no memory pool', async () => {
    const c = await cardsOf('cisco-nxos-n9k');
    assert.equal(item(c, 'memory', 'used').value, 25);
    assert.equal(item(c, 'memory', 'processor_pool_free').value, null);
    assert.equal(item(c, 'memory', 'cpu_memory_free').display, '18000000 kilo-bytes');
  });

  test('Junos: the Routing Engine row, temperatures without the 0 rows', async () => {
    const c = await cardsOf('juniper-ex2300');
    assert.equal(item(c, 'cpu', 're_cpu').value, 12, 'not the FPC row (21)');
    assert.equal(item(c, 'memory', 're_buffer').value, 58);
    assert.deepEqual((item(c, 'temperature', 'sensors').value as { label: string; value: number }[]).map((r) => [r.label, r.value]),
      [['FPC: EX2300-24T @ 0/*/*', 40], ['Routing Engine 0', 44]]);
  });

  test('ArubaOS-CX and ProCurve: ENTITY-SENSOR precision, RAM from HOST-RESOURCES, HP memory and sensors', async () => {
    const cx = await cardsOf('aruba-cx-6300m');
    assert.deepEqual((item(cx, 'temperature', 'sensors').value as { display: string }[]).map((r) => r.display), ['28.5 °C', '51.25 °C']);
    assert.equal(item(cx, 'memory', 'ram_used').value, 35);
    assert.equal(item(cx, 'cpu', 'load_avg').value, 7.5);
    const pc = await cardsOf('aruba-procurve-2930f');
    assert.equal(item(pc, 'cpu', 'cpu').display, '7 %');
    assert.equal(item(pc, 'memory', 'used').value, 25);
    assert.deepEqual((item(pc, 'sensors', 'status').value as { display: string }[]).map((r) => r.display), ['good(4)', 'good(4)']);
  });

  test('FortiGate sessions and MikroTik health gauges', async () => {
    const fg = await cardsOf('fortinet-fortigate-60f');
    assert.deepEqual(['ipv4', 'ipv6', 'rate_1m'].map((k) => item(fg, 'sessions', k).value), [532, 12, 7]);
    assert.equal(item(fg, 'memory', 'disk_used').value, 25);
    assert.deepEqual((item(fg, 'temperature', 'sensors').value as { value: number }[]).map((r) => r.value), [47.5, 52]);
    const mt = await cardsOf('mikrotik-ccr2004');
    assert.deepEqual([item(mt, 'health', 'voltage').value, item(mt, 'health', 'voltage').display], [24.1, '24.1 V']);
    assert.equal(item(mt, 'health', 'temperature').display, '41.2 °C');
    assert.deepEqual((item(mt, 'health', 'gauges').value as { label: string; display: string }[]).map((r) => `${r.label} ${r.display}`),
      ['voltage 24.1 V', 'temperature 41 °C', 'fan1-speed 3240 rpm']);
  });

  test('a net-snmp host: UCD memory, and a table the recording lacks reads as no value, not zero', async () => {
    const linux = await cardsOf('linux-netsnmp-debian');
    assert.equal(item(linux, 'memory', 'ucd_used').value, 25);
    assert.equal(item(linux, 'memory', 'ucd_total').display, '3884000 kB');
    assert.equal(item(linux, 'system', 'uptime').display, '1 day, 00:00:00.00');
  });

  test('a corpus switch without IF-MIB rows: interfaces read as no value, not zero', { skip: CORPUS_SKIP }, async () => {
    const netgear = await cardsOf('netgear_3');
    assert.equal(item(netgear, 'interfaces', 'total').value, null);
    assert.equal(item(netgear, 'interfaces', 'total').read_at, null);
  });

  test('an unreachable device: cards without values and the reason, no throw', async () => {
    const down: SnmpReader = {
      get: () => Promise.reject(new HttpError(504, 'snmp_timeout', 'No answer from 192.0.2.1:161 within 1000 ms')),
      walk: () => Promise.reject(new HttpError(504, 'snmp_timeout', 'No answer from 192.0.2.1:161 within 1000 ms')),
    };
    const cards = await readCards(down, target, cardsFor(profileByKey('generic')!), store, now);
    assert.equal(cards.length, cardsFor(profileByKey('generic')!).length);
    for (const c of cards) {
      assert.equal(c.error, 'No answer from 192.0.2.1:161 within 1000 ms');
      assert.equal(c.error_code, 'snmp_timeout');
      assert.ok(c.items.length > 0 && c.items.every((i) => i.value === null && i.display === null && i.read_at === null));
    }
  });
});

describe('snmprec parsing (test helper)', () => {
  test('types, hex values, order and errors', () => {
    const rec = parseSnmprec([
      '1.3.6.1.2.1.1.3.0|67|100', '1.3.6.1.2.1.1.1.0|4x|48656c6c6f', '1.3.6.1.2.1.1.2.0|6|1.3.6.1.4.1.9',
      '1.3.6.1.2.1.4.20.1.1.10.0.0.1|64|10.0.0.1', '1.3.6.1.2.1.4.20.1.3.10.0.0.1|64x|ffffff00',
      '1.3.6.1.2.1.31.1.1.1.6.1|70|18446744073709551615', '1.3.6.1.2.1.2.2.1.10.1|65|4294967295',
      '1.3.6.1.2.1.2.2.1.5.1|66|1000000000', '1.3.6.1.2.1.2.2.1.8.1|2|-1', '1.3.6.1.2.1.25.1.7.0|5|',
      '1.3.6.1.4.1.2021.10.1.6.1|68x|9f78043ed70a3d', '1.3.6.1.2.1.2.2.1.6.1|4x|00005e005301',
    ].join('\n'));
    assert.deepEqual(rec.vars.map((v) => v.oid).slice(0, 3), ['1.3.6.1.2.1.1.1.0', '1.3.6.1.2.1.1.2.0', '1.3.6.1.2.1.1.3.0'], 'sorted by arcs');
    const reader = recordingReader(rec);
    return reader.get(target, ['1.3.6.1.2.1.1.1.0', '1.3.6.1.2.1.4.20.1.3.10.0.0.1', '1.3.6.1.2.1.31.1.1.1.6.1', '1.3.6.1.2.1.2.2.1.6.1', '1.3.6.1.2.1.25.1.7.0', '1.3.6.1.2.1.2.2.1.8.1', '1.2.3'])
      .then((vbs) => {
        assert.deepEqual(vbs.map((v) => [v.type, v.value]), [
          ['OctetString', 'Hello'], ['IpAddress', '255.255.255.0'], ['Counter64', '18446744073709551615'],
          ['OctetString', '00005e005301'], ['Null', null], ['Integer', -1], ['NoSuchObject', null],
        ]);
        assert.equal(vbs[3]!.hex, true);
        assert.throws(() => parseSnmprec('1.3.6.1|99|x'), /unsupported tag 99/);
        assert.throws(() => parseSnmprec('garbage'), /expected OID\|TAG\|VALUE/);
        assert.throws(() => parseSnmprec('1.3.6.1.2.1.1.3.0|67|soon'), /not an integer/);
      });
  });
});
