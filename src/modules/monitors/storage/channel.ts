// The results channel's entries (docs/store.md, "Channels"): one entry per result, carrying the result and
// its series' state after it, plus a few entries for other changes of that state. Entries replace a
// raw-results table: the store journals them with the transaction and keeps them in segment files, never
// in the snapshot. The monitors' channel is `monitors.results`, a series key a monitor's pk. See
// docs/monitors.md, "Storage".
//
//   entry    u8 kind, then:
//     1 result    varint key, result, state
//     2 state     varint key, state, [varint t]    (pause, resume, a changed target clearing the certificate;
//                                                   t, epoch ms, since uptime is time: absent in older entries)
//     3 cleared   (nothing)                        (history cleared: earlier results are gone)
//     4 imported  varint key, varint n, n results  (rows of the raw-results table of an earlier build)
//   result   varint t (epoch ms) | u8 flags | [varint rt] | message | [UTF-8 details] | [measurements]
//            flags: bits 0-1 status (0 down, 1 up, 2 degraded), 4 rt present, 8 message inline, 16 details present,
//                   32 manual check ("check now": not counted in uptime or response times; older entries lack it),
//                   64 measurements present (older entries lack them)
//            message: varint dictionary id, or (inline) varint length + UTF-8 text
//            measurements: varint n, n x (varint name id | varint zigzag(value in hundredths)) (measures.ts)
//   state    u8 status (index in STATES) | varint fail_streak | u8 certificate fields present (0/1)
//            | [f64 cert_valid_to | f64 cert_checked_at]   (epoch ms; NaN = null)
import { ByteReader, ByteWriter } from '../../../core/store/index.js';
import { unzigzag, zigzag } from './measures.js';
import type { ResultStatus } from './rollups.js';

/** What a series is after a result or a change: a result's status, or paused, or not known yet. */
export type SeriesStatus = 'up' | 'down' | 'degraded' | 'paused' | 'unknown';

const enum Kind { Result = 1, State = 2, Cleared = 3, Imported = 4 }
const STATUS_CODES: readonly ResultStatus[] = ['down', 'up', 'degraded'];
/** On disk as the index here: the order never changes (the start-up image keeps the same codes). */
export const SERIES_STATES: readonly SeriesStatus[] = ['up', 'down', 'degraded', 'paused', 'unknown'];
const STATES = SERIES_STATES;
const F_RT = 4, F_INLINE = 8, F_DETAILS = 16, F_MANUAL = 32, F_MEASURES = 64;

export interface StoredResult {
  t: number;
  status: ResultStatus;
  /** Hundredths of a millisecond, or null. */
  rt: number | null;
  /** A monitor_messages id, or the text itself (long messages, or a full dictionary). */
  msg: number | string;
  /** Details JSON, or null. */
  d: string | null;
  /** A manual check ("check now"); absent or false for a scheduled one. */
  manual?: boolean;
  /** Named measurements: [name id, value in hundredths, ...] (measures.ts); absent or null without any. */
  x?: readonly number[] | null;
}

/** A series' state after an entry: a monitor's status, failure run and certificate expiry. */
export interface SeriesState {
  status: SeriesStatus;
  fail_streak: number;
  /** Present when the entry sets them (a TLS check, or a change that cleared them). */
  cert?: { valid_to: number | null; checked_at: number | null };
}

export type ChannelMessage =
  | { kind: 'result'; pk: number; result: StoredResult; state: SeriesState }
  | { kind: 'state'; pk: number; state: SeriesState; t?: number }
  | { kind: 'cleared' }
  | { kind: 'imported'; pk: number; results: StoredResult[] };

const writer = new ByteWriter(256);

export function encodeMessage(m: ChannelMessage): Uint8Array {
  const w = writer;
  w.reset();
  switch (m.kind) {
    case 'result': w.u8(Kind.Result); w.varint(m.pk); writeResult(w, m.result); writeState(w, m.state); break;
    case 'state': w.u8(Kind.State); w.varint(m.pk); writeState(w, m.state); if (m.t !== undefined) w.varint(m.t); break;
    case 'cleared': w.u8(Kind.Cleared); break;
    case 'imported':
      w.u8(Kind.Imported); w.varint(m.pk); w.varint(m.results.length);
      for (const r of m.results) writeResult(w, r);
      break;
  }
  return w.view(); // the store copies it
}

/**
 * What a reader does with each kind of entry. The result and state objects are reused from one entry to
 * the next (start-up reads millions without allocating): copy what must be kept.
 */
export interface MessageVisitor {
  result(pk: number, r: StoredResult, state: SeriesState): void;
  /** `t`: when (epoch ms), NaN for entries written before it was recorded. */
  state(pk: number, state: SeriesState, t: number): void;
  cleared(): void;
  /** One of the results of an `imported` entry. */
  imported(pk: number, r: StoredResult): void;
}

const reader = new ByteReader(new Uint8Array(0));
const scratchX: number[] = [];
const scratch: StoredResult = { t: 0, status: 'up', rt: null, msg: 0, d: null, manual: false, x: null };
const scratchState: SeriesState = { status: 'unknown', fail_streak: 0 };

