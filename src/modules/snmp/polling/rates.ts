// Rates from two polls of one interface (docs/snmp.md, "Interface polling"). A rate that cannot be known
// is null with a reason, so the graphs show a gap and say why, never a zero or a spike. The rules follow
// what was measured on net-snmp (../shared/notes/snmp-over-time.md):
//  - Counter64 never wraps in practice (467 years at 10 Gbit/s): a decrease is a reset.
//  - Counter32 wraps at 2^32; a decrease counts as one wrap only when the wrapped delta is a rate the
//    link can carry (MRTG and rrdtool's COUNTER add 2^32 once; LibreNMS billing drops a jump the link
//    can't carry). Otherwise it is a reset.
//  - sysUpTime going back is an agent restart, which on Linux leaves the kernel's counters running
//    (a restarted snmpd kept ifHCInOctets counting); hrSystemUptime going back is a host reboot, which
//    resets them. So: host uptime back -> every counter is a reset. Agent restart while host uptime
//    continued -> the usual rules. Agent restart without host uptime (no HOST-RESOURCES-MIB, as on many
//    switches) -> whether counters reset is unknown: a decrease is a reset (not a wrap), an increase is
//    kept when the link could carry it. Neither case can make a spike: a kept delta is always bounded.
//  - ifCounterDiscontinuityTime changed, or the row or counter width changed -> discontinuity.
//  - An interval longer than gap_factor x the poll interval is a gap: missed polls stay missing, they
//    are not spread over one long interval.
import type { DeviceSample, IfPoint, IfSample } from './types.js';

export type NullReason = 'first' | 'reset' | 'discontinuity' | 'gap' | 'over_speed' | 'missing';
export type RateField =
  'in_bps' | 'out_bps' | 'in_pps' | 'out_pps' | 'in_errors_ps' | 'out_errors_ps' | 'in_discards_ps' | 'out_discards_ps';
export const RATE_FIELDS: readonly RateField[] = [
  'in_bps', 'out_bps', 'in_pps', 'out_pps', 'in_errors_ps', 'out_errors_ps', 'in_discards_ps', 'out_discards_ps',
];

/** An IfPoint with the reason for each rate that is null. */
export interface RatedPoint {
  point: IfPoint;
  why: Partial<Record<RateField, NullReason>>;
}

export interface RateOptions {
  /** The device's poll interval, ms (60,000 or 300,000). */
  interval_ms: number;
  /** An interval above gap_factor x interval_ms is a gap (default 2.5: one missed poll and some lateness). */
  gap_factor?: number;
  /** Bits per second no interface of unknown speed exceeds (default 100 Gbit/s, LibreNMS's RRD maximum). */
  ceiling_bps?: number;
}

export const RATE_DEFAULTS = { gap_factor: 2.5, ceiling_bps: 100e9 } as const;

const WRAP32 = 2n ** 32n;
/** net-snmp refreshes interface counters every 3 s: each end of an interval may be that old. */
const AGENT_CACHE_MS = 3000;
/** The smallest Ethernet frame: bounds packets (and errors, discards) per second from bits per second. */
const MIN_FRAME_BYTES = 64;
/** IANAifType softwareLoopback: its ifSpeed is made up (net-snmp says 10 Mbit/s for lo). */
const SOFTWARE_LOOPBACK = 24;

/** The speed the bounds use: the interface's, unless it is unknown (0) or made up (loopback). */
function boundSpeed(i: IfSample, ceiling: number): number {
  return i.speed_bps && i.speed_bps > 0 && i.type !== SOFTWARE_LOOPBACK ? i.speed_bps : ceiling;
}

/**
 * The increase of one counter over an interval, or why there is none. `maxDelta` is the most the link
 * could count in the interval; `wide` is Counter64; `restartUnknown`: the agent restarted and nothing
 * says whether its counters did (then a decrease is a reset, not a wrap).
 */
export function counterDelta(prev: bigint | null, cur: bigint | null, wide: boolean, maxDelta: number,
  restartUnknown = false): bigint | NullReason {
  if (prev === null || cur === null) return 'missing';
  if (cur >= prev) return cur - prev;
  if (wide || restartUnknown) return 'reset';
  const wrapped = cur + WRAP32 - prev;
  return Number(wrapped) <= maxDelta ? wrapped : 'reset';
}

/** Utilisation of the link in percent; null without a rate or a known speed. */
export function utilisation(bps: number | null, speedBps: number | null): number | null {
  if (bps === null || speedBps === null || !(speedBps > 0)) return null;
  return (bps / speedBps) * 100;
}

