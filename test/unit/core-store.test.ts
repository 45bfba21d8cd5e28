// The store against real files and real fsync. A "crash image" is a copy of the store directory taken
// while the store is open: every write() that has resolved must be in it, and opening the copy goes
// through the same replay a restart after power loss would.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { appendFile, cp, readFile, rm, stat, truncate, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import {
  MIGRATION_RANGES, openStore, JOURNAL_FILE, SNAPSHOT_FILE, type Migration, type Store, type StoreOptions,
} from '../../src/core/store/index.js';
import { HEADER_BYTES, Journal, journalHeader, JOURNAL_VERSION, LEGACY_VERSION } from '../../src/core/store/journal.js';
import { encodeLegacyRecord } from '../../src/core/store/legacy.js';
import { pendingStatement, RecordEncoder } from '../../src/core/store/record.js';
import { crashImage, openTestStore, tempDir, type LogEntry, type T } from '../helpers/store.js';

const SCHEMA: Migration[] = [
  { version: 1, name: 'items', up: 'CREATE TABLE items (id INTEGER PRIMARY KEY, name TEXT, data BLOB, big INTEGER)' },
];
const open = (t: T, dir: string, extra: Partial<StoreOptions> = {}, logs?: LogEntry[]): Promise<Store> =>
  openTestStore(t, dir, SCHEMA, extra, logs);

const insert = (store: Store, id: number, durability: 'sync' | 'group' = 'sync'): Promise<unknown> =>
  store.write((tx) => tx.run('INSERT INTO items (id, name) VALUES (?, ?)', [id, `item-${id}`]), durability);

const ids = (store: Store): number[] => store.all<{ id: number }>('SELECT id FROM items ORDER BY id').map((r) => r.id);
const range = (a: number, b: number): number[] => Array.from({ length: b - a + 1 }, (_, i) => a + i);

test('sync writes survive a crash through journal replay, and a clean close/reopen', async (t) => {
  const dir = await tempDir(t, 'store');
  const store = await open(t, dir);
  for (let i = 1; i <= 20; i++) await insert(store, i);
  // 20 records plus the migration's.
  assert.equal(store.stats().journal_records, 21);

  const image = await crashImage(t, dir);
  const replayed = await open(t, image);
  assert.deepEqual(ids(replayed), range(1, 20));
  assert.equal(replayed.stats().replayed_records, 21);
  // Replayed records stay in the journal (no start-up checkpoint below checkpointBytes).
  assert.equal(replayed.stats().journal_records, 21);

  await store.close();
  assert.equal((await stat(join(dir, JOURNAL_FILE))).size, HEADER_BYTES);
  const reopened = await open(t, dir);
  assert.deepEqual(ids(reopened), range(1, 20));
  assert.equal(reopened.stats().replayed_records, 0);
  await assert.rejects(insert(store, 99), /closed/);
});

test('writes after a checkpoint replay on top of the snapshot', async (t) => {
  const dir = await tempDir(t, 'store');
  const store = await open(t, dir);
  for (let i = 1; i <= 5; i++) await insert(store, i);
  await store.checkpoint();
  const s = store.stats();
  assert.equal(s.journal_records, 0);
  assert.equal(s.checkpoints >= 1, true);
  assert.equal(s.snapshot_bytes, (await stat(join(dir, SNAPSHOT_FILE))).size);
  assert.match(s.last_checkpoint_at ?? '', /^\d{4}-\d\d-\d\dT.*Z$/);
  for (let i = 6; i <= 8; i++) await insert(store, i);

  const replayed = await open(t, await crashImage(t, dir));
  assert.deepEqual(ids(replayed), range(1, 8));
  assert.equal(replayed.stats().replayed_records, 3);
  assert.equal(replayed.stats().last_lsn, store.stats().last_lsn);
});

test('a throwing or async callback rolls back and journals nothing', async (t) => {
  const dir = await tempDir(t, 'store');
  const store = await open(t, dir);
  await insert(store, 1);
  const before = store.stats();
  await assert.rejects(store.write((tx) => {
    tx.run('INSERT INTO items (id) VALUES (2)');
    throw new Error('boom');
  }), /boom/);
  await assert.rejects(store.write(async (tx) => {
    tx.run('INSERT INTO items (id) VALUES (3)');
  }), /must be synchronous/);
  await assert.rejects(store.write((tx) => {
    tx.run('INSERT INTO items (id) VALUES (4)');
    tx.run('INSERT INTO items (id) VALUES (1)'); // UNIQUE violation
  }), /UNIQUE/);
  // A caught statement failure does not poison the transaction; the failed statement is not journaled.
  await store.write((tx) => {
    try {
      tx.run('INSERT INTO items (id) VALUES (1)');
    } catch {
      tx.run('UPDATE items SET name = ? WHERE id = 1', ['updated']);
    }
  });
  // A transaction that changes nothing writes no record.
  const r = await store.write((tx) => tx.get<{ n: number }>('SELECT count(*) AS n FROM items'));
  assert.equal(r?.n, 1);
  const after = store.stats();
  assert.deepEqual(ids(store), [1]);
  assert.equal(after.last_lsn, before.last_lsn + 1);
  assert.equal(after.journal_records, before.journal_records + 1);

  const replayed = await open(t, await crashImage(t, dir));
  assert.deepEqual(replayed.all('SELECT id, name FROM items'), [{ id: 1, name: 'updated' }]);
});

