// The journal file: a fixed header, then one record per committed write transaction.
//
//   header  (16 bytes): "NPJRNL\r\n" | u32 LE format version | u32 LE reserved (0)
//   record:            u32 LE payload length | u32 LE CRC-32 of payload | payload
//   payload:           UTF-8 JSON {"l": lsn, "s": [[sql, params], ...]}
//
// Params are JSON with tagged values for what JSON cannot hold: {"$b": base64} for a Uint8Array,
// {"$i": "123"} for a bigint, {"$f": "Infinity"} for a non-finite number. A scan stops at the first
// record that is torn (runs past end of file), has an absurd length, fails its CRC or does not parse:
// everything from there on was never acknowledged as durable and is cut off by the store.
import { open, type FileHandle } from 'node:fs/promises';
import { readSync } from 'node:fs';
import { dirname } from 'node:path';
import { crc32 } from 'node:zlib';
import type { SqlParams, SqlValue } from './types.js';
import { fsyncDir, writeFully } from './snapshot.js';

export const JOURNAL_FILE = 'netprobe.journal';
// "\r\n" in the magic catches a file mangled by a text-mode copy.
const MAGIC = Buffer.from('NPJRNL\r\n', 'latin1');
export const JOURNAL_VERSION = 1;
export const HEADER_BYTES = 16;
export const RECORD_HEADER_BYTES = 8;
/** Upper bound for one record's payload; a larger length field is treated as corruption. */
export const MAX_RECORD_BYTES = 128 * 1024 * 1024;

export type EncodedValue = string | number | boolean | null | { $b: string } | { $i: string } | { $f: string };
export type EncodedParams = EncodedValue[] | Record<string, EncodedValue> | null;
/** A statement as it sits in a record: SQL text plus already-encoded params (null = none). */
export type EncodedStatement = [sql: string, params: EncodedParams];
/** A statement decoded from a record, ready to bind. */
export type JournalStatement = [sql: string, params: SqlParams | null];

export interface JournalRecord {
  lsn: number;
  statements: JournalStatement[];
}

export interface ScannedRecord extends JournalRecord {
  /** Byte offset of the record's length field. */
  start: number;
  /** Byte offset just past the record. */
  end: number;
}

export interface ScanEnd {
  /** Offset just past the last intact record (HEADER_BYTES when there is none). */
  goodEnd: number;
  fileSize: number;
  /** Why the scan stopped before end of file, or null when the file ended cleanly. */
  stopReason: string | null;
}

export function journalHeader(): Buffer {
  const h = Buffer.alloc(HEADER_BYTES);
  MAGIC.copy(h, 0);
  h.writeUInt32LE(JOURNAL_VERSION, 8);
  return h;
}

// ---- values -----------------------------------------------------------------------------------------

/** Encodes one bound value. Throws for anything sql.js would bind differently after a JSON round trip. */
export function encodeValue(v: unknown): EncodedValue {
  if (v === null) return null;
  switch (typeof v) {
    case 'string':
    case 'boolean':
      return v;
    case 'number':
      return Number.isFinite(v) ? v : { $f: String(v) };
    case 'bigint':
      return { $i: v.toString() };
    case 'object':
      if (v instanceof Uint8Array) return { $b: Buffer.from(v.buffer, v.byteOffset, v.byteLength).toString('base64') };
      break;
    default:
      break;
  }
  throw new TypeError(`cannot bind a value of type ${describe(v)}: use string, number, bigint, null or Uint8Array`);
}

function describe(v: unknown): string {
  if (v === undefined) return 'undefined';
  if (Array.isArray(v)) return 'array';
  return typeof v === 'object' ? (v as object).constructor?.name ?? 'object' : typeof v;
}

export function encodeParams(params: SqlParams | null | undefined): EncodedParams {
  if (params == null) return null;
  if (Array.isArray(params)) return params.map(encodeValue);
  if (typeof params !== 'object' || params instanceof Uint8Array) {
    throw new TypeError('params must be an array or an object of named values');
  }
  const out: Record<string, EncodedValue> = {};
  for (const [k, v] of Object.entries(params)) out[k] = encodeValue(v);
  return out;
}

