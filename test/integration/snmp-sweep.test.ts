// The discovery sweep (src/modules/snmp/client/sweep.ts) against real agents on loopback: three Debian
// snmpds on 127.0.9.20, .99 and .180 (one port P shared, each also on its own 127.0.0.1 port), the
// snmprec simulator (drops a wrong community silently), plain UDP sockets that stay silent, and a
// hostile one. Engine IDs are checked against what snmpget reads from snmpEngineID.0. Only loopback
// addresses are ever sent to. Figures are printed as diagnostics, never asserted.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import dgram from 'node:dgram';
import { run } from '../../src/core/exec.js';
import {
  decodeMessage, encodeCommunityMessage, encodeDiscoveryRequest, encodePdu, TAG, tlv, type CommunityMessage, type V3Message,
} from '../../src/modules/snmp/client/ber.js';
import { describeEngineId } from '../../src/modules/snmp/client/engine-id.js';
import { sweepSnmp, type SweepAnswer, type SweepCommunity, type SweepStats } from '../../src/modules/snmp/index.js';
import { freeUdpPort } from '../helpers/net.js';
import { startSimulator } from '../helpers/snmp-sim.js';
import { startSnmpd, type Snmpd } from '../helpers/snmpd.js';

const FIXTURE = 'test/fixtures/snmprec/cisco-ios-c2960x.snmprec';
const A = '127.0.9.20';
const B = '127.0.9.99';
const C = '127.0.9.180';
const V3_ENGINE_TEXT = 'netprobe-v3-only';
// The communities of these agents are the tests' own (each snmpd also has startSnmpd's random one).
const COMMUNITY_A = `sweep-a-${process.pid}`;
const COMMUNITY_C = `sweep-c-${process.pid}`;

let port: number;
let ipv6 = false;
let agentA: Snmpd, agentB: Snmpd, agentC: Snmpd;

const udpWraps = () => process.getActiveResourcesInfo().filter((r) => r === 'UDPWrap').length;
/** A closed socket's handle goes away on a later turn of the event loop (its descriptor at once). */
async function settle(n: number): Promise<void> {
  for (let i = 0; i < 100 && udpWraps() !== n; i++) await new Promise((r) => setTimeout(r, 10));
}
const range = (prefix: string, from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => `${prefix}${from + i}`);

async function bound(address: string, p = 0): Promise<dgram.Socket> {
  const s = dgram.createSocket(address.includes(':') ? 'udp6' : 'udp4');
  await new Promise<void>((resolve, reject) => { s.once('error', reject); s.bind(p, address, () => { s.off('error', reject); resolve(); }); });
  return s;
}

const closeAll = (...sockets: dgram.Socket[]) => Promise.all(sockets.map((s) => new Promise<void>((r) => s.close(() => r()))));

/** snmpEngineID.0 as snmpget reads it over v3 noAuthNoPriv, lowercase hex. */
async function engineIdOf(agent: Snmpd): Promise<string> {
  const u = agent.users.noAuthNoPriv;
  const r = await run('snmpget', ['-v3', '-u', u.username, '-l', 'noAuthNoPriv', '-On', '-Ox', '-t', '2', '-r', '1',
    `${agent.host}:${agent.port}`, '1.3.6.1.6.3.10.2.1.1.0'], { env: agent.cliEnv, timeoutMs: 10_000 });
  assert.equal(r.code, 0, r.stderr);
  const m = /Hex-STRING: ([0-9A-F \n]+)/.exec(r.stdout);
  assert.ok(m, r.stdout);
  return m[1]!.replace(/\s+/g, '').toLowerCase();
}

before(async () => {
  port = await freeUdpPort();
  try {
    await closeAll(await bound('::1', port));
    ipv6 = true;
  } catch {
    ipv6 = false;
  }
  [agentA, agentB, agentC] = await Promise.all([
    startSnmpd({ extraConfig: [`agentaddress udp:${A}:${port}`, `rocommunity ${COMMUNITY_A} 127.0.0.1`, 'sysServices 72', 'sysName agent-a'] }),
    // v3 only, as far as the sweep knows: it is never given a community of this agent.
    startSnmpd({ extraConfig: [`agentaddress udp:${B}:${port}`, `engineID ${V3_ENGINE_TEXT}`] }),
    startSnmpd({ extraConfig: [`agentaddress udp:${C}:${port}`, `rocommunity ${COMMUNITY_C} 127.0.0.1`, 'sysName agent-c',
      ...(ipv6 ? [`agentaddress udp6:[::1]:${port}`, `rocommunity6 ${COMMUNITY_C} ::1`] : [])] }),
  ]);
});

