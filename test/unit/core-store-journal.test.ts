// The journal file format on its own: record encoding (format 2 with its statement dictionary, and the
// legacy format 1 that earlier builds wrote), header handling, and where a scan stops.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, writeFile, stat, appendFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { encodeParams } from '../../src/core/store/codec.js';
import {
  HEADER_BYTES, Journal, journalHeader, JOURNAL_VERSION, LEGACY_VERSION, RECORD_HEADER_BYTES, type ScanEnd, type ScannedRecord,
} from '../../src/core/store/journal.js';
import { encodeLegacyRecord } from '../../src/core/store/legacy.js';
import { pendingStatement, RecordDecoder, RecordEncoder } from '../../src/core/store/record.js';

async function tempDir(t: { after(fn: () => Promise<void>): void }): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'netprobe-journal-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

function scanAll(j: Journal): { records: ScannedRecord[]; end: ScanEnd } {
  const it = j.scan();
  const records: ScannedRecord[] = [];
  for (;;) {
    const s = it.next();
    if (s.done) return { records, end: s.value };
    records.push(s.value);
  }
}

/** A record written by `e`: one encoder per file, as the store has. */
function rec(e: RecordEncoder, lsn: number, sql = `INSERT INTO t VALUES (${lsn % 2})`): Buffer {
  return e.encode(lsn, [pendingStatement(sql, [lsn, 'x'.repeat(lsn % 7)])]);
}
const payloadOf = (record: Buffer) => record.subarray(RECORD_HEADER_BYTES);

test('records round-trip tagged values, positional and named', () => {
  const blob = new Uint8Array(256).map((_, i) => i);
  const params = [blob, 2n ** 63n - 1n, -(2n ** 40n), 1.5, 'ü€😀', null, Infinity, -Infinity, NaN, true as never, false as never,
    0, -1, 2 ** 53 - 1, -(2 ** 53 - 1), 2 ** 60, ''];
  const named = { ':a': new Uint8Array(0), '$b': 7n, '@c': 'text' };
  const e = new RecordEncoder();
  const buf = e.encode(42, [pendingStatement('INSERT 1', params), pendingStatement('INSERT 2', named), pendingStatement('DELETE', null)]);
  assert.equal(buf.readUInt32LE(0), buf.length - RECORD_HEADER_BYTES);
  const r = new RecordDecoder().decode(payloadOf(buf));
  assert.equal(r.lsn, 42);
  assert.deepEqual(r.statements[0], ['INSERT 1', params]);
  assert.deepEqual(r.statements[1], ['INSERT 2', named]);
  assert.deepEqual(r.statements[2], ['DELETE', null]);
});

test('params that would not replay identically are refused', () => {
  assert.throws(() => encodeParams([undefined as never]), /undefined/);
  assert.throws(() => encodeParams([[1, 2] as never]), /array/);
  assert.throws(() => encodeParams([{ a: 1 } as never]), /Object/);
  // A Buffer is a Uint8Array: it goes in as a blob.
  const r = new RecordDecoder().decode(payloadOf(new RecordEncoder().encode(1, [pendingStatement('X', [Buffer.from('hi')])])));
  assert.deepEqual(r.statements[0]![1], [new Uint8Array([104, 105])]);
});

test('SQL text is written once per file: later records refer to it by number; a reset dictionary defines it again', () => {
  const e = new RecordEncoder();
  const sql = 'INSERT INTO results (m, t, s, rt, msg) VALUES (?, ?, ?, ?, ?)';
  const first = e.encode(1, [pendingStatement(sql, [1, 2, 3, 4, 5])]);
  const second = e.encode(2, [pendingStatement(sql, [1, 2, 3, 4, 5])]);
  assert.ok(first.includes(Buffer.from(sql)));
  assert.ok(!second.includes(Buffer.from(sql)));
  assert.ok(second.length < 30, `a record without its SQL text is small (${second.length} bytes)`);
  const d = new RecordDecoder();
  assert.deepEqual(d.decode(payloadOf(first)).statements, [[sql, [1, 2, 3, 4, 5]]]);
  assert.deepEqual(d.decode(payloadOf(second)).statements, [[sql, [1, 2, 3, 4, 5]]]);
  // A reader that missed the definition cannot decode the reference.
  assert.throws(() => new RecordDecoder().decode(payloadOf(second)), /before its definition/);
  // A writer restarted on the same file begins again at 0: its definition replaces the earlier one.
  e.reset();
  const other = e.encode(3, [pendingStatement('DELETE FROM results WHERE m = ?', [1])]);
  assert.deepEqual(d.decode(payloadOf(other)).statements, [['DELETE FROM results WHERE m = ?', [1]]]);
});

test('legacy (format 1) records decode as the earlier builds wrote them', async (t) => {
  const dir = await tempDir(t);
  const path = join(dir, 'j');
  const blob = new Uint8Array([1, 2, 3]);
  const head = journalHeader(LEGACY_VERSION);
  await writeFile(path, Buffer.concat([head,
    encodeLegacyRecord(1, [['INSERT 1', [blob, 2n ** 62n, Infinity, 'a']], ['DELETE', null]]),
    encodeLegacyRecord(2, [['INSERT 2', { ':x': 1 }]])]));
  const j = await Journal.open(path);
  assert.equal(j.version, LEGACY_VERSION);
  const { records, end } = scanAll(j);
  assert.equal(end.stopReason, null);
  assert.deepEqual(records.map((r) => [r.lsn, r.statements]), [
    [1, [['INSERT 1', [blob, 2n ** 62n, Infinity, 'a']], ['DELETE', null]]],
    [2, [['INSERT 2', { ':x': 1 }]]],
  ]);
  // reset() empties it and starts it over in this build's format.
  await j.reset();
  assert.equal(j.version, JOURNAL_VERSION);
  await j.close();
  assert.deepEqual(await readFile(path), journalHeader());
});

