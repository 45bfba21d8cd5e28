// Identification that does not depend on the recordings it was tuned on (issue 35 §4): a maker's other
// products by the enterprise number it owns, never "generic"; bridging and LLDP evidence for what a
// generic agent or another product does; the evidence that decided, in the result. Agents are tiny
// in-memory recordings (test/helpers/snmprec.ts); published devices' facts are in
// test/helpers/published-devices.ts, some of them held out from the rules' development.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { identify, type Identification } from '../../src/modules/snmp/identify.js';
import { OidStore } from '../../src/modules/snmp/oids/oid-store.js';
import { profileByKey, VENDOR_PROFILES } from '../../src/modules/snmp/vendors/index.js';
import { bridgingFromTables } from '../../src/modules/v1sion/scan/topology.js';
import { factsOf } from '../../src/modules/v1sion/scan/identify.js';
import { parseDeviceTables } from '../../src/modules/v1sion/scan/neighbours/index.js';
import type { ScanHost } from '../../src/modules/v1sion/scan/result.js';
import { DEVELOPMENT, HELD_OUT, recordingOf, type PublishedDevice } from '../helpers/published-devices.js';
import { parseSnmprec, recordingReader, toRaw } from '../helpers/snmprec.js';

const store = OidStore.load();
const target = { host: '127.0.0.1', version: 'v2c' as const, community: 'public' };
const now = () => Date.parse('2025-03-04T05:06:07.000Z');

/** An agent holding exactly these variables (snmprec lines). */
const agent = (...lines: string[]) => recordingReader(parseSnmprec(lines.join('\n') + '\n'));
const system = (objectId: string, descr: string) => [`1.3.6.1.2.1.1.1.0|4|${descr}`, `1.3.6.1.2.1.1.2.0|6|${objectId}`];
const linux = (descr = 'Linux sw 6.1.0-18-amd64 #1 SMP') => system('1.3.6.1.4.1.8072.3.2.10', descr);

const BRIDGE_PORTS = '1.3.6.1.2.1.17.1.2.0|2|9';
const BRIDGE_ADDRESS = '1.3.6.1.2.1.17.1.1.0|4x|024e50090100';
const QBRIDGE_VLANS = '1.3.6.1.2.1.17.7.1.1.4.0|66|3';
/** lldpLocSysCapEnabled: BITS, bridge is 0x20, wlanAccessPoint 0x10, router 0x08, station 0x01. */
const lldpCaps = (hex: string) => `1.0.8802.1.1.2.1.3.6.0|4x|${hex}`;
const lldpV2Caps = (hex: string) => `1.3.111.2.802.1.1.13.1.3.6.0|4x|${hex}`;

const run = (...lines: string[]) => identify(agent(...lines), target, store, now);

/** The first arc of an enterprise list entry as a numeric OID, with one more arc a product could have. */
const under = (arc: string) => `${store.oidOf(arc)!}.777.1`;

