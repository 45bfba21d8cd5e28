// The store tests' shared setup: temp directories removed when the test ends, a store opened with a
// long group-commit window (tests flush when they mean to) that is closed when the test ends, and
// "crash images": a copy of the directory taken while the store is open, which is what a crash (power
// loss) right now would leave on disk.
import { cp, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openStore, type Migration, type Store, type StoreOptions } from '../../src/core/store/index.js';

export type T = { after(fn: () => Promise<void>): void };
export type LogEntry = { level: string; msg: string; fields?: Record<string, unknown> };

export async function tempDir(t: T, name = 'store'): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), `netprobe-${name}-`));
  t.after(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

/** Opens a store that is closed (if still open) when the test ends; `logs` collects what it logs. */
export async function openTestStore(t: T, dir: string, migrations: Migration[], extra: Partial<StoreOptions> = {},
  logs?: LogEntry[]): Promise<Store> {
  const store = await openStore({
    dir, migrations, groupCommitMs: 60_000,
    log: (level, msg, fields) => logs?.push({ level, msg, fields }),
    ...extra,
  });
  t.after(() => store.close().catch(() => undefined));
  return store;
}

/** What a crash right now would leave on disk. */
export async function crashImage(t: T, dir: string): Promise<string> {
  const copy = await tempDir(t, 'crash-image');
  await cp(dir, copy, { recursive: true });
  return copy;
}
