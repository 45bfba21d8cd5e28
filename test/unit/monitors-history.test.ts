// The monitors module's compact raw history (history.ts) and its channel entries (channel.ts): what goes
// in comes out, in order, across pages; retention frees whole pages; reads filter exactly.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { decodeMessage, encodeMessage, type StoredResult } from '../../src/modules/monitors/storage/channel.js';
import { RawHistory } from '../../src/modules/monitors/storage/history.js';

const T0 = Date.parse('2026-03-01T00:00:00Z');

/** A day of results every 60 s with jitter, the odd failure with details, a long inline message. */
function day(n = 1440): StoredResult[] {
  const out: StoredResult[] = [];
  for (let i = 0; i < n; i++) {
    const fail = i % 97 === 5;
    out.push({
      t: T0 + i * 60_000 + ((i * 7919) % 23),
      status: fail ? 'down' : i % 50 === 3 ? 'degraded' : 'up',
      rt: fail ? null : 50 + ((i * 31) % 400),
      msg: fail ? 'x'.repeat(250) + i : i % 200 === 0 ? 7 : 3,
      d: fail ? JSON.stringify({ error: `e${i}` }) : null,
    });
  }
  return out;
}

test('results come back as they went in, newest first, paged and filtered', () => {
  const h = new RawHistory();
  const rs = day();
  for (const r of rs) h.append(1, r);
  h.append(2, rs[0]!);
  assert.equal(h.count(1), rs.length);
  const all = h.query(1, { from: -Infinity, to: Infinity, limit: 2000, offset: 0 });
  assert.equal(all.total, rs.length);
  assert.deepEqual(all.items, [...rs].reverse());
  assert.deepEqual(h.last(1), rs.at(-1));
  const page = h.query(1, { from: -Infinity, to: Infinity, limit: 3, offset: 2 });
  assert.deepEqual(page.items, [...rs].reverse().slice(2, 5));
  const down = h.query(1, { from: rs[100]!.t, to: rs[800]!.t, status: 'down', limit: 1000, offset: 0 });
  assert.deepEqual(down.items, rs.filter((r) => r.status === 'down' && r.t >= rs[100]!.t && r.t <= rs[800]!.t).reverse());
  const seen: number[] = [];
  h.forEach(1, (r) => { seen.push(r.t); }, rs[10]!.t, rs[12]!.t);
  assert.deepEqual(seen, [rs[10]!.t, rs[11]!.t, rs[12]!.t]);
  const st = h.stats();
  assert.equal(st.results, rs.length + 1);
  assert.ok(st.pages * 1024 / rs.length < 10, `about ${(st.pages * 1024 / rs.length).toFixed(1)} bytes per result`);
});

test('retention frees whole pages; reads stay exact; a dropped monitor frees its pages for others', () => {
  const h = new RawHistory();
  const rs = day();
  for (const r of rs) h.append(1, r);
  const pages = h.stats().pages;
  const cut = rs[720]!.t;
  const gone = h.trim(cut);
  assert.ok(gone > 0 && gone <= 720, `${gone}`);
  assert.ok(h.stats().pages < pages);
  assert.equal(h.query(1, { from: cut, to: Infinity, limit: 1, offset: 0 }).total, 720);
  assert.deepEqual(h.last(1), rs.at(-1));
  h.drop(1);
  assert.equal(h.count(1), 0);
  for (const r of rs) h.append(3, r);
  assert.equal(h.stats().pages, pages, 'the freed pages were reused');
  assert.equal(h.trim(Infinity), rs.length);
  assert.equal(h.stats().results, 0);
  assert.ok(h.messageIds().size === 0);
});

test('channel entries round-trip', () => {
  const r = day(200)[5]!;
  const msgs = [
    { kind: 'result', pk: 42, result: r, state: { status: 'degraded', fail_streak: 2 } },
    { kind: 'result', pk: 1, result: { ...r, msg: 7, d: null, rt: 0 },
      state: { status: 'up', fail_streak: 0, cert: { valid_to: -5, checked_at: null } } },
    { kind: 'state', pk: 9, state: { status: 'paused', fail_streak: 0, cert: { valid_to: null, checked_at: null } } },
    { kind: 'cleared' },
    { kind: 'imported', pk: 3, results: day(5) },
  ] as const;
  for (const m of msgs) assert.deepEqual(decodeMessage(encodeMessage(m)), m);
  assert.ok(encodeMessage({ kind: 'result', pk: 1500, result: { t: T0, status: 'up', rt: 1234, msg: 3, d: null },
    state: { status: 'up', fail_streak: 0 } }).length <= 16);
});
