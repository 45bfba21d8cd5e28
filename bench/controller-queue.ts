// What the controller link's event queue on disk writes (src/modules/system/hivemind/outbox.ts): prints
// figures, asserts nothing. Run: node --import tsx bench/controller-queue.ts [events]
//
// A real store in a temp directory, the real Outbox, events shaped as the service sends a monitor.down.
// Bytes are counted twice: the files' growth (journal, snapshot, segments) and the bytes this process
// handed to write() (/proc/self/io wchar; nothing is printed while a phase runs). Phases:
//  1. broker answering, one event at a time: each event inserted, sent, acknowledged and deleted by its
//     own batch (a state change every few minutes: the worst case for the batching of deletes)
//  2. broker answering, a burst (a scan's hosts): 100 events per delete batch
//  3. broker away: the queue fills to its limit (1,000), a checkpoint writes it in the snapshot, then it
//     drains; then as many again beyond the limit (each also drops the oldest)
//  4. the alternative not taken: the same events as entries of a store channel, an acknowledgement entry
//     per event, and the segment the next checkpoint writes
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Logger } from '../src/core/log.js';
import { JOURNAL_FILE, SNAPSHOT_FILE, openStore, type Store } from '../src/core/store/index.js';
import { hivemindMigrations } from '../src/modules/system/hivemind/migrations.js';
import { Outbox } from '../src/modules/system/hivemind/outbox.js';

const N = Number(process.argv[2] ?? 1000);
const LIMIT = 1000;
const log = Logger.create({ write: () => {} });

/** A monitor.down as service.ts sends it (bus-bridge.ts's fields), with its id and seq. */
function monitorDown(id: string, seq: number): Buffer {
  const at = new Date().toISOString();
  return Buffer.from(JSON.stringify({
    type: 'monitor.down', at, probe_id: 'probe-0042',
    monitor: { id: randomUUID(), name: 'core-switch (rack 2)', check_type: 'ping', tags: ['core', 'site-a'] },
    status: 'down', previous_status: 'up', occurred_at: at, message: '100% packet loss', response_time_ms: null,
    incident_id: randomUUID(), id, seq,
  }));
}

const wchar = (): number => Number(/^wchar:\s+(\d+)/m.exec(readFileSync('/proc/self/io', 'utf8'))?.[1] ?? NaN);
const size = async (dir: string, f: string): Promise<number> => (await stat(join(dir, f)).catch(() => ({ size: 0 }))).size;
async function segmentBytes(dir: string): Promise<number> {
  let n = 0;
  for (const f of await readdir(dir)) if (f.endsWith('.seg')) n += await size(dir, f);
  return n;
}

async function fresh(): Promise<{ dir: string; store: Store; q: Outbox }> {
  const dir = await mkdtemp(join(tmpdir(), 'netprobe-bench-queue-'));
  // No checkpoint unless asked: the journal's growth is what the events wrote.
  const store = await openStore({ dir, migrations: hivemindMigrations, checkpointBytes: 1 << 30, checkpointAgeMs: 1 << 30, groupCommitMs: 60_000 });
  await store.checkpoint();
  return { dir, store, q: new Outbox({ store, limit: () => LIMIT, log, ackBatchMs: 60_000 }) };
}

/** Sends what is queued as the link would (read, "PUBACK", acknowledge), deleting every `batch` events. */
async function drain(q: Outbox, batch: number): Promise<number> {
  let n = 0;
  for (let p = q.peek(); p; p = q.peek()) {
    q.ack(p.seq);
    if (++n % batch === 0) await q.deleteAcked();
  }
  await q.deleteAcked();
  return n;
}

interface Row { phase: string; events: number; journal: number; snapshot: number; segments: number; wchar: number }
const rows: Row[] = [];

async function online(batch: number, label: string): Promise<void> {
  const { dir, store, q } = await fresh();
  const snap0 = await size(dir, SNAPSHOT_FILE);
  const w0 = wchar();
  for (let i = 0; i < N; i++) {
    q.push(monitorDown);
    q.ack(q.peek()!.seq);
    if ((i + 1) % batch === 0) await q.deleteAcked();
  }
  await q.deleteAcked();
  await store.flush();
  const journal = await size(dir, JOURNAL_FILE) - 16;
  await store.checkpoint();
  const w = wchar() - w0;
  rows.push({ phase: label, events: N, journal, snapshot: await size(dir, SNAPSHOT_FILE) - snap0, segments: 0, wchar: w });
  await store.close();
  await rm(dir, { recursive: true, force: true });
}

