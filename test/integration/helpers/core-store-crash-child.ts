// Child process for core-store-crash.test.ts: opens the store in argv[2] and writes until it is killed (or,
// with argv[3] = "open", only opens it: the start-up rounds).
// Prints "ready" once open, each id only after its sync write() resolved, "c <copy> <copy_records>" after
// each checkpoint (how its copy was made, and how many writes committed while it was), and "cs"/"ce"
// around the explicit ones (so the parent can tell a kill landed inside one).
import { realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { openStore, type Migration } from '../../../src/core/store/index.js';

export const CRASH_MIGRATIONS: Migration[] = [
  { version: 1, name: 'acks', up: 'CREATE TABLE acks (id INTEGER PRIMARY KEY, pad TEXT NOT NULL)' },
  { version: 2, name: 'noise', up: 'CREATE TABLE noise (n INTEGER PRIMARY KEY AUTOINCREMENT, v TEXT NOT NULL)' },
];

const out = (line: string): void => {
  process.stdout.write(`${line}\n`);
};

async function main(dir: string): Promise<void> {
  const store = await openStore({
    dir,
    migrations: CRASH_MIGRATIONS,
    checkpointBytes: 64 * 1024, // small, so checkpoints race the kills
    groupCommitMs: 15,
    copySliceMs: 0.3, // copies span many turns, with the writers committing in between
    log: (level, msg, fields) => {
      if (msg === 'checkpoint') out(`c ${String(fields?.copy)} ${Number(fields?.copy_records)}`);
      else if (level === 'warn' || level === 'error') process.stderr.write(`${level} ${msg} ${JSON.stringify(fields ?? {})}\n`);
    },
  });
  let next = (store.get<{ m: number | null }>('SELECT max(id) AS m FROM acks')?.m ?? 0) + 1;
  out('ready');
  if (process.argv[3] === 'open') return new Promise(() => undefined); // wait for the kill
  const pad = 'p'.repeat(200);
  const worker = async (): Promise<never> => {
    for (;;) {
      const id = next++;
      // Group records interleave with the sync ones, so sync flushes carry them along. Every eighth is
      // large (64-256 KiB), so that kills also land in the middle of appending a record.
      // Channel entries ride along: each ack also on `crash.acks`, and large ones on `crash.noise`, so
      // checkpoints write sizeable segments (kills land while they are written, too).
      const big = id % 8 === 0 ? 'b'.repeat(65_536 * (1 + (id % 4))) : '';
      void store.write((tx) => {
        tx.run('INSERT INTO noise (v) VALUES (?)', [`g${id}${big}`]);
        if (big) tx.emit('crash.noise', Buffer.from(big));
      }, 'group');
      await store.write((tx) => {
        tx.run('INSERT INTO acks (id, pad) VALUES (?, ?)', [id, pad]);
        tx.emit('crash.acks', Buffer.from(String(id)));
      }, 'sync');
      out(String(id));
      if (id % 60 === 0) {
        out('cs');
        store.checkpoint().then(() => out('ce'), () => undefined);
      }
    }
  };
  // Sync writes that do not wait for the one before: they commit while a checkpoint copies the database
  // (the four workers above wait for their acknowledgement instead), and only the snapshot acknowledges them.
  const pipelined = async (): Promise<never> => {
    for (;;) {
      const id = next++;
      store.write((tx) => {
        tx.run('INSERT INTO acks (id, pad) VALUES (?, ?)', [id, pad]);
        tx.emit('crash.acks', Buffer.from(String(id)));
      }, 'sync').then(() => out(String(id)), () => undefined);
      await new Promise((r) => setTimeout(r, 2));
    }
  };
  await Promise.all([worker(), worker(), worker(), worker(), pipelined()]);
}

// Only when run as a script: the parent test imports CRASH_MIGRATIONS from here.
if (process.argv[1] && realpathSync(process.argv[1]) === realpathSync(fileURLToPath(import.meta.url))) {
  main(process.argv[2]).catch((err: unknown) => {
    process.stderr.write(`child failed: ${err instanceof Error ? err.stack : String(err)}\n`);
    process.exit(1);
  });
}
