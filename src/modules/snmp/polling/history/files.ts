// The history's files: their names, appending a block durably, cutting a torn tail at start, and finding
// one interface's record in a file without reading the others (a cached index of each file's blocks).
import { closeSync, fstatSync, ftruncateSync, openSync, readSync } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import type { Logger } from '../../../../core/log.js';
import { blockBytes, blockIntact, findKey, HEADER_BYTES, readHeader, recordAt } from './blocks.js';
import { RECORD_BYTES } from './codec.js';

export const DAY_S = 86_400;

/** UTC day number (days since the epoch) as YYYYMMDD. */
const ymd = (day: number): string => new Date(day * DAY_S * 1000).toISOString().slice(0, 10).replaceAll('-', '');

export const stepsName = (day: number): string => `steps-${ymd(day)}.bin`;
export const colsName = (day: number): string => `cols-${ymd(day)}.bin`;
export const daysName = (year: number): string => `days-${year}.bin`;
export const yearOf = (day: number): number => new Date(day * DAY_S * 1000).getUTCFullYear();

export type HistoryFile = { kind: 'steps' | 'cols'; day: number } | { kind: 'days'; year: number };

export function parseName(name: string): HistoryFile | null {
  let m = /^(steps|cols)-(\d{4})(\d{2})(\d{2})\.bin$/.exec(name);
  if (m) return { kind: m[1] as 'steps' | 'cols', day: Date.UTC(+m[2]!, +m[3]! - 1, +m[4]!) / 86_400_000 };
  m = /^days-(\d{4})\.bin$/.exec(name);
  return m ? { kind: 'days', year: +m[1]! } : null;
}

/** Appends one block and makes it durable (a new file's directory entry too) before resolving. */
export async function appendBlock(file: string, block: Buffer): Promise<void> {
  const isNew = !(await fs.stat(file).catch(() => null));
  const fh = await fs.open(file, 'a', 0o600);
  try {
    await fh.write(block, 0, block.length);
    await fh.datasync();
  } finally {
    await fh.close();
  }
  if (isNew) {
    const d = await fs.open(path.dirname(file), 'r');
    try { await d.sync(); } finally { await d.close(); }
  }
}

/**
 * Cuts a file at its first block that is not whole or whose checksum fails (an append a crash or power cut
 * tore), keeping every block before it. Reads one block at a time. Returns the blocks kept.
 */
export function repairTail(file: string, log: Logger): number {
  let fd: number;
  try { fd = openSync(file, 'r+'); } catch { return 0; }
  try {
    const size = fstatSync(fd).size;
    const head = Buffer.alloc(HEADER_BYTES);
    let buf = Buffer.alloc(0);
    let at = 0;
    let blocks = 0;
    while (at < size) {
      const h = readSync(fd, head, 0, HEADER_BYTES, at) === HEADER_BYTES ? readHeader(head) : null;
      const len = h ? blockBytes(h.n) : 0;
      if (!h || at + len > size) break;
      if (buf.length < len) buf = Buffer.alloc(len);
      readSync(fd, buf, 0, len, at);
      if (!blockIntact(buf.subarray(0, len), 0, h)) break;
      at += len;
      blocks++;
    }
    if (at < size) {
      log.warn('snmp history: torn tail cut', { file: path.basename(file), kept_bytes: at, cut_bytes: size - at, blocks });
      ftruncateSync(fd, at);
    }
    return blocks;
  } finally {
    closeSync(fd);
  }
}

interface FileIndex {
  size: number;
  offs: number[];
  starts: number[];
  ns: number[];
  crcs: number[];
  keys: Map<number, Uint32Array>;
}

/** Reads single records out of the history's files; remembers each file's block offsets and key lists. */
export class BlockReader {
  private cache = new Map<string, FileIndex>();
  private head = Buffer.alloc(HEADER_BYTES);
  private rec = Buffer.alloc(RECORD_BYTES);

  constructor(private readonly maxFiles = 48) {}

  /** Forgets a file (deleted, or rewritten). */
  drop(file: string): void { this.cache.delete(file); }

  /** Start (epoch s) of the file's last whole block; -1 when it has none or is missing. */
  lastStart(file: string): number {
    let fd: number;
    try { fd = openSync(file, 'r'); } catch { return -1; }
    try { return this.index(file, fd).starts.at(-1) ?? -1; } finally { closeSync(fd); }
  }

  /**
   * Calls `fn(start_s, rec, 0)` for every block of `file` whose start is in [from_s, to_s) and that holds
   * `key`, in file order; `rec` holds the record (RECORD_BYTES, reused). A missing file reads as empty.
   */
  forKey(file: string, key: number, from_s: number, to_s: number, fn: (start_s: number, rec: Buffer, at: number) => void): void {
    let fd: number;
    try { fd = openSync(file, 'r'); } catch { return; }
    try {
      const ix = this.index(file, fd);
      let lastCrc = -1;
      let pos = -1;
      for (let b = 0; b < ix.offs.length; b++) {
        const start = ix.starts[b]!;
        if (start < from_s || start >= to_s) continue;
        const crc = ix.crcs[b]!;
        if (crc !== lastCrc) {
          pos = findKey(this.keysOf(ix, fd, b), key);
          lastCrc = crc;
        }
        if (pos < 0) continue;
        if (readSync(fd, this.rec, 0, RECORD_BYTES, ix.offs[b]! + recordAt(ix.ns[b]!, pos)) !== RECORD_BYTES) break;
        fn(start, this.rec, 0);
      }
    } finally {
      closeSync(fd);
    }
  }

  private keysOf(ix: FileIndex, fd: number, b: number): Uint32Array {
    const crc = ix.crcs[b]!;
    let keys = ix.keys.get(crc);
    if (!keys) {
      const n = ix.ns[b]!;
      const raw = Buffer.alloc(n * 4);
      readSync(fd, raw, 0, n * 4, ix.offs[b]! + HEADER_BYTES);
      keys = new Uint32Array(raw.buffer, raw.byteOffset, n);
      ix.keys.set(crc, keys);
    }
    return keys;
  }

  /** The file's block index, extended when the file grew since (today's file takes a block every step). */
  private index(file: string, fd: number): FileIndex {
    const size = fstatSync(fd).size;
    let ix = this.cache.get(file);
    if (ix && size < ix.size) ix = undefined; // cut or replaced
    ix ??= { size: 0, offs: [], starts: [], ns: [], crcs: [], keys: new Map() };
    let at = ix.size;
    while (at + HEADER_BYTES <= size) {
      const h = readSync(fd, this.head, 0, HEADER_BYTES, at) === HEADER_BYTES ? readHeader(this.head) : null;
      if (!h || at + blockBytes(h.n) > size) break; // an append under way, or damage: read what is before it
      ix.offs.push(at); ix.starts.push(h.start); ix.ns.push(h.n); ix.crcs.push(h.keysCrc);
      at += blockBytes(h.n);
    }
    ix.size = at;
    this.cache.delete(file);
    this.cache.set(file, ix); // most recently used last
    while (this.cache.size > this.maxFiles) {
      this.cache.delete(this.cache.keys().next().value!);
    }
    return ix;
  }
}