test('a caught statement failure that left changes behind aborts the whole write', async (t) => {
  const dir = await tempDir(t, 'store');
  const store = await open(t, dir);
  await insert(store, 1);
  const lsn = store.stats().last_lsn;
  // OR FAIL keeps the rows before the conflict; those could not be journaled, so the write must fail.
  await assert.rejects(store.write((tx) => {
    try {
      tx.run('INSERT OR FAIL INTO items (id) VALUES (2), (3), (1)');
    } catch {
      // swallowed on purpose
    }
    tx.run('INSERT INTO items (id) VALUES (4)');
  }), /UNIQUE/);
  // OR ROLLBACK ends the transaction itself: later statements must not run in autocommit mode.
  await assert.rejects(store.write((tx) => {
    tx.run('INSERT INTO items (id) VALUES (5)');
    try {
      tx.run('INSERT OR ROLLBACK INTO items (id) VALUES (1)');
    } catch {
      // swallowed on purpose
    }
    tx.run('INSERT INTO items (id) VALUES (6)');
  }), /write aborted/);
  // A multi-statement string is all or nothing, DDL included, so catching its failure is safe.
  await store.write((tx) => {
    assert.throws(() => tx.run('CREATE TABLE extra (a); INSERT INTO items (id) VALUES (1)'), /UNIQUE/);
    tx.run('INSERT INTO items (id) VALUES (7)');
  });
  assert.deepEqual(ids(store), [1, 7]);
  assert.equal(store.get("SELECT name FROM sqlite_master WHERE name = 'extra'"), undefined);
  assert.equal(store.stats().last_lsn, lsn + 1);
  assert.deepEqual(ids(await open(t, await crashImage(t, dir))), [1, 7]);
});

test('misuse is refused: nested write, stale tx, BEGIN/COMMIT inside, writes through store.all', async (t) => {
  const dir = await tempDir(t, 'store');
  const store = await open(t, dir);
  let inner: Promise<unknown> | undefined;
  await store.write((tx) => {
    inner = assert.rejects(store.write((tx2) => tx2.run('INSERT INTO items (id) VALUES (9)')), /nesting/);
    tx.run('INSERT INTO items (id) VALUES (1)');
  });
  await inner;
  let leaked: Parameters<Parameters<Store['write']>[0]>[0] | undefined;
  await store.write((tx) => {
    leaked = tx;
  });
  assert.throws(() => leaked!.run('INSERT INTO items (id) VALUES (5)'), /finished/);
  await assert.rejects(store.write((tx) => tx.run('COMMIT')), /transaction control/);
  await assert.rejects(store.write((tx) => tx.run('INSERT INTO items (id) VALUES (6); COMMIT')), /transaction control/);
  assert.throws(() => store.all('INSERT INTO items (id) VALUES (7) RETURNING id'), /readonly/);
  assert.throws(() => store.get('DELETE FROM items'), /readonly/);
  assert.deepEqual(ids(store), [1]);
  // Savepoints inside the transaction are fine.
  await store.write((tx) => {
    tx.run('SAVEPOINT a');
    tx.run('INSERT INTO items (id) VALUES (2)');
    tx.run('ROLLBACK TO a');
    tx.run('RELEASE a');
    tx.run('INSERT INTO items (id) VALUES (3)');
  });
  assert.deepEqual(ids(store), [1, 3]);
  assert.deepEqual(ids(await open(t, await crashImage(t, dir))), [1, 3]);
});

test('group writes resolve at once and are durable after flush() or the group timer', async (t) => {
  const dir = await tempDir(t, 'store');
  const store = await open(t, dir, { groupCommitMs: 100 });
  for (let i = 1; i <= 50; i++) await insert(store, i, 'group');
  assert.deepEqual(ids(store), range(1, 50)); // visible at once
  const early = await open(t, await crashImage(t, dir));
  assert.deepEqual(ids(early), []); // not yet in the journal
  await store.flush();
  assert.deepEqual(ids(await open(t, await crashImage(t, dir))), range(1, 50));

  for (let i = 51; i <= 60; i++) await insert(store, i, 'group');
  await new Promise((r) => setTimeout(r, 400));
  assert.deepEqual(ids(await open(t, await crashImage(t, dir))), range(1, 60));
});

test('a sync write flushes earlier group writes first, in commit order', async (t) => {
  const dir = await tempDir(t, 'store');
  const store = await open(t, dir);
  const lsn0 = store.stats().last_lsn;
  await insert(store, 1, 'group');
  await store.write((tx) => tx.run('UPDATE items SET name = ? WHERE id = 1', ['changed-by-sync']), 'sync');
  await insert(store, 2, 'group');
  const image = await crashImage(t, dir);
  // Order is visible in the journal itself: consecutive LSNs, group record first.
  const { Journal } = await import('../../src/core/store/journal.js');
  const j = await Journal.open(join(image, JOURNAL_FILE));
  const lsns: number[] = [];
  for (const r of j.scan()) lsns.push(r.lsn);
  await j.close();
  assert.deepEqual(lsns.slice(-2), [lsn0 + 1, lsn0 + 2]);
  const replayed = await open(t, image);
  assert.deepEqual(replayed.all('SELECT id, name FROM items'), [{ id: 1, name: 'changed-by-sync' }]);
});

test('concurrent sync writes share fsyncs and all resolve durable', async (t) => {
  const dir = await tempDir(t, 'store');
  const store = await open(t, dir);
  await Promise.all(range(1, 200).map((i) => insert(store, i)));
  assert.deepEqual(ids(await open(t, await crashImage(t, dir))), range(1, 200));
});

