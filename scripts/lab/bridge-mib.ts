// BRIDGE-MIB for a lab switch, which Debian's snmpd does not serve for a Linux bridge: an snmpd
// `pass_persist` program (snmpd.conf: `pass_persist .1.3.6.1.2.1.17 <this>`) answering from the
// bridge's real state, read again for any request that comes more than REFRESH_MS after the last read
// (so one walk sees one table, and the next walk sees what the bridge has learned since):
//   dot1dBaseBridgeAddress .1.1.0   the bridge's MAC (/sys/class/net/<br>/address)
//   dot1dBaseNumPorts      .1.2.0   its ports (/sys/class/net/<br>/brif)
//   dot1dBaseType          .1.3.0   2, transparent-only
//   dot1dBasePortTable     .1.4.1.{1 Port, 2 IfIndex}[port]   the kernel's bridge port number
//                                   (brport/port_no) and the port's ifIndex, which differ, as on real switches
//   dot1dTpAgingTime       .4.2.0   the bridge's ageing time in seconds
//   dot1dTpFdbTable        .4.3.1.{1 Address, 2 Port, 3 Status}[MAC as 6 decimals]   `bridge -j fdb show br
//                                   <br>`: unicast entries on the bridge's ports; status 3 learned, 4 self
//                                   (the kernel's "permanent" entries: the ports' own addresses)
// The protocol (snmpd.conf(5), "pass_persist"): snmpd writes "PING" and wants "PONG"; "get" or "getnext"
// then an OID line, answered by OID, type and value lines, or "NONE"; "set" then two lines, answered
// "not-writable". It ends when snmpd closes its input.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { delimiter, join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import type { Readable, Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';

export const ROOT = [1, 3, 6, 1, 2, 1, 17];
const REFRESH_MS = 500;
const STATUS = { learned: 3, self: 4 } as const;

export interface BridgePort { name: string; portNo: number; ifIndex: number }
/** One row of `bridge -j fdb show`, the fields this reads. */
export interface FdbEntry { mac: string; ifname: string; master?: string; state?: string; flags?: string[]; vlan?: number }
export interface BridgeState { name: string; address: string; agingSeconds: number; ports: BridgePort[]; fdb: FdbEntry[] }

export type PassType = 'integer' | 'octet' | 'string' | 'gauge' | 'counter' | 'timeticks' | 'objectid';
export interface MibVar { oid: number[]; type: PassType; value: string }

export function compareOids(a: readonly number[], b: readonly number[]): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return a[i]! - b[i]!;
  return a.length - b.length;
}

const macBytes = (mac: string) => mac.split(':').map((x) => parseInt(x, 16));
const octet = (bytes: number[]) => bytes.map((n) => n.toString(16).padStart(2, '0').toUpperCase()).join(' ');

/** The BRIDGE-MIB variables of a bridge's state, in OID order. */
export function bridgeVars(s: BridgeState): MibVar[] {
  const v = (tail: number[], type: PassType, value: string | number): MibVar => ({ oid: [...ROOT, ...tail], type, value: String(value) });
  const ports = [...s.ports].sort((a, b) => a.portNo - b.portNo);
  const portOf = new Map(ports.map((p) => [p.name, p.portNo]));
  const fdb = new Map<string, { port: number; status: number; bytes: number[] }>();
  for (const e of s.fdb) {
    const bytes = macBytes(e.mac);
    const port = portOf.get(e.ifname);
    // Unicast addresses in this bridge's table on one of its ports; a port device's own ("self", no
    // master) entries and multicast addresses are not forwarding data.
    if (bytes.length !== 6 || bytes.some((b) => !(b >= 0 && b <= 255)) || (bytes[0]! & 1) === 1) continue;
    if (port === undefined || e.master !== s.name) continue;
    const key = bytes.join('.');
    const status = e.state === 'permanent' ? STATUS.self : STATUS.learned;
    const had = fdb.get(key);
    if (!had || (had.status === STATUS.self && status === STATUS.learned)) fdb.set(key, { port, status, bytes });
  }
  const vars = [
    v([1, 1, 0], 'octet', octet(macBytes(s.address))),
    v([1, 2, 0], 'integer', ports.length),
    v([1, 3, 0], 'integer', 2),
    ...ports.map((p) => v([1, 4, 1, 1, p.portNo], 'integer', p.portNo)),
    ...ports.map((p) => v([1, 4, 1, 2, p.portNo], 'integer', p.ifIndex)),
    v([4, 2, 0], 'integer', Math.round(s.agingSeconds)),
    ...[...fdb.values()].map((e) => v([4, 3, 1, 1, ...e.bytes], 'octet', octet(e.bytes))),
    ...[...fdb.values()].map((e) => v([4, 3, 1, 2, ...e.bytes], 'integer', e.port)),
    ...[...fdb.values()].map((e) => v([4, 3, 1, 3, ...e.bytes], 'integer', e.status)),
  ];
  return vars.sort((a, b) => compareOids(a.oid, b.oid));
}