test('a new journal gets a header, is fsynced, and scans empty', async (t) => {
  const dir = await tempDir(t);
  const path = join(dir, 'j');
  const j = await Journal.open(path);
  assert.equal(j.size, HEADER_BYTES);
  const { records, end } = scanAll(j);
  assert.equal(records.length, 0);
  assert.deepEqual(end, { goodEnd: HEADER_BYTES, fileSize: HEADER_BYTES, stopReason: null });
  await j.close();
  const bytes = await readFile(path);
  assert.equal(bytes.subarray(0, 8).toString('latin1'), 'NPJRNL\r\n');
  assert.equal(bytes.readUInt32LE(8), JOURNAL_VERSION);
});

test('append, reopen, scan returns records with their offsets; truncate cuts', async (t) => {
  const dir = await tempDir(t);
  const path = join(dir, 'j');
  let j = await Journal.open(path);
  const e = new RecordEncoder();
  const a = rec(e, 1);
  const bc = Buffer.concat([rec(e, 2), rec(e, 3)]);
  await j.append(a);
  await j.append(bc);
  assert.equal(j.size, HEADER_BYTES + a.length + bc.length);
  await j.close();
  j = await Journal.open(path);
  const { records, end } = scanAll(j);
  assert.deepEqual(records.map((r) => r.lsn), [1, 2, 3]);
  assert.equal(records[0].start, HEADER_BYTES);
  assert.equal(records[1].start, records[0].end);
  assert.equal(end.stopReason, null);
  assert.equal(end.goodEnd, j.size);
  await j.truncate(records[1].end);
  assert.equal((await stat(path)).size, records[1].end);
  assert.deepEqual(scanAll(j).records.map((r) => r.lsn), [1, 2]);
  await j.truncate(0); // never below the header
  assert.equal(j.size, HEADER_BYTES);
  await j.close();
});

test('scan stops at a torn tail cut at any byte, at a bad CRC, at zeros and at an absurd length', async (t) => {
  const dir = await tempDir(t);
  const path = join(dir, 'j');
  const e = new RecordEncoder();
  const good = Buffer.concat([journalHeader(), rec(e, 1), rec(e, 2)]);
  const last = rec(e, 3, 'DELETE FROM t WHERE a = ? OR b = ?');
  const cases: Array<[string, Buffer, RegExp]> = [];
  for (let cut = 1; cut < last.length; cut += Math.max(1, Math.floor(last.length / 13))) {
    cases.push([`cut at ${cut}`, last.subarray(0, cut), cut < RECORD_HEADER_BYTES ? /torn record header/ : /past end/]);
  }
  const flipped = Buffer.from(last);
  flipped[last.length - 3] ^= 0x10;
  cases.push(['bit flip in payload', flipped, /checksum/]);
  const crcFlip = Buffer.from(last);
  crcFlip[5] ^= 0x01;
  cases.push(['bit flip in CRC', crcFlip, /checksum/]);
  cases.push(['zero-filled tail', Buffer.alloc(4096), /length 0/]);
  const absurd = Buffer.from(last);
  absurd.writeUInt32LE(0xfffffff0, 0);
  cases.push(['absurd length', absurd, /implausible/]);
  const garbage = Buffer.from([3, 9, 9, 9]); // LSN 3, then an entry tag no build writes
  const hdr = Buffer.alloc(8);
  hdr.writeUInt32LE(garbage.length, 0);
  const { crc32 } = await import('node:zlib');
  hdr.writeUInt32LE(crc32(garbage), 4);
  cases.push(['valid CRC, unknown entry', Buffer.concat([hdr, garbage]), /does not parse/]);

  for (const [name, tail, reason] of cases) {
    await writeFile(path, Buffer.concat([good, tail]));
    const j = await Journal.open(path);
    const { records, end } = scanAll(j);
    await j.close();
    assert.deepEqual(records.map((r) => r.lsn), [1, 2], name);
    assert.equal(end.goodEnd, good.length, name);
    assert.equal(end.fileSize, good.length + tail.length, name);
    assert.match(end.stopReason ?? '', reason, name);
  }
});

test('a header torn during creation is rewritten; a foreign file or unknown version is refused untouched', async (t) => {
  const dir = await tempDir(t);
  const path = join(dir, 'j');
  for (const n of [0, 3, 15]) {
    await writeFile(path, journalHeader().subarray(0, n));
    const j = await Journal.open(path);
    assert.equal(j.size, HEADER_BYTES);
    await j.close();
    assert.deepEqual(await readFile(path), journalHeader());
  }
  await writeFile(path, 'SQLite format 3\0 and then some more bytes');
  await assert.rejects(Journal.open(path), /not a netprobe journal/);
  assert.match((await readFile(path, 'latin1')), /^SQLite format 3/);
  await writeFile(path, 'hi');
  await assert.rejects(Journal.open(path), /not a netprobe journal/);
  const v3 = journalHeader();
  v3.writeUInt32LE(3, 8);
  await writeFile(path, v3);
  await appendFile(path, rec(new RecordEncoder(), 1));
  await assert.rejects(Journal.open(path), /format version 3/);
  // A legacy header torn during creation is a torn header too, not a foreign file.
  await writeFile(path, journalHeader(LEGACY_VERSION).subarray(0, 10));
  const j = await Journal.open(path);
  await j.close();
  assert.deepEqual(await readFile(path), journalHeader());
});