/** Reads the entry in `buf[start, end)` into the visitor. */
export function readMessage(buf: Uint8Array, start: number, end: number, v: MessageVisitor): void {
  const r = reader.reset(buf, start, end);
  const kind = r.u8();
  switch (kind) {
    case Kind.Result: { const pk = r.varint(); readResult(r, scratch); v.result(pk, scratch, readState(r, scratchState)); return; }
    case Kind.State: {
      const pk = r.varint();
      const state = readState(r, scratchState);
      v.state(pk, state, r.pos < r.end ? r.varint() : NaN);
      return;
    }
    case Kind.Cleared: v.cleared(); return;
    case Kind.Imported: {
      const pk = r.varint();
      for (let i = r.varint(); i > 0; i--) v.imported(pk, readResult(r, scratch));
      return;
    }
    default: throw new Error(`unknown monitors channel entry kind ${kind}`);
  }
}

/** One entry as a value (tests and the bench; start-up uses readMessage). */
export function decodeMessage(data: Uint8Array): ChannelMessage {
  let out: ChannelMessage | null = null;
  const copy = (s: SeriesState): SeriesState =>
    (s.cert ? { ...s, cert: { ...s.cert } } : { status: s.status, fail_streak: s.fail_streak });
  readMessage(data, 0, data.length, {
    result: (pk, r, state) => {
      out = { kind: 'result', pk, result: valueOf(r), state: copy(state) };
    },
    state: (pk, state, t) => {
      out = Number.isNaN(t) ? { kind: 'state', pk, state: copy(state) } : { kind: 'state', pk, state: copy(state), t };
    },
    cleared: () => { out = { kind: 'cleared' }; },
    imported: (pk, r) => {
      out ??= { kind: 'imported', pk, results: [] };
      if (out.kind === 'imported') out.results.push(valueOf(r));
    },
  });
  return out ?? { kind: 'imported', pk: 0, results: [] };
}

/** A read result as a value of its own: fields it does not have left out, the measurements copied. */
function valueOf(r: StoredResult): StoredResult {
  const { manual, x, ...rest } = r;
  const out: StoredResult = rest;
  if (manual) out.manual = true;
  if (x?.length) out.x = [...x];
  return out;
}

function writeResult(w: ByteWriter, r: StoredResult): void {
  w.varint(r.t);
  let flags = STATUS_CODES.indexOf(r.status);
  if (r.rt != null) flags |= F_RT;
  if (typeof r.msg === 'string') flags |= F_INLINE;
  if (r.d != null) flags |= F_DETAILS;
  if (r.manual) flags |= F_MANUAL;
  if (r.x?.length) flags |= F_MEASURES;
  w.u8(flags);
  if (r.rt != null) w.varint(r.rt);
  if (typeof r.msg === 'string') w.utf8(r.msg); else w.varint(r.msg);
  if (r.d != null) w.utf8(r.d);
  if (r.x?.length) {
    w.varint(r.x.length >> 1);
    for (let i = 0; i + 1 < r.x.length; i += 2) { w.varint(r.x[i]!); w.varint(zigzag(r.x[i + 1]!)); }
  }
}

function readResult(r: ByteReader, into: StoredResult): StoredResult {
  // The time inline, not through r.varint(): millions of them at start-up, and a call returning a number
  // this large boxes it (a 16-byte allocation each).
  let t = 0, mul = 1, b: number;
  const buf = r.buf;
  let pos = r.pos;
  do {
    if (pos >= r.end) throw new Error('truncated payload');
    b = buf[pos++]!;
    t += (b & 0x7f) * mul;
    mul *= 0x80;
  } while (b & 0x80);
  r.pos = pos;
  into.t = t;
  const flags = r.u8();
  const status = STATUS_CODES[flags & 3];
  if (!status) throw new Error('bad result status');
  into.status = status;
  into.rt = flags & F_RT ? r.varint() : null;
  into.msg = flags & F_INLINE ? r.utf8() : r.varint();
  into.d = flags & F_DETAILS ? r.utf8() : null;
  into.manual = (flags & F_MANUAL) !== 0;
  if (flags & F_MEASURES) {
    // Into one array reused from entry to entry (start-up reads millions of them).
    const x = scratchX;
    x.length = 0;
    for (let n = r.varint(); n > 0; n--) x.push(r.varint(), unzigzag(r.varint()));
    into.x = x;
  } else {
    into.x = null;
  }
  return into;
}

function writeState(w: ByteWriter, s: SeriesState): void {
  w.u8(STATES.indexOf(s.status));
  w.varint(s.fail_streak);
  w.u8(s.cert ? 1 : 0);
  if (s.cert) {
    w.f64(s.cert.valid_to ?? NaN);
    w.f64(s.cert.checked_at ?? NaN);
  }
}

const scratchCert = { valid_to: null as number | null, checked_at: null as number | null };

function readState(r: ByteReader, into: SeriesState): SeriesState {
  const status = STATES[r.u8()];
  if (!status) throw new Error('bad monitor status');
  into.status = status;
  into.fail_streak = r.varint();
  if (r.u8() === 0) { into.cert = undefined; return into; }
  const v = r.f64(), c = r.f64();
  scratchCert.valid_to = Number.isNaN(v) ? null : v;
  scratchCert.checked_at = Number.isNaN(c) ? null : c;
  into.cert = scratchCert;
  return into;
}
