// Atomic file replacement for small files (configuration, the one-time password, brand assets): a reader or a crash
// sees the old file or the new one, never a mix.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';

/** Temp file in the same directory, fsync, rename over the target, fsync the directory; mode 0600. */
export async function writeFileAtomic(file: string, data: string | Buffer): Promise<void> {
  // Write through a symlink to its target rather than replacing the link with a file.
  const target = await fs.realpath(file).catch(() => file);
  const dir = path.dirname(target);
  await fs.mkdir(dir, { recursive: true, mode: 0o700 });
  const tmp = path.join(dir, `.${path.basename(target)}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`);
  let fh: fs.FileHandle | undefined;
  try {
    fh = await fs.open(tmp, 'wx', 0o600);
    await fh.chmod(0o600); // the umask must not widen or narrow it
    await fh.writeFile(data);
    await fh.sync();
    await fh.close();
    fh = undefined;
    await fs.rename(tmp, target);
  } catch (e) {
    await fh?.close().catch(() => undefined);
    await fs.rm(tmp, { force: true }).catch(() => undefined);
    throw e;
  }
  const d = await fs.open(dir, 'r');
  try { await d.sync(); } finally { await d.close(); }
}
