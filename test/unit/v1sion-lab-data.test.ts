// The discovery test lab's data, without building it (no root needed): the topology's promises that
// the scan tests and the benchmark count on (docs/lab.md), and the BRIDGE-MIB pass_persist program of
// the lab switches (scripts/lab/bridge-mib.ts) on a forwarding table as `bridge -j fdb` prints it.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { bridgeVars, cachedSource, PassPersist, serve, type BridgeState, type MibVar } from '../../scripts/lab/bridge-mib.js';
import {
  addressesOf, answersIcmp, CORP_MAX, corpusHostName, macOfHost, namedAddresses, plan, SILENT_HOSTS, SLOTS
} from '../../scripts/lab/topology.js';

describe('lab topology', () => {
  const lanOf = (slot: number) => `10.77.${slot * 16}.`;

  test('the lan holds 16 live hosts besides the probe, 7 of them SNMP agents, 2 silent to ICMP; with or without the corpus', () => {
    for (const corpus of [[], ['/x/ios_c3560.snmprec', '/x/junos_rpm.snmprec']]) {
      const p = plan(3, { corpus });
      const lan = p.hosts.filter((h) => addressesOf(h).some((a) => a.startsWith(lanOf(3))));
      assert.equal(lan.length, 16);
      assert.equal(lan.filter((h) => h.snmp || h.sims?.length).length, 7);
      assert.deepEqual(lan.filter((h) => !answersIcmp(h)).map((h) => h.name).sort(), ['silent', 'tcponly']);
      const credentials = lan.filter((h) => h.snmp).map((h) => h.snmp!.credential ?? 'community').sort();
      assert.deepEqual(credentials, ['community', 'community', 'community', 'community2', 'v3']);
    }
  });

  test('corp: one address and one name per recording, below the silent range', () => {
    const files = Array.from({ length: CORP_MAX + 5 }, (_, i) => `/c/Rec_${i}.snmprec`);
    const corp = plan(0, { corpus: files }).hosts.find((h) => h.role === 'corp')!;
    const named = namedAddresses(corp);
    assert.equal(named.length, CORP_MAX, 'capped before the silent range');
    assert.equal(named[0]!.name, 'rec-0');
    assert.equal(corpusHostName('/x/jetstream_jetstream-lldp.snmprec'), 'jetstream-jetstream-lldp');
    for (const n of named) assert.ok(Number(n.addresses[0]!.split('.')[3]) < SILENT_HOSTS.first);
    assert.equal(namedAddresses(plan(0).hosts.find((h) => h.role === 'corp')!).length, 0, 'empty without the corpus');
  });

  test('names, addresses and MACs are unique within a slot and never shared between slots', () => {
    const seen = new Map<string, number>();
    for (let slot = 0; slot < SLOTS; slot++) {
      const p = plan(slot, { corpus: ['/c/a.snmprec', '/c/b.snmprec'] });
      const items = [p.probe.mac, p.probe.name, ...p.hosts.flatMap((h) => [h.ns, ...h.ifaces.map((f) => f.mac), ...addressesOf(h)])];
      for (const item of items) {
        assert.equal(seen.has(item), false, `${item} of slot ${slot} is also slot ${seen.get(item)}'s`);
        seen.set(item, slot);
      }
      for (const h of p.hosts) for (const a of addressesOf(h)) {
        const last = Number(a.split('.')[3]);
        assert.ok(last < SILENT_HOSTS.first || last > SILENT_HOSTS.last, `${h.name} ${a} is in the silent range`);
      }
      assert.ok(macOfHost(p.hosts[0]!));
    }
  });

  test('both switches serve BRIDGE-MIB from their forwarding table, so a scan places the hosts behind either one', () => {
    const p = plan(2);
    const switches = p.hosts.filter((h) => h.role === 'switch');
    assert.deepEqual(switches.map((h) => [h.name, h.bridgeMib === true, Boolean(h.snmp)]), [['sw1', true, true], ['sw2', true, true]]);
  });

  test('every cable end exists and every host is cabled', () => {
    const p = plan(1);
    const ends = p.cables.flat();
    for (const e of ends.filter((x) => x.host !== 'probe')) {
      assert.ok(p.hosts.find((h) => h.name === e.host)?.ifaces.some((f) => f.name === e.ifname), `${e.host} ${e.ifname}`);
    }
    for (const h of p.hosts) assert.ok(ends.some((e) => e.host === h.name), `${h.name} has no cable`);
    assert.equal(new Set(ends.map((e) => `${e.host}/${e.ifname}`)).size, ends.length, 'an interface with two cables');
  });
});

