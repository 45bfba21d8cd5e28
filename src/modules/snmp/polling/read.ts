// One poll of one device's interfaces (docs/snmp.md, "Interface polling"): sysUpTime and hrSystemUptime
// in one GET, then every ifTable/ifXTable column the rates need in ONE request train: each GETBULK (v2c,
// v3) or GETNEXT (v1) carries all the columns still inside their subtree, side by side, continuing from
// each column's last OID, so 48 interfaces x 30 columns take a few requests instead of a walk per column.
import { performance } from 'node:perf_hooks';
import { badResponse } from '../client/errors.js';
import { arcs, compareArcs, inSubtree } from '../client/oid.js';
import { resolveTarget } from '../client/target.js';
import { isException } from '../client/values.js';
import { openPollSession, type SnmpPollSession } from '../client.js';
import type { RawVarbind, SnmpTarget } from '../contracts.js';
import type { DeviceSample, IfSample } from './types.js';

const SYS_UPTIME = '1.3.6.1.2.1.1.3.0';
const HR_SYSTEM_UPTIME = '1.3.6.1.2.1.25.1.1.0';
const IF = '1.3.6.1.2.1.2.2.1.';
const IFX = '1.3.6.1.2.1.31.1.1.1.';

/** The columns a poll reads. `hc`: Counter64, which SNMPv1 cannot carry (RFC 3584), so v1 skips them. */
export const POLL_COLUMNS = {
  ifDescr: IF + 2, ifType: IF + 3, ifSpeed: IF + 5, ifAdminStatus: IF + 7, ifOperStatus: IF + 8, ifLastChange: IF + 9,
  ifInOctets: IF + 10, ifInUcastPkts: IF + 11, ifInDiscards: IF + 13, ifInErrors: IF + 14,
  ifOutOctets: IF + 16, ifOutUcastPkts: IF + 17, ifOutDiscards: IF + 19, ifOutErrors: IF + 20,
  ifName: IFX + 1, ifInMulticastPkts: IFX + 2, ifInBroadcastPkts: IFX + 3, ifOutMulticastPkts: IFX + 4,
  ifOutBroadcastPkts: IFX + 5, ifHCInOctets: IFX + 6, ifHCInUcastPkts: IFX + 7, ifHCInMulticastPkts: IFX + 8,
  ifHCInBroadcastPkts: IFX + 9, ifHCOutOctets: IFX + 10, ifHCOutUcastPkts: IFX + 11, ifHCOutMulticastPkts: IFX + 12,
  ifHCOutBroadcastPkts: IFX + 13, ifHighSpeed: IFX + 15, ifAlias: IFX + 18, ifCounterDiscontinuityTime: IFX + 19,
} as const;
type Column = keyof typeof POLL_COLUMNS;
const COLUMNS = Object.keys(POLL_COLUMNS) as Column[];
const isHcColumn = (c: Column) => c.startsWith('ifHC');

export interface ReadOptions {
  /** Only these ifIndexes in the sample (the columns are still walked whole: one train either way). */
  indexes?: number[];
  signal?: AbortSignal;
  /** GETBULK max-repetitions: rows per request, each row one varbind per column (default 10). */
  max_repetitions?: number;
  /** A session kept open between polls (v3 discovers the engine once); default: one for this poll only. */
  session?: SnmpPollSession;
}

/** Varbinds a train may read before it is refused (a runaway agent): 30 columns x 5,000 interfaces. */
const MAX_VARBINDS = 150_000;
/** ifSpeed's maximum: the speed is above it and ifHighSpeed (Mbit/s) says what it is (RFC 2863). */
const SPEED_SATURATED = 4294967295;

type Table = Map<Column, Map<number, RawVarbind>>;

/** Walks every column side by side until each has left its subtree; returns the values by column and ifIndex. */
async function train(s: SnmpPollSession, target: SnmpTarget, columns: Column[], reps: number, signal?: AbortSignal): Promise<Table> {
  const table: Table = new Map(columns.map((c) => [c, new Map()]));
  // Per active column: its root arcs and the last OID read (the cursor the next request continues from).
  let active = columns.map((c) => ({ c, root: arcs(POLL_COLUMNS[c]), cursor: POLL_COLUMNS[c], last: arcs(POLL_COLUMNS[c]) }));
  let read = 0;
  while (active.length) {
    const oids = active.map((a) => a.cursor);
    const rows = s.version === 'v1'
      ? (await s.getNext(oids, signal)).map((vb) => [vb])
      : await s.getBulk(oids, reps, signal);
    let progressed = false;
    active = active.filter((a, i) => {
      for (const vb of rows[i] ?? []) {
        const at = arcs(vb.oid);
        if (isException(vb.type) || !inSubtree(a.root, at)) return false;
        if (compareArcs(at, a.last) <= 0) {
          throw badResponse(resolveTarget(target), `OID not increasing: ${vb.oid} came after ${a.cursor} (the poll was stopped)`);
        }
        if (++read > MAX_VARBINDS) throw badResponse(resolveTarget(target), `more than ${MAX_VARBINDS} interface variables`);
        // ifTable/ifXTable are indexed by ifIndex alone: one arc below the column.
        if (at.length === a.root.length + 1) table.get(a.c)!.set(at[at.length - 1]!, vb);
        a.last = at;
        a.cursor = vb.oid;
        progressed = true;
      }
      return true;
    });
    // An answer that moved no column forward would repeat forever.
    if (active.length && !progressed) throw badResponse(resolveTarget(target), 'a GETBULK answer without varbinds');
  }
  return table;
}

