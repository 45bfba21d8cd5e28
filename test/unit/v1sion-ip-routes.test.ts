// The route table parsers (scan/neighbours/ip-routes.ts) on hand-written walks of each table, shaped as
// agents serve them (Net-SNMP's inetCidrRouteTable with its 0.0.<ifIndex> policies, RouterOS's rows with
// columns left out, RFC 1213's direct routes naming the agent itself), and readRoutes() (scan/ip-routes.ts)
// answering from recordings in-process: the count first, a table over the limit never walked. The shared
// corpus (../shared/fixtures/snmprec, read in place, never copied) holds the RouterOS table and the counts
// of four more devices; those tests skip, naming the missing path, when it is not there.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import type { RawVarbind } from '../../src/modules/snmp/contracts.js';
import {
  parseInetCidrRoutes, parseInterfaces, parseIpCidrRoutes, parseIpRouteTable, parseRoutes, ROUTE_COUNTS, ROUTE_ROOTS, routeTableSize,
  neighbourRoots, type IpRoute,
} from '../../src/modules/v1sion/scan/neighbours/index.js';
import { offered, readRoutes, ROUTE_LIMIT } from '../../src/modules/v1sion/scan/ip-routes.js';
import { CORPUS_DIR } from '../helpers/snmp-recordings.js';
import { loadSnmprec, parseSnmprec, recordingReader } from '../helpers/snmprec.js';

const int = (oid: string, n: number): RawVarbind => ({ oid, type: 'Integer', value: n });
const gauge = (oid: string, n: number): RawVarbind => ({ oid, type: 'Gauge32', value: n });
const ipv = (oid: string, ip: string): RawVarbind => ({ oid, type: 'IpAddress', value: ip });
const none = (oid: string): RawVarbind => ({ oid, type: 'NoSuchObject', value: null });
const os = (oid: string, text: string): RawVarbind => ({ oid, type: 'OctetString', value: text });

const INET = '1.3.6.1.2.1.4.24.7.1', CIDR = '1.3.6.1.2.1.4.24.4.1', RT = '1.3.6.1.2.1.4.21.1';
const IFD = '1.3.6.1.2.1.2.2.1.2', IFN = '1.3.6.1.2.1.31.1.1.1.1';
const TARGET = { host: '192.0.2.1', version: 'v2c' as const, community: 'public' };

const v6 = (groups: number[]) => groups.flatMap((g) => [g >> 8, g & 0xff]);
const DB8_1 = v6([0x2001, 0xdb8, 0, 0, 0, 0, 0, 1]);
const ZERO6 = new Array<number>(16).fill(0);

/** An inetCidrRouteTable row: ifIndex, type, proto, metric1 under the index as the RFC lays it out. */
function inetRow(dest: number[], pfx: number, policy: number[], hop: number[] | null,
  c: { ifIndex: number; type: number; proto: number; metric: number }, opts: { noLengths?: boolean } = {}): RawVarbind[] {
  const addr = (a: number[]) => (opts.noLengths ? [a.length === 4 ? 1 : 2, ...a] : [a.length === 4 ? 1 : 2, a.length, ...a]);
  // No next hop: type unknown(0), zero length (RFC 4292 for routes that are not remote).
  const nh = hop ? addr(hop) : [0, 0];
  const ix = [...addr(dest), pfx, policy.length, ...policy, ...nh].join('.');
  return [int(`${INET}.7.${ix}`, c.ifIndex), int(`${INET}.8.${ix}`, c.type), int(`${INET}.9.${ix}`, c.proto), int(`${INET}.12.${ix}`, c.metric)];
}

