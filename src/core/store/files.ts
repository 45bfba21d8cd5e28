// File primitives the store's durable files share (snapshot, journal, channel segments): a write that
// is complete or absent needs the bytes written in full, fsynced, and the directory fsynced after the
// rename that makes them visible.
import { open, rm, type FileHandle } from 'node:fs/promises';

/** fsync a directory so that a create, rename or unlink inside it survives power loss. */
export async function fsyncDir(dir: string): Promise<void> {
  const fh = await open(dir, 'r');
  try {
    await fh.sync();
  } finally {
    await fh.close();
  }
}

/** Writes bytes to `buf` at `position` until all of them are written (a write may be partial). */
export async function writeFully(
  fh: { write(buf: Uint8Array, offset: number, length: number, position: number): Promise<{ bytesWritten: number }> },
  buf: Uint8Array,
  position: number,
): Promise<void> {
  let done = 0;
  while (done < buf.length) {
    const { bytesWritten } = await fh.write(buf, done, buf.length - done, position + done);
    if (bytesWritten <= 0) throw new Error('write made no progress');
    done += bytesWritten;
  }
}

/**
 * Creates (or truncates: a leftover of an earlier failed attempt) the temp file `path` (mode 0600), lets
 * `fill` write it and fsyncs it. On failure the temp file is removed. The caller renames it into place.
 */
export async function writeSyncedTemp(path: string, fill: (fh: FileHandle) => Promise<void>): Promise<void> {
  const fh = await open(path, 'w', 0o600);
  try {
    await fill(fh);
    await fh.sync();
  } catch (err) {
    await fh.close().catch(() => undefined);
    await rm(path, { force: true }).catch(() => undefined);
    throw err;
  }
  await fh.close();
}