export function decodeValue(v: unknown): SqlValue | boolean {
  if (v === null || typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') return v;
  if (typeof v === 'object' && !Array.isArray(v)) {
    const o = v as Record<string, unknown>;
    const keys = Object.keys(o);
    if (keys.length === 1 && typeof o[keys[0]] === 'string') {
      const s = o[keys[0]] as string;
      if (keys[0] === '$b') return new Uint8Array(Buffer.from(s, 'base64'));
      if (keys[0] === '$i') return BigInt(s);
      if (keys[0] === '$f') return Number(s);
    }
  }
  throw new Error('malformed value in journal record');
}

function decodeParams(p: unknown): SqlParams | null {
  if (p === null) return null;
  if (Array.isArray(p)) return p.map(decodeValue) as SqlParams;
  if (typeof p === 'object') {
    const out: Record<string, SqlValue> = {};
    for (const [k, v] of Object.entries(p as Record<string, unknown>)) out[k] = decodeValue(v) as SqlValue;
    return out;
  }
  throw new Error('malformed params in journal record');
}

// ---- records ----------------------------------------------------------------------------------------

/** Builds one complete record (length, CRC, payload). */
export function encodeRecord(lsn: number, statements: EncodedStatement[]): Buffer {
  const payload = Buffer.from(JSON.stringify({ l: lsn, s: statements }), 'utf8');
  if (payload.length > MAX_RECORD_BYTES) {
    throw new RangeError(`transaction too large for one journal record (${payload.length} bytes)`);
  }
  const head = Buffer.allocUnsafe(RECORD_HEADER_BYTES);
  head.writeUInt32LE(payload.length, 0);
  head.writeUInt32LE(crc32(payload), 4);
  return Buffer.concat([head, payload]);
}

/** Parses a payload whose CRC already matched. Throws if it is not a well-formed record. */
export function decodePayload(payload: Buffer): JournalRecord {
  const obj = JSON.parse(payload.toString('utf8')) as { l?: unknown; s?: unknown };
  if (typeof obj !== 'object' || obj === null) throw new Error('record is not an object');
  const { l, s } = obj;
  if (typeof l !== 'number' || !Number.isSafeInteger(l) || l < 1) throw new Error('record has no valid LSN');
  if (!Array.isArray(s) || s.length === 0) throw new Error('record has no statements');
  const statements = s.map((st): JournalStatement => {
    if (!Array.isArray(st) || st.length !== 2 || typeof st[0] !== 'string') throw new Error('malformed statement');
    return [st[0], decodeParams(st[1])];
  });
  return { lsn: l, statements };
}

// ---- the file ---------------------------------------------------------------------------------------

/** The open journal file. One writer (the store's queue) calls append/truncate; nothing else writes. */
export class Journal {
  /** Current logical end of file: the next record goes here. */
  size: number;

  private constructor(
    readonly path: string,
    private readonly fh: FileHandle,
    size: number,
  ) {
    this.size = size;
  }

  /**
   * Opens the journal, creating it (header, fsync, directory fsync) when missing and rewriting a header
   * that a crash during creation left short. A file with someone else's header is refused, not touched.
   */
  static async open(path: string): Promise<Journal> {
    let fh: FileHandle;
    try {
      fh = await open(path, 'r+');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
      await createFile(path);
      fh = await open(path, 'r+');
    }
    try {
      const { size } = await fh.stat();
      const head = Buffer.alloc(HEADER_BYTES);
      const { bytesRead } = await fh.read(head, 0, HEADER_BYTES, 0);
      const expected = journalHeader();
      if (bytesRead < HEADER_BYTES) {
        if (!head.subarray(0, bytesRead).equals(expected.subarray(0, bytesRead))) throw foreign(path);
        // Torn during creation: nothing can have been journaled yet.
        await fh.truncate(0);
        await writeFully(fh, expected, 0);
        await fh.sync();
        return new Journal(path, fh, HEADER_BYTES);
      }
      if (!head.subarray(0, MAGIC.length).equals(MAGIC)) throw foreign(path);
      const version = head.readUInt32LE(8);
      if (version !== JOURNAL_VERSION) {
        throw new Error(`${path} has journal format version ${version}; this build reads version ${JOURNAL_VERSION}`);
      }
      return new Journal(path, fh, size);
    } catch (err) {
      await fh.close().catch(() => undefined);
      throw err;
    }
  }

  /**
   * Reads records from just after the header to the first damaged one. Synchronous reads: this runs
   * once at start-up, before the store serves anything. Returns the extent of the intact prefix.
   */
  *scan(): Generator<ScannedRecord, ScanEnd, void> {
    const fileSize = this.size;
    const head = Buffer.alloc(RECORD_HEADER_BYTES);
    let pos = HEADER_BYTES;
    const stop = (reason: string | null): ScanEnd => ({ goodEnd: pos, fileSize, stopReason: reason });
    while (pos < fileSize) {
      if (fileSize - pos < RECORD_HEADER_BYTES) return stop('torn record header');
      readExactly(this.fh.fd, head, pos);
      const len = head.readUInt32LE(0);
      const crc = head.readUInt32LE(4);
      if (len === 0 || len > MAX_RECORD_BYTES) return stop(`implausible record length ${len}`);
      if (pos + RECORD_HEADER_BYTES + len > fileSize) return stop('record runs past end of file');
      const payload = Buffer.allocUnsafe(len);
      readExactly(this.fh.fd, payload, pos + RECORD_HEADER_BYTES);
      if (crc32(payload) !== crc) return stop('record checksum mismatch');
      let rec: JournalRecord;
      try {
        rec = decodePayload(payload);
      } catch (err) {
        return stop(`record does not parse: ${(err as Error).message}`);
      }
      const end = pos + RECORD_HEADER_BYTES + len;
      yield { ...rec, start: pos, end };
      pos = end;
    }
    return stop(null);
  }

  /** Writes records at the end and fdatasyncs them. On failure `size` is unchanged. */
  async append(buf: Buffer): Promise<void> {
    await writeFully(this.fh, buf, this.size);
    // fdatasync also persists the grown file size, which is all the metadata a reader needs.
    await this.fh.datasync();
    this.size += buf.length;
  }

  /** Cuts the file to `to` bytes (never below the header) and fsyncs. */
  async truncate(to: number): Promise<void> {
    const at = Math.max(to, HEADER_BYTES);
    await this.fh.truncate(at);
    await this.fh.sync();
    this.size = at;
  }

  async close(): Promise<void> {
    await this.fh.close();
  }
}

function foreign(path: string): Error {
  return new Error(`${path} is not a netprobe journal (bad header); move it away to start with an empty journal`);
}

async function createFile(path: string): Promise<void> {
  let fh: FileHandle;
  try {
    fh = await open(path, 'wx', 0o600);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return;
    throw err;
  }
  try {
    await writeFully(fh, journalHeader(), 0);
    await fh.sync();
  } finally {
    await fh.close();
  }
  await fsyncDir(dirname(path));
}

function readExactly(fd: number, buf: Buffer, position: number): void {
  let done = 0;
  while (done < buf.length) {
    const n = readSync(fd, buf, done, buf.length - done, position + done);
    if (n === 0) throw new Error('unexpected end of journal file');
    done += n;
  }
}
