// Rates from two polls of an interface (polling/rates.ts): 32-bit wraps taken once and only when the link
// could carry them, 64-bit decreases as resets, an agent restart with and without hrSystemUptime (the
// notes' net-snmp facts: only the host's uptime going back resets counters), ifCounterDiscontinuityTime,
// gaps for missed polls, rates above the link speed, 32- and 64-bit interfaces side by side, utilisation.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { counterDelta, ifPoint, RATE_FIELDS, utilisation, type RatedPoint } from '../../src/modules/snmp/polling/rates.js';
import type { DeviceSample, IfSample } from '../../src/modules/snmp/polling/types.js';

const MIN = 60_000;
const W32 = 2n ** 32n;

function iface(over: Partial<IfSample> = {}): IfSample {
  return {
    index: 2, name: 'eth0', descr: 'eth0', alias: null, type: 6, admin: 1, oper: 1, speed_bps: 1e9, last_change: 0,
    discontinuity: 0, hc: true, in_octets: 0n, out_octets: 0n, in_ucast: 0n, out_ucast: 0n, in_mcast: 0n, out_mcast: 0n,
    in_bcast: 0n, out_bcast: 0n, in_errors: 0n, out_errors: 0n, in_discards: 0n, out_discards: 0n, ...over,
  };
}

function device(t: number, over: Partial<DeviceSample> = {}): DeviceSample {
  return { t, sys_uptime: 100_000 + t / 10, host_uptime: 500_000 + t / 10, interfaces: [], requests: 3, elapsed_ms: 5, ...over };
}

/** Rates between a poll at 0 and one `ms` later. */
function rate(prev: Partial<IfSample>, cur: Partial<IfSample>, opts: { ms?: number; d0?: Partial<DeviceSample>; d1?: Partial<DeviceSample>;
  interval_ms?: number; ceiling_bps?: number } = {}): RatedPoint {
  const ms = opts.ms ?? MIN;
  return ifPoint(device(0, opts.d0), iface(prev), device(ms, opts.d1), iface(cur),
    { interval_ms: opts.interval_ms ?? MIN, ceiling_bps: opts.ceiling_bps });
}

const allNull = (r: RatedPoint, reason: string) => {
  for (const f of RATE_FIELDS) {
    assert.equal(r.point[f], null, f);
    assert.equal(r.why[f], reason, f);
  }
};

