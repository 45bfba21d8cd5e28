// A closed day's 5-minute steps added up into one day step per interface: the day's block of the year's
// file. Reads the day's file a block at a time (about 100 KB at 2,400 interfaces) and yields between blocks,
// so neither memory nor the event loop sees the whole day at once.
import fs from 'node:fs/promises';
import { setImmediate as yieldLoop } from 'node:timers/promises';
import { blockBytes, HEADER_BYTES, newBlock, readHeader, recordAt, sealBlock } from './blocks.js';
import { newStepValues, readRecord, writeRecord } from './codec.js';
import { DAY_S } from './files.js';
import { Grid } from './views.js';

/** The day block of UTC day `day` from its steps file, or null when the file holds no step of that day. */
export async function rollupDay(file: string, day: number): Promise<Buffer | null> {
  const fh = await fs.open(file, 'r').catch(() => null);
  if (!fh) return null;
  const from_s = day * DAY_S;
  // Per key, a one-step grid; keys as they come (a day's blocks usually all hold the same ones).
  const grids = new Map<number, Grid>();
  const v = newStepValues();
  try {
    const size = (await fh.stat()).size;
    const head = Buffer.alloc(HEADER_BYTES);
    let buf = Buffer.alloc(0);
    for (let at = 0; at + HEADER_BYTES <= size;) {
      await fh.read(head, 0, HEADER_BYTES, at);
      const h = readHeader(head);
      if (!h || at + blockBytes(h.n) > size) break;
      const len = blockBytes(h.n);
      if (buf.length < len) buf = Buffer.alloc(len);
      await fh.read(buf, 0, len, at);
      if (h.start >= from_s && h.start < from_s + DAY_S) {
        for (let i = 0; i < h.n; i++) {
          const key = buf.readUInt32LE(HEADER_BYTES + i * 4);
          let g = grids.get(key);
          if (!g) grids.set(key, (g = new Grid(from_s, DAY_S, 1)));
          readRecord(buf, recordAt(h.n, i), v);
          g.add(h.start, v);
        }
      }
      at += len;
      await yieldLoop();
    }
  } finally {
    await fh.close();
  }
  if (grids.size === 0) return null;
  const keys = Uint32Array.from(grids.keys()).sort();
  const block = newBlock(from_s, DAY_S, keys);
  for (let i = 0; i < keys.length; i++) {
    grids.get(keys[i]!)!.step(0, v);
    writeRecord(block, recordAt(keys.length, i), v);
  }
  return sealBlock(block);
}
