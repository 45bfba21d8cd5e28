// The database as an administrator sees it (GET /api/system/db-stats) and the cleanup they can start
// (POST /api/system/db-cleanup): files on disk, rows and bytes per table, memory, checkpoints, the
// retention windows, and retention + checkpoint on demand, one run at a time. See docs/system.md.
import type { AppContext } from '../../../core/context.js';
import { conflict } from '../../../core/errors.js';
import { monitorsRetentionOf } from '../../monitors/index.js';

/** Rows whose values are measured to estimate a table's bytes (the rest are assumed alike). */
const SAMPLE_ROWS = 500;

export interface TableStats { name: string; rows: number; bytes_estimate: number }

export interface DbStats {
  files: {
    snapshot_bytes: number;
    journal_bytes: number;
    journal_records: number;
    segment_files: number;
    segment_bytes: number;
    total_bytes: number;
  };
  database: { page_size: number; page_count: number; bytes: number; free_bytes: number };
  memory: { database_bytes: number; process_rss_bytes: number; array_buffers_bytes: number };
  tables: TableStats[];
  checkpoint: {
    last_at: string | null;
    count: number;
    last_lsn: number;
    /** When the next one is due: journal bytes, and age of the oldest change not in the snapshot (seconds). */
    due_at_journal_bytes: number;
    due_at_age: number;
  };
  retention: Record<string, number | null>;
  io_error: { code: string | null; message: string } | null;
  cleanup: { running: boolean; last: CleanupResult | null };
}

export interface CleanupResult {
  started_at: string;
  finished_at: string;
  duration_ms: number;
  retention: Record<string, number> | null;
  checkpoint: { journal_bytes_before: number; journal_bytes_after: number; snapshot_bytes_before: number; snapshot_bytes_after: number };
  segments: { files_before: number; files_after: number; bytes_before: number; bytes_after: number };
  /** Bytes on disk before minus after (snapshot, journal and segments together); negative when they grew. */
  freed_bytes: number;
  compaction: { performed: boolean; free_bytes: number; detail: string };
}

const quoteIdent = (name: string) => `"${name.replace(/"/g, '""')}"`;

export class DatabaseService {
  private running: Promise<CleanupResult> | null = null;
  private last: CleanupResult | null = null;

  constructor(private readonly app: AppContext) {}

  /**
   * Rows per table (count), and bytes estimated from the values of up to SAMPLE_ROWS rows (payload
   * only: no page or index overhead). sql.js has no dbstat table, so exact bytes per table are not known.
   */
  tables(): TableStats[] {
    const { store } = this.app;
    const names = store.all<{ name: string }>("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name");
    const out: TableStats[] = [];
    for (const { name } of names) {
      const cols = store.all<{ name: string }>('SELECT name FROM pragma_table_info(?)', [name]).map((c) => c.name);
      const t = quoteIdent(name);
      const rows = Number(store.get<{ n: number }>(`SELECT count(*) AS n FROM ${t}`)?.n ?? 0);
      let bytes = 0;
      if (rows > 0 && cols.length) {
        const size = cols.map((c) => `coalesce(length(CAST(${quoteIdent(c)} AS BLOB)), 0)`).join(' + ');
        const s = store.get<{ n: number; b: number }>(
          `SELECT count(*) AS n, sum(${size}) AS b FROM (SELECT * FROM ${t} LIMIT ${SAMPLE_ROWS})`);
        if (s && s.n > 0) bytes = Math.round((Number(s.b ?? 0) / s.n) * rows);
      }
      out.push({ name, rows, bytes_estimate: bytes });
    }
    return out.sort((a, b) => b.bytes_estimate - a.bytes_estimate || a.name.localeCompare(b.name));
  }

  stats(): DbStats {
    const s = this.app.store.stats();
    const mem = process.memoryUsage();
    const dbBytes = s.page_count * s.page_size;
    const cfg = this.app.config.get();
    const m = cfg.monitors as Partial<typeof cfg.monitors> | undefined;
    const w = cfg.webhooks as Partial<typeof cfg.webhooks> | undefined;
    return {
      files: {
        snapshot_bytes: s.snapshot_bytes, journal_bytes: s.journal_bytes, journal_records: s.journal_records,
        segment_files: s.segments.files, segment_bytes: s.segments.bytes,
        total_bytes: s.snapshot_bytes + s.journal_bytes + s.segments.bytes,
      },
      database: { page_size: s.page_size, page_count: s.page_count, bytes: dbBytes, free_bytes: s.free_pages * s.page_size },
      memory: { database_bytes: dbBytes, process_rss_bytes: mem.rss, array_buffers_bytes: mem.arrayBuffers },
      tables: this.tables(),
      checkpoint: {
        last_at: s.last_checkpoint_at, count: s.checkpoints, last_lsn: s.last_lsn,
        due_at_journal_bytes: s.checkpoint_bounds.bytes, due_at_age: Math.round(s.checkpoint_bounds.age_ms / 1000),
      },
      retention: {
        raw_results_hours: m?.raw_retention_hours ?? null,
        hour_rollups_days: m?.hour_retention_days ?? null,
        day_rollups_days: m?.day_retention_days ?? null,
        retention_interval_minutes: m?.retention_interval_minutes ?? null,
        webhook_log_days: w?.log_retention_days ?? null,
      },
      io_error: s.io_error,
      cleanup: { running: this.running !== null, last: this.last },
    };
  }

  /** Retention now, then a checkpoint. One at a time: a second request while one runs is a 409. */
  cleanup(): Promise<CleanupResult> {
    if (this.running) {
      throw conflict('A database cleanup is already running; GET /api/system/db-stats shows when it is done', 'cleanup_running');
    }
    this.running = this.runCleanup().finally(() => { this.running = null; });
    return this.running;
  }

  private async runCleanup(): Promise<CleanupResult> {
    const { store } = this.app;
    const t0 = performance.now();
    const startedAt = new Date(this.app.clock.now()).toISOString();
    const before = store.stats();
    let retention: Record<string, number> | null = null;
    let retentionJob: ReturnType<typeof monitorsRetentionOf> | null = null;
    try { retentionJob = monitorsRetentionOf(this.app); } catch { /* the monitors module is not part of this build */ }
    // Without its own reclaim: the compaction below does it once, and reports what retention freed.
    if (retentionJob) retention = { ...(await retentionJob.runOnce({ reclaim: false })) };
    // Compaction ends with a checkpoint: the snapshot is rewritten without the free pages.
    const freeBefore = store.stats().free_pages;
    const compacted = await store.compact();
    const after = store.stats();
    const disk = (x: typeof before) => x.snapshot_bytes + x.journal_bytes + x.segments.bytes;
    const result: CleanupResult = {
      started_at: startedAt,
      finished_at: new Date(this.app.clock.now()).toISOString(),
      duration_ms: Math.round(performance.now() - t0),
      retention,
      checkpoint: {
        journal_bytes_before: before.journal_bytes, journal_bytes_after: after.journal_bytes,
        snapshot_bytes_before: before.snapshot_bytes, snapshot_bytes_after: after.snapshot_bytes,
      },
      segments: {
        files_before: before.segments.files, files_after: after.segments.files,
        bytes_before: before.segments.bytes, bytes_after: after.segments.bytes,
      },
      freed_bytes: disk(before) - disk(after),
      compaction: {
        performed: true, free_bytes: freeBefore * after.page_size,
        detail: `VACUUM: the database went from ${compacted.bytes_before} to ${compacted.bytes_after} bytes`,
      },
    };
    this.last = result;
    return result;
  }
}
