// A simulated device's interfaces whose counters a test moves between polls: builds the snmprec text of
// sysUpTime, hrSystemUptime, ifTable and ifXTable for the UDP simulator (snmp-sim.ts) and, after each
// change, gives the attached recordings fresh sorted vars (the simulator serves a recording's current
// vars). Like net-snmp on Linux, the 32-bit counter columns are the 64-bit counters mod 2^32.
import { parseSnmprec, type Recording } from './snmprec.js';

export const COUNTERS = [
  'in_octets', 'out_octets', 'in_ucast', 'out_ucast', 'in_mcast', 'out_mcast', 'in_bcast', 'out_bcast',
  'in_errors', 'out_errors', 'in_discards', 'out_discards',
] as const;
export type Counter = (typeof COUNTERS)[number];

export interface SimIf extends Record<Counter, bigint> {
  index: number;
  name: string;
  descr: string;
  alias: string;
  type: number;
  /** Bits per second: ifSpeed (saturated at 2^32 - 1) and ifHighSpeed. */
  speed_bps: number;
  admin: number;
  oper: number;
  last_change: number;
  /** ifCounterDiscontinuityTime; null: the column is absent. */
  discontinuity: number | null;
  /** Whether the ifHC* columns exist for this interface. */
  hc: boolean;
}

export interface IfSimOptions {
  interfaces: (Partial<SimIf> & { index: number; name: string })[];
  /** TimeTicks; default 100000 (1000 s). */
  sys_uptime?: number;
  /** hrSystemUptime; null: the agent has no HOST-RESOURCES-MIB. Default 500000. */
  host_uptime?: number | null;
  /** Whether the agent has ifXTable at all (ifName, HC counters, ifHighSpeed ...). Default true. */
  ifx?: boolean;
}

const IF = '1.3.6.1.2.1.2.2.1';
const IFX = '1.3.6.1.2.1.31.1.1.1';
const hex = (s: string) => Buffer.from(s).toString('hex');
const u32 = (v: bigint) => BigInt.asUintN(32, v).toString();

export class IfSim {
  sys_uptime: number;
  host_uptime: number | null;
  readonly ifx: boolean;
  ifs: SimIf[];
  private readonly attached: Recording[] = [];

  constructor(opts: IfSimOptions) {
    this.sys_uptime = opts.sys_uptime ?? 100_000;
    this.host_uptime = opts.host_uptime === undefined ? 500_000 : opts.host_uptime;
    this.ifx = opts.ifx ?? true;
    this.ifs = opts.interfaces.map((i) => ({
      descr: i.name, alias: '', type: 6, speed_bps: 1e9, admin: 1, oper: 1, last_change: 0, discontinuity: 0, hc: true,
      ...Object.fromEntries(COUNTERS.map((c) => [c, 0n])) as Record<Counter, bigint>,
      ...i,
    }));
  }

  iface(index: number): SimIf {
    const i = this.ifs.find((x) => x.index === index);
    if (!i) throw new Error(`no simulated interface ${index}`);
    return i;
  }

  /** Adds to an interface's counters. */
  advance(index: number, by: Partial<Record<Counter, bigint | number>>): this {
    const i = this.iface(index);
    for (const [c, n] of Object.entries(by) as [Counter, bigint | number][]) i[c] += BigInt(n);
    return this;
  }

  /** Time passes on the agent: both uptimes move on by `ms`. */
  tick(ms: number): this {
    this.sys_uptime += Math.round(ms / 10);
    if (this.host_uptime !== null) this.host_uptime += Math.round(ms / 10);
    return this;
  }

  /** The snmprec text of the device as it is now. */
  text(): string {
    const lines = [`1.3.6.1.2.1.1.3.0|67|${this.sys_uptime}`];
    if (this.host_uptime !== null) lines.push(`1.3.6.1.2.1.25.1.1.0|67|${this.host_uptime}`);
    for (const i of this.ifs) {
      const n = i.index;
      const speed = Math.min(i.speed_bps, 4294967295);
      lines.push(
        `${IF}.1.${n}|2|${n}`, `${IF}.2.${n}|4x|${hex(i.descr)}`, `${IF}.3.${n}|2|${i.type}`, `${IF}.5.${n}|66|${speed}`,
        `${IF}.7.${n}|2|${i.admin}`, `${IF}.8.${n}|2|${i.oper}`, `${IF}.9.${n}|67|${i.last_change}`,
        `${IF}.10.${n}|65|${u32(i.in_octets)}`, `${IF}.11.${n}|65|${u32(i.in_ucast)}`, `${IF}.13.${n}|65|${u32(i.in_discards)}`,
        `${IF}.14.${n}|65|${u32(i.in_errors)}`, `${IF}.16.${n}|65|${u32(i.out_octets)}`, `${IF}.17.${n}|65|${u32(i.out_ucast)}`,
        `${IF}.19.${n}|65|${u32(i.out_discards)}`, `${IF}.20.${n}|65|${u32(i.out_errors)}`,
      );
      if (!this.ifx) continue;
      lines.push(
        `${IFX}.1.${n}|4x|${hex(i.name)}`, `${IFX}.2.${n}|65|${u32(i.in_mcast)}`, `${IFX}.3.${n}|65|${u32(i.in_bcast)}`,
        `${IFX}.4.${n}|65|${u32(i.out_mcast)}`, `${IFX}.5.${n}|65|${u32(i.out_bcast)}`,
        `${IFX}.15.${n}|66|${Math.round(i.speed_bps / 1e6)}`, `${IFX}.18.${n}|4x|${hex(i.alias)}`,
      );
      if (i.discontinuity !== null) lines.push(`${IFX}.19.${n}|67|${i.discontinuity}`);
      if (i.hc) {
        lines.push(
          `${IFX}.6.${n}|70|${i.in_octets}`, `${IFX}.7.${n}|70|${i.in_ucast}`, `${IFX}.8.${n}|70|${i.in_mcast}`,
          `${IFX}.9.${n}|70|${i.in_bcast}`, `${IFX}.10.${n}|70|${i.out_octets}`, `${IFX}.11.${n}|70|${i.out_ucast}`,
          `${IFX}.12.${n}|70|${i.out_mcast}`, `${IFX}.13.${n}|70|${i.out_bcast}`,
        );
      }
    }
    return lines.join('\n') + '\n';
  }

  /** Serves this device's changes through a simulator's recording (SimDevice.recording). */
  attach(rec: Recording): this {
    this.attached.push(rec);
    rec.vars = parseSnmprec(this.text(), rec.name).vars;
    return this;
  }

  /** Publishes the current state to every attached recording; call it after changing anything. */
  publish(): this {
    const { vars } = parseSnmprec(this.text());
    for (const rec of this.attached) rec.vars = vars;
    return this;
  }
}
