// One block: a step of every interface (index.ts, "File format"): building it, and checking it.
import { crc32 } from 'node:zlib';
import { RECORD_BYTES } from './codec.js';

export const BLOCK_MAGIC = 0x3148504e; // "NPH1"
export const HEADER_BYTES = 24;

export interface BlockHeader {
  /** Step start, epoch seconds. */
  start: number;
  step_s: number;
  n: number;
  keysCrc: number;
  bodyCrc: number;
}

export const blockBytes = (n: number): number => HEADER_BYTES + n * (4 + RECORD_BYTES);

/**
 * A block with room for `keys` (ascending), in `reuse` when it is large enough; the caller fills every record,
 * then seals it.
 */
export function newBlock(start_s: number, step_s: number, keys: Uint32Array, reuse?: Buffer): Buffer {
  const n = keys.length;
  const buf = reuse && reuse.length >= blockBytes(n) ? reuse.subarray(0, blockBytes(n)) : Buffer.alloc(blockBytes(n));
  buf.writeUInt32LE(BLOCK_MAGIC, 0);
  buf.writeUInt32LE(start_s, 4);
  buf.writeUInt32LE(step_s, 8);
  buf.writeUInt32LE(n, 12);
  const keyBytes = Buffer.from(keys.buffer, keys.byteOffset, n * 4);
  keyBytes.copy(buf, HEADER_BYTES);
  buf.writeUInt32LE(crc32(keyBytes), 16);
  return buf;
}

export const recordAt = (n: number, i: number): number => HEADER_BYTES + n * 4 + i * RECORD_BYTES;

export function sealBlock(buf: Buffer): Buffer {
  buf.writeUInt32LE(crc32(buf.subarray(HEADER_BYTES)), 20);
  return buf;
}

/** The header at `at`, or null when it is not one (a torn or foreign tail). */
export function readHeader(buf: Buffer, at = 0): BlockHeader | null {
  if (buf.length - at < HEADER_BYTES || buf.readUInt32LE(at) !== BLOCK_MAGIC) return null;
  return {
    start: buf.readUInt32LE(at + 4), step_s: buf.readUInt32LE(at + 8), n: buf.readUInt32LE(at + 12),
    keysCrc: buf.readUInt32LE(at + 16), bodyCrc: buf.readUInt32LE(at + 20),
  };
}

/** Whether the whole block at `at` of `buf` is there and its checksum holds. */
export function blockIntact(buf: Buffer, at: number, h: BlockHeader): boolean {
  const end = at + blockBytes(h.n);
  return end <= buf.length && crc32(buf.subarray(at + HEADER_BYTES, end)) === h.bodyCrc;
}

/** Index of `key` in ascending `keys`, or -1. */
export function findKey(keys: Uint32Array, key: number): number {
  let lo = 0;
  let hi = keys.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    const k = keys[mid]!;
    if (k === key) return mid;
    if (k < key) lo = mid + 1; else hi = mid - 1;
  }
  return -1;
}
