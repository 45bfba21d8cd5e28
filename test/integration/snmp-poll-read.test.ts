// One poll of a device's interfaces (polling/read.ts) over UDP on loopback: against the project's
// simulator with counters the test moves (test/helpers/if-sim.ts) over v2c and v1, in one request train
// far shorter than a walk per column; rates from two real polls (polling/rates.ts) through a 32-bit wrap
// and agent restarts; a renumbered ifIndex and net-snmp's leftover duplicate row through match.ts; a dead
// agent failing within its timeout, and an abort. Then Debian's snmpd: its loopback's 64-bit counters
// count bytes sent over lo, and a kept v3 session skips engine discovery at the next poll.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import dgram from 'node:dgram';
import { performance } from 'node:perf_hooks';
import { HttpError } from '../../src/core/errors.js';
import { createSnmpClient, openPollSession } from '../../src/modules/snmp/client.js';
import type { SnmpTarget } from '../../src/modules/snmp/contracts.js';
import { matchInterfaces, type KnownIf } from '../../src/modules/snmp/polling/match.js';
import { ifPoint } from '../../src/modules/snmp/polling/rates.js';
import { POLL_COLUMNS, readDevice } from '../../src/modules/snmp/polling/read.js';
import type { DeviceSample } from '../../src/modules/snmp/polling/types.js';
import { IfSim } from '../helpers/if-sim.js';
import { startSimulator, type SimDevice, type Simulator } from '../helpers/snmp-sim.js';
import { startSnmpd, type Snmpd } from '../helpers/snmpd.js';

const COMMUNITY = 'poll-read-community-7f3';
const W32 = 2n ** 32n;
const N = 48;

/** 48 ports: 1-46 1 Gbit/s with 64-bit counters, 47 a 10 Gbit/s uplink (ifSpeed saturates), 48 a 32-bit-only port. */
function switchSim(over: { host_uptime?: number | null } = {}): IfSim {
  return new IfSim({
    ...over,
    interfaces: Array.from({ length: N }, (_, k) => {
      const index = k + 1;
      return index === 47 ? { index, name: 'Te1/0/1', speed_bps: 10e9, alias: 'uplink' }
        : index === 48 ? { index, name: 'Fa0/48', speed_bps: 100e6, hc: false }
          : { index, name: `Gi1/0/${index}` };
    }),
  });
}

let sim: Simulator;
let ifsim: IfSim;
let dev: SimDevice;
const target = (version: 'v1' | 'v2c', over: Partial<SnmpTarget> = {}): SnmpTarget =>
  ({ host: dev.host, port: dev.port, version, community: COMMUNITY, timeout_ms: 1000, retries: 0, ...over });

before(async () => {
  // Room for several rows of 30 columns per answer, as agents allow on loopback (snmpd: 64 KiB).
  sim = await startSimulator([{ name: 'poll-sw', community: COMMUNITY, text: '' }], { maxResponseBytes: 16_000 });
  dev = sim.devices[0]!;
  ifsim = switchSim().attach(dev.recording);
});
after(async () => { await sim?.stop(); });

