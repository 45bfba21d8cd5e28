// A day's end: its steps file (a block per 5-minute step, as appended) becomes its cols file (each
// interface's day side by side, deflated) and one day step per interface for the year's file. Reads the
// steps file once, a range of keys at a time (one read per block per range: memory stays at about 3 MB
// whatever the interfaces), yields between ranges, writes the cols file whole (temp, fsync, rename).
import fs from 'node:fs/promises';
import path from 'node:path';
import { setImmediate as yieldLoop } from 'node:timers/promises';
import { deflateRawSync } from 'node:zlib';
import { blockBytes, HEADER_BYTES, newBlock, readHeader, recordAt, sealBlock } from './blocks.js';
import { newStepValues, readRecord, RECORD_BYTES, writeRecord } from './codec.js';
import { CHUNK_BYTES, colsTail, STEPS_PER_DAY } from './daycols.js';
import { DAY_S } from './files.js';
import { Grid } from './views.js';

/** Keys whose day is gathered at once: 64 x 11.5 KB (memory; each block is read once per range). */
const RANGE = 64;

/** A 16 KB window covers a chunk (11.5 KB); memLevel 4 keeps zlib's state near 72 KB instead of 256 KB. */
const DEFLATE = { level: 6, windowBits: 14, memLevel: 4 };

interface Block { off: number; start: number; n: number; keys: Uint32Array }

/** First index in ascending `a` whose value is >= v. */
function lowerBound(a: Uint32Array, v: number): number {
  let lo = 0;
  let hi = a.length;
  while (lo < hi) { const m = (lo + hi) >>> 1; if (a[m]! < v) lo = m + 1; else hi = m; }
  return lo;
}

/**
 * Writes `cols` from `steps` (day `day`) and returns the day block of every interface (null: no step that
 * day). `cols` appears whole or not at all; `steps` is left for the caller to delete.
 */
export async function compactDay(steps: string, cols: string, day: number): Promise<{ dayBlock: Buffer | null; bytes: number }> {
  const day_s = day * DAY_S;
  const blocks: Block[] = [];
  const fh = await fs.open(steps, 'r');
  try {
    const size = (await fh.stat()).size;
    const head = Buffer.alloc(HEADER_BYTES);
    const lists = new Map<number, Uint32Array>();
    for (let at = 0; at + HEADER_BYTES <= size;) {
      await fh.read(head, 0, HEADER_BYTES, at);
      const h = readHeader(head);
      if (!h || at + blockBytes(h.n) > size) break;
      let keys = lists.get(h.keysCrc);
      if (!keys) {
        const raw = Buffer.alloc(h.n * 4);
        await fh.read(raw, 0, raw.length, at + HEADER_BYTES);
        lists.set(h.keysCrc, (keys = new Uint32Array(raw.buffer, raw.byteOffset, h.n)));
      }
      const j = (h.start - day_s) / 300;
      if (Number.isInteger(j) && j >= 0 && j < STEPS_PER_DAY) blocks.push({ off: at, start: h.start, n: h.n, keys });
      at += blockBytes(h.n);
    }
    const union = new Set<number>();
    for (const keys of lists.values()) for (const k of keys) union.add(k);
    const all = Uint32Array.from(union).sort();
    if (all.length === 0 || blocks.length === 0) return { dayBlock: null, bytes: 0 };

    const offs = new Uint32Array(all.length);
    const lens = new Uint32Array(all.length);
    const dayBlock = newBlock(day_s, DAY_S, all);
    const gathered = Buffer.alloc(RANGE * CHUNK_BYTES);
    let read = Buffer.alloc(0);
    const v = newStepValues();
    const grid = new Grid(day_s, DAY_S, 1);
    const tmp = path.join(path.dirname(cols), `.${path.basename(cols)}.${process.pid}.tmp`);
    const out = await fs.open(tmp, 'w', 0o600);
    let pos = 0;
    try {
      for (let g0 = 0; g0 < all.length; g0 += RANGE) {
        const g1 = Math.min(all.length, g0 + RANGE);
        gathered.fill(0); // a record of zeros holds no point: a gap
        for (const b of blocks) {
          const a = lowerBound(b.keys, all[g0]!);
          const z = lowerBound(b.keys, all[g1 - 1]! + 1);
          if (a >= z) continue;
          const len = (z - a) * RECORD_BYTES;
          if (read.length < len) read = Buffer.alloc(len);
          await fh.read(read, 0, len, b.off + recordAt(b.n, a));
          const j = (b.start - day_s) / 300;
          // Keys of the block in this range are in the range's order: walk both.
          let gi = lowerBound(all, b.keys[a]!) - g0;
          for (let p = a; p < z; p++) {
            while (all[g0 + gi] !== b.keys[p]) gi++;
            read.copy(gathered, (gi * STEPS_PER_DAY + j) * RECORD_BYTES, (p - a) * RECORD_BYTES, (p - a + 1) * RECORD_BYTES);
          }
        }
        for (let i = g0; i < g1; i++) {
          const chunk = gathered.subarray((i - g0) * CHUNK_BYTES, (i - g0 + 1) * CHUNK_BYTES);
          grid.reset();
          for (let j = 0; j < STEPS_PER_DAY; j++) { readRecord(chunk, j * RECORD_BYTES, v); grid.add(day_s, v); }
          grid.step(0, v);
          writeRecord(dayBlock, recordAt(all.length, i), v);
          const packed = deflateRawSync(chunk, DEFLATE);
          await out.write(packed, 0, packed.length, pos);
          offs[i] = pos;
          lens[i] = packed.length;
          pos += packed.length;
          if (i % 32 === 31) await yieldLoop(); // deflating 32 days of interfaces: about 5 ms here
        }
        await yieldLoop();
      }
      const tail = colsTail(day_s, all, offs, lens);
      await out.write(tail, 0, tail.length, pos);
      pos += tail.length;
      await out.sync();
    } catch (e) {
      await out.close();
      await fs.rm(tmp, { force: true });
      throw e;
    }
    await out.close();
    await fs.rename(tmp, cols);
    const d = await fs.open(path.dirname(cols), 'r');
    try { await d.sync(); } finally { await d.close(); }
    return { dayBlock: sealBlock(dayBlock), bytes: pos };
  } finally {
    await fh.close();
  }
}
