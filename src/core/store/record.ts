// A journal record (format 2): one committed write transaction, framed and checksummed.
//
//   record   u32 LE payload length | u32 LE CRC-32 of payload | payload
//   payload  varint LSN, then entries, each a tag byte and its fields; channel entries come first:
//              3 channel  varint id, UTF-8 name            the channel dictionary
//              4 emit     varint channel id, bytes         an entry the transaction emitted (Tx.emit)
//              1 define   varint id, UTF-8 SQL             the statement dictionary
//              2 run      varint id, params                a statement the transaction ran
//   params   codec.ts: none, positional or named, each value tagged (int, float, text, blob, bigint...)
//
// A statement's SQL text (and a channel's name) is written once per journal file: the first record that
// uses it after the file was created or truncated carries a definition, later records only its number.
// The dictionaries are therefore the writer's, built at append time (records queued during a checkpoint
// land after its truncation), and a reader rebuilds them by reading the file in order. A later definition
// of a number replaces the earlier one (a writer restarted on an existing file begins new dictionaries).
// Channel entries first: a reader that wants only them stops at the first SQL entry.
import { crc32 } from 'node:zlib';
import { ByteReader, ByteWriter, encodeParams, readParams } from './codec.js';
import type { SqlParams } from './types.js';

export const RECORD_HEADER_BYTES = 8;
/** Upper bound for one record's payload; a larger length field is treated as corruption. */
export const MAX_RECORD_BYTES = 128 * 1024 * 1024;

const enum Entry { Define = 1, Run = 2, Channel = 3, Emit = 4 }

/** A statement as a committed transaction holds it until its record is appended: SQL, encoded params. */
export interface PendingStatement {
  sql: string;
  params: Buffer;
}

/** A statement decoded from a record, ready to bind. */
export type JournalStatement = [sql: string, params: SqlParams | null];

/** An entry a transaction emitted on a channel. */
export interface EmittedEntry {
  channel: string;
  data: Uint8Array;
}

export interface JournalRecord {
  lsn: number;
  statements: JournalStatement[];
  emits: EmittedEntry[];
}

/** Encodes params at commit time: a value that cannot be journaled fails the transaction there. */
export function pendingStatement(sql: string, params: SqlParams | null | undefined): PendingStatement {
  return { sql, params: encodeParams(params) };
}

/** An upper bound of the record's size, checked at commit so that an oversized write rolls back. */
export function recordSizeBound(statements: readonly PendingStatement[], emits: readonly EmittedEntry[]): number {
  let n = 32;
  for (const s of statements) n += s.sql.length * 3 + s.params.length + 20;
  for (const e of emits) n += e.channel.length * 3 + e.data.length + 20;
  return n;
}

/** Frames a payload as a record: length, CRC, payload. */
export function frame(payload: Uint8Array): Buffer {
  if (payload.length > MAX_RECORD_BYTES) {
    throw new RangeError(`transaction too large for one journal record (${payload.length} bytes)`);
  }
  const out = Buffer.allocUnsafe(RECORD_HEADER_BYTES + payload.length);
  out.writeUInt32LE(payload.length, 0);
  out.writeUInt32LE(crc32(payload), 4);
  out.set(payload, RECORD_HEADER_BYTES);
  return out;
}

/** The writer's side: one per journal file, reset whenever the file is truncated to its header. */
export class RecordEncoder {
  private sqlIds = new Map<string, number>();
  private channelIds = new Map<string, number>();
  private readonly w = new ByteWriter(4096);

  reset(): void {
    this.sqlIds.clear();
    this.channelIds.clear();
  }

  /** One complete record. Defines the statements and channels this file has not seen yet. */
  encode(lsn: number, statements: readonly PendingStatement[], emits: readonly EmittedEntry[] = []): Buffer {
    const w = this.w;
    w.reset();
    w.varint(lsn);
    for (const e of emits) {
      const id = this.define(this.channelIds, e.channel, Entry.Channel);
      w.u8(Entry.Emit);
      w.varint(id);
      w.bytes(e.data);
    }
    for (const s of statements) {
      const id = this.define(this.sqlIds, s.sql, Entry.Define);
      w.u8(Entry.Run);
      w.varint(id);
      w.raw(s.params);
    }
    return frame(w.view());
  }

  /** The number of `text`; the first time, its definition is written (ahead of the entry that uses it). */
  private define(ids: Map<string, number>, text: string, tag: Entry): number {
    let id = ids.get(text);
    if (id === undefined) {
      id = ids.size;
      ids.set(text, id);
      this.w.u8(tag);
      this.w.varint(id);
      this.w.utf8(text);
    }
    return id;
  }
}

/** The reader's side: one per scan of a file, fed the records in file order. */
export class RecordDecoder {
  private sql: string[] = [];
  private channels: string[] = [];

  /** Parses a payload whose CRC matched. Throws if it is not a well-formed record. */
  decode(payload: Uint8Array): JournalRecord {
    const r = new ByteReader(payload);
    const lsn = this.lsnOf(r);
    const statements: JournalStatement[] = [];
    const emits = this.emits(r, false);
    while (!r.done) {
      const tag = r.u8();
      if (tag === Entry.Define) {
        const id = r.varint();
        this.sql[id] = r.utf8();
      } else if (tag === Entry.Run) {
        const id = r.varint();
        const sql = this.sql[id];
        if (sql === undefined) throw new Error(`statement ${id} used before its definition`);
        statements.push([sql, readParams(r)]);
      } else {
        throw new Error(`unknown entry tag ${tag}`);
      }
    }
    if (statements.length === 0 && emits.length === 0) throw new Error('record has neither statements nor entries');
    return { lsn, statements, emits };
  }

  /** Only the channel entries (and the LSN); the SQL part is not parsed. Its definitions are not needed later. */
  decodeEmits(payload: Uint8Array): { lsn: number; emits: EmittedEntry[] } {
    const r = new ByteReader(payload);
    const lsn = this.lsnOf(r);
    return { lsn, emits: this.emits(r, true) };
  }

  private lsnOf(r: ByteReader): number {
    const lsn = r.varint();
    if (!Number.isSafeInteger(lsn) || lsn < 1) throw new Error('record has no valid LSN');
    return lsn;
  }

  /** Channel entries lead the payload; stops before the first SQL entry (or at the end). */
  private emits(r: ByteReader, views: boolean): EmittedEntry[] {
    const out: EmittedEntry[] = [];
    while (!r.done) {
      const tag = r.buf[r.pos];
      if (tag === Entry.Channel) {
        r.pos++;
        const id = r.varint();
        this.channels[id] = r.utf8();
      } else if (tag === Entry.Emit) {
        r.pos++;
        const channel = this.channels[r.varint()];
        if (channel === undefined) throw new Error('channel used before its definition');
        const data = r.bytes();
        out.push({ channel, data: views ? data : new Uint8Array(data) });
      } else {
        break;
      }
    }
    return out;
  }
}