describe('a maker\'s other products: by the enterprise number it owns', () => {
  for (const profile of VENDOR_PROFILES.filter((p) => p.key !== 'generic')) {
    test(`${profile.key}: every arc it owns, a sysDescr no product line knows: ${profile.manufacturer}, model unknown, never generic`, async () => {
      assert.ok(profile.enterprises?.length);
      for (const arc of profile.enterprises!) {
        const oid = under(arc);
        const id = await run(...system(oid, 'Some Future Product 9000 v1.0'));
        const where = `${profile.key} under ${arc}`;
        assert.equal(id.vendor_key, profile.key, where);
        assert.equal(id.variant, 'other', where);
        assert.equal(id.manufacturer, profile.manufacturer, where);
        assert.equal(id.vendor, profile.manufacturer, `${where}: named after the maker, not a product line`);
        assert.equal(id.os, null, where);
        assert.equal(id.model, null, where);
        assert.equal(id.kind, 'device', `${where}: a product line would say what it is; nothing here does`);
        const number = oid.split('.')[6];
        assert.match(id.evidence.manufacturer!, new RegExp(`^enterprise ${number} \\(.+\\), owned by ${profile.manufacturer!.replace(/[()]/g, '\\$&')}`), where);
        assert.match(id.evidence.variant, /^sysObjectID /, where);
        assert.equal(id.evidence.model, null, where);
      }
    });
  }

  test('a product line still wins over the maker\'s other products; the enterprise alone names the maker', async () => {
    const jet = await run(...system('1.3.6.1.4.1.11863.5.28', 'JetStream 24-Port Gigabit Smart Switch'), '1.3.6.1.4.1.11863.6.1.1.5.0|4|T1600G-28TS 3.0');
    assert.deepEqual([jet.vendor_key, jet.variant, jet.kind, jet.model, jet.vendor], ['tplink', 'jetstream', 'switch', 'T1600G-28TS', 'TP-Link JetStream']);
    assert.equal(jet.evidence.manufacturer, 'enterprise 11863 (TP-Link), owned by TP-Link (sysObjectID 1.3.6.1.4.1.11863.5.28)');
    assert.equal(jet.evidence.variant, 'sysObjectID 1.3.6.1.4.1.11863.5.28 under tplink (1.3.6.1.4.1.11863); sysDescr matches /\\bJetStream\\b/i');
    assert.equal(jet.evidence.model, 'tpSysInfoHwVersion.0 /^(\\S+)/');
    assert.equal(jet.evidence.kind, 'switch: the jetstream product line of TP-Link JetStream');

    // The same maker's access point: other products, whose model the profile's own MIB still gives.
    const ap = await run(...system('1.3.6.1.4.1.11863.1.1.3', 'EAP245(EU) v3.0'), '1.3.6.1.4.1.11863.6.1.1.5.0|4|EAP245 3.0');
    assert.deepEqual([ap.vendor_key, ap.variant, ap.model, ap.evidence.model], ['tplink', 'other', 'EAP245', 'tpSysInfoHwVersion.0 /^(\\S+)/']);
    // ...or, without it, ENTITY-MIB's chassis row.
    const entity = await run(...system('1.3.6.1.4.1.11863.1.1.3', 'EAP245(EU) v3.0'),
      '1.3.6.1.2.1.47.1.1.1.1.5.1|2|3', '1.3.6.1.2.1.47.1.1.1.1.13.1|4|EAP245');
    assert.deepEqual([entity.model, entity.evidence.model], ['EAP245', 'entPhysicalModelName (ENTITY-MIB chassis row)']);
  });

  test('a maker named by sysDescr under another company\'s enterprise says so; an unknown enterprise stays generic', async () => {
    const usw = await run(...system('1.3.6.1.4.1.4413', 'USW-24-PoE, 6.6.55.15189, Linux 3.6.5'));
    assert.deepEqual([usw.vendor_key, usw.variant], ['ubiquiti', 'unifi-switch']);
    assert.equal(usw.evidence.manufacturer, 'sysDescr matches /^\\W*(?:USW|US-\\d|UBNT US)/i (sysObjectID 1.3.6.1.4.1.4413 of enterprise 4413 (Broadcom))');
    const netgear = await run(...system('1.3.6.1.4.1.4526.100.11.22', 'M4100-D12G ProSafe'));
    assert.deepEqual([netgear.vendor_key, netgear.variant, netgear.manufacturer], ['generic', 'mib-2', 'Netgear']);
    assert.equal(netgear.evidence.manufacturer, 'enterprise 4526 (Netgear), from IANA\'s registry (sysObjectID 1.3.6.1.4.1.4526.100.11.22)');
    assert.equal(netgear.evidence.variant, 'no rule of a vendor profile holds');
    const none = await run('1.3.6.1.2.1.1.1.0|4|something');
    assert.deepEqual([none.vendor_key, none.manufacturer, none.evidence.manufacturer], ['generic', null, null]);
  });

  test('HP\'s enterprise 11 is not Aruba\'s alone: an HP device outside ProCurve stays generic, named HP', async () => {
    const printer = await run(...system('1.3.6.1.4.1.11.2.3.9.1', 'HP ETHERNET MULTI-ENVIRONMENT'));
    assert.deepEqual([printer.vendor_key, printer.manufacturer], ['generic', 'HP']);
  });
});