describe('reading a device (simulator)', () => {
  test('v2c: every interface in one request train, far fewer requests than a walk per column', async () => {
    ifsim.advance(1, { in_octets: 5n * 10n ** 12n, out_octets: 77n, in_ucast: 9n, in_errors: 3n, out_discards: 2n });
    ifsim.iface(48).in_octets = W32 - 5n; // its 32-bit column shows it as is
    ifsim.publish();
    const before = dev.requests;
    const s = await readDevice(target('v2c'));
    assert.equal(s.requests, dev.requests - before);
    assert.equal(s.interfaces.length, N);
    assert.equal(s.sys_uptime, ifsim.sys_uptime);
    assert.equal(s.host_uptime, ifsim.host_uptime);
    const [a] = s.interfaces;
    assert.deepEqual(a, {
      index: 1, name: 'Gi1/0/1', descr: 'Gi1/0/1', alias: '', type: 6, admin: 1, oper: 1, speed_bps: 1e9, last_change: 0,
      discontinuity: 0, hc: true, in_octets: 5n * 10n ** 12n, out_octets: 77n, in_ucast: 9n, out_ucast: 0n, in_mcast: 0n,
      out_mcast: 0n, in_bcast: 0n, out_bcast: 0n, in_errors: 3n, out_errors: 0n, in_discards: 0n, out_discards: 2n,
    });
    const up = s.interfaces[46]!;
    assert.deepEqual([up.name, up.alias, up.speed_bps], ['Te1/0/1', 'uplink', 10e9], 'ifHighSpeed when ifSpeed saturates');
    const fa = s.interfaces[47]!;
    assert.deepEqual([fa.hc, fa.in_octets, fa.speed_bps], [false, W32 - 5n, 100e6], '32-bit counters where no HC');

    // The same columns walked one by one, as the device cards' table and snmpbulkwalk per column do.
    const client = createSnmpClient();
    const walkStart = dev.requests;
    for (const col of Object.values(POLL_COLUMNS)) await client.walk(target('v2c'), [col], { max_repetitions: 10 });
    const perColumn = dev.requests - walkStart;
    assert.ok(s.requests * 5 <= perColumn, `train ${s.requests} requests, walk per column ${perColumn}`);
    assert.ok(s.requests <= 8, `48 interfaces x 30 columns at 10 rows per answer: ${s.requests} requests`);
  });

  test('answers cut to a small size still read every column (1,472-byte answers)', async () => {
    const small = await startSimulator([{ name: 'small', community: COMMUNITY, text: '' }]);
    try {
      const d = small.devices[0]!;
      switchSim().attach(d.recording);
      const s = await readDevice({ host: d.host, port: d.port, version: 'v2c', community: COMMUNITY, retries: 0 });
      assert.equal(s.interfaces.length, N);
      assert.ok(s.interfaces.every((i) => i.name && i.alias !== null && i.discontinuity === 0 && i.out_discards === 0n));
    } finally {
      await small.stop();
    }
  });

  test('an agent without ifXTable: 32-bit counters, ifDescr, ifSpeed, no hrSystemUptime', async () => {
    const own = await startSimulator([{ name: 'old', community: COMMUNITY, text: '' }]);
    try {
      const d = own.devices[0]!;
      const s = new IfSim({ ifx: false, host_uptime: null, interfaces: [{ index: 1, name: 'port1', speed_bps: 100e6 }] }).attach(d.recording);
      s.advance(1, { in_octets: W32 + 7n }).publish();
      const p = await readDevice({ host: d.host, port: d.port, version: 'v2c', community: COMMUNITY, retries: 0 });
      assert.equal(p.host_uptime, null);
      const [i] = p.interfaces;
      assert.deepEqual([i!.name, i!.descr, i!.hc, i!.in_octets, i!.speed_bps, i!.in_mcast, i!.discontinuity],
        [null, 'port1', false, 7n, 100e6, null, null]);
    } finally {
      await own.stop();
    }
  });

  test('v1: GETNEXT of all columns side by side, 32-bit counters only (v1 cannot carry Counter64)', async () => {
    const before = dev.requests;
    const s = await readDevice(target('v1'));
    assert.equal(s.interfaces.length, N);
    assert.ok(s.interfaces.every((i) => !i.hc), 'no HC counters over v1');
    assert.equal(s.interfaces[0]!.in_octets, (5n * 10n ** 12n) % W32);
    assert.equal(s.interfaces[46]!.speed_bps, 10e9);
    // One row per request: about one request per interface (plus the uptimes and the end), not per column.
    assert.equal(s.requests, dev.requests - before);
    assert.ok(s.requests <= N + 4, `${s.requests} requests`);
  });

  test('only the chosen interfaces', async () => {
    const s = await readDevice(target('v2c'), { indexes: [47, 2] });
    assert.deepEqual(s.interfaces.map((i) => i.index), [2, 47]);
  });

  test('rates from two polls: 64-bit, a 32-bit wrap, errors', async () => {
    const p0 = await readDevice(target('v2c'));
    ifsim.advance(2, { in_octets: 12_500_000n, out_ucast: 1000n, in_errors: 5n });
    ifsim.advance(48, { in_octets: 1000n }); // from 2^32 - 5: wraps
    ifsim.tick(1000).publish();
    await new Promise((r) => setTimeout(r, 200));
    const p1 = await readDevice(target('v2c'));
    const secs = (p1.t - p0.t) / 1000;
    const at = (s: DeviceSample, i: number) => s.interfaces.find((x) => x.index === i)!;
    const r2 = ifPoint(p0, at(p0, 2), p1, at(p1, 2), { interval_ms: 60_000 });
    assert.ok(Math.abs(r2.point.in_bps! * secs - 100e6) < 1, `${r2.point.in_bps} bit/s over ${secs} s`);
    assert.ok(Math.abs(r2.point.out_pps! * secs - 1000) < 1e-6);
    assert.ok(Math.abs(r2.point.in_errors_ps! * secs - 5) < 1e-6);
    const r48 = ifPoint(p0, at(p0, 48), p1, at(p1, 48), { interval_ms: 60_000 });
    assert.ok(Math.abs(r48.point.in_bps! * secs - 8000) < 1e-6, 'the wrap adds 2^32');
  });

  test('agent restart: counters kept with hrSystemUptime running; without it a decrease is a reset', async () => {
    const own = await startSimulator([{ name: 'restart', community: COMMUNITY, text: '' }]);
    try {
      const d = own.devices[0]!;
      const t = { host: d.host, port: d.port, version: 'v2c' as const, community: COMMUNITY, retries: 0 };
      for (const host of [true, false]) {
        const s = switchSim(host ? {} : { host_uptime: null }).attach(d.recording);
        s.advance(48, { in_octets: W32 - 100n }).publish();
        const p0 = await readDevice(t);
        s.sys_uptime = 200; // snmpd restarted; the kernel's counters went on (the 32-bit one wraps)
        if (s.host_uptime !== null) s.host_uptime += 6000;
        s.advance(48, { in_octets: 600n }).advance(1, { in_octets: 6000n }).publish();
        const p1 = await readDevice(t);
        assert.equal(p1.sys_uptime, 200);
        const r48 = ifPoint(p0, p0.interfaces[47]!, p1, p1.interfaces[47]!, { interval_ms: 60_000 });
        const r1 = ifPoint(p0, p0.interfaces[0]!, p1, p1.interfaces[0]!, { interval_ms: 60_000 });
        if (host) {
          assert.ok(r48.point.in_bps! > 0, 'a wrap, as without the restart');
        } else {
          assert.equal(r48.point.in_bps, null);
          assert.equal(r48.why.in_bps, 'reset');
        }
        assert.ok(r1.point.in_bps! > 0, 'an increase stays either way');
      }
    } finally {
      await own.stop();
    }
  });

  test('a renumbered ifIndex and a re-created interface\'s leftover row, through match.ts', async () => {
    const own = await startSimulator([{ name: 'renumber', community: COMMUNITY, text: '' }]);
    try {
      const d = own.devices[0]!;
      const t = { host: d.host, port: d.port, version: 'v2c' as const, community: COMMUNITY, retries: 0 };
      const s = new IfSim({ interfaces: [{ index: 1, name: 'lo', type: 24 }, { index: 2, name: 'eth0' }, { index: 3, name: 'eth1' }] })
        .attach(d.recording);
      const p0 = await readDevice(t);
      const known: KnownIf[] = p0.interfaces.map((i) => ({ key: `k-${i.name}`, index: i.index, name: i.name, descr: i.descr }));
      assert.deepEqual(matchInterfaces(known, p0.interfaces).matched.length, 3);

      // Reboot renumbering: eth0 and eth1 swap ifIndex.
      s.iface(2).index = 30;
      s.iface(3).index = 2;
      s.iface(30).index = 3;
      s.publish();
      const p1 = await readDevice(t);
      const m1 = matchInterfaces(known, p1.interfaces);
      assert.deepEqual(m1.renumbered.sort((a, b) => a.from - b.from), [
        { key: 'k-eth0', from: 2, to: 3 }, { key: 'k-eth1', from: 3, to: 2 },
      ]);
      assert.deepEqual([m1.added, m1.gone, m1.stale], [[], [], []]);
      // The renumbered row's counters are another row's: no rate across the change.
      const before = p0.interfaces.find((i) => i.name === 'eth0')!;
      const after = p1.interfaces.find((i) => i.name === 'eth0')!;
      assert.equal(ifPoint(p0, before, p1, after, { interval_ms: 60_000 }).why.in_bps, 'discontinuity');

      // eth1 deleted and re-created: net-snmp keeps the old row (down, same name) and numbers the new one higher.
      s.iface(2).oper = 2;
      s.ifs.push({ ...s.iface(2), index: 9, oper: 1, in_octets: 0n });
      s.publish();
      const p2 = await readDevice(t);
      assert.equal(p2.interfaces.filter((i) => i.name === 'eth1').length, 2);
      const known1: KnownIf[] = known.map((k) => ({ ...k, index: m1.matched.find((x) => x.key === k.key)!.index }));
      const m2 = matchInterfaces(known1, p2.interfaces);
      assert.deepEqual(m2.renumbered, [{ key: 'k-eth1', from: 2, to: 9 }]);
      assert.deepEqual([m2.stale, m2.added, m2.gone], [[2], [], []]);
    } finally {
      await own.stop();
    }
  });

  test('a dead agent fails within its timeout and retries; an abort stops a poll at once', async () => {
    const silent = dgram.createSocket('udp4');
    await new Promise<void>((r) => silent.bind(0, '127.0.0.1', r));
    try {
      const port = silent.address().port;
      const t0 = performance.now();
      await assert.rejects(readDevice({ host: '127.0.0.1', port, version: 'v2c', community: COMMUNITY, timeout_ms: 300, retries: 1 }),
        (e: unknown) => e instanceof HttpError && e.code === 'snmp_timeout');
      const took = performance.now() - t0;
      assert.ok(took >= 550 && took < 1100, `${took.toFixed(0)} ms for 2 x 300 ms`);

      const ac = new AbortController();
      const t1 = performance.now();
      const waiting = readDevice({ host: '127.0.0.1', port, version: 'v2c', community: COMMUNITY, timeout_ms: 30_000 }, { signal: ac.signal });
      setTimeout(() => ac.abort(new Error('poll cancelled')), 100);
      await assert.rejects(waiting, /poll cancelled/);
      assert.ok(performance.now() - t1 < 1000);
    } finally {
      silent.close();
    }
  });
});