/** What Net-SNMP 5.9 serves on a Linux host with `default via 192.0.2.1`, a /24 on ifIndex 4 and IPv6 beside it. */
const NET_SNMP_INET = [
  gauge('1.3.6.1.2.1.4.24.6.0', 7),
  ...inetRow([0, 0, 0, 0], 0, [0, 0], [192, 0, 2, 1], { ifIndex: 4, type: 4, proto: 2, metric: 0 }),
  ...inetRow([192, 0, 2, 0], 24, [0, 0, 4], [0, 0, 0, 0], { ifIndex: 4, type: 3, proto: 2, metric: 0 }),
  ...inetRow(ZERO6, 0, [0, 0, 5], DB8_1, { ifIndex: 4, type: 4, proto: 2, metric: 1024 }),
  ...inetRow(v6([0, 0, 0, 0, 0, 0, 0, 1]), 128, [0, 0, 6], ZERO6, { ifIndex: 1, type: 3, proto: 2, metric: 0 }),
  ...inetRow(v6([0x2001, 0xdb8, 0, 0, 0, 0, 0, 0]), 64, [0, 0, 3], ZERO6, { ifIndex: 4, type: 3, proto: 2, metric: 256 }),
  ...inetRow(v6([0xfe80, 0, 0, 0, 0, 0, 0, 0]), 64, [0, 0, 4], ZERO6, { ifIndex: 4, type: 3, proto: 2, metric: 256 }),
  ...inetRow(v6([0xff00, 0, 0, 0, 0, 0, 0, 0]), 8, [0, 0, 9], ZERO6, { ifIndex: 4, type: 3, proto: 2, metric: 256 }),
];

const route = (destination: string, next_hop: string | null, if_index: number | null, metric: number | null, protocol: string | null,
  type: IpRoute['type'], iface: string | null = null): IpRoute => ({ destination, next_hop, if_index, interface: iface, metric, protocol, type });

describe('inetCidrRouteTable', () => {
  test('Net-SNMP\'s rows: IPv4 and IPv6, policies of any length, next hops 0.0.0.0 and :: are none', () => {
    assert.deepEqual(parseInetCidrRoutes(NET_SNMP_INET), [
      route('0.0.0.0/0', '192.0.2.1', 4, 0, 'local', 'remote'),
      route('192.0.2.0/24', null, 4, 0, 'local', 'local'),
      route('::/0', '2001:db8::1', 4, 1024, 'local', 'remote'),
      route('::1/128', null, 1, 0, 'local', 'local'),
      route('2001:db8::/64', null, 4, 256, 'local', 'local'),
      route('fe80::/64', null, 4, 256, 'local', 'local'),
      route('ff00::/8', null, 4, 256, 'local', 'local'),
    ]);
  });

  test('interfaces by name, one route under two policies once, next hop type unknown, blackholes, an index without lengths', () => {
    const vbs = [
      os(`${IFD}.2`, 'eth0'), os(`${IFN}.2`, 'wan'), os(`${IFD}.3`, 'eth1'),
      ...inetRow([10, 1, 0, 0], 16, [0, 0], [10, 0, 0, 9], { ifIndex: 2, type: 4, proto: 13, metric: 20 }),
      ...inetRow([10, 1, 0, 0], 16, [0, 0, 2], [10, 0, 0, 9], { ifIndex: 2, type: 4, proto: 13, metric: 20 }),
      // Equal-cost: a second next hop is a second route.
      ...inetRow([10, 1, 0, 0], 16, [0, 0], [10, 0, 0, 10], { ifIndex: 3, type: 4, proto: 13, metric: 20 }),
      ...inetRow([10, 2, 0, 0], 24, [], null, { ifIndex: 3, type: 3, proto: 2, metric: -1 }),
      ...inetRow([10, 77, 0, 0], 20, [0, 0], [0, 0, 0, 0], { ifIndex: 0, type: 5, proto: 3, metric: 0 }),
      ...inetRow([172, 16, 0, 0], 12, [0, 0], [10, 0, 0, 9], { ifIndex: 2, type: 4, proto: 14, metric: 0 }, { noLengths: true }),
      // A host route of a DNS-named next hop (type 16): not an address, left out; a garbled index too.
      int(`${INET}.7.1.4.10.9.9.9.32.0.16.3.97.98.99`, 2), int(`${INET}.7.1.4.10.9`, 2),
    ];
    const routes = parseInetCidrRoutes(vbs, parseInterfaces(vbs));
    assert.deepEqual(routes, [
      route('10.1.0.0/16', '10.0.0.10', 3, 20, 'ospf', 'remote', 'eth1'),
      route('10.1.0.0/16', '10.0.0.9', 2, 20, 'ospf', 'remote', 'wan'),
      route('10.2.0.0/24', null, 3, null, 'local', 'local', 'eth1'),
      route('10.77.0.0/20', null, null, 0, 'netmgmt', 'blackhole'),
      route('172.16.0.0/12', '10.0.0.9', 2, 0, 'bgp', 'remote', 'wan'),
    ]);
  });
});

