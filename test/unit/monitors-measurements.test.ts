// Named measurements in the storage's two encodings (channel entries and history pages) and the rule
// that keeps only what a check type declares: values come back as they went in (negative ones too),
// results without any are encoded as before, images keep them, and the declarations are well formed.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ByteReader, ByteWriter } from '../../src/core/store/index.js';
import { Logger } from '../../src/core/log.js';
import { CHECK_TYPES, CHECKS } from '../../src/modules/monitors/checks/index.js';
import { keptMeasurements } from '../../src/modules/monitors/measurements.js';
import { decodeMessage, encodeMessage, type StoredResult } from '../../src/modules/monitors/storage/channel.js';
import { RawHistory } from '../../src/modules/monitors/storage/history.js';
import { MAX_MEASURES } from '../../src/modules/monitors/storage/measures.js';

const T0 = Date.parse('2026-03-01T00:00:00Z');

/** A day of ping-like results, every third without measurements (a failed check), some losses negative-free, one expired certificate. */
function day(n = 1440): StoredResult[] {
  return Array.from({ length: n }, (_, i): StoredResult => ({
    t: T0 + i * 60_000 + ((i * 7919) % 23),
    status: i % 3 === 2 ? 'down' : 'up',
    rt: i % 3 === 2 ? null : 50 + ((i * 31) % 400),
    msg: 3,
    d: null,
    ...(i % 3 === 2 ? {} : { x: i % 100 === 7 ? [2, -150, 1, 0] : [1, (i * 1111) % 10_001] }),
  }));
}

test('channel entries carry measurements, negative values too; an entry without any is as long as before', () => {
  const state = { status: 'up', fail_streak: 0 } as const;
  const plain: StoredResult = { t: T0, status: 'up', rt: 1234, msg: 3, d: null };
  const measured: StoredResult = { ...plain, x: [1, 3333, 2, -150, 300, 2 ** 40] };
  for (const result of [plain, measured]) {
    assert.deepEqual(decodeMessage(encodeMessage({ kind: 'result', pk: 7, result, state })), { kind: 'result', pk: 7, result, state });
  }
  assert.deepEqual(decodeMessage(encodeMessage({ kind: 'imported', pk: 7, results: [plain, measured] })),
    { kind: 'imported', pk: 7, results: [plain, measured] });
  const a = encodeMessage({ kind: 'result', pk: 7, result: plain, state }).length;
  const b = encodeMessage({ kind: 'result', pk: 7, result: { ...plain, x: null }, state }).length;
  assert.equal(a, b);
  assert.ok(a <= 16, `${a} bytes`);
});

test('history pages keep measurements through reads, trims and the start-up image; results without any cost what they did', () => {
  const h = new RawHistory();
  const rs = day();
  for (const r of rs) h.append(1, r, r.status === 'down' ? 1 : 0);
  const want = rs.map((r) => ({ ...r, ...(r.status === 'down' ? { standing: 1 } : {}) }));
  const all = h.query(1, { from: -Infinity, to: Infinity, limit: 2000, offset: 0 });
  assert.deepEqual(all.items, [...want].reverse());
  assert.deepEqual(h.last(1), want.at(-1));
  const seen: StoredResult[] = [];
  h.forEach(1, (r) => { seen.push(r); }, rs[300]!.t, rs[310]!.t);
  assert.deepEqual(seen, want.slice(300, 311));

  const w = new ByteWriter(1024);
  h.writeImage(w);
  const copy = new RawHistory();
  copy.readImage(new ByteReader(w.view()));
  assert.deepEqual(copy.query(1, { from: -Infinity, to: Infinity, limit: 2000, offset: 0 }), all);
  copy.trim(rs[1000]!.t);
  assert.deepEqual(copy.query(1, { from: -Infinity, to: Infinity, limit: 2000, offset: 0 }).items, [...want.slice(1000)].reverse());

  // The same results without measurements cost what results cost before measurements existed: about 4
  // bytes each (a day of a monitor checked every minute in 6 pages of 1 KiB).
  const bare = new RawHistory(), none = new RawHistory();
  for (const r of rs) { const { x: _x, ...rest } = r; bare.append(1, rest); none.append(1, { ...rest, x: null }); }
  assert.deepEqual(none.stats(), bare.stats());
  assert.ok(bare.stats().pages <= 6, `${bare.stats().pages} pages`);
  assert.ok(h.stats().pages > bare.stats().pages, 'measurements take room');
});

test('only declared measurements with a value the storage can hold are kept, to hundredths; an undeclared name is logged once', () => {
  const lines: string[] = [];
  const log = Logger.create({ write: (l) => lines.push(l), level: 'debug' });
  assert.deepEqual(keptMeasurements('ping', { loss_pct: 12.345, made_up: 1 }, log), { loss_pct: 12.35 });
  assert.deepEqual(keptMeasurements('ping', { made_up: 2 }, log), null);
  assert.equal(lines.filter((l) => /made_up/.test(l)).length, 1, 'logged once');
  assert.deepEqual(keptMeasurements('ping', { loss_pct: Number.NaN }, log), null);
  assert.deepEqual(keptMeasurements('ping', { loss_pct: 1e14 }, log), null);
  assert.deepEqual(keptMeasurements('dns', { loss_pct: 5 }, log), null, 'dns declares none');
  assert.deepEqual(keptMeasurements('ping', undefined, log), null);
});

test('every check type declares its measurements well: names in lower_snake_case, once each, with a unit (or the monitor\'s) and a label', () => {
  const declared: string[] = [];
  for (const type of CHECK_TYPES) {
    const list = CHECKS[type].measurements ?? [];
    assert.ok(list.length <= MAX_MEASURES, type);
    assert.equal(new Set(list.map((d) => d.name)).size, list.length, `${type}: a name twice`);
    for (const d of list) {
      assert.match(d.name, /^[a-z][a-z0-9_]{0,39}$/, `${type}.${d.name}`);
      // A unit of its own, or the monitor's (unitSetting: snmp's value is in whatever the monitor's `unit` says).
      assert.ok((d.unit.trim() || d.unitSetting) && d.label.trim(), `${type}.${d.name}: unit and label`);
      declared.push(`${type}.${d.name}`);
    }
  }
  assert.deepEqual(declared.sort(), ['http.days_left', 'path.hops', 'path.loss_pct', 'ping.loss_pct', 'snmp.value', 'tcp.days_left']);
});
