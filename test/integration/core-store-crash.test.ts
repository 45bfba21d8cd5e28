// Kill -9 a process that is writing through the store, at random moments (also during start-up,
// replay and checkpoints), restart it on the same directory, and check that every write it
// acknowledged is still there and that the database is intact. Real files, fsync and processes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { cp, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { writeFile } from 'node:fs/promises';
import { JOURNAL_FILE, openStore } from '../../src/core/store/index.js';
import { journalHeader, LEGACY_VERSION } from '../../src/core/store/journal.js';
import { encodeLegacyRecord } from '../../src/core/store/legacy.js';
import { CRASH_MIGRATIONS } from './helpers/core-store-crash-child.js';

const CHILD = fileURLToPath(new URL('./helpers/core-store-crash-child.ts', import.meta.url));
const ROUNDS = 24;

interface Round {
  acked: number[];
  checkpoints: number;
  /** Checkpoints whose copy was made in steps while writes committed (the copy holds them, the journal never will). */
  steppedWithWrites: number;
  /** Explicit checkpoints started minus finished: > 0 means the kill landed inside one. */
  openCheckpoints: number;
  ready: boolean;
  /** Milliseconds from spawn to "ready". */
  readyMs: number;
  stderr: string;
  signal: NodeJS.Signals | null;
  code: number | null;
}

/**
 * Runs the child until `killAfter` says so, then SIGKILLs it: `killEarlyMs` after spawn, or
 * `killAfterReadyMs` after it is ready, or (`inCheckpointMs`) that long after its next checkpoint starts.
 */
function runChild(dir: string, killEarlyMs: number | null, killAfterReadyMs: number, mode = 'write',
  inCheckpointMs: number | null = null): Promise<Round> {
  return new Promise((resolve, reject) => {
    const t0 = Date.now();
    const child = spawn(process.execPath, ['--import', 'tsx', CHILD, dir, mode], { stdio: ['ignore', 'pipe', 'pipe'] });
    const r: Round = { acked: [], checkpoints: 0, steppedWithWrites: 0, openCheckpoints: 0, ready: false, readyMs: 0, stderr: '', signal: null, code: null };
    let buf = '';
    const kill = (): void => {
      child.kill('SIGKILL');
    };
    const early = killEarlyMs === null ? null : setTimeout(kill, killEarlyMs);
    const guard = setTimeout(kill, 15_000); // never hang the suite
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => {
      buf += chunk;
      const lines = buf.split('\n');
      buf = lines.pop() ?? '';
      for (const line of lines) {
        if (line === 'ready') {
          r.ready = true;
          r.readyMs = Date.now() - t0;
          if (killEarlyMs === null && inCheckpointMs === null) setTimeout(kill, killAfterReadyMs);
        } else if (line.startsWith('c ')) {
          r.checkpoints++;
          const [, way, records] = line.split(' ');
          if (way === 'steps' && Number(records) > 0) r.steppedWithWrites++;
        } else if (line === 'cs') {
          if (inCheckpointMs !== null && r.openCheckpoints === 0) setTimeout(kill, inCheckpointMs);
          r.openCheckpoints++;
        } else if (line === 'ce') {
          r.openCheckpoints--;
        } else if (/^\d+$/.test(line)) {
          r.acked.push(Number(line));
        }
      }
    });
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (chunk: string) => {
      r.stderr += chunk;
    });
    child.on('error', reject);
    child.on('close', (code, signal) => {
      if (early) clearTimeout(early);
      clearTimeout(guard);
      r.code = code;
      r.signal = signal;
      resolve(r);
    });
  });
}

/** Opens a copy (so verification does not tidy up the crashed state the next child starts from). */
async function verify(dir: string, acked: Set<number>, label: string, channel = true):
  Promise<{ rows: number; discarded: number; leftovers: boolean }> {
  const copy = await mkdtemp(join(tmpdir(), 'netprobe-crash-verify-'));
  try {
    await cp(dir, copy, { recursive: true });
    let leftovers = false;
    const store = await openStore({
      dir: copy, migrations: CRASH_MIGRATIONS,
      log: (_level, msg) => { if (/segments left by an interrupted checkpoint/.test(msg)) leftovers = true; },
    });
    try {
      const present = new Set(store.all<{ id: number }>('SELECT id FROM acks').map((r) => r.id));
      const missing = [...acked].filter((id) => !present.has(id));
      assert.deepEqual(missing.slice(0, 20), [], `${label}: ${missing.length} acknowledged ids lost`);
      assert.deepEqual(store.all('PRAGMA integrity_check'), [{ integrity_check: 'ok' }], label);
      assert.deepEqual(store.all('PRAGMA foreign_key_check'), [], label);
      const bad = store.get<{ n: number }>('SELECT count(*) AS n FROM acks WHERE length(pad) <> 200');
      assert.equal(bad?.n, 0, `${label}: torn rows`);
      if (channel) {
        // The channel carries the same ids, each exactly once, and only those whose rows exist (atomic).
        const emitted: number[] = [];
        const text = (e: { bytes: Uint8Array; start: number; end: number }) => Buffer.from(e.bytes.subarray(e.start, e.end)).toString();
        store.readChannel('crash.acks', (e) => emitted.push(Number(text(e))));
        const got = new Set(emitted);
        assert.equal(got.size, emitted.length, `${label}: a channel entry delivered twice`);
        assert.deepEqual(emitted.filter((id) => !present.has(id)).slice(0, 5), [], `${label}: channel entries without their rows`);
        assert.deepEqual([...acked].filter((id) => !got.has(id)).slice(0, 5), [], `${label}: acknowledged channel entries lost`);
      }
      return { rows: present.size, discarded: store.stats().discarded_bytes, leftovers };
    } finally {
      await store.close();
    }
  } finally {
    await rm(copy, { recursive: true, force: true });
  }
}