describe('ipCidrRouteTable', () => {
  test('destination, mask and next hop from the index; columns missing from some rows; odd masks and host bits', () => {
    const row = (ix: string, c: Partial<Record<5 | 6 | 7 | 11, number>>) =>
      Object.entries(c).map(([col, v]) => int(`${CIDR}.${col}.${ix}`, v));
    const vbs = [
      ...row('0.0.0.0.0.0.0.0.0.203.0.113.1', { 5: 0, 6: 4, 7: 3, 11: 1 }),
      ...row('10.0.5.7.255.255.255.0.0.0.0.0.0', { 5: 6, 7: 2 }), // no type; host bits set in the index
      ...row('10.9.0.0.255.0.255.0.0.10.0.0.1', { 5: 6, 6: 4, 7: 13 }), // not a contiguous mask: left out
      ...row('192.0.2.0.255.255.255.0.0.192.0.2.254', { 5: 6, 6: 3, 7: 2, 11: 0 }), // local: its own address as next hop
      ...row('198.51.100.0.255.255.255.0.0.0.0.0.0', { 6: 2, 7: 3 }), // reject
      int(`${CIDR}.5.1.2.3`, 9), // too short to be an index
    ];
    assert.deepEqual(parseIpCidrRoutes(vbs), [
      route('0.0.0.0/0', '203.0.113.1', null, 1, 'netmgmt', 'remote'),
      route('10.0.5.0/24', null, 6, null, 'local', null),
      route('192.0.2.0/24', null, 6, 0, 'local', 'local'),
      route('198.51.100.0/24', null, null, null, 'netmgmt', 'reject'),
    ]);
  });
});

describe('ipRouteTable (RFC 1213)', () => {
  test('mask and next hop as columns; invalid rows and rows without a mask left out; direct routes have no next hop', () => {
    const vbs = [
      ipv(`${RT}.1.0.0.0.0`, '0.0.0.0'), int(`${RT}.2.0.0.0.0`, 2), int(`${RT}.3.0.0.0.0`, 1), ipv(`${RT}.7.0.0.0.0`, '10.0.0.1'),
      int(`${RT}.8.0.0.0.0`, 4), int(`${RT}.9.0.0.0.0`, 3), ipv(`${RT}.11.0.0.0.0`, '0.0.0.0'),
      ipv(`${RT}.1.10.0.0.0`, '10.0.0.0'), int(`${RT}.2.10.0.0.0`, 2), int(`${RT}.3.10.0.0.0`, 0), ipv(`${RT}.7.10.0.0.0`, '10.0.0.2'),
      int(`${RT}.8.10.0.0.0`, 3), int(`${RT}.9.10.0.0.0`, 2), ipv(`${RT}.11.10.0.0.0`, '255.255.255.0'),
      ipv(`${RT}.1.10.8.0.0`, '10.8.0.0'), int(`${RT}.8.10.8.0.0`, 2), ipv(`${RT}.11.10.8.0.0`, '255.255.0.0'), // invalid: deleted
      ipv(`${RT}.1.10.9.0.0`, '10.9.0.0'), int(`${RT}.8.10.9.0.0`, 4), ipv(`${RT}.7.10.9.0.0`, '10.0.0.7'), // no mask
      ipv(`${RT}.1.172.20.0.0`, '172.20.0.0'), int(`${RT}.8.172.20.0.0`, 4), int(`${RT}.9.172.20.0.0`, 8), int(`${RT}.3.172.20.0.0`, -1),
      ipv(`${RT}.7.172.20.0.0`, '10.0.0.7'), ipv(`${RT}.11.172.20.0.0`, '255.255.0.0'), int(`${RT}.2.172.20.0.0`, 2),
      os(`${IFD}.2`, 'le0'),
    ];
    assert.deepEqual(parseIpRouteTable(vbs, parseInterfaces(vbs)), [
      route('0.0.0.0/0', '10.0.0.1', 2, 1, 'netmgmt', 'remote', 'le0'),
      route('10.0.0.0/24', null, 2, 0, 'local', 'local', 'le0'),
      route('172.20.0.0/16', '10.0.0.7', 2, null, 'rip', 'remote', 'le0'),
    ]);
  });
});

