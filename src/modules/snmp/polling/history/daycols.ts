// A closed day's 5-minute steps by interface (index.ts, "File format", cols-YYYYMMDD.bin): each interface's 288
// records side by side and deflated, found through an index at the end of the file. One read of a few KB
// gives an interface's day, where the day's steps file would take 288 reads 100 KB apart (on an SD card, a
// page each: seconds for a month).
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { crc32, inflateRawSync } from 'node:zlib';
import { findKey } from './blocks.js';
import { RECORD_BYTES } from './codec.js';

export const COLS_MAGIC = 0x4348504e; // "NPHC"
export const COLS_VERSION = 1;
export const STEPS_PER_DAY = 288;
export const CHUNK_BYTES = STEPS_PER_DAY * RECORD_BYTES;
/** Footer: magic | version | day start (epoch s) | n | CRC-32 of the index | 0. */
export const FOOTER_BYTES = 24;

/** The index and footer that end a cols file, for `keys` (ascending) and their chunks' offsets and lengths. */
export function colsTail(day_s: number, keys: Uint32Array, offs: Uint32Array, lens: Uint32Array): Buffer {
  const n = keys.length;
  const index = Buffer.concat([keys, offs, lens].map((a) => Buffer.from(a.buffer, a.byteOffset, n * 4)));
  const foot = Buffer.alloc(FOOTER_BYTES);
  foot.writeUInt32LE(COLS_MAGIC, 0);
  foot.writeUInt32LE(COLS_VERSION, 4);
  foot.writeUInt32LE(day_s, 8);
  foot.writeUInt32LE(n, 12);
  foot.writeUInt32LE(crc32(index), 16);
  return Buffer.concat([index, foot]);
}

interface ColsIndex { day_s: number; keys: Uint32Array; offs: Uint32Array; lens: Uint32Array }

/** Reads one interface's day out of cols files; remembers each file's index. */
export class ColsReader {
  private cache = new Map<string, ColsIndex | null>();
  constructor(private readonly maxFiles = 40) {}

  drop(file: string): void { this.cache.delete(file); }

  /**
   * Calls `fn(start_s, buf, at)` for each step of `key` in [from_s, to_s) that holds points. Returns false when
   * the file is missing or not whole (the caller reads the day's steps file instead).
   */
  forKey(file: string, key: number, from_s: number, to_s: number, fn: (start_s: number, buf: Buffer, at: number) => void): boolean {
    let fd: number;
    try { fd = openSync(file, 'r'); } catch { return false; }
    try {
      const ix = this.index(file, fd);
      if (!ix) return false;
      const i = findKey(ix.keys, key);
      if (i < 0) return true;
      const packed = Buffer.alloc(ix.lens[i]!);
      readSync(fd, packed, 0, packed.length, ix.offs[i]!);
      let chunk: Buffer;
      try { chunk = inflateRawSync(packed); } catch { return true; } // a rotten chunk: that day is a gap
      for (let j = 0; j < STEPS_PER_DAY && (j + 1) * RECORD_BYTES <= chunk.length; j++) {
        const start = ix.day_s + j * 300;
        if (start >= from_s && start < to_s) fn(start, chunk, j * RECORD_BYTES);
      }
      return true;
    } finally {
      closeSync(fd);
    }
  }

  private index(file: string, fd: number): ColsIndex | null {
    if (this.cache.has(file)) return this.cache.get(file)!;
    const size = fstatSync(fd).size;
    let ix: ColsIndex | null = null;
    const foot = Buffer.alloc(FOOTER_BYTES);
    if (size >= FOOTER_BYTES && readSync(fd, foot, 0, FOOTER_BYTES, size - FOOTER_BYTES) === FOOTER_BYTES
      && foot.readUInt32LE(0) === COLS_MAGIC && foot.readUInt32LE(4) === COLS_VERSION) {
      const n = foot.readUInt32LE(12);
      const raw = Buffer.alloc(n * 12);
      if (size >= FOOTER_BYTES + n * 12 && readSync(fd, raw, 0, raw.length, size - FOOTER_BYTES - raw.length) === raw.length
        && crc32(raw) === foot.readUInt32LE(16)) {
        const copy = new Uint32Array(n * 3);
        Buffer.from(copy.buffer).set(raw);
        ix = { day_s: foot.readUInt32LE(8), keys: copy.subarray(0, n), offs: copy.subarray(n, 2 * n), lens: copy.subarray(2 * n) };
      }
    }
    this.cache.set(file, ix);
    while (this.cache.size > this.maxFiles) this.cache.delete(this.cache.keys().next().value!);
    return ix;
  }
}
