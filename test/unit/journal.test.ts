// The journal file format on its own: record encoding, header handling, and where a scan stops.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, writeFile, stat, appendFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  decodePayload, encodeParams, encodeRecord, HEADER_BYTES, Journal, journalHeader, JOURNAL_VERSION,
  RECORD_HEADER_BYTES, type ScanEnd, type ScannedRecord,
} from '../../src/core/store/journal.js';

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

function rec(lsn: number, sql = `INSERT INTO t VALUES (${lsn})`): Buffer {
  return encodeRecord(lsn, [[sql, encodeParams([lsn, 'x'.repeat(lsn % 7)])]]);
}

test('encodeRecord/decodePayload round-trip tagged values', () => {
  const blob = new Uint8Array(256).map((_, i) => i);
  const params = encodeParams([blob, 2n ** 63n - 1n, -(2n ** 40n), 1.5, 'ü€', null, Infinity, -Infinity, true as never]);
  const named = encodeParams({ ':a': new Uint8Array(0), '$b': 7n, '@c': 'text' });
  const buf = encodeRecord(42, [['INSERT 1', params], ['INSERT 2', named], ['DELETE', null]]);
  assert.equal(buf.readUInt32LE(0), buf.length - RECORD_HEADER_BYTES);
  const r = decodePayload(buf.subarray(RECORD_HEADER_BYTES));
  assert.equal(r.lsn, 42);
  assert.deepEqual(r.statements[0], ['INSERT 1', [blob, 2n ** 63n - 1n, -(2n ** 40n), 1.5, 'ü€', null, Infinity, -Infinity, true]]);
  assert.deepEqual(r.statements[1], ['INSERT 2', { ':a': new Uint8Array(0), '$b': 7n, '@c': 'text' }]);
  assert.deepEqual(r.statements[2], ['DELETE', null]);
});

test('encodeParams refuses values that would not replay identically', () => {
  assert.throws(() => encodeParams([undefined as never]), /undefined/);
  assert.throws(() => encodeParams([[1, 2] as never]), /array/);
  assert.throws(() => encodeParams([{ a: 1 } as never]), /Object/);
  // A Buffer is a Uint8Array and must not go through Buffer#toJSON.
  const r = decodePayload(encodeRecord(1, [['X', encodeParams([Buffer.from('hi')])]]).subarray(RECORD_HEADER_BYTES));
  assert.deepEqual(r.statements[0][1], [new Uint8Array([104, 105])]);
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
  const a = rec(1);
  const bc = Buffer.concat([rec(2), rec(3)]);
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
  const good = Buffer.concat([journalHeader(), rec(1), rec(2)]);
  const last = rec(3);
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
  const notJson = Buffer.from('{"l":3,');
  const hdr = Buffer.alloc(8);
  hdr.writeUInt32LE(notJson.length, 0);
  const { crc32 } = await import('node:zlib');
  hdr.writeUInt32LE(crc32(notJson), 4);
  cases.push(['valid CRC, broken JSON', Buffer.concat([hdr, notJson]), /does not parse/]);

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
  const v2 = journalHeader();
  v2.writeUInt32LE(2, 8);
  await writeFile(path, v2);
  await appendFile(path, rec(1));
  await assert.rejects(Journal.open(path), /format version 2/);
});
