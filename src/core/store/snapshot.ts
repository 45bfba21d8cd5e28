// The snapshot file: plain SQLite bytes (sql.js loads them as they are), replaced atomically.
// A reader after any crash sees either the old complete file or the new complete file, never a mix:
// write a temp file, fsync it, rename it over the old one, fsync the directory so the rename sticks.
import { readFile, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { fsyncDir, writeFully, writeSyncedTemp } from './files.js';

export const SNAPSHOT_FILE = 'netprobe.db';
export const SNAPSHOT_TEMP_FILE = 'netprobe.db.tmp';

/**
 * Writes `bytes` to <dir>/netprobe.db.tmp and fsyncs it; installSnapshot() then renames it over
 * netprobe.db. Two steps, so that a checkpoint can make its channel segments durable in between.
 */
export async function writeSnapshotTemp(dir: string, bytes: Uint8Array): Promise<void> {
  await writeSyncedTemp(join(dir, SNAPSHOT_TEMP_FILE), (fh) => writeFully(fh, bytes, 0));
}

/** Atomically replaces netprobe.db with the temp file; durable when the promise resolves. */
export async function installSnapshot(dir: string): Promise<void> {
  await rename(join(dir, SNAPSHOT_TEMP_FILE), join(dir, SNAPSHOT_FILE));
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