describe('reading Debian\'s snmpd', () => {
  let agent: Snmpd;
  before(async () => { agent = await startSnmpd(); });
  after(async () => { await agent?.stop(); });
  const v2c = (): SnmpTarget => ({ host: agent.host, port: agent.port, version: 'v2c', community: agent.community });

  test('lo has 64-bit counters, and they count what was sent over it', async () => {
    const p0 = await readDevice(v2c());
    const lo0 = p0.interfaces.find((i) => i.name === 'lo');
    assert.ok(lo0, JSON.stringify(p0.interfaces.map((i) => i.name)));
    assert.equal(lo0.hc, true);
    assert.equal(lo0.type, 24);
    assert.ok(p0.host_uptime! > 0 && p0.sys_uptime! >= 0);
    assert.ok(p0.requests <= 4, `${p0.requests} requests for ${p0.interfaces.length} interfaces`);

    // 20 MB of UDP over lo, then past snmpd's 3-s interface cache.
    const sink = dgram.createSocket('udp4');
    const src = dgram.createSocket('udp4');
    await new Promise<void>((r) => sink.bind(0, '127.0.0.1', r));
    const chunk = Buffer.alloc(8000);
    let sent = 0;
    for (let i = 0; i < 2500; i++) {
      await new Promise<void>((r, j) => src.send(chunk, sink.address().port, '127.0.0.1', (e) => (e ? j(e) : r())));
      sent += chunk.length;
    }
    sink.close();
    src.close();
    await new Promise((r) => setTimeout(r, 3500));
    const p1 = await readDevice(v2c());
    const lo1 = p1.interfaces.find((i) => i.index === lo0.index)!;
    // Other traffic on lo (other tests) only adds; headers add 36 B per datagram.
    assert.ok(lo1.in_octets! - lo0.in_octets! >= BigInt(sent), `${lo1.in_octets! - lo0.in_octets!} < ${sent}`);
    const r = ifPoint(p0, lo0, p1, lo1, { interval_ms: 60_000 });
    assert.ok(r.point.in_bps! * ((p1.t - p0.t) / 1000) >= sent * 8, 'loopback\'s 10 Mbit/s does not bound its rate');
  });

  test('a kept v3 session discovers the engine once: the next poll sends fewer packets', async () => {
    const v3: SnmpTarget = { host: agent.host, port: agent.port, version: 'v3', v3: agent.users.authPriv };
    const client = createSnmpClient();
    const inPkts = async () => Number((await client.get(v2c(), ['1.3.6.1.2.1.11.1.0']))[0]!.value);
    const session = await openPollSession(v3);
    try {
      const a = await inPkts();
      const first = await readDevice(v3, { session });
      const b = await inPkts();
      const second = await readDevice(v3, { session });
      const c = await inPkts();
      assert.equal(first.requests, second.requests);
      assert.equal(first.interfaces.length, second.interfaces.length);
      assert.ok(second.interfaces.every((i) => i.hc));
      assert.ok(b - a > c - b, `first poll ${b - a} packets, second ${c - b}`);
      assert.equal(c - b, second.requests + 1, 'the second poll: its requests only (+1: the GET of snmpInPkts)');
      assert.ok(session.usable);
    } finally {
      session.close();
    }
  });
});