// sw1's table as `bridge -j fdb show br br0` printed it in the lab: a learned address, a port's own
// ("permanent") address, the port device's own multicast entries ("self", no master), the bridge's own.
const FDB = [
  { mac: '02:4e:50:00:00:00', ifname: 'swp1', flags: [], master: 'br0', state: '' },
  { mac: '02:4e:50:00:01:01', ifname: 'swp1', flags: [], master: 'br0', state: 'permanent' },
  { mac: '33:33:00:00:00:01', ifname: 'swp1', flags: ['self'], state: 'permanent' },
  { mac: '01:80:c2:00:00:0e', ifname: 'swp1', flags: ['self'], state: 'permanent' },
  { mac: '02:4e:50:00:06:00', ifname: 'swp3', flags: [], master: 'br0', state: '' },
  { mac: '02:4e:50:00:03:00', ifname: 'swp2', flags: [], master: 'br0', state: '' },
  { mac: '02:4e:50:00:01:00', ifname: 'br0', flags: [], master: 'br0', state: 'permanent' },
  { mac: '02:4e:50:00:09:00', ifname: 'swp9', flags: [], master: 'other', state: '' },
];
const STATE: BridgeState = {
  name: 'br0', address: '02:4e:50:00:01:00', agingSeconds: 300,
  ports: [{ name: 'swp3', portNo: 3, ifIndex: 4 }, { name: 'swp1', portNo: 1, ifIndex: 2 }, { name: 'swp2', portNo: 2, ifIndex: 3 }],
  fdb: FDB,
};
const B = '.1.3.6.1.2.1.17';
const text = (vars: MibVar[]) => vars.map((v) => `.${v.oid.join('.')} ${v.type} ${v.value}`);

describe('lab BRIDGE-MIB (pass_persist)', () => {
  test('the bridge, its ports and its forwarding table as BRIDGE-MIB, in OID order', () => {
    assert.deepEqual(text(bridgeVars(STATE)), [
      `${B}.1.1.0 octet 02 4E 50 00 01 00`,
      `${B}.1.2.0 integer 3`,
      `${B}.1.3.0 integer 2`,
      `${B}.1.4.1.1.1 integer 1`, `${B}.1.4.1.1.2 integer 2`, `${B}.1.4.1.1.3 integer 3`,
      `${B}.1.4.1.2.1 integer 2`, `${B}.1.4.1.2.2 integer 3`, `${B}.1.4.1.2.3 integer 4`,
      `${B}.4.2.0 integer 300`,
      `${B}.4.3.1.1.2.78.80.0.0.0 octet 02 4E 50 00 00 00`,
      `${B}.4.3.1.1.2.78.80.0.1.1 octet 02 4E 50 00 01 01`,
      `${B}.4.3.1.1.2.78.80.0.3.0 octet 02 4E 50 00 03 00`,
      `${B}.4.3.1.1.2.78.80.0.6.0 octet 02 4E 50 00 06 00`,
      `${B}.4.3.1.2.2.78.80.0.0.0 integer 1`,
      `${B}.4.3.1.2.2.78.80.0.1.1 integer 1`,
      `${B}.4.3.1.2.2.78.80.0.3.0 integer 2`,
      `${B}.4.3.1.2.2.78.80.0.6.0 integer 3`,
      `${B}.4.3.1.3.2.78.80.0.0.0 integer 3`,
      `${B}.4.3.1.3.2.78.80.0.1.1 integer 4`,
      `${B}.4.3.1.3.2.78.80.0.3.0 integer 3`,
      `${B}.4.3.1.3.2.78.80.0.6.0 integer 3`,
    ]);
  });

  test('the pass_persist conversation: PING, get, getnext across and past the subtree, set, junk', () => {
    const pp = new PassPersist(() => bridgeVars(STATE));
    const say = (...lines: string[]) => lines.map((l) => pp.feed(l)).filter((x) => x !== null);
    assert.deepEqual(say('PING'), [['PONG']]);
    assert.deepEqual(say('get', `${B}.1.2.0`), [[`${B}.1.2.0`, 'integer', '3']]);
    assert.deepEqual(say('get', `${B}.1.2`), [['NONE']], 'get of an object, not an instance');
    assert.deepEqual(say('getnext', B), [[`${B}.1.1.0`, 'octet', '02 4E 50 00 01 00']]);
    assert.deepEqual(say('getnext', '.1.3.6.1.2.1.16.9'), [[`${B}.1.1.0`, 'octet', '02 4E 50 00 01 00']]);
    assert.deepEqual(say('getnext', `${B}.1.4.1.2.3`), [[`${B}.4.2.0`, 'integer', '300']]);
    assert.deepEqual(say('getnext', `${B}.4.3.1.3.2.78.80.0.6.0`), [['NONE']], 'past the end');
    assert.deepEqual(say('getnext', 'nonsense'), [['NONE']]);
    assert.deepEqual(say('set', `${B}.1.2.0`, 'integer 5'), [['not-writable']]);
    assert.deepEqual(say('what?'), [['NONE']]);
    assert.deepEqual(say('PING'), [['PONG']], 'still in step');
  });

  test('reads the bridge again only after the refresh interval, and ends when its input ends', async () => {
    let reads = 0;
    let now = 0;
    const source = cachedSource(() => { reads++; return STATE; }, 500, () => now);
    source(); source();
    now = 499; source();
    assert.equal(reads, 1);
    now = 500; source();
    assert.equal(reads, 2);

    const input = new PassThrough();
    const output = new PassThrough();
    const done = serve(input, output, () => bridgeVars(STATE));
    input.write('PING\nget\n.1.3.6.1.2.1.17.1.2.0\n');
    input.end();
    await done;
    assert.equal(output.read().toString(), `PONG\n${B}.1.2.0\ninteger\n3\n`);
  });
});