after(async () => {
  await Promise.all([agentA?.stop(), agentB?.stop(), agentC?.stop()]);
});

describe('communities all at once', () => {
  test('an agent that answers only the third of three communities is found with that credential, one request answered', async () => {
    const sim = await startSimulator([{ file: FIXTURE, community: 'third-community' }]);
    try {
      const d = sim.devices[0]!;
      const communities: SweepCommunity[] = [
        { id: 'CR-1', version: 'v2c', community: 'first-community' },
        { id: 'CR-2', version: 'v1', community: 'second-community' },
        { id: 'CR-3', version: 'v2c', community: 'third-community' },
      ];
      const events: SweepAnswer[] = [];
      const stats = {} as SweepStats;
      const found = await sweepSnmp([d.host], { communities, port: d.port, timeoutMs: 300, retries: 1, stats, onAnswer: (a) => events.push(a) });
      const a = found.get(d.host);
      assert.ok(a, 'found');
      assert.equal(a.credential, 'CR-3');
      assert.equal(a.version, 'v2c');
      assert.equal(a.engine, null, 'the simulator speaks no SNMPv3');
      const rec = (oid: string) => d.recording.vars.find((v) => v.oid === oid)!;
      assert.deepEqual(a.sys, {
        descr: rec('1.3.6.1.2.1.1.1.0').bytes!.toString(), object_id: '1.3.6.1.4.1.9.1.1208', uptime_ticks: 912345678,
        contact: 'noc@example.net', name: 'access-sw1', location: 'Rack A1', services: 6,
      });
      assert.ok(a.rtt_ms >= 0);
      // One GET answered; three communities and the engine probe sent once: no retry once it answered.
      assert.equal(d.requests, 1);
      assert.equal(stats.sent, 4);
      assert.equal(events.length, 1);
      assert.deepEqual(events[0], a);
    } finally {
      await sim.stop();
    }
  });

  test("Debian's snmpd: the system group and the engine ID in one sweep, as snmpget reads them; no community in the result", async () => {
    const communities: SweepCommunity[] = [
      { id: 'wrong', version: 'v2c', community: 'not-this-one' },
      { id: 'a', version: 'v2c', community: COMMUNITY_A },
    ];
    const events: SweepAnswer[] = [];
    const stats = {} as SweepStats;
    const found = await sweepSnmp([A], { communities, port, timeoutMs: 500, stats, onAnswer: (e) => events.push(e) });
    const a = found.get(A)!;
    assert.equal(a.credential, 'a');
    assert.equal(a.version, 'v2c');
    assert.equal(a.sys?.name, 'agent-a');
    assert.equal(a.sys?.services, 72);
    assert.equal(a.sys?.object_id, '1.3.6.1.4.1.8072.3.2.10');
    assert.equal(a.sys?.location, 'netprobe test agent');
    assert.equal(a.sys?.contact, 'netprobe tests');
    assert.match(a.sys?.descr ?? '', /^Linux /);
    assert.equal(typeof a.sys?.uptime_ticks, 'number');
    assert.equal(a.engine?.id, await engineIdOf(agentA));
    assert.ok(a.engine!.boots >= 1);
    assert.ok(a.engine!.time >= 0);
    const info = describeEngineId(a.engine!.id, (n) => (n === 8072 ? 'net-snmp' : null));
    assert.match(info.label, /^net-snmp \(8072\) random 0x[0-9a-f]+$/);
    // Two events (community and engine answer in either order), the last one complete.
    assert.equal(events.length, 2);
    assert.deepEqual(events.at(-1), a);
    const text = JSON.stringify([...found.values(), events, stats]);
    assert.ok(!text.includes(COMMUNITY_A) && !text.includes('not-this-one'), 'no community in answers, events or stats');
  });

  test('v1: snmpd has no sysServices, answers noSuchName, and is asked again without it', async () => {
    const events: SweepAnswer[] = [];
    const found = await sweepSnmp([C], { communities: [{ id: 'c1', version: 'v1', community: COMMUNITY_C }], port, timeoutMs: 500,
      onAnswer: (e) => events.push(e) });
    const a = found.get(C)!;
    assert.equal(a.credential, 'c1');
    assert.equal(a.version, 'v1');
    assert.equal(a.sys?.name, 'agent-c');
    assert.equal(a.sys?.services, null);
    assert.equal(a.sys?.object_id, '1.3.6.1.4.1.8072.3.2.10');
    assert.equal(a.engine?.id, await engineIdOf(agentC));
    assert.ok(events.some((e) => e.credential === 'c1' && e.sys === null), 'the credential is reported before the second GET');
    assert.deepEqual(events.at(-1), a);
  });
});