/** `bridge` is in /usr/sbin, which a non-login PATH may lack. */
export function findProgram(name: string): string {
  const dirs = [...(process.env.PATH ?? '').split(delimiter), '/usr/sbin', '/sbin'];
  return dirs.map((d) => join(d, name)).find((p) => existsSync(p)) ?? name;
}

/** The bridge as the kernel has it now (sysfs of this network namespace, and `bridge -j fdb`). */
export function readBridge(name: string, bridgeProgram = findProgram('bridge')): BridgeState {
  const sys = (path: string) => readFileSync(join('/sys/class/net', path), 'utf8').trim();
  const ports = readdirSync(join('/sys/class/net', name, 'brif')).map((port) => ({
    name: port, portNo: Number(sys(`${port}/brport/port_no`)), ifIndex: Number(sys(`${port}/ifindex`)),
  }));
  const r = spawnSync(bridgeProgram, ['-j', 'fdb', 'show', 'br', name], { encoding: 'utf8', timeout: 5000, maxBuffer: 8 << 20 });
  if (r.status !== 0) throw new Error(`${bridgeProgram} -j fdb show br ${name}: ${r.error ?? r.stderr}`);
  return {
    name, ports, fdb: JSON.parse(r.stdout || '[]') as FdbEntry[],
    address: sys(`${name}/address`),
    // USER_HZ (centiseconds) in sysfs.
    agingSeconds: Number(sys(`${name}/bridge/ageing_time`)) / 100,
  };
}

const parseOid = (text: string) => text.trim().replace(/^\./, '').split('.').map(Number);
const isOid = (arcs: number[]) => arcs.length > 0 && arcs.every((n) => Number.isInteger(n) && n >= 0);

/** The pass_persist conversation: feed it snmpd's lines one by one, write what it returns. */
export class PassPersist {
  private pending: { cmd: 'get' | 'getnext' | 'set'; lines: string[] } | null = null;

  constructor(private readonly source: () => MibVar[]) {}

  private answer(v: MibVar | undefined): string[] {
    return v ? [`.${v.oid.join('.')}`, v.type, v.value] : ['NONE'];
  }

  /** The lines to send back once a command is complete, or null while it still needs lines. */
  feed(line: string): string[] | null {
    const text = line.trim();
    if (!this.pending) {
      if (text === 'PING') return ['PONG'];
      if (text === 'get' || text === 'getnext' || text === 'set') {
        this.pending = { cmd: text, lines: [] };
        return null;
      }
      return text === '' ? null : ['NONE'];
    }
    this.pending.lines.push(text);
    const { cmd, lines } = this.pending;
    if (cmd === 'set') {
      if (lines.length < 2) return null;
      this.pending = null;
      return ['not-writable'];
    }
    this.pending = null;
    const oid = parseOid(lines[0]!);
    if (!isOid(oid)) return ['NONE'];
    const vars = this.source();
    if (cmd === 'get') return this.answer(vars.find((v) => compareOids(v.oid, oid) === 0));
    return this.answer(vars.find((v) => compareOids(v.oid, oid) > 0));
  }
}

/** A source that reads the bridge again when the last read is older than `refreshMs`. */
export function cachedSource(read: () => BridgeState, refreshMs = REFRESH_MS, now = () => Date.now()): () => MibVar[] {
  let at = -Infinity;
  let vars: MibVar[] = [];
  return () => {
    if (now() - at >= refreshMs) {
      vars = bridgeVars(read());
      at = now();
    }
    return vars;
  };
}

/** Runs the conversation over a pair of streams until the input ends. */
export function serve(input: Readable, output: Writable, source: () => MibVar[]): Promise<void> {
  const pp = new PassPersist(source);
  const rl = createInterface({ input, crlfDelay: Infinity });
  rl.on('line', (line) => {
    let out: string[] | null;
    try {
      out = pp.feed(line);
    } catch (e) {
      process.stderr.write(`bridge-mib: ${e instanceof Error ? e.message : String(e)}\n`);
      out = ['NONE'];
    }
    if (out) output.write(out.join('\n') + '\n');
  });
  return new Promise((done) => rl.once('close', () => done()));
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const bridge = process.argv[2] ?? 'br0';
  const program = findProgram('bridge');
  void serve(process.stdin, process.stdout, cachedSource(() => readBridge(bridge, program))).then(() => process.exit(0));
}