test('a checkpoint with writes racing it loses nothing', async (t) => {
  const dir = await tempDir(t, 'store');
  const logs: LogEntry[] = [];
  const store = await open(t, dir, { groupCommitMs: 5 }, logs);
  // Some bulk so that the snapshot write takes a moment (built in SQL to keep the record small).
  await store.write((tx) => tx.run(
    'WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < 19999) ' +
    'INSERT INTO items (id, data) SELECT 100000 + i, zeroblob(512) FROM n',
  ));
  const acked: number[] = [];
  const ops: Promise<unknown>[] = [];
  let next = 1;
  for (let round = 0; round < 3; round++) {
    // Writes all the while the checkpoint runs: while it copies the database and while it writes files.
    let running = true;
    ops.push(store.checkpoint().finally(() => { running = false; }));
    for (let k = 0; running; k++) {
      const id = next++;
      const d = k % 3 === 0 ? 'group' : 'sync';
      ops.push(insert(store, id, d).then(() => { if (d === 'sync') acked.push(id); }));
      await new Promise((r) => setImmediate(r));
    }
  }
  await Promise.all(ops);
  assert.equal(store.stats().checkpoints, 3);
  // Some writes really did commit while a snapshot was being copied (in steps), and some while it was written.
  const done = logs.filter((l) => l.msg === 'checkpoint').map((l) => l.fields!);
  assert.ok(done.some((f) => (f.copy_records as number) > 0 && f.copy === 'steps'), JSON.stringify(done));
  assert.ok(done.some((f) => (f.carried_records as number) > 0), JSON.stringify(done));
  const image = await crashImage(t, dir);
  const got = new Set(ids(await open(t, image)));
  for (const id of acked) assert.ok(got.has(id), `acknowledged id ${id} lost`);
  await store.flush();
  const all = ids(await open(t, await crashImage(t, dir))).filter((i) => i < 100_000);
  assert.deepEqual(all, range(1, next - 1));
  await store.close();
  assert.deepEqual(ids(await open(t, dir)).filter((i) => i < 100_000), range(1, next - 1));
});

test('checkpoints trigger on journal size and on age', async (t) => {
  const dir = await tempDir(t, 'store');
  const store = await open(t, dir, { checkpointBytes: 4096 });
  const c0 = store.stats().checkpoints;
  // Binary records are about 20 bytes each: 400 of them pass the bound in one group commit.
  for (let i = 1; i <= 400; i++) void insert(store, i, 'group');
  await store.flush();
  await store.flush(); // the checkpoint queued behind the first one
  assert.ok(store.stats().checkpoints > c0, 'size trigger');
  assert.ok(store.stats().journal_bytes < 4096 + 200);

  let now = 1_000_000;
  const aged = await open(t, await tempDir(t, 'store'), { checkpointAgeMs: 200, now: () => now });
  const a0 = aged.stats().checkpoints;
  await insert(aged, 1);
  now += 1_000;
  for (let i = 0; i < 50 && aged.stats().checkpoints === a0; i++) await new Promise((r) => setTimeout(r, 20));
  assert.ok(aged.stats().checkpoints > a0, 'age trigger');
  assert.equal(aged.stats().journal_records, 0);
});

test('checkpoint bounds grow with the snapshot: a large database is rewritten less often', async (t) => {
  let now = 1_000_000;
  const store = await open(t, await tempDir(t, 'store'), {
    checkpointBytes: 4096, checkpointAgeMs: 200, snapshotBytesPerMinute: 100 * 1024, now: () => now,
  });
  assert.deepEqual(store.stats().checkpoint_bounds, { bytes: 4096, age_ms: 200 }, 'a small database keeps the configured bounds');
  await store.write((tx) => tx.run(
    'WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < 799) ' +
    'INSERT INTO items (id, data) SELECT 100000 + i, zeroblob(400) FROM n'));
  await store.checkpoint();
  const size = store.stats().snapshot_bytes;
  assert.ok(size > 300_000, `snapshot ${size}`);
  const { bytes, age_ms } = store.stats().checkpoint_bounds;
  assert.equal(bytes, size, 'the journal may grow to the snapshot\'s size');
  assert.equal(age_ms, Math.round((size / (100 * 1024)) * 60_000), 'by age, the snapshot costs at most 100 KiB a minute');
  const c0 = store.stats().checkpoints;
  // Well past the configured bounds, within the scaled ones: no checkpoint.
  for (let i = 1; i <= 400; i++) void insert(store, i, 'group');
  await store.flush();
  now += age_ms - 1000;
  await new Promise((r) => setTimeout(r, 150));
  assert.equal(store.stats().checkpoints, c0);
  now += 2000;
  for (let i = 0; i < 50 && store.stats().checkpoints === c0; i++) await new Promise((r) => setTimeout(r, 20));
  assert.equal(store.stats().checkpoints, c0 + 1, 'age trigger, scaled');
  // And by size: a journal as large as the snapshot.
  await store.write((tx) => tx.run(
    'INSERT INTO items (id, data) VALUES (?, ?)', [1_000_000, new Uint8Array(store.stats().checkpoint_bounds.bytes + 1000)]));
  await store.flush();
  for (let i = 0; i < 50 && store.stats().checkpoints === c0 + 1; i++) await new Promise((r) => setTimeout(r, 20));
  assert.equal(store.stats().checkpoints, c0 + 2, 'size trigger, scaled');
});