describe('SNMPv3 engine discovery', () => {
  test('an agent none of whose communities is known is found by the engine probe, with its engine ID', async () => {
    const stats = {} as SweepStats;
    const found = await sweepSnmp([B], {
      communities: [{ id: 'x', version: 'v2c', community: 'unknown-here' }], port, timeoutMs: 400, retries: 2, stats,
    });
    const b = found.get(B)!;
    // Reachable (its engine answered), so the community is wrong, not lost: not sent again in later rounds.
    assert.equal(stats.sent, 2);
    assert.equal(b.credential, null);
    assert.equal(b.version, 'v3');
    assert.equal(b.sys, null);
    // snmpd's `engineID` text: enterprise 8072 (0x80001f88), format 4 (text), the text.
    const configured = `80001f8804${Buffer.from(V3_ENGINE_TEXT).toString('hex')}`;
    assert.equal(b.engine?.id, configured);
    assert.equal(b.engine?.id, await engineIdOf(agentB));
    assert.equal(describeEngineId(b.engine!.id).label, `enterprise 8072 text ${V3_ENGINE_TEXT}`);
  });

  test('with no communities at all, only the engine probe goes out', async () => {
    const stats = {} as SweepStats;
    const found = await sweepSnmp([A, B], { communities: [], port, timeoutMs: 400, stats });
    assert.deepEqual([...found.keys()].sort(), [B, A].sort());
    assert.ok([...found.values()].every((a) => a.credential === null && a.engine));
    assert.equal(stats.sent, 2);
  });
});

