// Store benchmark: prints figures, asserts nothing. Run: node --import tsx bench/store.ts
//  1. one fsynced write: latency of 1,000 sequential small INSERTs through write(..., 'sync')
//  2. concurrent sync writes (fsyncs shared) and group-commit throughput
//  3. a ~50 MB database: build, checkpoint time and peak RSS, start-up load, load + replay of a journal
// The big-database phases run in child processes so that each RSS figure is that phase's own.
import { spawn } from 'node:child_process';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { openStore, JOURNAL_FILE, SNAPSHOT_FILE, type Migration, type Store } from '../src/core/store/index.js';

const TARGET_BYTES = 50 * 1024 * 1024;
const MIGRATIONS: Migration[] = [
  { version: 1, name: 'small', up: 'CREATE TABLE small (id INTEGER PRIMARY KEY, v TEXT NOT NULL, at TEXT NOT NULL)' },
  {
    version: 2, name: 'big',
    up: 'CREATE TABLE big (id INTEGER PRIMARY KEY, host TEXT NOT NULL, status INTEGER NOT NULL, latency REAL, detail TEXT NOT NULL)',
  },
];

type Fields = Record<string, unknown>;
const mib = (bytes: number): string => `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
const ms = (v: number): string => `${v.toFixed(v < 10 ? 2 : 0)} ms`;
const rssMib = (): number => process.memoryUsage().rss / 1024 / 1024;
const peakMib = (): number => process.resourceUsage().maxRSS / 1024;

function open(dir: string, logs?: Array<{ msg: string; fields?: Fields }>, extra = {}): Promise<Store> {
  return openStore({ dir, migrations: MIGRATIONS, log: (_l, msg, fields) => logs?.push({ msg, fields }), ...extra });
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

const insertSmall = (s: Store, id: number, d: 'sync' | 'group'): Promise<unknown> =>
  s.write((tx) => tx.run('INSERT INTO small (id, v, at) VALUES (?, ?, ?)', [id, `value-${id}`, new Date().toISOString()]), d);

// ---- child phases (run with: bench/store.ts <phase> <dir>) ------------------------------------------

const phases: Record<string, (dir: string) => Promise<Fields>> = {
  /** Fills `big` up to ~50 MB in chunks, built in SQL so each chunk is one small journal record. */
  async build(dir) {
    const logs: Array<{ msg: string; fields?: Fields }> = [];
    const s = await open(dir, logs, { checkpointBytes: 1024 * 1024 * 1024 });
    const t0 = performance.now();
    let rows = 0;
    const chunk = 50_000;
    while (s.stats().page_count * s.stats().page_size < TARGET_BYTES) {
      await s.write((tx) => tx.run(
        'WITH RECURSIVE n(i) AS (SELECT ? UNION ALL SELECT i + 1 FROM n WHERE i < ?) ' +
        'INSERT INTO big (id, host, status, latency, detail) SELECT i, ' +
        "printf('host-%05d.lab.example', (i * 7919) % 65521), (i * 31) % 5, ((i * 2654435761) % 1000003) / 1000.0, " +
        "printf('%08x%08x%08x%08x%08x%08x', (i * 2654435761) % 4294967291, (i * 40503) % 4294967279, " +
        '(i * 2246822519) % 4294967231, (i * 3266489917) % 4294967197, (i * 668265263) % 4294967189, (i * 374761393) % 4294967161) ' +
        'FROM n',
        [rows + 1, rows + chunk],
      ));
      rows += chunk;
    }
    const buildMs = performance.now() - t0;
    const t1 = performance.now();
    await s.close();
    const snapshot_bytes = (await stat(join(dir, SNAPSHOT_FILE))).size;
    return { rows, build_ms: buildMs, close_checkpoint_ms: performance.now() - t1, snapshot_bytes };
  },

  /** Load only (empty journal), then one checkpoint; RSS before and peak after. */
  async checkpoint(dir) {
    const rss0 = rssMib();
    const t0 = performance.now();
    const s = await open(dir);
    const openMs = performance.now() - t0;
    const rssOpen = rssMib();
    const peakOpen = peakMib();
    await insertSmall(s, 1, 'sync');
    const times: number[] = [];
    let peakFirst = 0;
    for (let i = 0; i < 3; i++) {
      const t1 = performance.now();
      await s.checkpoint();
      times.push(performance.now() - t1);
      if (i === 0) peakFirst = peakMib();
    }
    const peakCkpt = peakMib();
    const rssAfter = rssMib();
    await s.close();
    return {
      open_ms: openMs, rss_start_mib: rss0, rss_after_open_mib: rssOpen, peak_after_open_mib: peakOpen,
      checkpoint_ms: times, peak_after_first_checkpoint_mib: peakFirst, rss_after_checkpoints_mib: rssAfter,
      peak_after_checkpoints_mib: peakCkpt,
    };
  },

  /** Leaves a journal behind: group writes, flush, then exit without close (as a crash would). */
  async journal(dir) {
    const s = await open(dir);
    for (let i = 1; i <= 5000; i++) void insertSmall(s, 1000 + i, 'group');
    for (let i = 1; i <= 1000; i++) {
      void s.write((tx) => tx.run('UPDATE big SET status = ? WHERE id = ?', [9, i * 37]), 'group');
    }
    await s.flush();
    return { journal_bytes: (await stat(join(dir, JOURNAL_FILE))).size, records: s.stats().journal_records };
  },

  /** Start-up with a snapshot plus a journal to replay. */
  async replay(dir) {
    const logs: Array<{ msg: string; fields?: Fields }> = [];
    const t0 = performance.now();
    const s = await open(dir, logs);
    const openMs = performance.now() - t0;
    const opened = logs.find((l) => l.msg === 'opened')?.fields ?? {};
    const out = { open_ms: openMs, ...opened, rss_after_open_mib: rssMib(), peak_mib: peakMib() };
    await s.close();
    return out;
  },
};

function runPhase(phase: string, dir: string): Promise<Fields> {
  const script = fileURLToPath(import.meta.url);
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', script, phase, dir], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (c: string) => { out += c; });
    child.on('error', reject);
    child.on('close', (code) => {
      if (code !== 0) reject(new Error(`phase ${phase} exited with ${code}`));
      else resolve(JSON.parse(out.trim().split('\n').pop() ?? '{}') as Fields);
    });
  });
}

// ---- main -------------------------------------------------------------------------------------------

async function main(): Promise<void> {
  const root = await mkdtemp(join(tmpdir(), 'netprobe-bench-store-'));
  try {
    console.log(`store benchmark: node ${process.version}, ${process.platform}/${process.arch}, dir ${root}`);

    // 1. fsynced write latency
    {
      const s = await open(join(root, 'latency'));
      for (let i = 0; i < 50; i++) await insertSmall(s, -1 - i, 'sync'); // warm up
      const lat: number[] = [];
      for (let i = 1; i <= 1000; i++) {
        const t0 = performance.now();
        await insertSmall(s, i, 'sync');
        lat.push(performance.now() - t0);
      }
      lat.sort((a, b) => a - b);
      const mean = lat.reduce((a, b) => a + b, 0) / lat.length;
      console.log(`\n1,000 sequential sync writes (one small INSERT each, one fdatasync each)`);
      console.log(`  median ${ms(percentile(lat, 50))}  p99 ${ms(percentile(lat, 99))}  max ${ms(lat[lat.length - 1])}  mean ${ms(mean)}`);
      await s.close();
    }

    // 2. batching and group commit
    {
      const s = await open(join(root, 'throughput'));
      const n = 5000;
      let t0 = performance.now();
      const inflight: Promise<unknown>[] = [];
      for (let i = 1; i <= n; i++) {
        inflight.push(insertSmall(s, i, 'sync'));
        if (inflight.length === 64) await Promise.all(inflight.splice(0));
      }
      await Promise.all(inflight);
      let dt = performance.now() - t0;
      console.log(`\nconcurrent sync writes (64 in flight, shared fsyncs): ${n} in ${ms(dt)} = ${Math.round((n / dt) * 1000)} writes/s`);

      const g = 100_000;
      t0 = performance.now();
      for (let i = 1; i <= g; i++) await insertSmall(s, n + i, 'group');
      const commitMs = performance.now() - t0;
      const t1 = performance.now();
      await s.flush();
      const flushMs = performance.now() - t1;
      dt = performance.now() - t0;
      console.log(`group-commit writes: ${g} committed in ${ms(commitMs)} (${Math.round((g / commitMs) * 1000)} writes/s), ` +
        `final flush ${ms(flushMs)}; ${Math.round((g / dt) * 1000)} writes/s end to end (default groupCommitMs 2000)`);
      await s.close();
    }

    // 3. ~50 MB database
    const big = join(root, 'big');
    const b = await runPhase('build', big);
    console.log(`\n~50 MB database: ${b.rows} rows built in ${ms(b.build_ms as number)}; ` +
      `snapshot ${mib(b.snapshot_bytes as number)}, checkpoint at close ${ms(b.close_checkpoint_ms as number)}`);
    const c = await runPhase('checkpoint', big);
    console.log(`  start-up, snapshot only: open ${ms(c.open_ms as number)}; RSS ${(c.rss_start_mib as number).toFixed(0)} -> ` +
      `${(c.rss_after_open_mib as number).toFixed(0)} MiB (peak ${(c.peak_after_open_mib as number).toFixed(0)} MiB)`);
    console.log(`  checkpoint (export + write + fsync + rename + dir fsync + truncate): ` +
      `${(c.checkpoint_ms as number[]).map(ms).join(', ')}; peak RSS after the first ` +
      `${(c.peak_after_first_checkpoint_mib as number).toFixed(0)} MiB, ` +
      `after three ${(c.peak_after_checkpoints_mib as number).toFixed(0)} MiB ` +
      `(RSS after ${(c.rss_after_checkpoints_mib as number).toFixed(0)} MiB)`);
    const j = await runPhase('journal', big);
    const r = await runPhase('replay', big);
    console.log(`  start-up with a ${mib(j.journal_bytes as number)} journal of ${j.records} records: open ${ms(r.open_ms as number)} ` +
      `(load ${ms(r.load_ms as number)}, replay ${ms(r.replay_ms as number)}, ${r.replayed_records} records); ` +
      `RSS ${(r.rss_after_open_mib as number).toFixed(0)} MiB, peak ${(r.peak_mib as number).toFixed(0)} MiB`);
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}

const [phase, dir] = process.argv.slice(2);
if (phase) {
  const fn = phases[phase];
  if (!fn || !dir) throw new Error(`unknown phase ${phase}`);
  const out = await fn(dir);
  process.stdout.write(`${JSON.stringify(out)}\n`);
  process.exit(0); // the journal phase must not close (and so checkpoint) the store
} else {
  await main();
}