/** Rates of one interface between two polls; `prev` null (or its interface null) is the first poll. */
export function ifPoint(prev: DeviceSample | null, prevIf: IfSample | null, cur: DeviceSample, curIf: IfSample,
  opts: RateOptions): RatedPoint {
  const point: IfPoint = {
    t: cur.t, in_bps: null, out_bps: null, in_pps: null, out_pps: null, in_errors_ps: null, out_errors_ps: null,
    in_discards_ps: null, out_discards_ps: null, up: curIf.oper === null ? null : curIf.oper === 1, speed_bps: curIf.speed_bps,
  };
  const why: RatedPoint['why'] = {};
  const all = (reason: NullReason): RatedPoint => {
    for (const f of RATE_FIELDS) why[f] = reason;
    return { point, why };
  };
  if (!prev || !prevIf) return all('first');
  const ms = cur.t - prev.t;
  if (!(ms > 0) || ms > (opts.gap_factor ?? RATE_DEFAULTS.gap_factor) * opts.interval_ms) return all('gap');
  const back = (a: number | null, b: number | null) => a !== null && b !== null && b < a;
  if (back(prev.host_uptime, cur.host_uptime)) return all('reset');
  if (prevIf.index !== curIf.index || prevIf.hc !== curIf.hc) return all('discontinuity');
  if (prevIf.discontinuity !== null && curIf.discontinuity !== null && prevIf.discontinuity !== curIf.discontinuity) {
    return all('discontinuity');
  }
  const restartUnknown = back(prev.sys_uptime, cur.sys_uptime) && (prev.host_uptime === null || cur.host_uptime === null);

  const s = ms / 1000;
  // Each end may be up to one cache period old, so a full link can look a little faster than it is.
  const allowance = 1.05 + AGENT_CACHE_MS / ms;
  const maxBytesPs = (boundSpeed(curIf, opts.ceiling_bps ?? RATE_DEFAULTS.ceiling_bps) / 8) * allowance;
  const maxPktsPs = maxBytesPs / MIN_FRAME_BYTES;

  const rate = (field: RateField, deltas: (bigint | NullReason)[], perS: number, scale: number): void => {
    // The first counter is the one that must be there; the others (multicast, broadcast) add when read.
    const [main, ...extra] = deltas;
    if (typeof main === 'string') { why[field] = main; return; }
    let sum = main!;
    for (const d of extra) {
      if (d === 'missing') continue;
      if (typeof d === 'string') { why[field] = d; return; }
      sum += d;
    }
    const r = Number(sum) / s;
    if (r > perS) { why[field] = 'over_speed'; return; }
    point[field] = r * scale;
  };
  const wide = curIf.hc;
  const d = (p: bigint | null, c: bigint | null, perS: number, w = wide) => counterDelta(p, c, w, perS * s, restartUnknown);
  rate('in_bps', [d(prevIf.in_octets, curIf.in_octets, maxBytesPs)], maxBytesPs, 8);
  rate('out_bps', [d(prevIf.out_octets, curIf.out_octets, maxBytesPs)], maxBytesPs, 8);
  rate('in_pps', [d(prevIf.in_ucast, curIf.in_ucast, maxPktsPs), d(prevIf.in_mcast, curIf.in_mcast, maxPktsPs),
    d(prevIf.in_bcast, curIf.in_bcast, maxPktsPs)], maxPktsPs, 1);
  rate('out_pps', [d(prevIf.out_ucast, curIf.out_ucast, maxPktsPs), d(prevIf.out_mcast, curIf.out_mcast, maxPktsPs),
    d(prevIf.out_bcast, curIf.out_bcast, maxPktsPs)], maxPktsPs, 1);
  // IF-MIB has no 64-bit error or discard counters: these always wrap at 2^32.
  rate('in_errors_ps', [d(prevIf.in_errors, curIf.in_errors, maxPktsPs, false)], maxPktsPs, 1);
  rate('out_errors_ps', [d(prevIf.out_errors, curIf.out_errors, maxPktsPs, false)], maxPktsPs, 1);
  rate('in_discards_ps', [d(prevIf.in_discards, curIf.in_discards, maxPktsPs, false)], maxPktsPs, 1);
  rate('out_discards_ps', [d(prevIf.out_discards, curIf.out_discards, maxPktsPs, false)], maxPktsPs, 1);
  return { point, why };
}