test('SIGKILL during sync writes and checkpoints never loses an acknowledged write', { timeout: 120_000 }, async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'netprobe-crash-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const acked = new Set<number>();
  let checkpoints = 0;
  let steppedWithWrites = 0;
  let killedBeforeReady = 0;
  let killedInCheckpoint = 0;
  let tornStarts = 0;
  let killedWritingSegments = 0;
  let readyMs = 1000;
  for (let round = 0; round < ROUNDS; round++) {
    // Every fourth round the kill lands somewhere in start-up (module loading, snapshot load, replay,
    // truncation, migrations) or just after it, timed from how long the last start took.
    const early = round % 4 === 3 ? Math.floor(readyMs * (0.5 + Math.random() * 0.6)) : null;
    // Every fourth other round aims at a checkpoint (snapshot temp file, channel segments, rename,
    // truncation): 0-60 ms after the child starts one.
    const aimed = round % 4 === 1 ? Math.floor(Math.random() * 60) : null;
    const r = await runChild(dir, early, Math.floor(Math.random() * 400), 'write', aimed);
    if (r.ready && early === null) readyMs = r.readyMs;
    assert.equal(r.signal, 'SIGKILL', `round ${round}: child exited by itself (code ${r.code}):\n${r.stderr}`);
    for (const id of r.acked) acked.add(id);
    checkpoints += r.checkpoints;
    steppedWithWrites += r.steppedWithWrites;
    if (!r.ready) killedBeforeReady++;
    if (r.openCheckpoints > 0) killedInCheckpoint++;
    if (/discarded the damaged tail/.test(r.stderr)) tornStarts++;
    const { rows, discarded, leftovers } = await verify(dir, acked, `round ${round}`);
    if (discarded > 0) tornStarts++;
    if (leftovers) killedWritingSegments++;
    assert.ok(rows >= acked.size);
  }
  t.diagnostic(`rounds=${ROUNDS} acknowledged=${acked.size} checkpoints=${checkpoints} stepped_with_writes=${steppedWithWrites} ` +
    `killed_before_ready=${killedBeforeReady} killed_in_checkpoint=${killedInCheckpoint} ` +
    `killed_with_segments_unfinished=${killedWritingSegments} starts_with_torn_tail=${tornStarts}`);
  assert.ok(acked.size > ROUNDS, 'the child made progress');
  assert.ok(checkpoints > 0, 'checkpoints ran while being killed');
  assert.ok(steppedWithWrites > 0, 'some copies were made in steps while acknowledged writes committed');
});

test('SIGKILL while an earlier build\'s journal is replayed and converted never loses its records', { timeout: 120_000 }, async (t) => {
  // What a probe upgraded right after a crash holds: no snapshot, the old build's (format 1) records.
  const dir = await mkdtemp(join(tmpdir(), 'netprobe-crash-legacy-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const pad = 'p'.repeat(200);
  const records = [encodeLegacyRecord(1, CRASH_MIGRATIONS.flatMap((m, i) => [[m.up as string, null],
    ['INSERT INTO _migrations (version, name, applied_at) VALUES (?, ?, ?)', [m.version, m.name, `2024-01-0${i + 1}T00:00:00.000Z`]]]))];
  const acked = new Set<number>();
  for (let id = 1; id <= 3000; id++) {
    records.push(encodeLegacyRecord(id + 1, [['INSERT INTO acks (id, pad) VALUES (?, ?)', [id, pad]]]));
    acked.add(id);
  }
  await writeFile(join(dir, JOURNAL_FILE), Buffer.concat([journalHeader(LEGACY_VERSION), ...records]));
  let killedBeforeReady = 0;
  let readyMs = 1500;
  for (let round = 0; round < 8; round++) {
    // Kill somewhere in the start (replay, the converting checkpoint, the new header), or just after it.
    const r = await runChild(dir, Math.floor(readyMs * (0.3 + Math.random() * 0.9)), 0, 'open');
    if (r.ready) readyMs = r.readyMs; else killedBeforeReady++;
    await verify(dir, acked, `legacy round ${round}`, false); // format 1 knew no channels
  }
  t.diagnostic(`legacy rounds=8 killed_before_ready=${killedBeforeReady}`);
  assert.ok(killedBeforeReady > 0, 'some kills landed in the conversion');
});