describe('silence, abort and many hosts', () => {
  test('a silent port gives no answer after the timeout; each round sends every community and the engine probe again', async () => {
    const silent = await bound('127.0.8.1');
    const got: Buffer[] = [];
    silent.on('message', (m) => got.push(m));
    try {
      const communities: SweepCommunity[] = [{ id: 'p', version: 'v2c', community: 'public' }, { id: 'q', version: 'v1', community: 'private' }];
      const stats = {} as SweepStats;
      const found = await sweepSnmp(['127.0.8.1'], { communities, port: silent.address().port, timeoutMs: 200, retries: 2, stats });
      assert.equal(found.size, 0);
      assert.equal(stats.sent, 9);
      assert.equal(got.length, 9);
      const msgs = got.map((m) => decodeMessage(m)!);
      const v3 = msgs.filter((m): m is V3Message => m.version === 3);
      const community = msgs.filter((m): m is CommunityMessage => m.version !== 3);
      assert.equal(v3.length, 3);
      assert.deepEqual(community.map((m) => m.community.toString()).sort(), ['private', 'private', 'private', 'public', 'public', 'public']);
      assert.equal(new Set(community.map((m) => m.pdu.requestId)).size, 6, 'a fresh request ID per send');
      assert.ok(community.every((m) => m.pdu.tag === TAG.GetRequest && m.pdu.varbinds.length === 7));
    } finally {
      await closeAll(silent);
    }
  });

  test('a community goes only to the hosts its `allows` names (a stored credential\'s scope); the engine probe to all', async () => {
    const inside = await bound('127.0.8.5');
    const outside = await bound('127.0.8.6', inside.address().port);
    const got = new Map<string, Buffer[]>([['in', []], ['out', []]]);
    inside.on('message', (m) => got.get('in')!.push(m));
    outside.on('message', (m) => got.get('out')!.push(m));
    try {
      const communities: SweepCommunity[] = [
        { id: 'scoped', version: 'v2c', community: 'Scoped-Secret-1', allows: (h) => h === '127.0.8.5' },
        { id: 'inline', version: 'v2c', community: 'inline-one' },
      ];
      await sweepSnmp(['127.0.8.5', '127.0.8.6'], { communities, port: inside.address().port, timeoutMs: 150, retries: 1 });
      const communitiesOf = (k: string) => got.get(k)!.map((m) => decodeMessage(m)!)
        .filter((m): m is CommunityMessage => m.version !== 3).map((m) => m.community.toString());
      assert.deepEqual([...new Set(communitiesOf('in'))].sort(), ['Scoped-Secret-1', 'inline-one']);
      assert.deepEqual([...new Set(communitiesOf('out'))], ['inline-one']);
      assert.ok(got.get('out')!.some((m) => decodeMessage(m)!.version === 3), 'the engine probe needs no credential');
    } finally {
      await closeAll(inside, outside);
    }
  });

  test('abort mid-sweep resolves with what was found, stops sending and closes the socket', { timeout: 20_000 }, async () => {
    const listener = await bound('127.0.8.2');
    await settle(1);
    const before = udpWraps();
    let source = 0;
    let count = 0;
    const ac = new AbortController();
    listener.on('message', (_m, rinfo) => {
      source = rinfo.port;
      count++;
      ac.abort();
    });
    try {
      // 250 hosts, 1.5 s between rounds, five retries and a slow rate: a minute of work without the abort.
      const hosts = ['127.0.8.2', ...range('127.0.8.', 10, 249)];
      const sweep = sweepSnmp(hosts, { communities: [{ id: 'p', version: 'v2c', community: 'public' }], port: listener.address().port,
        timeoutMs: 1500, retries: 5, rate: 0.05, signal: ac.signal });
      const found = await sweep;
      assert.equal(found.size, 0);
      // The descriptor is closed when the sweep resolves: its port can be bound again right away.
      const reuse = await bound('0.0.0.0', source);
      await closeAll(reuse);
      await settle(before);
      assert.equal(udpWraps(), before, 'the sweep socket is gone');
      const seen = count;
      await new Promise((r) => setTimeout(r, 300));
      assert.equal(count, seen, 'nothing sent after the abort');
      // Already aborted: nothing is sent, no socket opened.
      assert.equal((await sweepSnmp(['127.0.8.2'], { communities: [], signal: AbortSignal.abort() })).size, 0);
      assert.equal(count, seen);
    } finally {
      await closeAll(listener);
    }
  });

  test('200 addresses with three agents among them: each found once, with its credential; a limited sweep finds the same', async (t) => {
    const hosts = range('127.0.9.', 1, 200);
    const communities: SweepCommunity[] = [
      { id: 'wrong', version: 'v2c', community: 'not-this-one' },
      { id: 'a', version: 'v2c', community: COMMUNITY_A },
      { id: 'c', version: 'v2c', community: COMMUNITY_C },
    ];
    const expectFound = (found: Map<string, SweepAnswer>) => {
      assert.deepEqual([...found.keys()].sort(), [A, B, C].sort());
      assert.equal(found.get(A)!.credential, 'a');
      assert.equal(found.get(B)!.credential, null);
      assert.equal(found.get(C)!.credential, 'c');
      assert.equal(new Set([...found.values()].map((a) => a.engine?.id)).size, 3, 'three engines');
    };
    const stats = {} as SweepStats;
    const hostsSeen = new Set<string>();
    let started = performance.now();
    expectFound(await sweepSnmp(hosts, { communities, port, timeoutMs: 500, retries: 1, stats, onAnswer: (a) => hostsSeen.add(a.host) }));
    t.diagnostic(`200 hosts, 3 communities + engine probe, timeout 500 ms, 1 retry: ${Math.round(performance.now() - started)} ms, ` +
      `${stats.sent} packets sent, ${stats.received} received, ${stats.ignored} ignored`);
    assert.equal(stats.hosts, 200);
    assert.deepEqual([...hostsSeen].sort(), [A, B, C].sort());
    // 197 silent hosts get two rounds of four; the agents at most one round, and B (v3 only) its communities again.
    assert.ok(stats.sent >= 197 * 8 && stats.sent <= 197 * 8 + 3 * 4 + 3, `${stats.sent} packets`);

    const limited = {} as SweepStats;
    started = performance.now();
    expectFound(await sweepSnmp(hosts, { communities, port, timeoutMs: 150, retries: 0, concurrency: 16, rate: 0.5, stats: limited }));
    t.diagnostic(`the same, 16 hosts at a time, 0.5 packets/ms, timeout 150 ms, no retry: ${Math.round(performance.now() - started)} ms, ` +
      `${limited.sent} packets`);
  });

  test('IPv6 hosts go through a udp6 socket, IPv4 hosts of the same sweep through udp4', async (t) => {
    if (!ipv6) { t.skip('no IPv6 loopback here'); return; }
    const found = await sweepSnmp(['::1', A], { communities: [{ id: 'a', version: 'v2c', community: COMMUNITY_A },
      { id: 'c', version: 'v2c', community: COMMUNITY_C }], port, timeoutMs: 400 });
    assert.equal(found.get('::1')?.credential, 'c');
    assert.equal(found.get('::1')?.sys?.name, 'agent-c');
    assert.equal(found.get('::1')?.engine?.id, await engineIdOf(agentC));
    assert.equal(found.get(A)?.credential, 'a');
  });
});

