// Channels: entries committed with a transaction's journal record, moved into segment files by checkpoints
// (never into the snapshot), read back in commit order after any crash, and dropped by age. Real files,
// real fsync; a "crash image" is a copy of the directory taken while the store is open.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cp, readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { JOURNAL_FILE, SNAPSHOT_FILE, type Migration, type Store, type StoreOptions } from '../../src/core/store/index.js';
import { Journal } from '../../src/core/store/journal.js';
import { crashImage, openTestStore, tempDir, type LogEntry, type T } from '../helpers/store.js';

const SCHEMA: Migration[] = [{ version: 1, name: 'items', up: 'CREATE TABLE items (id INTEGER PRIMARY KEY)' }];
const open = (t: T, dir: string, extra: Partial<StoreOptions> = {}, logs?: LogEntry[]): Promise<Store> =>
  openTestStore(t, dir, SCHEMA, extra, logs);
const CH = 'test.results';

const emit = (s: Store, n: number, durability: 'sync' | 'group' = 'sync', channel = CH) =>
  s.write((tx) => tx.emit(channel, Buffer.from(`e${n}`)), durability);

/** The channel's entries as text, in the order readChannel delivers them. */
function entries(s: Store, channel = CH): string[] {
  const out: string[] = [];
  s.readChannel(channel, (e) => out.push(Buffer.from(e.bytes.subarray(e.start, e.end)).toString()));
  return out;
}

const seq = (a: number, b: number) => Array.from({ length: b - a + 1 }, (_, i) => `e${a + i}`);
const segmentFiles = async (dir: string) => (await readdir(dir)).filter((f) => f.endsWith('.seg')).sort();

test('entries come back in commit order from segments, the journal and the queue, and survive crashes and restarts', async (t) => {
  const dir = await tempDir(t, 'channels');
  const s = await open(t, dir);
  for (let i = 1; i <= 3; i++) await emit(s, i);
  await s.checkpoint(); // e1-e3 move into a segment
  assert.equal((await segmentFiles(dir)).length, 1);
  assert.ok(!(await readFile(join(dir, SNAPSHOT_FILE))).includes(Buffer.from('e2')), 'the snapshot does not hold them');
  for (let i = 4; i <= 5; i++) await emit(s, i);
  await emit(s, 6, 'group'); // committed, not yet appended
  assert.deepEqual(entries(s), seq(1, 6));
  assert.deepEqual(entries(s, 'other'), []);
  assert.deepEqual(entries(await open(t, await crashImage(t, dir))), seq(1, 5), 'the crash lost only the unflushed group entry');
  await s.close();
  assert.deepEqual(entries(await open(t, dir)), seq(1, 6));
});

test('entries are atomic with their transaction; onCommit runs after COMMIT only', async (t) => {
  const s = await open(t, await tempDir(t, 'channels'));
  const seen: string[] = [];
  await assert.rejects(s.write((tx) => {
    tx.emit(CH, Buffer.from('lost'));
    tx.onCommit(() => seen.push('lost'));
    tx.run('INSERT INTO items (id) VALUES (1)');
    throw new Error('no');
  }));
  const r = await s.write((tx) => {
    tx.run('INSERT INTO items (id) VALUES (2)');
    tx.emit(CH, Buffer.from('kept'));
    tx.onCommit(() => seen.push(`kept ${s.get<{ n: number }>('SELECT count(*) AS n FROM items')!.n}`));
    return 'ok';
  });
  assert.equal(r, 'ok');
  assert.deepEqual(seen, ['kept 1'], 'after COMMIT, seeing the committed row');
  assert.deepEqual(entries(s), ['kept']);
  // The entry is copied at emit: a caller may reuse its buffer (Buffer#subarray views included).
  const reused = Buffer.from('first');
  await s.write((tx) => tx.emit(CH, reused.subarray(0, 5)), 'group');
  reused.write('xxxxx');
  assert.deepEqual(entries(s), ['kept', 'first']);
  await assert.rejects(s.write((tx) => tx.emit('Bad Name!', new Uint8Array(1))), /invalid channel name/);
  await assert.rejects(s.write((tx) => tx.emit(CH, 'text' as never)), /bytes/);
  // A transaction that only emits takes an LSN and replays (it has nothing for the database).
  const lsn = s.stats().last_lsn;
  await emit(s, 1);
  assert.equal(s.stats().last_lsn, lsn + 1);
});

test('a crash between a segment and its snapshot, or between the snapshot and the truncation, delivers each entry once', async (t) => {
  const dir = await tempDir(t, 'channels');
  const s = await open(t, dir);
  for (let i = 1; i <= 4; i++) await emit(s, i);
  const before = await crashImage(t, dir); // journal with e1-e4, no segment
  await s.checkpoint();
  const after = await crashImage(t, dir); // segment and snapshot, empty journal
  const [segment] = await segmentFiles(after);
  assert.ok(segment);

  // Killed after the segment's rename, before the snapshot's: the segment is past the snapshot.
  const early = await crashImage(t, before);
  await cp(join(after, segment), join(early, segment));
  await writeFile(join(early, `${segment}.tmp`), 'half a segment');
  const logs: LogEntry[] = [];
  const e = await open(t, early, {}, logs);
  assert.deepEqual(entries(e), seq(1, 4));
  assert.deepEqual(await segmentFiles(early), [], 'the orphan segment is removed');
  assert.ok(!(await readdir(early)).some((f) => f.endsWith('.tmp')));
  assert.ok(logs.some((l) => /interrupted checkpoint/.test(l.msg)));

  // Killed after the snapshot's rename, before the truncation: the journal's records are stale.
  const late = await crashImage(t, after);
  await cp(join(before, JOURNAL_FILE), join(late, JOURNAL_FILE));
  const l = await open(t, late);
  assert.deepEqual(entries(l), seq(1, 4));
  await emit(l, 5);
  assert.deepEqual(entries(await open(t, await crashImage(t, late))), seq(1, 5));
});