describe('interface rates', () => {
  test('the first poll has no rates, and says so; status and speed are there', () => {
    const r = ifPoint(null, null, device(MIN), iface({ oper: 2 }), { interval_ms: MIN });
    allNull(r, 'first');
    assert.equal(r.point.up, false);
    assert.equal(r.point.speed_bps, 1e9);
    assert.equal(r.point.t, MIN);
  });

  test('64-bit counters: bits and packets per second over the real interval; pps adds unicast, multicast and broadcast', () => {
    const r = rate(
      { in_octets: 10n ** 12n, out_octets: 5n, in_ucast: 100n, in_mcast: 10n, in_bcast: 1n, in_errors: 7n, out_discards: 1n },
      { in_octets: 10n ** 12n + 750_000_000n, out_octets: 5n + 1_500_000n, in_ucast: 6100n, in_mcast: 610n, in_bcast: 61n,
        in_errors: 67n, out_discards: 121n },
      { ms: 60_000 },
    );
    assert.deepEqual(r.why, {});
    assert.equal(r.point.in_bps, 100e6);
    assert.equal(r.point.out_bps, 200e3);
    assert.equal(r.point.in_pps, (6000 + 600 + 60) / 60);
    assert.equal(r.point.out_pps, 0);
    assert.equal(r.point.in_errors_ps, 1);
    assert.equal(r.point.out_discards_ps, 2);
    assert.equal(r.point.up, true);
  });

  test('the interval is the time between the polls, not the schedule', () => {
    const r = rate({ in_octets: 0n }, { in_octets: 9_000_000n }, { ms: 90_000 });
    assert.equal(r.point.in_bps, 800e3);
  });

  test('a 32-bit counter that wrapped once: 2^32 added', () => {
    const r = rate({ hc: false, in_octets: W32 - 1000n, in_errors: W32 - 2n }, { hc: false, in_octets: 5000n, in_errors: 4n });
    assert.equal(r.point.in_bps, (6000 * 8) / 60);
    assert.equal(r.point.in_errors_ps, 6 / 60);
  });

  test('a 32-bit decrease the link could not carry as a wrap is a reset, not a spike', () => {
    // 10 Mbit/s for 60 s is 75 MB; the wrap would mean 3.3 GB.
    const r = rate({ hc: false, speed_bps: 10e6, in_octets: 1_000_000_000n }, { hc: false, speed_bps: 10e6, in_octets: 1000n });
    assert.equal(r.point.in_bps, null);
    assert.equal(r.why.in_bps, 'reset');
    assert.equal(r.point.out_bps, 0);
  });

  test('unknown speed: the ceiling bounds wraps and rates', () => {
    const prev = { hc: false, speed_bps: null, in_octets: 3_000_000_000n, out_octets: 0n };
    const cur = { hc: false, speed_bps: null, in_octets: 1_000_000n, out_octets: 4_000_000_000n };
    const low = rate(prev, cur, { ceiling_bps: 100e6 });
    assert.equal(low.why.in_bps, 'reset');
    assert.equal(low.why.out_bps, 'over_speed');
    const high = rate(prev, cur); // 100 Gbit/s by default
    assert.equal(high.point.in_bps, Number(W32 - 3_000_000_000n + 1_000_000n) * 8 / 60);
    assert.equal(high.point.out_bps, 4e9 * 8 / 60);
  });

  test('a 64-bit counter that went down was reset: no rate', () => {
    const r = rate({ in_octets: 10n ** 10n, out_octets: 10n }, { in_octets: 5000n, out_octets: 70n });
    assert.equal(r.why.in_bps, 'reset');
    assert.equal(r.point.in_bps, null);
    assert.equal(r.point.out_bps, 8);
  });

  test('32- and 64-bit interfaces of one device each get their own rule', () => {
    const d0 = device(0);
    const d1 = device(MIN);
    const old32 = iface({ index: 1, hc: false, in_octets: W32 - 10n });
    const old64 = iface({ index: 2, hc: true, in_octets: W32 - 10n });
    const r32 = ifPoint(d0, old32, d1, { ...old32, in_octets: 50n }, { interval_ms: MIN });
    const r64 = ifPoint(d0, old64, d1, { ...old64, in_octets: 50n }, { interval_ms: MIN });
    assert.equal(r32.point.in_bps, 8);
    assert.equal(r64.point.in_bps, null);
    assert.equal(r64.why.in_bps, 'reset');
  });

  test('agent restart (sysUpTime back) while the host kept running: counters continue, rates stay', () => {
    const d0 = { sys_uptime: 9889, host_uptime: 385_994 };
    const d1 = { sys_uptime: 200, host_uptime: 391_994 };
    const r = rate({ hc: false, in_octets: W32 - 100n, out_octets: 1000n }, { hc: false, in_octets: 500n, out_octets: 61_000n }, { d0, d1 });
    assert.equal(r.point.in_bps, 600 * 8 / 60, 'still a wrap');
    assert.equal(r.point.out_bps, 8000);
  });

  test('agent restart without hrSystemUptime: a decrease is a reset (not a wrap), a plausible increase stays', () => {
    const d0 = { sys_uptime: 9889, host_uptime: null };
    const d1 = { sys_uptime: 200, host_uptime: null };
    const r = rate({ hc: false, in_octets: W32 - 100n, out_octets: 1000n, in_errors: 50n },
      { hc: false, in_octets: 500n, out_octets: 61_000n, in_errors: 2n }, { d0, d1 });
    assert.equal(r.why.in_bps, 'reset');
    assert.equal(r.why.in_errors_ps, 'reset');
    assert.equal(r.point.out_bps, 8000);
    // Without the restart the same decrease is a wrap.
    const plain = rate({ hc: false, in_octets: W32 - 100n }, { hc: false, in_octets: 500n }, { d0: { host_uptime: null }, d1: { host_uptime: null } });
    assert.equal(plain.point.in_bps, 80);
  });

  test('host reboot (hrSystemUptime back): every counter is a reset, even those that went up', () => {
    const r = rate({ in_octets: 100n }, { in_octets: 10_000n }, { d0: { sys_uptime: 90_000, host_uptime: 900_000 },
      d1: { sys_uptime: 3000, host_uptime: 3000 } });
    allNull(r, 'reset');
    assert.equal(r.point.up, true);
  });

  test('ifCounterDiscontinuityTime changed: no rates; the same non-zero value: rates', () => {
    allNull(rate({ discontinuity: 0, in_octets: 0n }, { discontinuity: 4711, in_octets: 10n }), 'discontinuity');
    const same = rate({ discontinuity: 4711, in_octets: 0n }, { discontinuity: 4711, in_octets: 60n });
    assert.equal(same.point.in_bps, 8);
  });

  test('another row or another counter width is a discontinuity', () => {
    allNull(rate({ index: 2 }, { index: 7 }), 'discontinuity');
    allNull(rate({ hc: false }, { hc: true }), 'discontinuity');
  });

  test('missed polls are a gap, not a long interval; a little lateness is not', () => {
    allNull(rate({}, { in_octets: 1000n }, { ms: 200_000 }), 'gap');
    allNull(rate({}, { in_octets: 1000n }, { ms: 0 }), 'gap');
    assert.equal(rate({}, { in_octets: 1500n }, { ms: 120_000 }).point.in_bps, 100);
    assert.equal(rate({}, { in_octets: 1000n }, { ms: 600_000, interval_ms: 300_000 }).why.in_bps, undefined);
  });

  test('above the link speed is no rate; the 3-s cache\'s jitter is allowed', () => {
    const fast = rate({ speed_bps: 100e6 }, { speed_bps: 100e6, in_octets: 15_000_000_000n });
    assert.equal(fast.point.in_bps, null);
    assert.equal(fast.why.in_bps, 'over_speed');
    const full = rate({ speed_bps: 100e6 }, { speed_bps: 100e6, in_octets: 780_000_000n }); // 104 Mbit/s
    assert.equal(full.point.in_bps, 104e6);
    const pps = rate({ speed_bps: 10e6 }, { speed_bps: 10e6, in_ucast: 10_000_000n });
    assert.equal(pps.why.in_pps, 'over_speed');
  });

  test('loopback\'s made-up speed (net-snmp: 10 Mbit/s) does not bound its rates', () => {
    const r = rate({ type: 24, speed_bps: 10e6 }, { type: 24, speed_bps: 10e6, in_octets: 7_500_000_000n });
    assert.equal(r.point.in_bps, 1e9);
  });

  test('a column the agent lacks gives no rate; missing multicast and broadcast leave unicast', () => {
    const r = rate({ in_octets: null, in_mcast: null, in_bcast: null, in_ucast: 0n, out_ucast: null },
      { in_octets: 100n, in_mcast: null, in_bcast: null, in_ucast: 600n, out_ucast: 5n });
    assert.equal(r.why.in_bps, 'missing');
    assert.equal(r.point.in_pps, 10);
    assert.equal(r.why.out_pps, 'missing');
  });

  test('counterDelta on its own', () => {
    assert.equal(counterDelta(5n, 9n, true, 1), 4n);
    assert.equal(counterDelta(9n, 5n, true, 1e12), 'reset');
    assert.equal(counterDelta(W32 - 1n, 1n, false, 2), 2n);
    assert.equal(counterDelta(W32 - 1n, 1n, false, 1), 'reset');
    assert.equal(counterDelta(W32 - 1n, 1n, false, 100, true), 'reset');
    assert.equal(counterDelta(null, 1n, false, 100), 'missing');
  });

  test('utilisation in percent of the link speed', () => {
    assert.equal(utilisation(250e6, 1e9), 25);
    assert.equal(utilisation(null, 1e9), null);
    assert.equal(utilisation(1e6, null), null);
    assert.equal(utilisation(1e6, 0), null);
  });
});
