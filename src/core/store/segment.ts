// A channel segment: the entries one channel received up to a checkpoint, moved out of the journal by that
// checkpoint (the snapshot never holds them). Written whole (temp file, fsync, rename), so a segment is
// complete or absent; its blocks are checksummed all the same, because an SD card can rot.
//
//   name    netprobe.<channel>.<last LSN, 12 digits>.seg
//   header  32 bytes: "NPCHAN\r\n" | u32 LE version (1) | u32 LE reserved | f64 LE written at (epoch ms)
//                     | f64 LE last LSN
//   block   u32 LE payload length | u32 LE CRC-32 of payload | payload
//   payload entries, each: varint LSN minus the previous entry's (the first: minus 0) | varint length | bytes
import { rename } from 'node:fs/promises';
import { closeSync, openSync, readdirSync, readSync, fstatSync } from 'node:fs';
import { join } from 'node:path';
import { crc32 } from 'node:zlib';
import { ByteReader, ByteWriter } from './codec.js';
import { writeFully, writeSyncedTemp } from './files.js';

const MAGIC = Buffer.from('NPCHAN\r\n', 'latin1');
const VERSION = 1;
const HEADER_BYTES = 32;
const BLOCK_BYTES = 64 * 1024;
const NAME = /^netprobe\.([a-z0-9_.-]+)\.(\d{12,})\.seg$/;

export interface SegmentFile {
  channel: string;
  lastLsn: number;
  file: string;
}

export interface SegmentEntry {
  lsn: number;
  data: Uint8Array;
}

export function segmentName(channel: string, lastLsn: number): string {
  return `netprobe.${channel}.${String(lastLsn).padStart(12, '0')}.seg`;
}

/** The segments in `dir`, oldest first per channel; temp files of a crashed checkpoint are listed apart. */
export function listSegments(dir: string): { segments: SegmentFile[]; temps: string[] } {
  const segments: SegmentFile[] = [];
  const temps: string[] = [];
  for (const file of readdirSync(dir)) {
    if (file.startsWith('netprobe.') && file.endsWith('.seg.tmp')) { temps.push(file); continue; }
    const m = NAME.exec(file);
    if (m) segments.push({ channel: m[1]!, lastLsn: Number(m[2]), file });
  }
  segments.sort((a, b) => a.lastLsn - b.lastLsn);
  return { segments, temps };
}

/** Writes the segment (temp file, fsync, rename). The caller fsyncs the directory. */
export async function writeSegment(dir: string, channel: string, lastLsn: number, writtenAt: number,
  entries: readonly SegmentEntry[]): Promise<void> {
  const name = segmentName(channel, lastLsn);
  const tmp = join(dir, `${name}.tmp`);
  await writeSyncedTemp(tmp, async (fh) => {
    const head = Buffer.alloc(HEADER_BYTES);
    MAGIC.copy(head, 0);
    head.writeUInt32LE(VERSION, 8);
    head.writeDoubleLE(writtenAt, 16);
    head.writeDoubleLE(lastLsn, 24);
    let pos = 0;
    await writeFully(fh, head, pos);
    pos += HEADER_BYTES;
    const w = new ByteWriter(BLOCK_BYTES + 1024);
    let prev = 0;
    const flushBlock = async () => {
      const block = Buffer.allocUnsafe(8 + w.pos);
      block.writeUInt32LE(w.pos, 0);
      block.writeUInt32LE(crc32(w.view()), 4);
      block.set(w.view(), 8);
      await writeFully(fh, block, pos);
      pos += block.length;
      w.reset();
    };
    for (const e of entries) {
      w.varint(e.lsn - prev);
      w.bytes(e.data);
      prev = e.lsn;
      if (w.pos >= BLOCK_BYTES) await flushBlock();
    }
    if (w.pos > 0) await flushBlock();
  });
  await rename(tmp, join(dir, name));
}

/** When the segment was written (its entries were all committed before), or null for a damaged header. */
export function segmentWrittenAt(path: string): number | null {
  const fd = openSync(path, 'r');
  try {
    const head = Buffer.alloc(HEADER_BYTES);
    if (readSync(fd, head, 0, HEADER_BYTES, 0) < HEADER_BYTES || !head.subarray(0, 8).equals(MAGIC)) return null;
    return head.readDoubleLE(16);
  } finally {
    closeSync(fd);
  }
}

/**
 * Calls fn for each entry, in order: its bytes are `buf[start, end)`, valid during the call (the buffer is
 * reused). Synchronous: it runs at start-up, while a module loads what its channel holds. Stops at the
 * first damaged block and returns why.
 */
export function readSegment(path: string, fn: (lsn: number, buf: Uint8Array, start: number, end: number) => void): string | null {
  const fd = openSync(path, 'r');
  try {
    const size = fstatSync(fd).size;
    const head = Buffer.alloc(HEADER_BYTES);
    if (readSync(fd, head, 0, HEADER_BYTES, 0) < HEADER_BYTES || !head.subarray(0, 8).equals(MAGIC)) return 'bad header';
    if (head.readUInt32LE(8) !== VERSION) return `unknown version ${head.readUInt32LE(8)}`;
    let pos = HEADER_BYTES, lsn = 0;
    const blockHead = Buffer.alloc(8);
    let buf = Buffer.alloc(BLOCK_BYTES + 1024);
    while (pos < size) {
      if (size - pos < 8 || readSync(fd, blockHead, 0, 8, pos) < 8) return 'torn block header';
      const len = blockHead.readUInt32LE(0);
      if (len === 0 || pos + 8 + len > size) return 'block runs past end of file';
      if (buf.length < len) buf = Buffer.alloc(len);
      const payload = buf.subarray(0, len);
      if (readSync(fd, payload, 0, len, pos + 8) < len) return 'short read';
      if (crc32(payload) !== blockHead.readUInt32LE(4)) return 'block checksum mismatch';
      const r = new ByteReader(payload);
      while (!r.done) {
        let start: number;
        try {
          lsn += r.varint();
          const n = r.varint();
          start = r.pos;
          r.skip(n);
        } catch {
          return 'block does not parse';
        }
        fn(lsn, payload, start, r.pos);
      }
      pos += 8 + len;
    }
    return null;
  } finally {
    closeSync(fd);
  }
}
