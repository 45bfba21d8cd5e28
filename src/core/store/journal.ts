// The journal file: a fixed header, then one record per committed write transaction (record.ts).
//
//   header  (16 bytes): "NPJRNL\r\n" | u32 LE format version | u32 LE reserved (0)
//   record:            u32 LE payload length | u32 LE CRC-32 of payload | payload
//
// Format 2 payloads are binary (record.ts); format 1 (JSON, legacy.ts) is what earlier builds wrote and is
// only read. A scan stops at the first record that is torn (runs past end of file), has an absurd length,
// fails its CRC or does not parse: everything from there on was never acknowledged as durable and is cut
// off by the store.
import { open, type FileHandle } from 'node:fs/promises';
import { readSync } from 'node:fs';
import { dirname } from 'node:path';
import { crc32 } from 'node:zlib';
import { decodeLegacyPayload } from './legacy.js';
import { MAX_RECORD_BYTES, RECORD_HEADER_BYTES, RecordDecoder, type JournalRecord } from './record.js';
import { fsyncDir, writeFully } from './files.js';

export { MAX_RECORD_BYTES, RECORD_HEADER_BYTES };
export const JOURNAL_FILE = 'netprobe.journal';
// "\r\n" in the magic catches a file mangled by a text-mode copy.
const MAGIC = Buffer.from('NPJRNL\r\n', 'latin1');
/** The format this build writes; LEGACY_VERSION files are read, then started over in this one. */
export const JOURNAL_VERSION = 2;
export const LEGACY_VERSION = 1;
export const HEADER_BYTES = 16;

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

export function journalHeader(version = JOURNAL_VERSION): Buffer {
  const h = Buffer.alloc(HEADER_BYTES);
  MAGIC.copy(h, 0);
  h.writeUInt32LE(version, 8);
  return h;
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
    /** The file's format: JOURNAL_VERSION, or LEGACY_VERSION until reset() starts it over. */
    public version: number,
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
        const known = [expected, journalHeader(LEGACY_VERSION)];
        if (!known.some((h) => head.subarray(0, bytesRead).equals(h.subarray(0, bytesRead)))) throw foreign(path);
        // Torn during creation: nothing can have been journaled yet.
        await fh.truncate(0);
        await writeFully(fh, expected, 0);
        await fh.sync();
        return new Journal(path, fh, HEADER_BYTES, JOURNAL_VERSION);
      }
      if (!head.subarray(0, MAGIC.length).equals(MAGIC)) throw foreign(path);
      const version = head.readUInt32LE(8);
      if (version !== JOURNAL_VERSION && version !== LEGACY_VERSION) {
        throw new Error(`${path} has journal format version ${version}; ` +
          `this build reads versions ${LEGACY_VERSION} and ${JOURNAL_VERSION}`);
      }
      return new Journal(path, fh, size, version);
    } catch (err) {
      await fh.close().catch(() => undefined);
      throw err;
    }
  }

  /**
   * The intact records' payloads, from just after the header to the first damaged one. Synchronous reads:
   * this runs at start-up, before the store serves anything. Returns the extent of the intact prefix.
   */
  *payloads(): Generator<{ payload: Buffer; start: number; end: number }, ScanEnd, void> {
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
      const end = pos + RECORD_HEADER_BYTES + len;
      yield { payload, start: pos, end };
      pos = end;
    }
    return stop(null);
  }

  /** Decoded records up to the first damaged one (see payloads). */
  *scan(): Generator<ScannedRecord, ScanEnd, void> {
    const decoder = new RecordDecoder();
    const decode = this.version === LEGACY_VERSION ? decodeLegacyPayload : (p: Uint8Array) => decoder.decode(p);
    const it = this.payloads();
    for (;;) {
      const step = it.next();
      if (step.done) return step.value;
      const { payload, start, end } = step.value;
      let rec: JournalRecord;
      try {
        rec = decode(payload);
      } catch (err) {
        return { goodEnd: start, fileSize: this.size, stopReason: `record does not parse: ${(err as Error).message}` };
      }
      yield { ...rec, start, end };
    }
  }

  /**
   * The same payloads, read in chunks without blocking the event loop (a checkpoint collects channel
   * entries this way while the service runs). Stops quietly at the first damaged record.
   */
  async forEachPayload(fn: (payload: Buffer) => void): Promise<void> {
    const chunk = 1024 * 1024;
    let buf = Buffer.alloc(0);
    let pos = HEADER_BYTES; // file offset of buf[0]
    let at = 0; // next record within buf
    const fill = async (need: number): Promise<boolean> => {
      if (buf.length - at >= need) return true;
      const from = pos + buf.length;
      const want = Math.min(Math.max(need - (buf.length - at), chunk), this.size - from);
      if (want <= 0) return false;
      const more = Buffer.allocUnsafe(want);
      const { bytesRead } = await this.fh.read(more, 0, want, from);
      buf = Buffer.concat([buf.subarray(at), more.subarray(0, bytesRead)]);
      pos += at;
      at = 0;
      return buf.length >= need;
    };
    while (await fill(RECORD_HEADER_BYTES)) {
      const len = buf.readUInt32LE(at);
      if (len === 0 || len > MAX_RECORD_BYTES || !(await fill(RECORD_HEADER_BYTES + len))) return;
      const payload = buf.subarray(at + RECORD_HEADER_BYTES, at + RECORD_HEADER_BYTES + len);
      if (crc32(payload) !== buf.readUInt32LE(at + 4)) return;
      fn(payload);
      at += RECORD_HEADER_BYTES + len;
    }
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

  /**
   * Empties the file down to its header, in this build's format. A legacy file is emptied first and its
   * version field rewritten after: a crash in between leaves an empty legacy file, which is reset again.
   */
  async reset(): Promise<void> {
    await this.truncate(HEADER_BYTES);
    if (this.version === JOURNAL_VERSION) return;
    await writeFully(this.fh, journalHeader(), 0);
    await this.fh.sync();
    this.version = JOURNAL_VERSION;
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
