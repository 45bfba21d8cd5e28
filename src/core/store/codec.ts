// The binary encoding of journal records and channel segments: unsigned LEB128 varints, length-prefixed
// UTF-8 and bytes, and tagged SQL values. Readers throw on any overrun, so a damaged payload that
// passed its CRC still fails to decode instead of reading past its end.
import type { SqlParams, SqlValue } from './types.js';

/** A growable output buffer. */
export class ByteWriter {
  private buf: Buffer;
  pos = 0;

  constructor(size = 256) {
    this.buf = Buffer.allocUnsafe(size);
  }

  private room(n: number): void {
    if (this.pos + n <= this.buf.length) return;
    const next = Buffer.allocUnsafe(Math.max(this.buf.length * 2, this.pos + n));
    this.buf.copy(next, 0, 0, this.pos);
    this.buf = next;
  }

  u8(v: number): void {
    this.room(1);
    this.buf[this.pos++] = v;
  }

  /** A non-negative safe integer. */
  varint(v: number): void {
    this.room(8);
    while (v >= 0x80) {
      this.buf[this.pos++] = (v % 0x80) | 0x80;
      v = Math.floor(v / 0x80);
    }
    this.buf[this.pos++] = v;
  }

  f64(v: number): void {
    this.room(8);
    this.buf.writeDoubleLE(v, this.pos);
    this.pos += 8;
  }

  bytes(b: Uint8Array): void {
    this.varint(b.length);
    this.raw(b);
  }

  raw(b: Uint8Array): void {
    this.room(b.length);
    this.buf.set(b, this.pos);
    this.pos += b.length;
  }

  utf8(s: string): void {
    const n = Buffer.byteLength(s, 'utf8');
    this.varint(n);
    this.room(n);
    this.pos += this.buf.write(s, this.pos, n, 'utf8');
  }

  /** A copy of what was written. */
  finish(): Buffer {
    return Buffer.from(this.buf.subarray(0, this.pos));
  }

  /** What was written, without copying (valid until the next write). */
  view(): Buffer {
    return this.buf.subarray(0, this.pos);
  }

  reset(): void {
    this.pos = 0;
  }
}

/** Reads a payload; every read checks the end. One reader may be pointed at one payload after another. */
export class ByteReader {
  private view: DataView | null = null;

  constructor(public buf: Uint8Array, public pos = 0, public end = buf.length) {}

  /** Reads `buf[pos, end)` from now on (no allocation while the buffer stays the same). */
  reset(buf: Uint8Array, pos: number, end: number): this {
    if (buf !== this.buf) { this.buf = buf; this.view = null; }
    this.pos = pos;
    this.end = end;
    return this;
  }

  get done(): boolean { return this.pos >= this.end; }

  private need(n: number): void {
    if (this.pos + n > this.end) throw new Error('truncated payload');
  }

  u8(): number {
    this.need(1);
    return this.buf[this.pos++]!;
  }

  varint(): number {
    let v = 0, mul = 1, b: number;
    do {
      this.need(1);
      b = this.buf[this.pos++]!;
      v += (b & 0x7f) * mul;
      mul *= 0x80;
      if (mul > 2 ** 56) throw new Error('varint too long');
    } while (b & 0x80);
    return v;
  }

  f64(): number {
    this.need(8);
    this.view ??= new DataView(this.buf.buffer, this.buf.byteOffset, this.buf.byteLength);
    const v = this.view.getFloat64(this.pos, true);
    this.pos += 8;
    return v;
  }

  /** A length-prefixed byte string, as a view into the payload. */
  bytes(): Uint8Array {
    return this.take(this.varint());
  }

  skip(n: number): void {
    this.need(n);
    this.pos += n;
  }

  take(n: number): Uint8Array {
    this.need(n);
    const out = this.buf.subarray(this.pos, this.pos + n);
    this.pos += n;
    return out;
  }

  utf8(): string {
    const b = this.bytes();
    return Buffer.from(b.buffer, b.byteOffset, b.length).toString('utf8');
  }
}

// ---- SQL values ---------------------------------------------------------------------------------------

const enum Tag { Null = 0, Int = 1, Float = 2, Text = 3, Blob = 4, BigInt = 5, True = 6, False = 7, NegInt = 8 }
const enum Form { None = 0, Positional = 1, Named = 2 }

/** Writes one bound value. Throws for anything sql.js would not bind the same way on replay. */
export function writeValue(w: ByteWriter, v: unknown): void {
  if (v === null) { w.u8(Tag.Null); return; }
  switch (typeof v) {
    case 'number':
      if (Number.isSafeInteger(v) && !Object.is(v, -0)) {
        w.u8(v >= 0 ? Tag.Int : Tag.NegInt);
        w.varint(Math.abs(v));
      } else {
        w.u8(Tag.Float);
        w.f64(v);
      }
      return;
    case 'string': w.u8(Tag.Text); w.utf8(v); return;
    case 'bigint': w.u8(Tag.BigInt); w.utf8(v.toString()); return;
    case 'boolean': w.u8(v ? Tag.True : Tag.False); return;
    case 'object':
      if (v instanceof Uint8Array) { w.u8(Tag.Blob); w.bytes(v); return; }
      break;
    default:
      break;
  }
  throw new TypeError(`cannot bind a value of type ${describe(v)}: use string, number, bigint, null or Uint8Array`);
}

export function readValue(r: ByteReader): SqlValue | boolean {
  const tag = r.u8();
  switch (tag) {
    case Tag.Null: return null;
    case Tag.Int: return r.varint();
    case Tag.NegInt: return -r.varint();
    case Tag.Float: return r.f64();
    case Tag.Text: return r.utf8();
    case Tag.Blob: return new Uint8Array(r.bytes()); // a copy: the payload buffer is reused
    case Tag.BigInt: return BigInt(r.utf8());
    case Tag.True: return true;
    case Tag.False: return false;
    default: throw new Error(`unknown value tag ${tag}`);
  }
}

/** Encodes a statement's params (validating every value); null/undefined for none. */
export function encodeParams(params: SqlParams | null | undefined, w = new ByteWriter(64)): Buffer {
  w.reset();
  if (params == null) {
    w.u8(Form.None);
  } else if (Array.isArray(params)) {
    w.u8(Form.Positional);
    w.varint(params.length);
    for (const v of params) writeValue(w, v);
  } else if (typeof params === 'object' && !(params instanceof Uint8Array)) {
    const entries = Object.entries(params);
    w.u8(Form.Named);
    w.varint(entries.length);
    for (const [k, v] of entries) { w.utf8(k); writeValue(w, v); }
  } else {
    throw new TypeError('params must be an array or an object of named values');
  }
  return w.finish();
}

export function readParams(r: ByteReader): SqlParams | null {
  const form = r.u8();
  if (form === Form.None) return null;
  const n = r.varint();
  if (form === Form.Positional) {
    const out: SqlValue[] = [];
    for (let i = 0; i < n; i++) out.push(readValue(r) as SqlValue);
    return out;
  }
  if (form === Form.Named) {
    const out: Record<string, SqlValue> = {};
    for (let i = 0; i < n; i++) { const k = r.utf8(); out[k] = readValue(r) as SqlValue; }
    return out;
  }
  throw new Error(`unknown params form ${form}`);
}

function describe(v: unknown): string {
  if (v === undefined) return 'undefined';
  if (Array.isArray(v)) return 'array';
  return typeof v === 'object' ? (v as object).constructor?.name ?? 'object' : typeof v;
}