test('a checkpoint takes queued entries along, and a failed append\'s entries reach the repairing checkpoint', async (t) => {
  const dir = await tempDir(t, 'channels');
  const s = await open(t, dir);
  await emit(s, 1);
  await emit(s, 2, 'group');
  await s.checkpoint(); // e2 was never appended: the segment has it from the queue
  assert.deepEqual(entries(await open(t, await crashImage(t, dir))), seq(1, 2));

  const real = Journal.prototype.append;
  t.after(() => { Journal.prototype.append = real; });
  Journal.prototype.append = async function () {
    Journal.prototype.append = real;
    throw Object.assign(new Error('EIO: i/o error, write'), { code: 'EIO' });
  };
  await assert.rejects(emit(s, 3), /journal write failed/);
  await s.checkpoint();
  await emit(s, 4);
  assert.deepEqual(entries(await open(t, await crashImage(t, dir))), seq(1, 4));
});

test('dropChannelBefore deletes the segments written before a time, after its prepare step; other channels keep theirs', async (t) => {
  let now = 1_000_000;
  const dir = await tempDir(t, 'channels');
  const s = await open(t, dir, { now: () => now });
  await emit(s, 1);
  await emit(s, 100, 'sync', 'other.channel');
  const firstCheckpoint = s.committedLsn();
  await s.checkpoint();
  now += 60_000;
  await emit(s, 2);
  await s.checkpoint();
  assert.equal(s.stats().segments.files, 3);
  assert.ok(s.stats().segments.bytes > 0);
  await emit(s, 3);
  let prepared: number[] = [];
  const prepare = async (lastLsn: number) => { prepared.push(lastLsn); };
  assert.equal(await s.dropChannelBefore(CH, 0, prepare), 0);
  assert.deepEqual(prepared, [], 'prepare runs only when something is to be dropped');
  assert.equal(await s.dropChannelBefore(CH, now - 1, prepare), 1);
  assert.deepEqual(prepared, [firstCheckpoint], 'with the LSN up to which entries go: the segment\'s checkpoint');
  prepared = [];
  assert.deepEqual(entries(s), ['e2', 'e3']);
  assert.deepEqual(entries(s, 'other.channel'), ['e100']);
  assert.equal(await s.dropChannelBefore(CH, Infinity), 1);
  assert.deepEqual(entries(s), ['e3'], 'what the journal holds stays until its checkpoint');
});

test('readChannel after an LSN delivers only the later entries, from segments, the journal and the queue, opening no older segment', async (t) => {
  const dir = await tempDir(t, 'channels');
  const s = await open(t, dir);
  const lsns: number[] = [];
  for (let i = 1; i <= 3; i++) { await emit(s, i); lsns.push(s.committedLsn()); }
  await s.checkpoint(); // e1-e3: a segment
  for (let i = 4; i <= 6; i++) { await emit(s, i); lsns.push(s.committedLsn()); }
  await s.checkpoint(); // e4-e6: a second one
  await emit(s, 7); // the journal
  await emit(s, 8, 'group'); // the queue
  const after = (lsn: number) => {
    const out: string[] = [];
    s.readChannel(CH, (e) => out.push(Buffer.from(e.bytes.subarray(e.start, e.end)).toString()), lsn);
    return out;
  };
  assert.deepEqual(after(0), seq(1, 8));
  assert.deepEqual(after(lsns[1]!), seq(3, 8));
  assert.deepEqual(after(lsns[4]!), seq(6, 8));
  assert.deepEqual(after(s.committedLsn()), []);
  // The first segment holds nothing after e3's LSN: it is not even opened (a damaged one would say so).
  const [first] = await segmentFiles(dir);
  await writeFile(join(dir, first!), 'not a segment');
  assert.deepEqual(after(lsns[2]!), seq(4, 8));
});

test('a damaged segment block is reported; the entries before it are delivered and the store opens', async (t) => {
  const dir = await tempDir(t, 'channels');
  const s = await open(t, dir);
  // Enough entries for two 64 KiB blocks.
  const big = Buffer.alloc(1000, 7);
  for (let i = 0; i < 100; i++) await s.write((tx) => tx.emit(CH, Buffer.concat([Buffer.from([i]), big])), 'group');
  await s.close();
  const [segment] = await segmentFiles(dir);
  const path = join(dir, segment!);
  const bytes = await readFile(path);
  bytes[bytes.length - 10] ^= 0xff; // in the last block
  await writeFile(path, bytes);
  const logs: LogEntry[] = [];
  const again = await open(t, dir, {}, logs);
  const got: number[] = [];
  again.readChannel(CH, (e) => got.push(e.bytes[e.start]!));
  assert.ok(got.length > 50 && got.length < 100, `${got.length} entries before the damage`);
  assert.deepEqual(got, got.map((_, i) => i));
  assert.ok(logs.some((l) => l.level === 'error' && /segment is damaged/.test(l.msg)));
  assert.ok((await stat(path)).size > 0, 'the damaged segment is left for inspection');
});
