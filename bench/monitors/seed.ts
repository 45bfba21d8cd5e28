// Seeds 24 h of check history into a stopped service's data directory, as if the service had been
// running for a day: 1,440 results per monitor at a 60 s interval in the monitors channel, the hour and
// day rollups the service writes as hours close, the monitors' current state and the status_change
// events, all written by the monitors module's own code.
//
// How: the store is opened in this process (openStore with the service's MIGRATIONS) and a
// MonitorService is built on it without the HTTP layer. Its `apply` (the method the scheduler's results
// go through: channel entry, message dictionary, state machine, events) is called for every seeded
// result, round by round in time order, as the scheduler would write them. One store transaction per
// round holds all the monitors' results of that minute (apply's own write() is redirected into it),
// instead of one per result: only the journal's record boundaries differ. Then a second MonitorService
// starts on the store as the service would (loading the channel) and writes the rollups of every closed
// hour (its HourCloser); closing the store moves the channel entries into a segment file. The seeded
// checks reuse what the real first check of each monitor returned (message, details and measurements:
// a ping's loss; the status_change row keeps the details, as the service does), with response times
// drawn from the real first checks of monitors of the same type.
//
// `rollupDays` > 1 makes the probe older than a day: the hour and day rollup rows of the seeded day are
// copied to each of the days before it, as a probe that has run that long holds them (hour rows as long as
// monitors.hour_retention_days, 2 days by default, day rows a year). The raw history stays 24 hours.
import { rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { AppContext } from '../../src/core/context.js';
import { Logger } from '../../src/core/log.js';
import { systemClock } from '../../src/core/clock.js';
import { JOURNAL_FILE, openStore, SNAPSHOT_FILE, type Store, type Tx } from '../../src/core/store/index.js';
import { MIGRATIONS } from '../../src/main.js';
import { decodeMessage, encodeMessage } from '../../src/modules/monitors/storage/channel.js';
import type { CheckResult, CheckType } from '../../src/modules/monitors/checks/index.js';
import { hourOf } from '../../src/modules/monitors/storage/index.js';
import { batchGrid, phaseOf } from '../../src/modules/monitors/scheduler.js';
import { monitorsConfig } from '../../src/modules/monitors/config.js';
import { MONITOR_SERIES, MonitorService } from '../../src/modules/monitors/service.js';

export const HISTORY_HOURS = 24;

export interface SeedInfo {
  ms: number;
  rounds: number;
  results: number;
  rollups: { hour: number; day: number };
  /** Channel segment files after the seeding, and their bytes. */
  segments: { files: number; bytes: number };
  messages: number;
  events: number;
  snapshotBytes: number;
  journalBytes: number;
}


interface Template {
  pk: number; id: string; type: CheckType; intervalMs: number; message: string; details: Record<string, unknown>;
  /** The named measurements of the real check (ping: loss_pct), or none. */
  measurements?: Record<string, number>;
}

/** Deterministic PRNG (mulberry32), so two runs seed the same response times. */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** `hourDays`: days of hour rows, when not the retention's (an upgraded probe that kept them longer). */
export async function seedHistory(dir: string, rollupDays = 1, hourDays?: number): Promise<SeedInfo> {
  const t0 = performance.now();
  // No checkpoint while seeding (the journal is folded in once, by close()).
  const store = await openStore({
    dir, migrations: MIGRATIONS, checkpointBytes: 2 ** 42, checkpointAgeMs: 86_400_000,
    log: (level, msg, fields) => {
      if (level === 'warn' || level === 'error') console.error(`[seed store ${level}] ${msg}`, fields ?? '');
    },
  });
  try {
    // ---- templates: what each monitor's real checks returned ----
    const monitors = store.all<{ pk: number; id: string; check_type: CheckType; interval_s: number }>(
      'SELECT pk, id, check_type, interval_s FROM monitors ORDER BY pk');
    // The first result of each monitor's real checks, from the monitors channel.
    const texts = new Map(store.all<{ id: number; text: string }>('SELECT id, text FROM monitor_messages').map((r) => [r.id, r.text]));
    const measureNames = new Map(store.all<{ id: number; name: string }>('SELECT id, name FROM monitor_measures').map((r) => [r.id, r.name]));
    const real: { m: number; s: number; rt: number | null; message: string; d: string | null; x?: Record<string, number> }[] = [];
    store.readChannel(MONITOR_SERIES.channel, (entry) => {
      const e = decodeMessage(entry.bytes.subarray(entry.start, entry.end));
      if (e.kind !== 'result') return;
      const r = e.result;
      const message = typeof r.msg === 'string' ? r.msg : texts.get(r.msg) ?? '';
      const x = r.x?.length ? Object.fromEntries(Array.from({ length: r.x.length / 2 }, (_, i) =>
        [measureNames.get(r.x![2 * i]!) ?? '?', r.x![2 * i + 1]! / 100])) : undefined;
      real.push({ m: e.pk, s: r.status === 'up' ? 1 : 0, rt: r.rt, message, d: r.d, x });
    });
    const first = new Map<number, (typeof real)[number]>();
    for (const r of real) if (!first.has(r.m)) first.set(r.m, r);
    const pool = new Map<CheckType, number[]>();
    const templates: Template[] = [];
    for (const m of monitors) {
      const r = first.get(m.pk);
      if (!r) throw new Error(`monitor ${m.id} (${m.check_type}) has no result to copy`);
      if (r.s !== 1) throw new Error(`monitor ${m.id} (${m.check_type}) is not up: ${r.message}`);
      if (m.interval_s !== 60) throw new Error(`monitor ${m.id} has interval ${m.interval_s}; the bench seeds 60 s monitors`);
      templates.push({ pk: m.pk, id: m.id, type: m.check_type, intervalMs: m.interval_s * 1000, message: r.message ?? '',
        details: r.d ? JSON.parse(r.d) as Record<string, unknown> : {}, measurements: r.x });
    }
    const typeOf = new Map(monitors.map((m) => [m.pk, m.check_type]));
    for (const r of real) {
      if (r.rt == null || r.s !== 1) continue;
      const type = typeOf.get(r.m);
      if (type) { const l = pool.get(type) ?? []; l.push(r.rt / 100); pool.set(type, l); }
    }

    // ---- the timeline: 24 h of slots ending before now, each monitor on its own phase ----
    const intervalMs = 60_000;
    const rounds = (HISTORY_HOURS * 3_600_000) / intervalMs;
    const end = Math.floor(Date.now() / intervalMs) * intervalMs;
    const base = end - rounds * intervalMs;
    const order = templates.map((t) => ({ t, phase: phaseOf(t.id, t.intervalMs, t.type === 'ping' ? batchGrid(t.intervalMs) : 0) }))
      .sort((a, b) => a.phase - b.phase || a.t.pk - b.t.pk);

    // ---- back to "just created": the real checks' results go (a `cleared` channel entry), the dictionary
    // and 'created' events stay; rollups are written from the base hour on, as the seeded hours close ----
    await store.write((tx) => {
      tx.run('DELETE FROM monitor_rollups');
      tx.run('DELETE FROM monitor_incidents');
      tx.run("DELETE FROM monitor_events WHERE kind = 'status_change'");
      tx.run(`UPDATE monitors SET status = 'unknown', fail_streak = 0, last_check = NULL, last_rt = NULL, last_message = NULL,
                cert_valid_to = NULL, cert_checked_at = NULL, created_at = ?, updated_at = ?`, [base - intervalMs, base - intervalMs]);
      tx.run("INSERT OR REPLACE INTO monitor_meta (key, value) VALUES ('rollups_written_to', ?), ('state_saved_at', ?)",
        [hourOf(base), base]);
      tx.emit(MONITOR_SERIES.channel, encodeMessage({ kind: 'cleared' }));
    }, 'sync');
    // The start-up image the service wrote at its stop holds the real checks: start-up reads the channel instead.
    await rm(join(dir, MONITOR_SERIES.imageFile), { force: true });

    // ---- the module's own write path, without HTTP: the service's ResultRecorder on this store ----
    let cur: Tx | null = null;
    const redirect: Store = {
      all: (sql, params) => store.all(sql, params),
      get: (sql, params) => store.get(sql, params),
      write<T>(fn: (tx: Tx) => T): Promise<T> {
        if (!cur) return Promise.reject(new Error('seed: write outside a seeding round'));
        try { return Promise.resolve(fn(cur)); } catch (e) { return Promise.reject(e as Error); }
      },
      checkpoint: () => store.checkpoint(),
      compact: () => store.compact(),
      reclaim: () => store.reclaim(),
      flush: () => store.flush(),
      readChannel: (channel, fn, afterLsn) => store.readChannel(channel, fn, afterLsn),
      committedLsn: () => store.committedLsn(),
      dropChannelBefore: (channel, t, prepare) => store.dropChannelBefore(channel, t, prepare),
      stats: () => store.stats(),
      close: () => Promise.resolve(),
    };
    const app = {
      store: redirect, clock: systemClock, log: Logger.create({ write: () => undefined }),
      config: { get: () => ({ monitors: monitorsConfig.parse({}) }), dataDir: dir },
    } as unknown as AppContext;
    const svc = new MonitorService(app);
    // The channel's entries up to the `cleared` one: none is kept, the watermark is the base hour (every
    // seeded hour is still to be written), the rows are as reset above.
    await svc.init();

    const random = rng(0x5eed);
    const rtOf = (type: CheckType): number => {
      const l = pool.get(type);
      return l?.length ? l[Math.floor(random() * l.length)]! : 1;
    };
    for (let k = 0; k < rounds; k++) {
      const pending: Promise<unknown>[] = [];
      await store.write((tx) => {
        cur = tx;
        try {
          for (const { t, phase } of order) {
            const at = base + k * intervalMs + phase;
            const result: CheckResult = { status: 'up', response_time_ms: rtOf(t.type), message: t.message, details: t.details,
              measurements: t.measurements };
            pending.push(svc.recorder.apply(svc.registry.get(t.pk)!, result, at, {}, 'group'));
          }
        } finally {
          cur = null;
        }
      }, 'group');
      const out = await Promise.all(pending);
      const skipped = out.filter((x) => x == null).length;
      if (skipped) throw new Error(`seed: ${skipped} results were not applied in round ${k}`);
      await new Promise((r) => setImmediate(r)); // let the group commit run
    }

    // ---- the rollups of the closed hours, written as the service writes them once it runs ----
    const writer = new MonitorService({ ...app, store } as AppContext);
    await writer.init();
    await writer.storage.closer.closeDue();
    // ---- older days' rollups: the seeded day's rows, one day back per write ----
    const firstHour = hourOf(base) * 3600;
    // Hour rows as long as the retention keeps them (the service's first retention pass would delete the rest).
    const retention = monitorsConfig.parse({});
    const dayDays = retention.day_retention_days;
    const hours = hourDays ?? retention.hour_retention_days;
    for (let d = 1; d < Math.min(rollupDays, Math.max(hours, dayDays)); d++) {
      await store.write((tx) => tx.run(
        `INSERT OR IGNORE INTO monitor_rollups (m, k, b, checks, up, degraded, down, rt_sum, rt_count, rt_min, rt_max, hist, ms_up,
           ms_degraded, ms_down)
         SELECT m, k, b - ?, checks, up, degraded, down, rt_sum, rt_count, rt_min, rt_max, hist, ms_up, ms_degraded, ms_down
           FROM monitor_rollups WHERE (k = 1 AND b >= ? AND ?) OR (k = 2 AND b >= ? AND ?)`,
        [d * 86_400, firstHour, d < hours ? 1 : 0, Math.floor(firstHour / 86_400) * 86_400, d < dayDays ? 1 : 0]), 'group');
    }

    const n = (sql: string) => store.get<{ n: number }>(sql)?.n ?? 0;
    const info = {
      rounds,
      results: writer.storage.stats().results,
      rollups: {
        hour: n('SELECT count(*) AS n FROM monitor_rollups WHERE k = 1'),
        day: n('SELECT count(*) AS n FROM monitor_rollups WHERE k = 2'),
      },
      messages: n('SELECT count(*) AS n FROM monitor_messages'),
      events: n('SELECT count(*) AS n FROM monitor_events'),
    };
    await store.close();
    const snapshotBytes = (await stat(join(dir, SNAPSHOT_FILE))).size;
    const journalBytes = (await stat(join(dir, JOURNAL_FILE))).size;
    const after = await openStore({ dir, migrations: MIGRATIONS, log: () => undefined });
    const segments = after.stats().segments;
    await after.close();
    return { ...info, ms: performance.now() - t0, snapshotBytes, journalBytes, segments };
  } catch (e) {
    await store.close().catch(() => undefined);
    throw e;
  }
}