test('migrations apply once, in order, each journaled; a newer database is refused', async (t) => {
  const dir = await tempDir(t, 'store');
  const order: number[] = [];
  const migs = (n: number): Migration[] => ([
    { version: 10, name: 'ten', up: (tx) => { order.push(10); tx.run('CREATE TABLE b (a_id INTEGER REFERENCES a(id))'); } },
    { version: 2, name: 'two',
      up: 'CREATE TABLE a (id INTEGER PRIMARY KEY); INSERT INTO a (id) VALUES (1); INSERT INTO a (id) VALUES (2)' },
    { version: 30, name: 'thirty', up: (tx) => { order.push(30); tx.run('INSERT INTO b VALUES (2)'); } },
  ] satisfies Migration[]).slice(0, n);
  const now = Date.parse('2024-05-01T12:00:00Z');
  const s1 = await openStore({ dir, migrations: migs(2), now: () => now, log: () => undefined });
  assert.deepEqual(order, [10]);
  assert.deepEqual(s1.all('SELECT version, name, applied_at FROM _migrations ORDER BY version'), [
    { version: 2, name: 'two', applied_at: '2024-05-01T12:00:00.000Z' },
    { version: 10, name: 'ten', applied_at: '2024-05-01T12:00:00.000Z' },
  ]);
  // Journaled: a crash image without any snapshot replays them.
  const image = await crashImage(t, dir);
  await rm(join(image, SNAPSHOT_FILE), { force: true });
  const fromJournal = await open(t, image, { migrations: migs(2) });
  assert.deepEqual(fromJournal.all('SELECT id FROM a'), [{ id: 1 }, { id: 2 }]);
  await s1.close();

  const s2 = await openStore({ dir, migrations: migs(3), log: () => undefined });
  assert.deepEqual(order, [10, 30]);
  assert.deepEqual(s2.all('SELECT a_id FROM b'), [{ a_id: 2 }]);
  await s2.close();
  const s3 = await openStore({ dir, migrations: migs(3), log: () => undefined });
  assert.deepEqual(order, [10, 30]);
  await s3.close();

  await assert.rejects(openStore({ dir, migrations: migs(2), log: () => undefined }),
    /schema of module core is at version 30, newer than this build knows \(10\)/);
  const late: Migration[] = [...migs(3), { version: 5, name: 'late', up: 'SELECT 1' }];
  await assert.rejects(openStore({ dir, migrations: late, log: () => undefined }), /migration 5 \(late\) of module core .* forward-only/);
  await assert.rejects(openStore({ dir, migrations: [...migs(3), { version: 2, name: 'dup', up: '' }] }), /duplicate/);
  await assert.rejects(openStore({ dir, migrations: [{ version: 0, name: 'zero', up: '' }] }), /positive integer/);
  // The refused starts left the data alone.
  const s4 = await open(t, dir, { migrations: migs(3) });
  assert.deepEqual(s4.all('SELECT a_id FROM b'), [{ a_id: 2 }]);
});

test('a failing migration rolls back and stops the start', async (t) => {
  const dir = await tempDir(t, 'store');
  const bad: Migration[] = [...SCHEMA, { version: 2, name: 'bad', up: 'CREATE TABLE x (a); INSERT INTO nope VALUES (1)' }];
  await assert.rejects(openStore({ dir, migrations: bad, log: () => undefined }), /no such table: nope/);
  const s = await open(t, dir);
  assert.deepEqual(s.all("SELECT name FROM sqlite_master WHERE name = 'x'"), []);
  assert.deepEqual(s.all('SELECT version FROM _migrations'), [{ version: 1 }]);
});

// ---- migrations per module range ----------------------------------------------------------------------

/** A migration that creates table t<version> and records the order migrations ran in. */
const mig = (version: number, order?: number[], up?: string): Migration => ({
  version, name: `m${version}`, up: (tx) => { order?.push(version); tx.run(up ?? `CREATE TABLE t${version} (id INTEGER PRIMARY KEY)`); },
});
const applied = (s: Store): number[] =>
  s.all<{ version: number }>('SELECT version FROM _migrations ORDER BY version').map((r) => r.version);
const quiet = { log: () => undefined };

test('a pending migration in a lower range than the highest applied one is applied, in version order', async (t) => {
  const dir = await tempDir(t, 'store');
  const s1 = await openStore({ dir, migrations: [mig(1), mig(200), mig(201), mig(600)], ...quiet });
  await s1.close();
  // An upgrade that adds a new module (v1sion, 400) and a monitors migration (202) to a probe at 600.
  const order: number[] = [];
  const logs: LogEntry[] = [];
  const s2 = await open(t, dir, { migrations: [mig(600), mig(1), mig(400, order), mig(202, order), mig(200), mig(201)] }, logs);
  assert.deepEqual(order, [202, 400]);
  assert.deepEqual(applied(s2), [1, 200, 201, 202, 400, 600]);
  assert.deepEqual(logs.filter((l) => l.msg === 'applied migration').map((l) => [l.fields?.version, l.fields?.module]),
    [[202, 'monitors'], [400, 'v1sion']]);
});

test('migrations run in version order, across modules, whatever order they are given in', async (t) => {
  const dir = await tempDir(t, 'store');
  const order: number[] = [];
  // Each one references the table of the one before, so a wrong order fails.
  const migs = [
    mig(600, order, 'CREATE TABLE t600 (id INTEGER PRIMARY KEY, r INTEGER REFERENCES t300(id))'),
    mig(1, order),
    mig(300, order, 'CREATE TABLE t300 (id INTEGER PRIMARY KEY, r INTEGER REFERENCES t200(id))'),
    mig(200, order, 'CREATE TABLE t200 (id INTEGER PRIMARY KEY, r INTEGER REFERENCES t1(id))'),
    mig(2, order),
  ];
  const s = await open(t, dir, { migrations: migs });
  assert.deepEqual(order, [1, 2, 200, 300, 600]);
  assert.deepEqual(applied(s), [1, 2, 200, 300, 600]);
});

