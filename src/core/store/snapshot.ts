// The snapshot file: plain SQLite bytes (sql.js loads them as they are), replaced atomically.
// A reader after any crash sees either the old complete file or the new complete file, never a mix:
// write a temp file, fsync it, rename it over the old one, fsync the directory so the rename sticks.
import { open, readFile, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';

export const SNAPSHOT_FILE = 'netprobe.db';
export const SNAPSHOT_TEMP_FILE = 'netprobe.db.tmp';

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

/** Atomically replaces <dir>/netprobe.db with `bytes`; durable when the promise resolves. */
export async function writeSnapshot(dir: string, bytes: Uint8Array): Promise<void> {
  const tmp = join(dir, SNAPSHOT_TEMP_FILE);
  // 'w' truncates a leftover temp file from an earlier failed attempt.
  const fh = await open(tmp, 'w', 0o600);
  try {
    await writeFully(fh, bytes, 0);
    await fh.sync();
  } catch (err) {
    await fh.close().catch(() => undefined);
    await rm(tmp, { force: true }).catch(() => undefined);
    throw err;
  }
  await fh.close();
  await rename(tmp, join(dir, SNAPSHOT_FILE));
  await fsyncDir(dir);
}

/** Reads the snapshot, or null when there is none yet (first start). */
export async function readSnapshot(dir: string): Promise<Buffer | null> {
  try {
    return await readFile(join(dir, SNAPSHOT_FILE));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
}

/**
 * Deletes a temp file left by a checkpoint that crashed before its rename. It is never needed: until the
 * rename, the old snapshot plus the untruncated journal hold everything. Returns whether one was found.
 */
export async function removeStaleTemp(dir: string): Promise<boolean> {
  const tmp = join(dir, SNAPSHOT_TEMP_FILE);
  try {
    await rm(tmp);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw err;
  }
  await fsyncDir(dir);
  return true;
}
