// The subset of BER (X.690) that SNMPv1/v2c messages use: definite lengths, INTEGER, OCTET STRING,
// NULL, OBJECT IDENTIFIER, SEQUENCE, the SNMP application types and the PDU and exception tags.

export interface Tlv { tag: number; value: Buffer }

export const TAG = {
  Integer: 0x02, OctetString: 0x04, Null: 0x05, OID: 0x06, Sequence: 0x30,
  IpAddress: 0x40, Counter32: 0x41, Gauge32: 0x42, TimeTicks: 0x43, Opaque: 0x44, Counter64: 0x46,
  NoSuchObject: 0x80, NoSuchInstance: 0x81, EndOfMibView: 0x82,
  GetRequest: 0xa0, GetNextRequest: 0xa1, Response: 0xa2, SetRequest: 0xa3, GetBulkRequest: 0xa5,
} as const;

/** Reads one TLV at `offset`; returns it and the offset after it. Throws on truncated input. */
export function readTlv(buf: Buffer, offset: number): { tlv: Tlv; next: number } {
  if (offset + 2 > buf.length) throw new Error('BER: truncated header');
  const tag = buf[offset]!;
  let len = buf[offset + 1]!;
  let pos = offset + 2;
  if (len & 0x80) {
    const n = len & 0x7f;
    if (n === 0 || n > 4 || pos + n > buf.length) throw new Error('BER: unsupported length');
    len = 0;
    for (let i = 0; i < n; i++) len = len * 256 + buf[pos + i]!;
    pos += n;
  }
  if (pos + len > buf.length) throw new Error('BER: truncated value');
  return { tlv: { tag, value: buf.subarray(pos, pos + len) }, next: pos + len };
}

/** All TLVs inside a constructed value (a SEQUENCE or a PDU). */
export function readAll(content: Buffer): Tlv[] {
  const out: Tlv[] = [];
  for (let pos = 0; pos < content.length;) {
    const { tlv, next } = readTlv(content, pos);
    out.push(tlv);
    pos = next;
  }
  return out;
}

export function decodeInt(b: Buffer): bigint {
  if (b.length === 0) return 0n;
  let v = 0n;
  for (const x of b) v = (v << 8n) | BigInt(x);
  return b[0]! & 0x80 ? v - (1n << BigInt(b.length * 8)) : v;
}

export function decodeOid(b: Buffer): number[] {
  if (b.length === 0) throw new Error('BER: empty OID');
  const arcs: number[] = [];
  let v = 0;
  for (const x of b) {
    v = v * 128 + (x & 0x7f);
    if (!(x & 0x80)) { arcs.push(v); v = 0; }
  }
  const first = arcs.shift()!;
  const a = first < 80 ? Math.floor(first / 40) : 2;
  return [a, first - a * 40, ...arcs];
}

function lengthBytes(n: number): Buffer {
  if (n < 0x80) return Buffer.from([n]);
  const bytes: number[] = [];
  for (let v = n; v > 0; v = Math.floor(v / 256)) bytes.unshift(v & 0xff);
  return Buffer.from([0x80 | bytes.length, ...bytes]);
}

export function tlv(tag: number, value: Buffer): Buffer {
  return Buffer.concat([Buffer.from([tag]), lengthBytes(value.length), value]);
}

export function seq(tag: number, parts: Buffer[]): Buffer {
  return tlv(tag, Buffer.concat(parts));
}

/** Two's-complement INTEGER content, shortest form. */
export function encodeSigned(v: bigint): Buffer {
  const bytes: number[] = [];
  let x = v;
  for (;;) {
    bytes.unshift(Number(x & 0xffn));
    x >>= 8n;
    if ((x === 0n && !(bytes[0]! & 0x80)) || (x === -1n && bytes[0]! & 0x80)) break;
  }
  return Buffer.from(bytes);
}

/** Unsigned content (Counter32, Gauge32, TimeTicks, Counter64): a leading zero when the top bit is set. */
export function encodeUnsigned(v: bigint): Buffer {
  const bytes: number[] = [];
  for (let x = v; x > 0n; x >>= 8n) bytes.unshift(Number(x & 0xffn));
  if (bytes.length === 0 || bytes[0]! & 0x80) bytes.unshift(0);
  return Buffer.from(bytes);
}

export function encodeOid(arcs: readonly number[]): Buffer {
  if (arcs.length < 2) throw new Error('BER: an OID needs two arcs');
  const out: number[] = [];
  const push = (n: number) => {
    const chunk: number[] = [n & 0x7f];
    for (let v = Math.floor(n / 128); v > 0; v = Math.floor(v / 128)) chunk.unshift((v & 0x7f) | 0x80);
    out.push(...chunk);
  };
  push(arcs[0]! * 40 + arcs[1]!);
  for (const a of arcs.slice(2)) push(a);
  return Buffer.from(out);
}