describe('kind: a device that bridges is a switch', () => {
  const kindOf = async (...lines: string[]) => {
    const id = await run(...lines);
    return [id.kind, id.evidence.kind];
  };

  test('a net-snmp host is a server only without bridging or LLDP evidence', async () => {
    assert.deepEqual(await kindOf(...linux()), ['server', 'no bridging or LLDP evidence: server (a net-snmp host) by default']);
    assert.deepEqual(await kindOf(...linux(), BRIDGE_PORTS, BRIDGE_ADDRESS),
      ['switch', 'BRIDGE-MIB answers (dot1dBaseNumPorts 9, dot1dBaseBridgeAddress 02:4e:50:09:01:00)']);
    assert.deepEqual(await kindOf(...linux(), BRIDGE_ADDRESS), ['switch', 'BRIDGE-MIB answers (dot1dBaseBridgeAddress 02:4e:50:09:01:00)'],
      'dot1dBaseNumPorts left out, as MikroTik SwOS does');
    assert.deepEqual(await kindOf(...linux(), QBRIDGE_VLANS), ['switch', 'Q-BRIDGE-MIB answers (dot1qNumVlans 3)']);
    assert.deepEqual(await kindOf(...linux(), lldpCaps('20')), ['switch', 'LLDP system capabilities enabled: bridge'], 'lldpd on a Linux bridge');
    assert.deepEqual(await kindOf(...linux(), lldpV2Caps('2800')), ['switch', 'LLDP system capabilities enabled: bridge, router']);
    assert.deepEqual(await kindOf(...linux(), lldpCaps('08')), ['router', 'LLDP system capabilities enabled: router']);
    assert.deepEqual(await kindOf(...linux(), lldpCaps('30'), BRIDGE_ADDRESS), ['wireless', 'LLDP system capabilities enabled: bridge, wlanAccessPoint'],
      'an access point bridges too');
    assert.deepEqual(await kindOf(...linux(), lldpCaps('01')), ['server', 'no bridging or LLDP evidence: server (a net-snmp host) by default'],
      'a station is no evidence');
    assert.deepEqual((await kindOf(...linux(), '1.3.6.1.2.1.17.1.1.0|4x|000000000000', '1.3.6.1.2.1.17.1.2.0|2|0'))[0], 'server',
      'an empty bridge is no evidence');
  });

  test('generic agents and a maker\'s other products take the evidence; a product line keeps its kind', async () => {
    assert.deepEqual(await kindOf(...system('1.3.6.1.4.1.4526.100.11.22', 'M4100-D12G'), BRIDGE_PORTS), ['switch', 'BRIDGE-MIB answers (dot1dBaseNumPorts 9)']);
    assert.deepEqual(await kindOf(...system('1.3.6.1.4.1.11863.1.1.3', 'EAP245(EU) v3.0'), lldpCaps('30')),
      ['wireless', 'LLDP system capabilities enabled: bridge, wlanAccessPoint']);
    // A RouterOS router with a bridge configured is still a router: its product line says so.
    assert.deepEqual(await kindOf(...system('1.3.6.1.4.1.14988.1', 'RouterOS RB750Gr3'), BRIDGE_PORTS, lldpCaps('28')),
      ['router', 'router: the routeros product line of MikroTik RouterOS']);
  });

  test('the evidence costs no round trip: it comes in the system group\'s GET', async () => {
    const plain = agent(...linux());
    const bridging = agent(...linux(), BRIDGE_PORTS, BRIDGE_ADDRESS, lldpCaps('20'));
    await identify(plain, target, store, now);
    await identify(bridging, target, store, now);
    assert.equal(bridging.reads, plain.reads);
  });

  test('in a scan, a forwarding table makes a server or host a switch; a product line\'s kind stays', () => {
    const fdb = parseSnmprec([
      '1.3.6.1.2.1.17.1.4.1.2.1|2|11',
      '1.3.6.1.2.1.17.4.3.1.2.2.78.80.9.3.0|2|1', '1.3.6.1.2.1.17.4.3.1.3.2.78.80.9.3.0|2|3',
    ].join('\n') + '\n');
    const tables = parseDeviceTables(fdb.vars.map(toRaw));
    assert.equal(tables.fdb.length, 1);
    const hostWith = (id: Pick<Identification, 'kind'> & Partial<Identification>, ip: string): ScanHost => ({
      ip, alive_by: ['snmp'], rtt_ms: null, mac: null, mac_vendor: null, hostname: null, open_ports: [], device_id: null,
      snmp: factsOf({
        vendor_key: 'generic', vendor: 'Generic MIB-II', variant: 'net-snmp', os: null, model: null, serial: null, version: null, firmware: null,
        manufacturer: null, enterprise: null, sys: { descr: null, object_id: null, name: null, uptime_ticks: null, contact: null, location: null },
        evidence: { manufacturer: null, variant: 'x', model: null, kind: 'no bridging or LLDP evidence: server (a net-snmp host) by default' },
        ...id,
      }, null, undefined, null),
    });
    const server = hostWith({ kind: 'server' }, '10.0.0.1');
    const router = hostWith({ kind: 'router', vendor_key: 'mikrotik' }, '10.0.0.2');
    const unread = hostWith({ kind: 'device' }, '10.0.0.3');
    bridgingFromTables([server, router, unread], new Map([['10.0.0.1', tables], ['10.0.0.2', tables]]));
    assert.equal(server.snmp!.kind, 'switch');
    assert.equal(server.snmp!.evidence!.kind, 'forwarding table: 1 MAC address learned (BRIDGE-MIB/Q-BRIDGE-MIB)');
    assert.equal(router.snmp!.kind, 'router');
    assert.equal(unread.snmp!.kind, 'host', 'no tables read: nothing changes');
  });
});

/** What the requirement says of any device of a supported vendor: its maker, never generic; a kind right or unknown. */
async function checkPublished(d: PublishedDevice): Promise<Identification> {
  const id = await identify(recordingReader(recordingOf(d)), target, store, now);
  const profile = profileByKey(d.maker)!;
  assert.equal(id.vendor_key, d.maker, d.source);
  assert.equal(id.manufacturer, profile.manufacturer, d.source);
  assert.notEqual(id.vendor, 'Generic MIB-II', d.source);
  assert.ok(id.kind === d.kind || id.kind === 'device', `${d.source}: ${id.kind} is neither ${d.kind} nor unknown`);
  assert.ok(id.evidence.manufacturer, d.source);
  return id;
}

describe('published devices of the supported vendors (LibreNMS tests/snmpsim facts)', () => {
  test('development set: each is its maker\'s other product, model unknown', async () => {
    for (const d of DEVELOPMENT) {
      const id = await checkPublished(d);
      assert.deepEqual([id.variant, id.model, id.kind], ['other', null, 'device'], d.source);
    }
  });

  test('held-out set: the maker, never generic, a kind right or unknown', async () => {
    assert.ok(HELD_OUT.length >= 5);
    for (const d of HELD_OUT) await checkPublished(d);
  });
});
