// The controller link's event queue on a real store in a temp directory: order, the bound (oldest dropped
// and counted), what a crash leaves (a copy of the directory taken while the store is open, reopened),
// acknowledgements deleted in batches, and emptying it with a pairing change.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Logger } from '../../src/core/log.js';
import type { Store } from '../../src/core/store/types.js';
import { hivemindMigrations } from '../../src/modules/system/hivemind/migrations.js';
import { Outbox } from '../../src/modules/system/hivemind/outbox.js';
import { crashImage, openTestStore, tempDir, type T } from '../helpers/store.js';

const log = Logger.create({ write: () => {} });

function outbox(store: Store, limit: { n: number }, ackBatchMs = 60_000): Outbox {
  return new Outbox({ store, limit: () => limit.n, log, ackBatchMs });
}

const push = (q: Outbox, type: string) => q.push((id, seq) => Buffer.from(JSON.stringify({ type, id, seq })));
const body = (q: Outbox) => { const p = q.peek(); return p ? JSON.parse(p.payload.toString()) as { type: string; id: string; seq: number } : undefined; };

/** Sends everything as a link would: each event read, "published", acknowledged; returns the payloads. */
function drain(q: Outbox): { type: string; id: string; seq: number }[] {
  const out = [];
  for (let p = q.peek(); p; p = q.peek()) {
    out.push(JSON.parse(p.payload.toString()));
    q.ack(p.seq);
  }
  return out;
}

async function reopen(t: T, dir: string, limit: { n: number }): Promise<{ store: Store; q: Outbox }> {
  const store = await openTestStore(t, await crashImage(t, dir), hivemindMigrations);
  return { store, q: outbox(store, limit) };
}

test('events leave in order; beyond the bound the oldest are dropped and counted, also when the bound shrinks', async (t) => {
  const store = await openTestStore(t, await tempDir(t), hivemindMigrations);
  const limit = { n: 3 };
  const q = outbox(store, limit);
  for (let i = 1; i <= 5; i++) push(q, `e${i}`);
  assert.deepEqual([q.size, q.dropped, body(q)?.type, body(q)?.seq], [3, 2, 'e3', 3]);
  const sending = q.peek()!;
  q.ack(sending.seq);
  assert.equal(body(q)?.type, 'e4');
  limit.n = 1;
  push(q, 'e6');
  assert.deepEqual([q.size, q.dropped, body(q)?.type], [1, 4, 'e6']);
  q.ack(4); // the acknowledgement of an event dropped while it was being sent changes nothing
  assert.deepEqual([q.size, body(q)?.type], [1, 'e6']);
  assert.deepEqual(drain(q).map((e) => e.type), ['e6']);
  assert.equal(q.size, 0);
  assert.equal(q.peek(), undefined);
});

test('a crash (the directory as it is on disk) keeps the queued events, their ids, order and drop count', async (t) => {
  const dir = await tempDir(t);
  const store = await openTestStore(t, dir, hivemindMigrations);
  const limit = { n: 4 };
  const q = outbox(store, limit);
  for (let i = 1; i <= 6; i++) push(q, `e${i}`);
  const oldest = body(q)!;
  await store.flush(); // the group commit the events wait for
  const { q: q2 } = await reopen(t, dir, limit);
  assert.deepEqual([q2.size, q2.dropped], [4, 2]);
  const sent = drain(q2);
  assert.deepEqual(sent.map((e) => [e.type, e.seq]), [['e3', 3], ['e4', 4], ['e5', 5], ['e6', 6]]);
  assert.equal(sent[0]!.id, oldest.id, 'the id is stable across the restart');
  assert.equal(new Set(sent.map((e) => e.id)).size, 4);
});

test('acknowledged events are deleted in one batched write; ones acknowledged but not yet deleted are sent again after a crash', async (t) => {
  const dir = await tempDir(t);
  const store = await openTestStore(t, dir, hivemindMigrations);
  const limit = { n: 100 };
  const q = outbox(store, limit);
  for (let i = 1; i <= 10; i++) push(q, `e${i}`);
  await store.flush();
  const records = store.stats().journal_records;
  const first = drain(q).slice(0, 10);
  assert.equal(first.length, 10);
  assert.equal(store.stats().journal_records, records, 'an acknowledgement alone writes nothing');
  assert.equal(q.size, 0);
  await store.flush();
  // Acknowledged, not yet deleted: a crash now sends them again (at least once), with the same ids.
  const again = await reopen(t, dir, limit);
  assert.deepEqual(drain(again.q).map((e) => e.id), first.map((e) => e.id));

  await q.deleteAcked();
  await store.flush();
  assert.equal(store.stats().journal_records, records + 1, 'ten acknowledgements, one write');
  const after = await reopen(t, dir, limit);
  assert.equal(after.q.size, 0);
  // The table is empty, but the sequence goes on from where it was.
  push(after.q, 'e11');
  assert.equal(body(after.q)?.seq, 11);
});

test('acknowledgements are deleted by themselves after the batch window', async (t) => {
  const dir = await tempDir(t);
  const store = await openTestStore(t, dir, hivemindMigrations);
  const q = new Outbox({ store, limit: () => 100, log, ackBatchMs: 20 });
  for (let i = 1; i <= 3; i++) push(q, `e${i}`);
  drain(q);
  for (let i = 0; i < 100 && store.get<{ n: number }>('SELECT COUNT(*) AS n FROM hivemind_outbox')!.n > 0; i++) {
    await new Promise((r) => setTimeout(r, 10));
  }
  assert.equal(store.get<{ n: number }>('SELECT COUNT(*) AS n FROM hivemind_outbox')!.n, 0);
  assert.equal(store.get<{ last_seq: number }>('SELECT last_seq FROM hivemind_outbox_state')!.last_seq, 3);
});

test('emptying the queue (a pairing changed) forgets its events and drop count, durably, and the sequence goes on', async (t) => {
  const dir = await tempDir(t);
  const store = await openTestStore(t, dir, hivemindMigrations);
  const limit = { n: 2 };
  const q = outbox(store, limit);
  for (let i = 1; i <= 3; i++) push(q, `e${i}`);
  await store.write((tx) => q.clearIn(tx), 'sync');
  assert.deepEqual([q.size, q.dropped, q.peek()], [0, 0, undefined]);
  const { q: q2 } = await reopen(t, dir, limit);
  assert.deepEqual([q2.size, q2.dropped], [0, 0]);
  push(q2, 'e4');
  assert.deepEqual([q2.size, body(q2)?.seq], [1, 4]);
});