describe('one table of three', () => {
  test('parseRoutes reads the newest table that has rows; routeTableSize reads the counts', () => {
    const old = [ipv(`${RT}.1.10.0.0.0`, '10.0.0.0'), ipv(`${RT}.11.10.0.0.0`, '255.0.0.0'), int(`${RT}.8.10.0.0.0`, 3)];
    assert.deepEqual(parseRoutes(old), { table: 'ipRouteTable', routes: [route('10.0.0.0/8', null, null, null, null, 'local')] });
    const both = parseRoutes([...old, ...NET_SNMP_INET]);
    assert.equal(both.table, 'inetCidrRouteTable');
    assert.equal(both.routes.length, 7);
    assert.deepEqual(parseRoutes([]), { table: null, routes: [] });
    assert.deepEqual(routeTableSize([gauge(ROUTE_COUNTS.inetCidrRouteTable, 7), none(ROUTE_COUNTS.ipCidrRouteTable)]),
      { inetCidrRouteTable: 7, ipCidrRouteTable: null });
  });

  test('the route roots are a family of their own, never among the roots a scan walks by default', () => {
    const walked = new Set(neighbourRoots());
    for (const roots of Object.values(ROUTE_ROOTS)) for (const r of roots) assert.ok(!walked.has(r), r);
    assert.deepEqual(ROUTE_ROOTS.inetCidrRouteTable, [7, 8, 9, 12].map((c) => `${INET}.${c}`));
  });

  test('offered(): not loopback, multicast, IPv6 link-local, reject, blackhole, nowhere, or the device\'s own host addresses', () => {
    const routes = parseInetCidrRoutes(NET_SNMP_INET).filter(offered).map((r) => r.destination);
    assert.deepEqual(routes, ['0.0.0.0/0', '192.0.2.0/24', '::/0', '2001:db8::/64']);
    assert.equal(offered(route('10.77.0.0/20', null, null, 0, 'netmgmt', 'blackhole')), false);
    assert.equal(offered(route('10.0.0.1/32', null, 2, 0, 'local', 'local')), false);
    assert.equal(offered(route('10.0.0.1/32', '10.9.9.9', 2, 0, 'netmgmt', 'remote')), true);
    // Net-SNMP's rendering of a Linux blackhole route: local, ifIndex 0, no next hop.
    assert.equal(offered(route('10.77.16.0/20', null, null, 0, 'local', 'local')), false);
    assert.equal(offered(route('0.0.0.0/0', '185.6.188.62', null, 1, 'netmgmt', 'remote')), true);
  });
});

/** A recording made of lines `OID|TAG|VALUE` (snmprec). */
const recording = (lines: string[]) => recordingReader(parseSnmprec(lines.join('\n'), 'hand-made'));

describe('readRoutes', () => {
  test('a count over the limit: nothing is walked', async () => {
    const reader = recording(['1.3.6.1.2.1.4.24.6.0|66|912345', `${INET}.7.1.4.10.0.0.0.8.2.0.0.1.4.10.0.0.1|2|1`]);
    const r = await readRoutes(reader, TARGET);
    assert.equal(reader.reads, 1, 'only the GET of the counts');
    assert.deepEqual({ ...r, warnings: r.warnings.length }, {
      table: null, counts: { inetCidrRouteTable: 912345, ipCidrRouteTable: null }, routes: [], skipped: true, warnings: 1,
    });
    assert.match(r.warnings[0]!, /^192\.0\.2\.1: the routing table holds 912345 routes, more than 1000/);
    assert.equal(ROUTE_LIMIT, 1000);
  });

  test('no count (RFC 1213 only): the walk itself stops past the limit', async () => {
    const lines: string[] = [];
    for (let i = 0; i < 8; i++) lines.push(`${RT}.2.10.0.${i}.0|2|1`, `${RT}.8.10.0.${i}.0|2|3`, `${RT}.11.10.0.${i}.0|64|255.255.255.0`);
    const reader = recording(lines.sort());
    const r = await readRoutes(reader, TARGET, undefined, { limit: 5 });
    assert.equal(r.skipped, true);
    assert.deepEqual(r.routes, []);
    const fits = await readRoutes(recording(lines.sort()), TARGET, undefined, { limit: 8 });
    assert.equal(fits.table, 'ipRouteTable');
    assert.equal(fits.routes.length, 8);
    assert.equal(fits.routes[0]!.interface, null, 'the agent has no IF-MIB');
  });

  test('a table the agent counts as empty is not walked; interfaces named by a walk, or from the interfaces given', async () => {
    const lines = [
      '1.3.6.1.2.1.2.2.1.2.3|4|eth2', '1.3.6.1.2.1.4.24.3.0|66|2', '1.3.6.1.2.1.4.24.4.1.5.10.1.0.0.255.255.0.0.0.10.0.0.9|2|3',
      '1.3.6.1.2.1.4.24.4.1.6.10.1.0.0.255.255.0.0.0.10.0.0.9|2|4', '1.3.6.1.2.1.4.24.6.0|66|0',
    ];
    const reader = recording(lines);
    const r = await readRoutes(reader, TARGET);
    assert.equal(reader.reads, 3, 'GET the counts, walk ipCidrRouteTable (inetCidrRouteTable counts 0), walk IF-MIB');
    assert.deepEqual(r, {
      table: 'ipCidrRouteTable', counts: { inetCidrRouteTable: 0, ipCidrRouteTable: 2 },
      routes: [route('10.1.0.0/16', '10.0.0.9', 3, null, null, 'remote', 'eth2')], skipped: false, warnings: [],
    });
    const again = recording(lines);
    const given = await readRoutes(again, TARGET, undefined, { interfaces: [{ if_index: 3, name: 'ge-0/0/3', descr: null, alias: null, mac: null, type: 6 }] });
    assert.equal(again.reads, 2);
    assert.equal(given.routes[0]!.interface, 'ge-0/0/3');
  });

  test('an aborted read stops', async () => {
    const ac = new AbortController();
    ac.abort();
    await assert.rejects(readRoutes(recording([]), TARGET, ac.signal), { name: 'AbortError' });
  });
});