async function offline(): Promise<{ payload: number; snapshotHeld: number; snapshotAfter: number }> {
  const { dir, store, q } = await fresh();
  const snap0 = await size(dir, SNAPSHOT_FILE);
  let w0 = wchar();
  for (let i = 0; i < LIMIT; i++) q.push(monitorDown);
  await store.flush();
  const journal = await size(dir, JOURNAL_FILE) - 16;
  const payload = q.peek()!.payload.length;
  await store.checkpoint();
  const snapshotHeld = await size(dir, SNAPSHOT_FILE) - snap0;
  rows.push({ phase: `away: ${LIMIT} queued, 1 checkpoint`, events: LIMIT, journal, snapshot: snapshotHeld, segments: 0, wchar: wchar() - w0 });

  w0 = wchar();
  const sent = await drain(q, LIMIT);
  await store.flush();
  const deleteJournal = await size(dir, JOURNAL_FILE) - 16;
  await store.checkpoint();
  const snapshotAfter = await size(dir, SNAPSHOT_FILE) - snap0;
  rows.push({ phase: 'back: the queue sent, 1 checkpoint', events: sent, journal: deleteJournal, snapshot: snapshotAfter, segments: 0,
    wchar: wchar() - w0 });

  w0 = wchar();
  for (let i = 0; i < LIMIT; i++) q.push(monitorDown); // fills it again
  for (let i = 0; i < LIMIT; i++) q.push(monitorDown); // each drops the oldest
  await store.flush();
  const overJournal = await size(dir, JOURNAL_FILE) - 16;
  rows.push({ phase: `away: ${2 * LIMIT} events, ${LIMIT} dropped`, events: 2 * LIMIT, journal: overJournal, snapshot: 0, segments: 0,
    wchar: wchar() - w0 });
  await store.close();
  await rm(dir, { recursive: true, force: true });
  return { payload, snapshotHeld, snapshotAfter };
}

async function channel(): Promise<void> {
  const { dir, store } = await fresh();
  const w0 = wchar();
  const ack = new Uint8Array(5);
  for (let i = 1; i <= N; i++) {
    const payload = monitorDown(randomUUID(), i);
    await store.write((tx) => tx.emit('hivemind.events', payload), 'group');
    ack[0] = 0; new DataView(ack.buffer).setUint32(1, i, true); // "acknowledged through i"
    await store.write((tx) => tx.emit('hivemind.events', ack), 'group');
  }
  await store.flush();
  const journal = await size(dir, JOURNAL_FILE) - 16;
  await store.checkpoint();
  rows.push({ phase: 'channel instead (not taken), 1 checkpoint', events: N, journal, snapshot: 0, segments: await segmentBytes(dir), wchar: wchar() - w0 });
  await store.close();
  await rm(dir, { recursive: true, force: true });
}

async function main(): Promise<void> {
  await online(1, 'answering: 1 event per delete');
  await online(100, 'answering: 100 events per delete');
  const off = await offline();
  await channel();
  console.log(`controller queue: node ${process.version}, ${process.platform}/${process.arch}; a monitor.down payload is ${off.payload} bytes`);
  console.log('bytes per event (journal: appended records; snapshot: what the queue added to a snapshot; wchar: all bytes written)');
  const pad = (s: string | number, n: number) => String(s).padStart(n);
  console.log(`${'phase'.padEnd(44)}${pad('events', 7)}${pad('journal', 9)}${pad('snapshot', 10)}${pad('segment', 9)}${pad('wchar', 8)}`);
  for (const r of rows) {
    const per = (b: number) => (r.events ? Math.round(b / r.events) : 0);
    console.log(`${r.phase.padEnd(44)}${pad(r.events, 7)}${pad(per(r.journal), 9)}${pad(per(r.snapshot), 10)}${pad(per(r.segments), 9)}` +
      `${pad(per(r.wchar), 8)}`);
  }
  console.log(`a full queue (${LIMIT}) adds ${(off.snapshotHeld / 1024).toFixed(0)} KiB to every snapshot while the broker is away; ` +
    `after it drained the snapshot is ${(off.snapshotAfter / 1024).toFixed(0)} KiB larger than before (free pages, reused by the next queue)`);
}

await main();