const num = (vb: RawVarbind | undefined) => (typeof vb?.value === 'number' ? vb.value : null);
const big = (vb: RawVarbind | undefined) =>
  (vb && (typeof vb.value === 'number' || (typeof vb.value === 'string' && /^\d+$/.test(vb.value))) ? BigInt(vb.value) : null);
const text = (vb: RawVarbind | undefined) => {
  if (vb?.type !== 'OctetString' || typeof vb.value !== 'string') return null;
  return vb.hex ? Buffer.from(vb.value, 'hex').toString('latin1') : vb.value;
};

/** One interface from the table: 64-bit counters when the agent has both HC octet columns for it. */
function ifSample(table: Table, index: number): IfSample {
  const at = (c: Column) => table.get(c)?.get(index);
  const hc = big(at('ifHCInOctets')) !== null && big(at('ifHCOutOctets')) !== null;
  // Octets and packets from the same width, so one wrap rule fits each; a missing HC packet column is
  // missing (null), not its 32-bit twin, which would wrap where a 64-bit counter is taken to reset.
  const pick = (hcCol: Column, c32: Column) => big(at(hc ? hcCol : c32));
  const speed = num(at('ifSpeed'));
  const high = num(at('ifHighSpeed'));
  const speedBps = (speed === null || speed === SPEED_SATURATED) && high !== null ? high * 1e6 : speed;
  return {
    index,
    name: text(at('ifName')),
    descr: text(at('ifDescr')),
    alias: text(at('ifAlias')),
    type: num(at('ifType')),
    admin: num(at('ifAdminStatus')),
    oper: num(at('ifOperStatus')),
    speed_bps: speedBps,
    last_change: num(at('ifLastChange')),
    discontinuity: num(at('ifCounterDiscontinuityTime')),
    hc,
    in_octets: pick('ifHCInOctets', 'ifInOctets'),
    out_octets: pick('ifHCOutOctets', 'ifOutOctets'),
    in_ucast: pick('ifHCInUcastPkts', 'ifInUcastPkts'),
    out_ucast: pick('ifHCOutUcastPkts', 'ifOutUcastPkts'),
    in_mcast: pick('ifHCInMulticastPkts', 'ifInMulticastPkts'),
    out_mcast: pick('ifHCOutMulticastPkts', 'ifOutMulticastPkts'),
    in_bcast: pick('ifHCInBroadcastPkts', 'ifInBroadcastPkts'),
    out_bcast: pick('ifHCOutBroadcastPkts', 'ifOutBroadcastPkts'),
    in_errors: big(at('ifInErrors')),
    out_errors: big(at('ifOutErrors')),
    in_discards: big(at('ifInDiscards')),
    out_discards: big(at('ifOutDiscards')),
  };
}

/**
 * Reads one device. Failures are the client's HttpErrors (snmp_timeout after the target's timeout and
 * retries per request, snmp_bad_community ...); an abort rejects with the signal's reason.
 */
export async function readDevice(target: SnmpTarget, opts: ReadOptions = {}): Promise<DeviceSample> {
  const started = performance.now();
  const s = opts.session ?? await openPollSession(target, opts.signal);
  const before = s.requests;
  try {
    const [up, host] = await s.get([SYS_UPTIME, HR_SYSTEM_UPTIME], opts.signal);
    const t = Date.now();
    const columns = s.version === 'v1' ? COLUMNS.filter((c) => !isHcColumn(c)) : COLUMNS;
    const table = await train(s, target, columns, opts.max_repetitions ?? 10, opts.signal);
    const indexes = new Set<number>();
    for (const col of table.values()) for (const i of col.keys()) indexes.add(i);
    const wanted = opts.indexes ? new Set(opts.indexes) : undefined;
    const interfaces = [...indexes].filter((i) => !wanted || wanted.has(i)).sort((a, b) => a - b).map((i) => ifSample(table, i));
    return {
      t, sys_uptime: up?.type === 'TimeTicks' ? num(up) : null, host_uptime: host?.type === 'TimeTicks' ? num(host) : null,
      interfaces, requests: s.requests - before, elapsed_ms: performance.now() - started,
    };
  } finally {
    if (!opts.session) s.close();
  }
}
