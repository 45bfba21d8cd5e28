// The image written at close(): the open steps and the last hour's points, so that a stop and start keeps
// them (a crash loses them: at most the open 5 minutes, and the hour view's points before the start). Written
// whole (temp, fsync, rename), read once at open() and deleted, so that a later crash cannot bring it back.
import { readFile, rm } from 'node:fs/promises';
import { crc32 } from 'node:zlib';
import { writeFileAtomic } from '../../../../core/files.js';
import type { Live } from './live.js';

const MAGIC = 0x4948504e; // "NPHI"
const VERSION = 1;

export interface ImageState {
  /** The last step number closed (written) when the image was taken. */
  closedThrough: number;
  written_at: number;
}

export async function writeImage(file: string, live: Live, st: ImageState): Promise<number> {
  const arrays = live.arrays();
  const head = Buffer.alloc(32);
  head.writeUInt32LE(MAGIC, 0);
  head.writeUInt32LE(VERSION, 4);
  head.writeUInt32LE(live.keyOf.length, 8);
  head.writeUInt32LE(arrays.length, 12);
  head.writeDoubleLE(st.closedThrough, 16);
  head.writeDoubleLE(st.written_at, 24);
  const parts: Buffer[] = [head];
  for (const a of arrays) {
    const len = Buffer.alloc(4);
    len.writeUInt32LE(a.byteLength);
    parts.push(len, Buffer.from(a.buffer, a.byteOffset, a.byteLength));
  }
  const body = Buffer.concat(parts);
  const crc = Buffer.alloc(4);
  crc.writeUInt32LE(crc32(body));
  await writeFileAtomic(file, Buffer.concat([body, crc]));
  return body.length + 4;
}

/** The image's state after restoring `live` from it, or a reason it was not used (then `live` is untouched). */
export async function readImage(file: string, live: Live): Promise<ImageState | string> {
  const buf = await readFile(file).catch(() => null);
  if (!buf) return 'none';
  await rm(file, { force: true });
  if (buf.length < 36 || buf.readUInt32LE(0) !== MAGIC) return 'not an image';
  if (buf.readUInt32LE(4) !== VERSION) return `version ${buf.readUInt32LE(4)}`;
  if (crc32(buf.subarray(0, buf.length - 4)) !== buf.readUInt32LE(buf.length - 4)) return 'checksum mismatch';
  const cap = buf.readUInt32LE(8);
  const count = buf.readUInt32LE(12);
  const parts: Buffer[] = [];
  let at = 32;
  for (let i = 0; i < count; i++) {
    const len = buf.readUInt32LE(at);
    parts.push(buf.subarray(at + 4, at + 4 + len));
    at += 4 + len;
  }
  if (count !== live.arrays().length) return 'layout differs';
  live.restore(cap, parts);
  return { closedThrough: buf.readDoubleLE(16), written_at: buf.readDoubleLE(24) };
}
