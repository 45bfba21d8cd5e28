// snmprec recordings (the format of snmpsim and of the LibreNMS test corpus): one variable per line,
// `OID|TAG|VALUE`, TAG the ASN.1 tag number with a trailing `x` when VALUE is hex. Parsed into sorted
// variables that the UDP simulator (snmp-sim.ts) serves and that recordingReader() answers in-process.
import { readFileSync } from 'node:fs';
import type { RawVarbind, SnmpReader, SnmpTarget, VarbindType, WalkOptions, WalkResult } from '../../src/modules/snmp/contracts.js';
import { octets } from '../../src/modules/snmp/client/values.js';

/** One recorded variable; `bytes` for OctetString/Opaque/IpAddress, `num` for the integer types. */
export interface RecordedVar {
  oid: string;
  arcs: number[];
  type: VarbindType;
  num?: bigint;
  bytes?: Buffer;
  /** OID-typed values, dotted. */
  ref?: string;
}

export interface Recording { name: string; vars: RecordedVar[] }

const TAGS = new Map<number, VarbindType>([
  [2, 'Integer'], [4, 'OctetString'], [5, 'Null'], [6, 'OID'], [64, 'IpAddress'], [65, 'Counter32'],
  [66, 'Gauge32'], [67, 'TimeTicks'], [68, 'Opaque'], [70, 'Counter64'],
  [128, 'NoSuchObject'], [129, 'NoSuchInstance'], [130, 'EndOfMibView'],
]);

const OID_RE = /^\.?\d+(?:\.\d+)+$/;
const REDACTED = '<private>';

export function compareArcs(a: readonly number[], b: readonly number[]): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return a[i]! - b[i]!;
  return a.length - b.length;
}

function parseValue(type: VarbindType, raw: string, hex: boolean, where: string): Omit<RecordedVar, 'oid' | 'arcs' | 'type'> {
  const bytes = () => (hex ? Buffer.from(raw, 'hex') : Buffer.from(raw, 'utf8'));
  const int = () => {
    const text = hex ? `0x${raw || '0'}` : raw.trim();
    if (!/^(-?\d+|0x[0-9a-fA-F]+)$/.test(text)) throw new Error(`${where}: not an integer: ${raw}`);
    return BigInt(text);
  };
  switch (type) {
    case 'Integer': case 'Counter32': case 'Gauge32': case 'TimeTicks': case 'Counter64':
      return { num: int() };
    case 'OctetString': case 'Opaque':
      return { bytes: bytes() };
    case 'IpAddress': {
      // The LibreNMS corpus redacts some addresses as "<private>", which no agent can send: 0.0.0.0.
      if (raw === REDACTED) return { bytes: Buffer.alloc(4) };
      const b = hex ? Buffer.from(raw, 'hex') : Buffer.from(raw.split('.').map(Number));
      if (b.length !== 4) throw new Error(`${where}: not an IPv4 address: ${raw}`);
      return { bytes: b };
    }
    case 'OID': {
      const ref = (hex ? Buffer.from(raw, 'hex').toString('latin1') : raw).trim().replace(/^\./, '');
      if (!OID_RE.test(ref)) throw new Error(`${where}: not an OID: ${raw}`);
      return { ref };
    }
    default:
      return {};
  }
}

/** Parses snmprec text; later lines for the same OID replace earlier ones. */
export function parseSnmprec(text: string, name = 'recording'): Recording {
  const byOid = new Map<string, RecordedVar>();
  text.split(/\r?\n/).forEach((line, i) => {
    if (!line.trim() || line.startsWith('#')) return;
    const where = `${name}:${i + 1}`;
    const first = line.indexOf('|');
    const second = line.indexOf('|', first + 1);
    if (first < 0 || second < 0) throw new Error(`${where}: expected OID|TAG|VALUE`);
    const oid = line.slice(0, first).replace(/^\./, '');
    const tag = line.slice(first + 1, second);
    const m = /^(\d+)(x?)$/.exec(tag);
    if (!OID_RE.test(oid) || !m) throw new Error(`${where}: bad OID or tag`);
    const type = TAGS.get(Number(m[1]));
    if (!type) throw new Error(`${where}: unsupported tag ${tag}`);
    byOid.set(oid, { oid, arcs: oid.split('.').map(Number), type, ...parseValue(type, line.slice(second + 1), m[2] === 'x', where) });
  });
  const vars = [...byOid.values()].sort((a, b) => compareArcs(a.arcs, b.arcs));
  return { name, vars };
}

export function loadSnmprec(file: string): Recording {
  return parseSnmprec(readFileSync(file, 'utf8'), file.replace(/^.*\//, '').replace(/\.snmprec$/, ''));
}

/** The variable as the SNMP client reports it (contracts.ts RawVarbind). */
export function toRaw(v: RecordedVar): RawVarbind {
  switch (v.type) {
    case 'Integer': case 'Counter32': case 'Gauge32': case 'TimeTicks':
      return { oid: v.oid, type: v.type, value: Number(v.num) };
    case 'Counter64':
      return { oid: v.oid, type: v.type, value: v.num!.toString() };
    case 'OctetString':
      return { oid: v.oid, type: v.type, ...octets(v.bytes!) };
    case 'Opaque':
      return { oid: v.oid, type: v.type, value: v.bytes!.toString('hex'), hex: true };
    case 'IpAddress':
      return { oid: v.oid, type: v.type, value: [...v.bytes!].join('.') };
    case 'OID':
      return { oid: v.oid, type: v.type, value: v.ref! };
    default:
      return { oid: v.oid, type: v.type, value: null };
  }
}

/** Index of the first variable at or after `arcs` (binary search). */
export function lowerBound(vars: readonly RecordedVar[], arcs: readonly number[]): number {
  let lo = 0, hi = vars.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (compareArcs(vars[mid]!.arcs, arcs) < 0) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

const under = (root: readonly number[], arcs: readonly number[]) =>
  arcs.length > root.length && root.every((a, i) => arcs[i] === a);

/**
 * An SnmpReader answering from a recording in-process, as an agent holding exactly these variables
 * would: missing GET instances come back NoSuchObject, walks return each root's subtree in order.
 * `reads` counts get() and walk() calls (the round trips a caller asked for, not PDUs).
 */
export function recordingReader(rec: Recording): SnmpReader & { reads: number } {
  const index = new Map(rec.vars.map((v) => [v.oid, v]));
  const reader = {
    reads: 0,
    async get(_target: SnmpTarget, oids: string[]): Promise<RawVarbind[]> {
      reader.reads++;
      return oids.map((oid) => {
        const v = index.get(oid.replace(/^\./, ''));
        return v ? toRaw(v) : { oid, type: 'NoSuchObject' as const, value: null };
      });
    },
    async walk(_target: SnmpTarget, roots: string[], opts: WalkOptions = {}): Promise<WalkResult> {
      reader.reads++;
      const max = opts.max_varbinds ?? 10_000;
      const out: RawVarbind[] = [];
      for (const root of roots) {
        const r = root.replace(/^\./, '').split('.').map(Number);
        for (let i = lowerBound(rec.vars, r); i < rec.vars.length && under(r, rec.vars[i]!.arcs); i++) {
          if (out.length >= max) return { varbinds: out, truncated: true, elapsed_ms: 0 };
          out.push(toRaw(rec.vars[i]!));
        }
      }
      return { varbinds: out, truncated: false, elapsed_ms: 0 };
    },
  };
  return reader;
}
