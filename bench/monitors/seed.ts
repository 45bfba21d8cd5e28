// Seeds 24 h of check history into a stopped service's data directory, as if the service had been
// running for a day: 1,440 results per monitor at a 60 s interval, with their hour/day rollups (and
// minute rollups where the module keeps them), the monitors' current state and the status_change
// events, all written by the monitors module's own code path.
//
// How: the store is opened in this process (openStore with the service's MIGRATIONS) and a
// MonitorService is built on it without the HTTP layer. Its `apply` (the method the scheduler's
// results go through: raw row, message dictionary, rollups, state machine, events) is called for
// every seeded result, round by round in time order, as the scheduler would write them, so the
// B-tree pages fill the way they do in a running service. One store transaction per round holds
// all the monitors' results of that minute (apply's own write() is redirected into it), instead of
// one per result: only the journal's record boundaries differ, and the journal is folded into the
// snapshot at the end. The seeded checks reuse what the real first check of each monitor returned
// (message and details; the status_change row keeps the details, as the service does), with
// response times drawn from the real first checks of monitors of the same type.
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { AppContext } from '../../src/core/context.js';
import { Logger } from '../../src/core/log.js';
import { systemClock } from '../../src/core/clock.js';
import { JOURNAL_FILE, openStore, SNAPSHOT_FILE, type Durability, type Store, type Tx } from '../../src/core/store/index.js';
import { MIGRATIONS } from '../../src/main.js';
import type { CheckResult, CheckType } from '../../src/modules/monitors/checks/types.js';
import type { MonitorRow } from '../../src/modules/monitors/model.js';
import { phaseOf, type ScheduleSpec } from '../../src/modules/monitors/scheduler.js';
import { MonitorService } from '../../src/modules/monitors/service.js';

export const HISTORY_HOURS = 24;

export interface SeedInfo {
  ms: number;
  rounds: number;
  results: number;
  rollups: { minute: number; hour: number; day: number };
  messages: number;
  events: number;
  snapshotBytes: number;
  journalBytes: number;
  /** What the service loads into its scheduler at start-up (for the lag calculation). */
  specs: ScheduleSpec[];
  /** The newest seeded result, epoch ms. */
  lastSeeded: number;
}

type ApplyFn = (row: MonitorRow, result: CheckResult, at: number, opts: { manualBy?: string | null }, durability: Durability) => Promise<unknown>;

interface Template { pk: number; id: string; type: CheckType; intervalMs: number; message: string; details: Record<string, unknown> }

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

export async function seedHistory(dir: string): Promise<SeedInfo> {
  const t0 = performance.now();
  // No checkpoint while seeding (the journal is folded in once, by close()).
  const store = await openStore({
    dir, migrations: MIGRATIONS, checkpointBytes: 2 ** 42, checkpointAgeMs: 86_400_000,
    log: (level, msg, fields) => { if (level === 'warn' || level === 'error') console.error(`[seed store ${level}] ${msg}`, fields ?? ''); },
  });
  try {
    // ---- templates: what each monitor's real checks returned ----
    const monitors = store.all<{ pk: number; id: string; check_type: CheckType; interval_s: number }>(
      'SELECT pk, id, check_type, interval_s FROM monitors ORDER BY pk');
    const real = store.all<{ m: number; t: number; s: number; rt: number | null; message: string | null; d: string | null }>(
      `SELECT r.m AS m, r.t AS t, r.s AS s, r.rt AS rt,
              CASE WHEN typeof(r.msg) = 'integer' THEN mm.text ELSE r.msg END AS message, r.d AS d
         FROM monitor_results r LEFT JOIN monitor_messages mm ON typeof(r.msg) = 'integer' AND mm.id = r.msg
        ORDER BY r.m, r.t`);
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
        details: r.d ? JSON.parse(r.d) as Record<string, unknown> : {} });
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
    const order = templates.map((t) => ({ t, phase: phaseOf(t.id, t.intervalMs) }))
      .sort((a, b) => a.phase - b.phase || a.t.pk - b.t.pk);

    // ---- back to "just created": the real checks' rows go, the dictionary and 'created' events stay ----
    await store.write((tx) => {
      tx.run('DELETE FROM monitor_results');
      tx.run('DELETE FROM monitor_rollups');
      tx.run('DELETE FROM monitor_incidents');
      tx.run("DELETE FROM monitor_events WHERE kind = 'status_change'");
      tx.run(`UPDATE monitors SET status = 'unknown', fail_streak = 0, last_check = NULL, last_rt = NULL, last_message = NULL,
                cert_valid_to = NULL, cert_checked_at = NULL, created_at = ?, updated_at = ?`, [base - intervalMs, base - intervalMs]);
    }, 'sync');

    // ---- the module's own write path, without HTTP: apply() of a MonitorService on this store ----
    let cur: Tx | null = null;
    const redirect: Store = {
      all: (sql, params) => store.all(sql, params),
      get: (sql, params) => store.get(sql, params),
      write<T>(fn: (tx: Tx) => T): Promise<T> {
        if (!cur) return Promise.reject(new Error('seed: write outside a seeding round'));
        try { return Promise.resolve(fn(cur)); } catch (e) { return Promise.reject(e as Error); }
      },
      checkpoint: () => store.checkpoint(),
      flush: () => store.flush(),
      stats: () => store.stats(),
      close: () => Promise.resolve(),
    };
    const app = {
      store: redirect, clock: systemClock, log: Logger.create({ write: () => undefined }),
      config: { get: () => ({ monitors: {} }) },
    } as unknown as AppContext;
    const svc = new MonitorService(app);
    const apply = (svc as unknown as { apply?: ApplyFn }).apply;
    if (typeof apply !== 'function') throw new Error('MonitorService.apply is gone: update bench/monitors/seed.ts to the service\'s result path');

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
            const result: CheckResult = { status: 'up', response_time_ms: rtOf(t.type), message: t.message, details: t.details };
            pending.push(apply.call(svc, { pk: t.pk, id: t.id } as MonitorRow, result, at, {}, 'group'));
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

    const n = (sql: string) => store.get<{ n: number }>(sql)?.n ?? 0;
    const info = {
      rounds,
      results: n('SELECT count(*) AS n FROM monitor_results'),
      rollups: {
        minute: n('SELECT count(*) AS n FROM monitor_rollups WHERE k = 0'),
        hour: n('SELECT count(*) AS n FROM monitor_rollups WHERE k = 1'),
        day: n('SELECT count(*) AS n FROM monitor_rollups WHERE k = 2'),
      },
      messages: n('SELECT count(*) AS n FROM monitor_messages'),
      events: n('SELECT count(*) AS n FROM monitor_events'),
      specs: store.all<{ pk: number; id: string; interval_s: number; last_check: number | null; status: string }>(
        'SELECT pk, id, interval_s, last_check, status FROM monitors').map((r) => ({
        pk: r.pk, id: r.id, intervalMs: r.interval_s * 1000, lastCheck: r.last_check, paused: r.status === 'paused',
      })),
      lastSeeded: n('SELECT max(t) AS n FROM monitor_results'),
    };
    await store.close();
    const snapshotBytes = (await stat(join(dir, SNAPSHOT_FILE))).size;
    const journalBytes = (await stat(join(dir, JOURNAL_FILE))).size;
    return { ...info, ms: performance.now() - t0, snapshotBytes, journalBytes };
  } catch (e) {
    await store.close().catch(() => undefined);
    throw e;
  }
}
