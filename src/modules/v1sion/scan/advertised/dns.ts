// DNS messages as multicast DNS uses them (RFC 1035 wire format, RFC 6762): a query with some questions,
// and the records of a response (answers, authority and additional sections alike, since a responder puts
// SRV, TXT and addresses where it likes). Pure: bytes in, values out; a malformed packet throws, and a
// record of a type discovery does not read is skipped.

export const TYPE = { A: 1, PTR: 12, TXT: 16, AAAA: 28, SRV: 33, ANY: 255 } as const;
/** The top bit of a question's class: "unicast response wanted" (QU, RFC 6762 §5.4); of a record's: cache flush. */
const TOP_BIT = 0x8000;
const MAX_NAME = 255;
const MAX_JUMPS = 32;

export interface DnsQuestion { name: string; type: number; unicastResponse?: boolean }

export type DnsRecord = { name: string; ttl: number } & (
  | { type: 'PTR'; target: string }
  | { type: 'SRV'; priority: number; weight: number; port: number; target: string }
  | { type: 'TXT'; strings: string[] }
  | { type: 'A' | 'AAAA'; address: string }
);

export interface DnsMessage {
  id: number;
  response: boolean;
  questions: DnsQuestion[];
  /** Every record of the answer, authority and additional sections, in order. */
  records: DnsRecord[];
}

/**
 * Names are dotted text with a dot inside a label escaped as `\.` and a backslash as `\\` (RFC 6763 §4.3:
 * instance names are free text, "Lab Printer v1.2" is one label).
 */
export function labelsOf(name: string): string[] {
  const out: string[] = [];
  let cur = '';
  for (let i = 0; i < name.length; i++) {
    const c = name[i]!;
    if (c === '\\' && i + 1 < name.length) cur += name[++i];
    else if (c === '.') { out.push(cur); cur = ''; } else cur += c;
  }
  if (cur || out.length) out.push(cur);
  return out.filter((l, i, all) => l !== '' || i < all.length - 1);
}

export const escapeLabel = (l: string) => l.replace(/\\/g, '\\\\').replace(/\./g, '\\.');
const nameOfLabels = (labels: string[]) => labels.map(escapeLabel).join('.');

function encodeName(name: string): Buffer {
  const parts: Buffer[] = [];
  for (const l of labelsOf(name)) {
    const b = Buffer.from(l, 'utf8');
    if (b.length === 0 || b.length > 63) throw new Error(`label of ${b.length} bytes in ${name}`);
    parts.push(Buffer.from([b.length]), b);
  }
  parts.push(Buffer.from([0]));
  const out = Buffer.concat(parts);
  if (out.length > MAX_NAME) throw new Error(`name too long: ${name}`);
  return out;
}

/** A query: `id` non-zero makes it a legacy unicast query too (RFC 6762 §6.7: the answer echoes it). */
export function encodeQuery(id: number, questions: readonly DnsQuestion[]): Buffer {
  const head = Buffer.alloc(12);
  head.writeUInt16BE(id & 0xffff, 0);
  head.writeUInt16BE(questions.length, 4);
  const body = questions.map((q) => {
    const tail = Buffer.alloc(4);
    tail.writeUInt16BE(q.type, 0);
    tail.writeUInt16BE(1 | (q.unicastResponse ? TOP_BIT : 0), 2);
    return Buffer.concat([encodeName(q.name), tail]);
  });
  return Buffer.concat([head, ...body]);
}

class Reader {
  constructor(readonly buf: Buffer) {}
  need(at: number, n: number): void {
    if (at + n > this.buf.length) throw new Error(`truncated at byte ${at}`);
  }
  u16(at: number): number { this.need(at, 2); return this.buf.readUInt16BE(at); }
  u32(at: number): number { this.need(at, 4); return this.buf.readUInt32BE(at); }

  /** The name at `at` (following compression pointers, never in a loop) and where the field ends. */
  name(at: number): { name: string; end: number } {
    const labels: string[] = [];
    let pos = at;
    let end = -1;
    let jumps = 0;
    let length = 1;
    for (;;) {
      this.need(pos, 1);
      const len = this.buf[pos]!;
      if (len === 0) { if (end < 0) end = pos + 1; break; }
      if ((len & 0xc0) === 0xc0) {
        const target = this.u16(pos) & 0x3fff;
        if (end < 0) end = pos + 2;
        if (++jumps > MAX_JUMPS || target >= this.buf.length) throw new Error(`bad name pointer at byte ${pos}`);
        pos = target;
        continue;
      }
      if (len & 0xc0) throw new Error(`bad label type at byte ${pos}`);
      this.need(pos + 1, len);
      labels.push(this.buf.toString('utf8', pos + 1, pos + 1 + len));
      length += len + 1;
      if (length > MAX_NAME) throw new Error(`name longer than ${MAX_NAME} bytes at byte ${at}`);
      pos += len + 1;
    }
    return { name: nameOfLabels(labels), end };
  }
}