const fileOf = (name: string) => join(CORPUS_DIR, `${name}.snmprec`);
const skipFor = (name: string): string | false =>
  existsSync(fileOf(name)) ? false : `the shared snmprec corpus recording ${fileOf(name)} is not there (it exists only beside the project's workspace)`;

describe('route tables of real agents (shared corpus)', () => {
  test('RouterOS RB750Gr3: ipCidrRouteTable, columns left out of some rows, interfaces named', { skip: skipFor('routeros_rb750gr3') }, async () => {
    const reader = recordingReader(loadSnmprec(fileOf('routeros_rb750gr3')));
    const r = await readRoutes(reader, TARGET);
    assert.equal(r.table, 'ipCidrRouteTable');
    assert.deepEqual(r.counts, { inetCidrRouteTable: null, ipCidrRouteTable: 9 });
    assert.deepEqual(r.warnings, []);
    assert.deepEqual(r.routes, [
      route('0.0.0.0/0', '185.6.188.62', null, 1, 'netmgmt', 'remote'),
      route('0.2.0.0/30', null, 9, 0, 'local', null, 'wg: Transit (SoAda)'),
      route('169.254.0.0/27', null, 13, 0, 'local', null, 'Vlan51'),
      route('169.254.9.0/24', null, 14, 0, 'local', 'local', 'Vlan255'),
      route('169.254.255.0/27', null, 8, 0, 'local', null, 'wg: Hub (NMS)'),
      route('185.6.188.32/27', null, 2, 0, 'local', null, 'wan: STCable (eth1)'),
      route('192.168.51.0/24', null, 13, 0, 'local', 'local', 'Vlan51'),
      route('198.18.9.0/24', null, 12, 0, 'local', 'local', 'Vlan2'),
    ]);
    assert.equal(r.routes.filter(offered).length, 8);
  });

  // These recordings hold the counts only (LibreNMS recorded what its tests read): the reader says so.
  for (const [name, counts] of [
    ['arubaos-cx', { inetCidrRouteTable: 1, ipCidrRouteTable: null }], ['edgeos', { inetCidrRouteTable: null, ipCidrRouteTable: 18 }],
    ['junos_rpm', { inetCidrRouteTable: null, ipCidrRouteTable: 47 }], ['pfsense', { inetCidrRouteTable: null, ipCidrRouteTable: 50 }],
  ] as const) {
    test(`${name}: the count is read; no table rows in the recording, a warning says so`, { skip: skipFor(name) }, async () => {
      const r = await readRoutes(recordingReader(loadSnmprec(fileOf(name))), TARGET);
      assert.deepEqual(r.counts, counts);
      assert.equal(r.table, null);
      assert.match(r.warnings.join(), /counts \d+ routes but none of the route tables gave a row/);
    });
  }
});