test('a pending migration below its own module\'s newest applied one is refused, naming the module', async (t) => {
  const dir = await tempDir(t, 'store');
  await (await openStore({ dir, migrations: [mig(1), mig(3), mig(200), mig(202), mig(600)], ...quiet })).close();
  // 201 (monitors) sorts after 202: forward-only within the range. 400 alone would be fine.
  await assert.rejects(openStore({ dir, migrations: [mig(1), mig(3), mig(200), mig(201), mig(202), mig(400), mig(600)], ...quiet }),
    /migration 201 \(m201\) of module monitors is pending but that module's schema is already at version 202; .*forward-only/);
  await assert.rejects(openStore({ dir, migrations: [mig(1), mig(2), mig(3), mig(200), mig(202), mig(600)], ...quiet }),
    /migration 2 \(m2\) of module core is pending but that module's schema is already at version 3/);
  const s = await open(t, dir, { migrations: [mig(1), mig(3), mig(200), mig(202), mig(600)] });
  assert.deepEqual(applied(s), [1, 3, 200, 202, 600], 'the refused starts applied nothing, not even 400');
});

test('a database newer than the build in some module\'s range is refused, naming the module', async (t) => {
  const dir = await tempDir(t, 'store');
  await (await openStore({ dir, migrations: [mig(1), mig(200), mig(401), mig(600)], ...quiet })).close();
  // A downgrade to a build without v1sion, or with an older v1sion.
  await assert.rejects(openStore({ dir, migrations: [mig(1), mig(200), mig(600)], ...quiet }),
    /schema of module v1sion is at version 401, newer than this build knows \(none\); refusing to start/);
  await assert.rejects(openStore({ dir, migrations: [mig(1), mig(200), mig(400), mig(600), mig(601)], ...quiet }),
    /schema of module v1sion is at version 401, newer than this build knows \(400\)/);
  // Newer elsewhere does not hide behind a higher range: webhooks at 600 does not cover v1sion at 401.
  await assert.rejects(openStore({ dir, migrations: [mig(1), mig(200), mig(600), mig(650)], ...quiet }), /module v1sion/);
  const s = await open(t, dir, { migrations: [mig(1), mig(200), mig(401), mig(600)] });
  assert.deepEqual(applied(s), [1, 200, 401, 600]);
});

test('a database version outside every known range is refused; so is a migration outside every range', async (t) => {
  const dir = await tempDir(t, 'store');
  const future = [...MIGRATION_RANGES, { module: 'future', from: 700, to: 799 }];
  await (await openStore({ dir, migrations: [mig(1), mig(700)], ranges: future, ...quiet })).close();
  await assert.rejects(openStore({ dir, migrations: [mig(1)], ...quiet }),
    /the database has migration 700, outside every module's range this build knows \(core 1-99, .*webhooks 600-699\); refusing/);
  assert.deepEqual(applied(await open(t, dir, { migrations: [mig(1), mig(700)], ranges: future })), [1, 700]);

  const fresh = await tempDir(t, 'store');
  await assert.rejects(openStore({ dir: fresh, migrations: [mig(1), mig(1000)], ...quiet }),
    /migration 1000 \(m1000\) lies outside every module's migration range/);
  const overlapping = [{ module: 'a', from: 1, to: 10 }, { module: 'b', from: 10, to: 20 }];
  await assert.rejects(openStore({ dir: fresh, migrations: [mig(1)], ranges: overlapping }), /ranges of a and b overlap/);
  await assert.rejects(openStore({ dir: fresh, migrations: [mig(1)], ranges: [{ module: 'a', from: 5, to: 1 }] }), /not a range/);
});

test('blobs, bigints, named params and odd numbers round-trip through the journal', async (t) => {
  const dir = await tempDir(t, 'store');
  const store = await open(t, dir);
  const blob = new Uint8Array(1000).map((_, i) => (i * 31) & 255);
  const big = 2n ** 62n + 3n;
  await store.write((tx) => {
    tx.run('INSERT INTO items (id, data, big) VALUES (?, ?, ?)', [1, blob, big]);
    tx.run('INSERT INTO items (id, name, data) VALUES (:id, :name, :data)',
      { ':id': 2, ':name': 'ü € 😀', ':data': new Uint8Array(0) });
    tx.run('INSERT INTO items (id, big) VALUES ($id, $big)', { $id: 3, $big: -(2n ** 63n) });
    tx.run('INSERT INTO items (id, name, big) VALUES (?, ?, ?)', [4, null, 0.1 + 0.2]);
    tx.run('INSERT INTO items (id, big) VALUES (?, ?)', [5, Infinity]);
  });
  const q = (s: Store): unknown[] => s.all(
    'SELECT id, name, data, CAST(big AS TEXT) AS big, typeof(big) AS t FROM items ORDER BY id',
  );
  const expected = q(store);
  assert.deepEqual(expected[0], { id: 1, name: null, data: blob, big: big.toString(), t: 'integer' });
  assert.equal((expected[2] as { big: string }).big, (-(2n ** 63n)).toString());
  assert.equal((expected[4] as { big: string }).big, 'Inf');
  const replayed = await open(t, await crashImage(t, dir));
  assert.equal(replayed.stats().replayed_records, 2); // the migration and this write
  assert.deepEqual(q(replayed), expected);
  await assert.rejects(store.write((tx) => tx.run('INSERT INTO items (id, name) VALUES (?, ?)', [6, undefined as never])), /undefined/);
  assert.equal(store.get('SELECT id FROM items WHERE id = 6'), undefined);
});

test('records are binary and carry each statement\'s SQL once per journal file', async (t) => {
  const dir = await tempDir(t, 'store');
  const store = await open(t, dir);
  await insert(store, 1);
  const first = store.stats().journal_bytes;
  await insert(store, 2);
  const second = store.stats().journal_bytes - first;
  assert.ok(second < 40, `a repeated statement costs its params and a few bytes (${second} bytes)`);
  const text = await readFile(join(dir, JOURNAL_FILE));
  assert.equal(text.toString('latin1').split('INSERT INTO items').length - 1, 1, 'the SQL text is there once');
  await store.checkpoint(); // truncates: the next record defines it again
  await insert(store, 3);
  assert.ok((await readFile(join(dir, JOURNAL_FILE))).includes(Buffer.from('INSERT INTO items')));
  assert.deepEqual(ids(await open(t, await crashImage(t, dir))), [1, 2, 3]);
});

test('an earlier build\'s journal (format 1) replays once and the file starts over in format 2', async (t) => {
  // As a probe upgraded after a crash holds it: no snapshot yet, the old build's records in the journal.
  const dir = await tempDir(t, 'store');
  const legacy = Buffer.concat([journalHeader(LEGACY_VERSION),
    encodeLegacyRecord(1, [[SCHEMA[0]!.up as string, null],
      ['INSERT INTO _migrations (version, name, applied_at) VALUES (?, ?, ?)', [1, 'items', '2024-01-01T00:00:00.000Z']]]),
    encodeLegacyRecord(2, [['INSERT INTO items (id, name, data) VALUES (?, ?, ?)', [1, 'old', new Uint8Array([7])]]]),
    encodeLegacyRecord(3, [['INSERT INTO items (id, name, big) VALUES (?, ?, ?)', [2, 'older', 2n ** 60n]]])]);
  await writeFile(join(dir, JOURNAL_FILE), legacy);
  const s = await open(t, dir);
  assert.deepEqual(s.all('SELECT id, name, data, big FROM items ORDER BY id'),
    [{ id: 1, name: 'old', data: new Uint8Array([7]), big: null }, { id: 2, name: 'older', data: null, big: 2 ** 60 }]);
  assert.equal(s.stats().replayed_records, 3);
  assert.equal(s.stats().checkpoints, 1, 'a snapshot took the legacy records in');
  const j = await readFile(join(dir, JOURNAL_FILE));
  assert.deepEqual(j.subarray(0, HEADER_BYTES), journalHeader(JOURNAL_VERSION));
  await insert(s, 3);
  assert.deepEqual(ids(await open(t, await crashImage(t, dir))), [1, 2, 3]);
  // A legacy journal with no records (the earlier build stopped cleanly) only gets the new header.
  const clean = await tempDir(t, 'store');
  const s0 = await open(t, clean);
  await insert(s0, 9);
  await s0.close();
  await writeFile(join(clean, JOURNAL_FILE), journalHeader(LEGACY_VERSION));
  const s1 = await open(t, clean);
  assert.deepEqual(ids(s1), [9]);
  assert.equal(s1.stats().checkpoints, 0);
  assert.deepEqual(await readFile(join(clean, JOURNAL_FILE)), journalHeader(JOURNAL_VERSION));
});

/** Three records, then a tail of `last`'s record, returned with its byte extent. */
async function journalWithLast(t: T): Promise<{ dir: string; lastStart: number; lastEnd: number }> {
  const dir = await tempDir(t, 'store');
  const store = await open(t, dir);
  await insert(store, 1);
  await insert(store, 2);
  const lastStart = store.stats().journal_bytes;
  await insert(store, 3);
  const lastEnd = store.stats().journal_bytes;
  const image = await crashImage(t, dir);
  await store.close();
  return { dir: image, lastStart, lastEnd };
}

test('a torn last record (cut at several offsets) is skipped; later writes land at the good end', async (t) => {
  const { dir, lastStart, lastEnd } = await journalWithLast(t);
  const cuts = [1, 4, 7, 8, 9, 20, lastEnd - lastStart - 1];
  for (const cut of cuts) {
    const image = await crashImage(t, dir);
    await truncate(join(image, JOURNAL_FILE), lastStart + cut);
    const logs: LogEntry[] = [];
    const s = await open(t, image, {}, logs);
    assert.equal((await stat(join(image, JOURNAL_FILE))).size, lastStart, `cut back to the last good record (${cut})`);
    assert.deepEqual(ids(s), [1, 2], `cut ${cut}`);
    assert.equal(s.stats().discarded_bytes, cut, `cut ${cut}`);
    assert.ok(logs.some((l) => l.level === 'warn' && l.fields?.discarded_bytes === cut), `warned for cut ${cut}`);
    await insert(s, 4);
    const again = await open(t, await crashImage(t, image));
    assert.deepEqual(ids(again), [1, 2, 4], `cut ${cut}`);
    assert.equal(again.stats().discarded_bytes, 0);
  }
});

test('a bit-flipped last record is skipped, and the journal is cut there before appending', async (t) => {
  const { dir, lastStart, lastEnd } = await journalWithLast(t);
  const path = join(dir, JOURNAL_FILE);
  const bytes = await readFile(path);
  bytes[lastStart + 8 + Math.floor((lastEnd - lastStart - 8) / 2)] ^= 0x04;
  await writeFile(path, bytes);
  const s = await open(t, dir);
  assert.deepEqual(ids(s), [1, 2]);
  assert.equal(s.stats().discarded_bytes, lastEnd - lastStart);
  await insert(s, 4);
  await insert(s, 5);
  assert.deepEqual(ids(await open(t, await crashImage(t, dir))), [1, 2, 4, 5]);
});

test('a journal record that no longer applies is rolled back and cut, not half-applied', async (t) => {
  const dir = await tempDir(t, 'store');
  const store = await open(t, dir);
  await insert(store, 1);
  await insert(store, 2);
  const lsn = store.stats().last_lsn;
  const image = await crashImage(t, dir);
  const path = join(image, JOURNAL_FILE);
  const goodSize = (await stat(path)).size;
  // Intact (CRC-valid) records whose second statement conflicts: as if the SQL were not deterministic.
  // A fresh encoder, as a writer restarted on the file: its definitions replace the file's earlier ones.
  const e = new RecordEncoder();
  const bad = e.encode(lsn + 1, [
    pendingStatement('INSERT INTO items (id) VALUES (?)', [3]),
    pendingStatement('INSERT INTO items (id) VALUES (?)', [1]),
  ]);
  const after = e.encode(lsn + 2, [pendingStatement('INSERT INTO items (id) VALUES (?)', [4])]);
  await appendFile(path, Buffer.concat([bad, after]));
  const logs: LogEntry[] = [];
  const s = await open(t, image, {}, logs);
  assert.deepEqual(ids(s), [1, 2]);
  assert.equal(s.stats().discarded_bytes, bad.length + after.length);
  assert.equal((await stat(path)).size, goodSize);
  assert.ok(logs.some((l) => l.level === 'error' && /failed to replay/.test(l.msg)));
  await insert(s, 5);
  assert.deepEqual(ids(await open(t, await crashImage(t, image))), [1, 2, 5]);
});

test('prepared statements keep working after a checkpoint and foreign_keys stays on', async (t) => {
  const dir = await tempDir(t, 'store');
  const fk: Migration[] = [
    ...SCHEMA,
    { version: 2, name: 'fk',
      up: 'CREATE TABLE parent (id INTEGER PRIMARY KEY); CREATE TABLE child (p INTEGER NOT NULL REFERENCES parent(id))' },
  ];
  const store = await open(t, dir, { migrations: fk });
  const q = 'SELECT count(*) AS n FROM items WHERE id > ?';
  await insert(store, 1);
  assert.deepEqual(store.get(q, [0]), { n: 1 }); // now cached
  for (let round = 0; round < 3; round++) {
    await store.checkpoint();
    await insert(store, round + 2);
    assert.deepEqual(store.get(q, [0]), { n: round + 2 });
    assert.deepEqual(store.get('PRAGMA foreign_keys'), { foreign_keys: 1 });
    await assert.rejects(store.write((tx) => tx.run('INSERT INTO child (p) VALUES (?)', [42])), /FOREIGN KEY/);
    // Still read-only outside write() after the export.
    assert.throws(() => store.all('DELETE FROM items'), /readonly/);
  }
  await store.write((tx) => {
    tx.run('INSERT INTO parent (id) VALUES (1)');
    tx.run('INSERT INTO child (p) VALUES (1)');
  });
  await store.checkpoint();
  await assert.rejects(store.write((tx) => tx.run('DELETE FROM parent')), /FOREIGN KEY/);
});

test('tx.run reports changes; RETURNING through tx.all/get is journaled', async (t) => {
  const dir = await tempDir(t, 'store');
  const store = await open(t, dir);
  const r = await store.write((tx) => {
    const a = tx.run('INSERT INTO items (id) VALUES (1), (2), (3)');
    const ddl = tx.run('CREATE TABLE other (x)');
    const b = tx.run('UPDATE items SET name = ? WHERE id >= 2', ['n']);
    const none = tx.run('DELETE FROM items WHERE id > 100');
    const ret = tx.get<{ id: number }>("INSERT INTO items (id, name) VALUES (10, 'r') RETURNING id");
    const rows = tx.all<{ id: number }>("UPDATE items SET name = 'all' WHERE id IN (1, 10) RETURNING id");
    return { a: a.changes, ddl: ddl.changes, b: b.changes, none: none.changes, ret, rows };
  });
  assert.deepEqual(r, { a: 3, ddl: 0, b: 2, none: 0, ret: { id: 10 }, rows: [{ id: 1 }, { id: 10 }] });
  const replayed = await open(t, await crashImage(t, dir));
  assert.deepEqual(replayed.all('SELECT id, name FROM items ORDER BY id'), store.all('SELECT id, name FROM items ORDER BY id'));
});

test('start-up removes a leftover snapshot temp file and refuses a foreign journal', async (t) => {
  const dir = await tempDir(t, 'store');
  const s = await open(t, dir);
  await insert(s, 1);
  await s.close();
  await writeFile(join(dir, 'netprobe.db.tmp'), 'half a snapshot');
  const s2 = await open(t, dir);
  assert.equal(existsSync(join(dir, 'netprobe.db.tmp')), false);
  assert.deepEqual(ids(s2), [1]);
  await s2.close();
  await writeFile(join(dir, JOURNAL_FILE), 'something else entirely');
  await assert.rejects(openStore({ dir, migrations: SCHEMA, log: () => undefined }), /not a netprobe journal/);
  await writeFile(join(dir, SNAPSHOT_FILE), 'not sqlite at all, but long enough to look like a header....');
  await rm(join(dir, JOURNAL_FILE));
  await assert.rejects(openStore({ dir, migrations: SCHEMA, log: () => undefined }), /not a readable SQLite database/);
});

test('a crash between snapshot and journal truncation: stale records are skipped and the journal reset', async (t) => {
  const dir = await tempDir(t, 'store');
  const store = await open(t, dir);
  for (let i = 1; i <= 3; i++) await insert(store, i);
  const before = await crashImage(t, dir); // journal: migration + 3 records, no snapshot
  // Committed but never appended: the checkpoint covers them, so their LSNs never reach the journal.
  for (let i = 4; i <= 6; i++) await insert(store, i, 'group');
  await store.checkpoint();
  const after = await crashImage(t, dir);
  // The state a kill between the rename and the truncation leaves: new snapshot, old journal.
  await cp(join(before, JOURNAL_FILE), join(after, JOURNAL_FILE));
  const s = await open(t, after);
  assert.deepEqual(ids(s), range(1, 6));
  assert.equal(s.stats().replayed_records, 0);
  assert.equal(s.stats().journal_bytes, HEADER_BYTES);
  await insert(s, 7);
  assert.deepEqual(ids(await open(t, await crashImage(t, after))), range(1, 7));
});

test('a journal that does not belong to the snapshot is refused, not silently dropped', async (t) => {
  const dir = await tempDir(t, 'store');
  const s = await open(t, dir);
  for (let i = 1; i <= 3; i++) await insert(s, i);
  await s.checkpoint();
  for (let i = 4; i <= 5; i++) await insert(s, i);
  const image = await crashImage(t, dir);
  await rm(join(image, SNAPSHOT_FILE)); // as if an operator deleted it
  await assert.rejects(openStore({ dir: image, migrations: SCHEMA, log: () => undefined }), /do not belong together/);
  assert.ok((await stat(join(image, JOURNAL_FILE))).size > HEADER_BYTES, 'journal left untouched');
});

test('stats() reports the interface fields', async (t) => {
  const dir = await tempDir(t, 'store');
  const s = await open(t, dir);
  await insert(s, 1);
  const st = s.stats();
  assert.deepEqual(Object.keys(st).sort(), [
    'checkpoint_bounds', 'checkpoints', 'discarded_bytes', 'free_pages', 'io_error', 'journal_bytes', 'journal_records', 'last_checkpoint_at', 'last_lsn',
    'page_count', 'page_size', 'replayed_records', 'segments', 'snapshot_bytes',
  ]);
  assert.equal(st.io_error, null);
  assert.equal(st.page_size, 4096);
  assert.ok(st.page_count >= 3);
  assert.equal(st.journal_records, 2); // the migration and the insert
  assert.equal(st.journal_bytes, (await stat(join(dir, JOURNAL_FILE))).size);
});

test('a failed journal append refuses writes until a checkpoint repairs the journal', async (t) => {
  const dir = await tempDir(t, 'store');
  const logs: LogEntry[] = [];
  const store = await open(t, dir, {}, logs);
  await insert(store, 1);
  // Stand-in for EIO/ENOSPC from the disk: the only fault injection in these tests.
  const real = Journal.prototype.append;
  t.after(() => { Journal.prototype.append = real; });
  Journal.prototype.append = async function () {
    Journal.prototype.append = real;
    throw Object.assign(new Error('EIO: i/o error, write'), { code: 'EIO' });
  };
  await assert.rejects(insert(store, 2), /journal write failed: EIO/);
  await assert.rejects(insert(store, 3), /cannot journal writes/);
  assert.ok(logs.some((l) => l.level === 'error' && /append failed/.test(l.msg)));
  await store.checkpoint();
  await insert(store, 4);
  // Id 2 was committed in memory, so the repairing snapshot holds it although its write() failed.
  assert.deepEqual(ids(await open(t, await crashImage(t, dir))), [1, 2, 4]);
});

test('reclaim compacts only when free pages are at least a quarter of the database and reclaimBytes', async (t) => {
  const store = await open(t, await tempDir(t, 'store'), { reclaimBytes: 512 * 1024 });
  const blob = Buffer.alloc(4096, 7);
  await store.write((tx) => { for (let i = 1; i <= 400; i++) tx.run('INSERT INTO items (id, name, data) VALUES (?, ?, ?)', [i, `item-${i}`, blob]); });
  const free = () => store.stats().free_pages * store.stats().page_size;
  // 50 rows: about 200 KiB free, under reclaimBytes.
  await store.write((tx) => tx.run('DELETE FROM items WHERE id > 350'));
  assert.ok(free() > 100 * 1024 && free() < 512 * 1024, `free ${free()}`);
  assert.equal(await store.reclaim(), null);
  // 200 more: about 1 MiB free, over reclaimBytes and half the database.
  await store.write((tx) => tx.run('DELETE FROM items WHERE id > 150'));
  const c0 = store.stats().checkpoints;
  const r = await store.reclaim();
  assert.ok(r && r.bytes_after < r.bytes_before / 2, JSON.stringify(r));
  assert.equal(store.stats().free_pages, 0);
  assert.equal(store.stats().checkpoints, c0 + 1, 'the compacted database is the new snapshot');
  assert.deepEqual(ids(store), range(1, 150));
  // Over reclaimBytes but under a quarter of the database: left for later rows to reuse.
  await store.write((tx) => { for (let i = 151; i <= 1000; i++) tx.run('INSERT INTO items (id, name, data) VALUES (?, ?, ?)', [i, `item-${i}`, blob]); });
  await store.write((tx) => tx.run('DELETE FROM items WHERE id > 800'));
  assert.ok(free() > 512 * 1024 && free() * 4 < store.stats().page_count * store.stats().page_size, `free ${free()}`);
  assert.equal(await store.reclaim(), null);
});

test('compact drops free pages from memory and the snapshot; rows and later writes are kept across a crash', async (t) => {
  const dir = await tempDir(t, 'store');
  const store = await open(t, dir);
  const blob = Buffer.alloc(4096, 7);
  await store.write((tx) => { for (let i = 1; i <= 400; i++) tx.run('INSERT INTO items (id, name, data) VALUES (?, ?, ?)', [i, `item-${i}`, blob]); });
  await store.write((tx) => tx.run('DELETE FROM items WHERE id > 10'));
  await store.checkpoint();
  const before = (await stat(join(dir, SNAPSHOT_FILE))).size;
  const sizes = await store.compact();
  assert.ok(sizes.bytes_after < sizes.bytes_before / 10, `${sizes.bytes_before} -> ${sizes.bytes_after}`);
  const after = (await stat(join(dir, SNAPSHOT_FILE))).size;
  assert.ok(after < before / 10, `snapshot ${before} -> ${after}`);
  assert.deepEqual(ids(store), range(1, 10));
  await insert(store, 11);
  const image = await crashImage(t, dir);
  const reopened = await open(t, image);
  assert.deepEqual(ids(reopened), range(1, 11));
  assert.equal(reopened.get<{ n: number }>('SELECT length(data) AS n FROM items WHERE id = 1')?.n, 4096);
});