describe('hostile input', () => {
  test('garbage, forged and misdirected datagrams are ignored; the real answer still counts', async () => {
    const agent = await bound('127.0.8.3');
    const elsewhere = await bound('127.0.8.4');
    const samePeerOtherPort = await bound('127.0.8.3');
    const noise = await bound('127.0.0.1');
    const agentPort = agent.address().port;
    const rand = (n: number) => Buffer.from(Array.from({ length: n }, () => Math.floor(Math.random() * 256)));
    let bad = 0;
    agent.on('message', (msg, rinfo) => {
      const req = decodeMessage(msg);
      if (!req || req.version === 3) return; // no SNMPv3 here
      const answer = (over: { requestId?: number; community?: string; version?: 0 | 1; descr?: string } = {}) =>
        encodeCommunityMessage(over.version ?? req.version, over.community ?? req.community, encodePdu({
          tag: TAG.Response, requestId: over.requestId ?? req.pdu.requestId,
          varbinds: [{ oid: '1.3.6.1.2.1.1.1.0', value: tlv(TAG.OctetString, Buffer.from(over.descr ?? 'the real one')) }],
        }));
      const real = answer();
      const send = (s: dgram.Socket, b: Buffer) => { bad++; s.send(b, rinfo.port, rinfo.address); };
      for (let i = 0; i < 20; i++) send(agent, rand(1 + Math.floor(Math.random() * 200)));
      send(agent, real.subarray(0, real.length - 3));
      send(agent, Buffer.concat([real, Buffer.from([0])]));
      send(agent, answer({ requestId: req.pdu.requestId ^ 0x10000, descr: 'unknown id' }));
      send(agent, answer({ community: 'forged', descr: 'wrong community' }));
      send(agent, answer({ version: req.version === 1 ? 0 : 1, descr: 'wrong version' }));
      send(agent, encodeDiscoveryRequest(req.pdu.requestId)); // a v3 message with that ID as its msgID
      send(elsewhere, answer({ descr: 'from another address' }));
      send(samePeerOtherPort, answer({ descr: 'from another port' }));
      for (let i = 0; i < 100; i++) send(noise, rand(1 + Math.floor(Math.random() * 500)));
      setTimeout(() => agent.send(real, rinfo.port, rinfo.address), 50);
    });
    try {
      const stats = {} as SweepStats;
      const found = await sweepSnmp(['127.0.8.3'], { communities: [{ id: 'ok', version: 'v2c', community: 'hostile-ok' }],
        port: agentPort, timeoutMs: 500, retries: 0, stats });
      assert.equal(found.get('127.0.8.3')?.credential, 'ok');
      assert.equal(found.get('127.0.8.3')?.sys?.descr, 'the real one');
      assert.ok(stats.ignored >= 1 && stats.ignored <= bad, `${stats.ignored} ignored of ${bad} bad`);
      assert.equal(stats.received - stats.ignored, 1, 'exactly one datagram used');
    } finally {
      await closeAll(agent, elsewhere, samePeerOtherPort, noise);
    }
  });

  test('an exception from onAnswer ends the sweep with it and closes the socket', async () => {
    const sim = await startSimulator([{ file: FIXTURE, community: 'public' }]);
    await settle(1);
    const before = udpWraps();
    try {
      const d = sim.devices[0]!;
      await assert.rejects(sweepSnmp([d.host], { communities: [{ id: 'p', version: 'v2c', community: 'public' }], port: d.port,
        timeoutMs: 300, onAnswer: () => { throw new Error('boom'); } }), /boom/);
      await settle(before);
      assert.equal(udpWraps(), before);
    } finally {
      await sim.stop();
    }
  });

  test('invalid arguments are TypeErrors that name the field, never the community', async () => {
    await assert.rejects(sweepSnmp(['sw1.example'], { communities: [] }), { name: 'TypeError', message: /hosts\[0\]/ });
    await assert.rejects(sweepSnmp(['127.0.8.5'], { communities: [{ id: 'x', version: 'v3' as 'v2c', community: 'top-secret' }] }),
      (e: Error) => e instanceof TypeError && /communities\[0\]\.version/.test(e.message) && !e.message.includes('top-secret'));
    await assert.rejects(sweepSnmp(['127.0.8.5'], { communities: [{ id: 'x', version: 'v2c', community: '' }] }), /communities\[0\]\.community/);
    await assert.rejects(sweepSnmp(['127.0.8.5'], { communities: [], port: 0 }), /port/);
  });
});