function ipv6Text(b: Buffer): string {
  const groups: string[] = [];
  for (let i = 0; i < 16; i += 2) groups.push(b.readUInt16BE(i).toString(16));
  // Canonical form (RFC 5952): the longest run of two or more zero groups becomes "::".
  let best = -1, bestLen = 1;
  for (let i = 0; i < 8;) {
    let j = i;
    while (j < 8 && groups[j] === '0') j++;
    if (j - i > bestLen) { best = i; bestLen = j - i; }
    i = j > i ? j : i + 1;
  }
  if (best < 0) return groups.join(':');
  return `${groups.slice(0, best).join(':')}::${groups.slice(best + bestLen).join(':')}`;
}

/** A whole DNS message; throws on a malformed one. */
export function decodeMessage(buf: Buffer): DnsMessage {
  const r = new Reader(buf);
  r.need(0, 12);
  const id = r.u16(0);
  const flags = r.u16(2);
  const counts = [r.u16(4), r.u16(6), r.u16(8), r.u16(10)] as const;
  let pos = 12;
  const questions: DnsQuestion[] = [];
  for (let i = 0; i < counts[0]; i++) {
    const n = r.name(pos);
    const cls = r.u16(n.end + 2);
    questions.push({ name: n.name, type: r.u16(n.end), unicastResponse: (cls & TOP_BIT) !== 0 });
    pos = n.end + 4;
  }
  const records: DnsRecord[] = [];
  const total = counts[1] + counts[2] + counts[3];
  for (let i = 0; i < total; i++) {
    const n = r.name(pos);
    const type = r.u16(n.end);
    const ttl = r.u32(n.end + 4);
    const len = r.u16(n.end + 8);
    const at = n.end + 10;
    r.need(at, len);
    const base = { name: n.name, ttl };
    if (type === TYPE.PTR) records.push({ ...base, type: 'PTR', target: r.name(at).name });
    else if (type === TYPE.SRV) {
      if (len < 7) throw new Error(`SRV of ${len} bytes`);
      records.push({ ...base, type: 'SRV', priority: r.u16(at), weight: r.u16(at + 2), port: r.u16(at + 4), target: r.name(at + 6).name });
    } else if (type === TYPE.TXT) {
      const strings: string[] = [];
      for (let p = at; p < at + len;) {
        const l = buf[p]!;
        if (p + 1 + l > at + len) throw new Error(`TXT string overruns its record at byte ${p}`);
        if (l) strings.push(buf.toString('utf8', p + 1, p + 1 + l));
        p += 1 + l;
      }
      records.push({ ...base, type: 'TXT', strings });
    } else if (type === TYPE.A && len === 4) {
      records.push({ ...base, type: 'A', address: [...buf.subarray(at, at + 4)].join('.') });
    } else if (type === TYPE.AAAA && len === 16) {
      records.push({ ...base, type: 'AAAA', address: ipv6Text(buf.subarray(at, at + 16)) });
    }
    pos = at + len;
  }
  return { id, response: (flags & 0x8000) !== 0, questions, records };
}

/** A response carrying these records (the lab's responder and the tests build packets with it). */
export function encodeResponse(id: number, questions: readonly DnsQuestion[], answers: readonly DnsRecord[],
  additionals: readonly DnsRecord[] = []): Buffer {
  const head = Buffer.alloc(12);
  head.writeUInt16BE(id & 0xffff, 0);
  head.writeUInt16BE(0x8400, 2); // response, authoritative
  head.writeUInt16BE(questions.length, 4);
  head.writeUInt16BE(answers.length, 6);
  head.writeUInt16BE(additionals.length, 10);
  const qs = questions.map((q) => {
    const tail = Buffer.alloc(4);
    tail.writeUInt16BE(q.type, 0);
    tail.writeUInt16BE(1, 2);
    return Buffer.concat([encodeName(q.name), tail]);
  });
  return Buffer.concat([head, ...qs, ...[...answers, ...additionals].map(encodeRecord)]);
}

function encodeRecord(rec: DnsRecord): Buffer {
  let type: number;
  let data: Buffer;
  switch (rec.type) {
    case 'PTR': type = TYPE.PTR; data = encodeName(rec.target); break;
    case 'SRV': {
      type = TYPE.SRV;
      const h = Buffer.alloc(6);
      h.writeUInt16BE(rec.priority, 0); h.writeUInt16BE(rec.weight, 2); h.writeUInt16BE(rec.port, 4);
      data = Buffer.concat([h, encodeName(rec.target)]);
      break;
    }
    case 'TXT': type = TYPE.TXT; data = Buffer.concat(rec.strings.map((s) => {
      const b = Buffer.from(s, 'utf8');
      return Buffer.concat([Buffer.from([b.length]), b]);
    })); break;
    case 'A': type = TYPE.A; data = Buffer.from(rec.address.split('.').map(Number)); break;
    default: throw new Error(`not encoded: ${rec.type}`);
  }
  const tail = Buffer.alloc(10);
  tail.writeUInt16BE(type, 0);
  tail.writeUInt16BE(1 | (rec.type === 'PTR' ? 0 : TOP_BIT), 2);
  tail.writeUInt32BE(rec.ttl, 4);
  tail.writeUInt16BE(data.length, 8);
  return Buffer.concat([encodeName(rec.name), tail, data]);
}
