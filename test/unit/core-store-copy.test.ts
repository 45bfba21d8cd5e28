// The checkpoint's copy made in steps (src/core/store/copy.ts) against sql.js itself: what it holds is the
// source as of its last step, whatever was written, rolled back or grown in between; and it really is made
// in steps with this sql.js (a release that stores files differently fails here, not silently slower).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import initSqlJs from 'sql.js';
import type { Database, SqlJsStatic } from 'sql.js';
import { copyDatabase, type CopyOptions } from '../../src/core/store/copy.js';

const SQL: SqlJsStatic = await initSqlJs();

/** About 6 MiB over 1,500 pages, like bench/monitors' database at 2,000 monitors. */
function source(): Database {
  const db = new SQL.Database();
  db.run('PRAGMA journal_mode = MEMORY');
  db.run('PRAGMA locking_mode = EXCLUSIVE');
  db.run('CREATE TABLE meta (k TEXT PRIMARY KEY, v)');
  db.run('CREATE TABLE rows (id INTEGER PRIMARY KEY, body BLOB NOT NULL)');
  db.run('CREATE INDEX rows_body ON rows (substr(body, 1, 8))');
  db.run('WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 12000) ' +
    'INSERT INTO rows (id, body) SELECT i, randomblob(400) FROM n');
  return db;
}

/** Every row of every table, in a stable order. */
function dump(db: Database): string {
  const tables = db.exec("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")[0]!.values.map((r) => String(r[0]));
  return JSON.stringify(tables.map((t) => [t, db.exec(`SELECT * FROM "${t}" ORDER BY 1`)[0]?.values.map((r) =>
    r.map((v) => (v instanceof Uint8Array ? Buffer.from(v).toString('hex') : v))) ?? []]));
}

function opened(bytes: Uint8Array): Database {
  const db = new SQL.Database(bytes);
  assert.deepEqual(db.exec('PRAGMA integrity_check')[0]!.values, [['ok']]);
  return db;
}

/** Runs the copy while `between` writes to the source at every turn; returns the copy and the source's state at `last`. */
async function copyWhile(db: Database, between: (turn: number) => void, extra: Partial<CopyOptions> = {}) {
  let atLast = '';
  let done = false;
  let turn = 0;
  const writer = (async () => {
    while (!done) {
      between(turn++);
      await new Promise((r) => setImmediate(r));
    }
  })();
  const copy = await copyDatabase(SQL, db, {
    sliceMs: 1,
    last: () => {
      db.run("INSERT INTO meta (k, v) VALUES ('last', 1) ON CONFLICT(k) DO UPDATE SET v = v + 1");
      atLast = dump(db);
    },
    ...extra,
  });
  done = true;
  await writer;
  return { copy, atLast };
}

test('a copy made in steps holds the source as of its last step, writes in between included', async () => {
  const db = source();
  let id = 100_000;
  const { copy, atLast } = await copyWhile(db, () => {
    // New rows, changes to rows copied long ago and rows not copied yet, deletions.
    db.run('BEGIN');
    db.run('INSERT INTO rows (id, body) VALUES (?, randomblob(300))', [id++]);
    db.run('UPDATE rows SET body = randomblob(400) WHERE id IN (?, ?)', [1 + (id % 50), 11_000 + (id % 900)]);
    db.run('DELETE FROM rows WHERE id = ?', [5000 + (id % 1000)]);
    db.run('COMMIT');
  });
  assert.equal(copy.way, 'steps', copy.reason);
  assert.ok(copy.turns > 10, `made over ${copy.turns} turns`);
  assert.ok(id > 100_010, 'writes ran between the steps');
  const c = opened(copy.bytes);
  assert.equal(dump(c), atLast);
  // The array no longer follows the source (the backup is finished and its file closed).
  const before = Buffer.from(copy.bytes).toString('base64');
  db.run('UPDATE rows SET body = zeroblob(10) WHERE id < 100');
  assert.equal(Buffer.from(copy.bytes).toString('base64'), before);
  c.close();
  db.close();
});

test('rolled-back transactions between steps: the copy is still exact', async () => {
  const db = source();
  const { copy, atLast } = await copyWhile(db, (turn) => {
    db.run('BEGIN');
    db.run('UPDATE rows SET body = zeroblob(400) WHERE id < 2000');
    db.run(turn % 5 === 0 ? 'COMMIT' : 'ROLLBACK');
  });
  assert.equal(copy.way, 'steps', copy.reason);
  const c = opened(copy.bytes);
  assert.equal(dump(c), atLast);
  c.close();
  db.close();
});

test('a source that grows during the copy: into the room left for it, beyond it once, and without end', async () => {
  const db = source();
  const grow = (rows: number, from: number) =>
    db.run('INSERT INTO rows (id, body) SELECT ? + id, randomblob(400) FROM rows WHERE id <= ?', [from, rows]);
  let n = 200_000;
  // 4 pages a turn: within the room (a sixteenth of the pages) for the whole copy.
  const before = db.exec('PRAGMA page_count')[0]!.values[0]![0] as number;
  const within = await copyWhile(db, () => { grow(40, n); n += 1000; });
  assert.equal(within.copy.way, 'steps', within.copy.reason);
  assert.equal(within.copy.attempts, 1);
  assert.ok(within.copy.bytes.length > (before + 16) * 4096, 'the file grew into the array during the copy');
  assert.equal(dump(opened(within.copy.bytes)), within.atLast);

  // 3,000 rows (about 300 pages) at once: copied again at the new size.
  let turn = 0;
  const once = await copyWhile(db, () => { if (turn++ === 3) { grow(3000, n); n += 10_000; } });
  assert.equal(once.copy.way, 'steps', once.copy.reason);
  assert.equal(once.copy.attempts, 2);
  assert.equal(dump(opened(once.copy.bytes)), once.atLast);

  const always = await copyWhile(db, () => { grow(1000, n); n += 10_000; });
  assert.equal(always.copy.way, 'export');
  assert.equal(always.copy.attempts, 3);
  assert.match(always.copy.reason ?? '', /outgrew/);
  assert.equal(dump(opened(always.copy.bytes)), always.atLast);
  db.close();
});

test('a small database is copied at once; the copy opens as a plain SQLite file', async () => {
  const db = new SQL.Database();
  db.run('CREATE TABLE meta (k TEXT PRIMARY KEY, v)');
  db.run("INSERT INTO meta VALUES ('a', 1)");
  const copy = await copyDatabase(SQL, db, { sliceMs: 1, last: () => db.run("INSERT INTO meta VALUES ('b', 2)") });
  assert.equal(copy.way, 'steps', copy.reason);
  assert.equal(copy.turns, 1);
  assert.equal(Buffer.from(copy.bytes.subarray(0, 16)).toString('latin1'), 'SQLite format 3\0');
  assert.deepEqual(opened(copy.bytes).exec('SELECT k, v FROM meta ORDER BY k')[0]!.values, [['a', 1], ['b', 2]]);
  db.close();
});
