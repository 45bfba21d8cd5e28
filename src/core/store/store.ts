// The Store: one sql.js database in memory, made durable by a write-ahead journal of the statements each
// write transaction ran, plus periodic full snapshots (checkpoints). Format and guarantees: docs/store.md.
import { createRequire } from 'node:module';
import { statSync } from 'node:fs';
import { mkdir, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import initSqlJs from 'sql.js';
import type { BindParams, Database, SqlJsStatic, Statement } from 'sql.js';
import type {
  ChannelEntry, Durability, Migration, MigrationRange, Row, SqlParams, Store, StoreOptions, StoreStats, Tx,
} from './types.js';
import { HEADER_BYTES, Journal, JOURNAL_FILE, JOURNAL_VERSION } from './journal.js';
import {
  MAX_RECORD_BYTES, pendingStatement, RecordDecoder, recordSizeBound, RecordEncoder,
  type EmittedEntry, type JournalRecord, type PendingStatement,
} from './record.js';
import { listSegments, readSegment, segmentWrittenAt, writeSegment, type SegmentEntry } from './segment.js';
import { MIGRATION_RANGES, planMigrations, rangeOf, validateMigrations } from './migrations.js';
import { fsyncDir } from './files.js';
import { installSnapshot, readSnapshot, removeStaleTemp, SNAPSHOT_FILE, writeSnapshotTemp } from './snapshot.js';
import { copyDatabase } from './copy.js';
import { readPragma } from './pragma.js';

export { JOURNAL_FILE, SNAPSHOT_FILE };

const DEFAULT_CHECKPOINT_BYTES = 8 * 1024 * 1024;
const DEFAULT_CHECKPOINT_AGE_MS = 10 * 60 * 1000;
const DEFAULT_SNAPSHOT_BYTES_PER_MINUTE = 32 * 1024;
const DEFAULT_GROUP_COMMIT_MS = 2000;
const DEFAULT_RECLAIM_BYTES = 4 * 1024 * 1024;
const DEFAULT_COPY_SLICE_MS = 2;
const STATEMENT_CACHE_SIZE = 128;
const CHANNEL_NAME = /^[a-z0-9_.-]{1,64}$/;

type LogFn = NonNullable<StoreOptions['log']>;

interface Waiter {
  resolve: () => void;
  reject: (err: Error) => void;
}

/** A committed transaction whose record is not yet in the journal file (encoded when appended). */
interface PendingRecord {
  lsn: number;
  statements: PendingStatement[];
  emits: EmittedEntry[];
  committedAt: number;
  /** Set for 'sync' writes: resolved once the record (or a snapshot covering it) is durable. */
  waiter: Waiter | null;
}

// One wasm instance for the process: every Database shares its heap.
let sqlJs: Promise<SqlJsStatic> | null = null;

function loadSqlJs(): Promise<SqlJsStatic> {
  if (!sqlJs) {
    // Resolved relative to this module so it works from tsx (src/) and from compiled dist/ alike.
    const wasmPath = createRequire(import.meta.url).resolve('sql.js/dist/sql-wasm.wasm');
    sqlJs = readFile(wasmPath)
      .then((wasmBinary) => initSqlJs({ wasmBinary: wasmBinary as unknown as ArrayBuffer }))
      .catch((err: unknown) => {
        sqlJs = null;
        throw err;
      });
  }
  return sqlJs;
}

/** Opens (or creates) the store in opts.dir: load snapshot, replay journal, run migrations. */
export async function openStore(opts: StoreOptions): Promise<Store> {
  const migrations = validateMigrations(opts.migrations, opts.ranges);
  const SQL = await loadSqlJs();
  await mkdir(opts.dir, { recursive: true });
  const log: LogFn = opts.log ?? defaultLog;
  if (await removeStaleTemp(opts.dir)) log('info', 'removed a snapshot temp file left by an interrupted checkpoint');

  const t0 = performance.now();
  let snapshot = await readSnapshot(opts.dir);
  const snapshotBytes = snapshot?.length ?? 0;
  let db: Database;
  try {
    // sql.js copies the bytes into its own file system, so drop our copy right after.
    db = new SQL.Database(snapshot);
    snapshot = null;
    db.exec('SELECT count(*) FROM sqlite_master');
  } catch (err) {
    throw new Error(`${join(opts.dir, SNAPSHOT_FILE)} is not a readable SQLite database: ${errMessage(err)}`);
  }
  const store = new SqlJsStore(SQL, db, opts, log, snapshotBytes, performance.now() - t0);
  try {
    await store.init(migrations);
  } catch (err) {
    await store.abort();
    throw err;
  }
  return store;
}

class SqlJsStore implements Store {
  private readonly dir: string;
  private readonly checkpointBytes: number;
  private readonly checkpointAgeMs: number;
  private readonly snapshotBytesPerMinute: number;
  private readonly groupCommitMs: number;
  private readonly reclaimBytes: number;
  private readonly copySliceMs: number;
  private readonly now: () => number;
  private readonly ranges: readonly MigrationRange[];

  private journal: Journal | null = null;
  /** The statement dictionary of the journal file as written so far; reset with the file. */
  private readonly encoder = new RecordEncoder();
  private readonly stmts = new Map<string, Statement>();
  private state: 'opening' | 'open' | 'closing' | 'closed' = 'opening';
  private inTx = false;

  /** Last committed LSN (in memory). */
  private lsn = 0;
  /** LSN covered by the snapshot on disk. */
  private snapshotLsn = 0;
  private pending: PendingRecord[] = [];
  /** The batch being appended right now (neither pending nor in the file yet). */
  private appending: PendingRecord[] = [];
  /** Commit time of the oldest transaction not yet covered by a snapshot. */
  private oldestUncheckpointed: number | null = null;

  // Serialized writer: appends and checkpoints run one at a time, in order.
  private tail: Promise<void> = Promise.resolve();
  private queuedFlush: Promise<void> | null = null;
  private queuedCheckpoint: Promise<void> | null = null;
  /** A checkpoint is running (the age timer leaves it alone). */
  private checkpointing = false;
  private groupTimer: NodeJS.Timeout | null = null;
  private ageTimer: NodeJS.Timeout | null = null;
  private closing: Promise<void> | null = null;
  /** Set when a journal append/fsync failed; writes are refused until a checkpoint succeeds. */
  private ioError: Error | null = null;

  private readonly counters = {
    snapshot_bytes: 0,
    journal_records: 0,
    last_checkpoint_at: null as string | null,
    checkpoints: 0,
    replayed_records: 0,
    discarded_bytes: 0,
  };

  constructor(
    private readonly sql: SqlJsStatic,
    private db: Database,
    opts: StoreOptions,
    private readonly log: LogFn,
    snapshotBytes: number,
    private readonly loadMs: number,
  ) {
    this.dir = opts.dir;
    this.checkpointBytes = positive(opts.checkpointBytes, DEFAULT_CHECKPOINT_BYTES, 'checkpointBytes');
    this.checkpointAgeMs = positive(opts.checkpointAgeMs, DEFAULT_CHECKPOINT_AGE_MS, 'checkpointAgeMs');
    this.snapshotBytesPerMinute = positive(opts.snapshotBytesPerMinute, DEFAULT_SNAPSHOT_BYTES_PER_MINUTE, 'snapshotBytesPerMinute');
    this.groupCommitMs = positive(opts.groupCommitMs, DEFAULT_GROUP_COMMIT_MS, 'groupCommitMs');
    this.reclaimBytes = positive(opts.reclaimBytes, DEFAULT_RECLAIM_BYTES, 'reclaimBytes');
    this.copySliceMs = positive(opts.copySliceMs, DEFAULT_COPY_SLICE_MS, 'copySliceMs');
    this.now = opts.now ?? Date.now;
    this.ranges = opts.ranges ?? MIGRATION_RANGES;
    this.counters.snapshot_bytes = snapshotBytes;
  }

  // ---- start-up -----------------------------------------------------------------------------------

  async init(migrations: Migration[]): Promise<void> {
    this.applyPragmas(true);
    // Bookkeeping tables are created directly (unjournaled) on every start: idempotent and deterministic,
    // and they must exist before replay because journaled migrations insert into _migrations.
    this.db.run('CREATE TABLE IF NOT EXISTS _store_meta (key TEXT PRIMARY KEY, value)');
    this.db.run(
      'CREATE TABLE IF NOT EXISTS _migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)',
    );
    const meta = new Map(this.query<{ key: string; value: string | number }>('SELECT key, value FROM _store_meta')
      .map((r) => [r.key, r.value]));
    this.snapshotLsn = Number(meta.get('checkpoint_lsn') ?? 0);
    this.lsn = this.snapshotLsn;
    this.counters.last_checkpoint_at = (meta.get('checkpoint_at') as string | undefined) ?? null;

    const t0 = performance.now();
    const journalPath = join(this.dir, JOURNAL_FILE);
    this.journal = await Journal.open(journalPath);
    const { records, cutAt, fileSize, reason } = this.replay(this.journal);
    this.counters.journal_records = records;
    if (cutAt < fileSize) {
      this.counters.discarded_bytes = fileSize - cutAt;
      this.log('warn', 'discarded the damaged tail of the journal', {
        discarded_bytes: fileSize - cutAt, offset: cutAt, reason,
      });
    }
    if (this.counters.replayed_records > 0) this.oldestUncheckpointed = this.now();
    if (this.journal.version !== JOURNAL_VERSION) {
      // An earlier build's journal: new records cannot follow its records. A snapshot of what it held
      // starts the file over in this build's format (a crash before that replays it again).
      if (this.lsn > this.snapshotLsn) await this.runCheckpoint();
      else await this.journal.reset();
      this.counters.journal_records = 0;
    } else if (records > 0 && this.lsn === this.snapshotLsn) {
      // Every record is covered by the snapshot (a crash between snapshot and truncation): finish that
      // truncation, so that new records never follow stale ones.
      await this.journal.reset();
      this.counters.journal_records = 0;
    } else if (cutAt < fileSize) {
      // New records must not land behind the damaged tail, where a scan would never reach them.
      await this.journal.truncate(cutAt);
    }
    await this.removeSegmentLeftovers();
    const replayMs = performance.now() - t0;
    this.applyPragmas(false);
    this.state = 'open';

    this.ageTimer = setInterval(() => this.onAgeTick(), Math.min(Math.max(this.checkpointAgeMs / 4, 50), 10_000));
    this.ageTimer.unref();

    const applied = await this.migrate(migrations);
    // No unconditional checkpoint at start: replaying a journal under its bound is cheap, while a
    // snapshot of a large database on an SD card is not (and a crash loop would write one per start).
    // The usual size rule applies, so a journal that outgrew it (checkpoints failing) is folded in now.
    if (this.overSizeBound()) await this.checkpoint();
    this.log('info', 'opened', {
      dir: this.dir, snapshot_bytes: this.counters.snapshot_bytes, load_ms: round(this.loadMs),
      replayed_records: this.counters.replayed_records, replay_ms: round(replayMs),
      discarded_bytes: this.counters.discarded_bytes, migrations_applied: applied, last_lsn: this.lsn,
    });
  }

  /** Replays every record past the snapshot's LSN; stops at the first damaged or failing one. */
  private replay(journal: Journal): { records: number; cutAt: number; fileSize: number; reason: string | null } {
    const it = journal.scan();
    let records = 0;
    for (;;) {
      const step = it.next();
      if (step.done) {
        return { records, cutAt: step.value.goodEnd, fileSize: step.value.fileSize, reason: step.value.stopReason };
      }
      const rec = step.value;
      // Records past the snapshot continue it without a gap, by construction (docs/store.md). A gap
      // means the snapshot and the journal do not belong together, and replaying would misapply data.
      // Records at or below the snapshot's LSN are covered by it and skipped (their LSNs may have gaps:
      // a checkpoint covers records that never reached the journal).
      if (rec.lsn > this.snapshotLsn && rec.lsn !== this.lsn + 1) {
        if (this.lsn === this.snapshotLsn) {
          throw new Error(
            `${journal.path} continues at LSN ${rec.lsn} but ${SNAPSHOT_FILE} only reaches LSN ${this.snapshotLsn}: ` +
            'they do not belong together (was the snapshot restored from an older backup?). ' +
            'Move the journal away to start from the snapshot alone.',
          );
        }
        throw new Error(`${journal.path}: record at offset ${rec.start} has LSN ${rec.lsn} after ${this.lsn}; journal is inconsistent`);
      }
      if (rec.lsn <= this.snapshotLsn && this.lsn > this.snapshotLsn) {
        throw new Error(`${journal.path}: record at offset ${rec.start} has LSN ${rec.lsn} after ${this.lsn}; journal is inconsistent`);
      }
      if (rec.lsn > this.snapshotLsn) {
        const err = this.applyRecord(rec);
        if (err) {
          this.log('error', 'a journal record failed to replay; it and everything after it are discarded', {
            lsn: rec.lsn, offset: rec.start, error: errMessage(err),
          });
          return { records, cutAt: rec.start, fileSize: journal.size, reason: `replay failed: ${errMessage(err)}` };
        }
        this.lsn = rec.lsn;
        this.counters.replayed_records++;
      }
      records++;
    }
  }

  private applyRecord(rec: JournalRecord): Error | null {
    if (rec.statements.length === 0) return null; // channel entries only: nothing for the database
    this.db.run('BEGIN');
    try {
      for (const [sql, params] of rec.statements) this.execWrite(sql, params);
      this.db.run('COMMIT');
      return null;
    } catch (err) {
      this.rollbackQuietly();
      return toError(err);
    }
  }

  /**
   * A checkpoint that crashed before its snapshot was renamed may have left segments past the snapshot
   * (their entries are still in the journal) and temp files: both go.
   */
  private async removeSegmentLeftovers(): Promise<void> {
    const { segments, temps } = listSegments(this.dir);
    const orphans = segments.filter((g) => g.lastLsn > this.snapshotLsn).map((g) => g.file);
    for (const f of [...temps, ...orphans]) await rm(join(this.dir, f), { force: true });
    if (temps.length || orphans.length) {
      await fsyncDir(this.dir);
      this.log('info', 'removed channel segments left by an interrupted checkpoint', { files: temps.length + orphans.length });
    }
  }

  private async migrate(migrations: Migration[]): Promise<number> {
    const applied = this.query<{ version: number }>('SELECT version FROM _migrations').map((r) => r.version);
    const pending = planMigrations(applied, migrations, this.ranges);
    for (const m of pending) {
      const appliedAt = new Date(this.now()).toISOString();
      await this.write((tx) => {
        if (typeof m.up === 'string') tx.run(m.up);
        else m.up(tx);
        tx.run('INSERT INTO _migrations (version, name, applied_at) VALUES (?, ?, ?)', [m.version, m.name, appliedAt]);
      }, 'sync');
      this.log('info', 'applied migration', { version: m.version, name: m.name, module: rangeOf(m.version, this.ranges)?.module });
    }
    return pending.length;
  }

  // ---- reads --------------------------------------------------------------------------------------

  all<T = Row>(sql: string, params?: SqlParams): T[] {
    this.assertReadable(sql);
    return this.query<T>(sql, params);
  }

  get<T = Row>(sql: string, params?: SqlParams): T | undefined {
    this.assertReadable(sql);
    return this.queryOne<T>(sql, params);
  }

  // ---- writes -------------------------------------------------------------------------------------

  write<T>(fn: (tx: Tx) => T, durability: Durability = 'sync'): Promise<T> {
    if (this.state !== 'open') return Promise.reject(new Error('store is closed'));
    if (this.inTx) return Promise.reject(new Error('store.write() called inside a write transaction; nesting is not supported'));
    if (durability !== 'sync' && durability !== 'group') {
      return Promise.reject(new TypeError(`unknown durability ${String(durability)}`));
    }
    if (this.ioError) {
      // Space may have come back since: try the recovery checkpoint now rather than at the next tick.
      this.checkpoint().catch(() => undefined);
      const why = `store cannot journal writes (${this.ioError.message}); retrying with a checkpoint`;
      return Promise.reject(storageFailure(why, this.ioError));
    }
    let out: { result: T; record: PendingRecord | null };
    try {
      out = this.runTransaction(fn);
    } catch (err) {
      return Promise.reject(toError(err));
    }
    const { result, record } = out;
    if (!record) return Promise.resolve(result);
    this.lsn = record.lsn;
    this.oldestUncheckpointed ??= record.committedAt;
    this.pending.push(record);
    if (durability === 'group') {
      this.groupTimer ??= setTimeout(() => {
        this.groupTimer = null;
        this.requestFlush().catch(() => undefined);
      }, this.groupCommitMs);
      return Promise.resolve(result);
    }
    return new Promise<T>((resolve, reject) => {
      record.waiter = { resolve: () => resolve(result), reject };
      this.requestFlush().catch(() => undefined);
    });
  }

  /** BEGIN; fn(tx); COMMIT, collecting the statements to journal. Throws (after ROLLBACK) on failure. */
  private runTransaction<T>(fn: (tx: Tx) => T): { result: T; record: PendingRecord | null } {
    const recorded: PendingStatement[] = [];
    const emits: EmittedEntry[] = [];
    const onCommit: (() => void)[] = [];
    let live = true;
    let begun = false;
    let aborted: Error | null = null;
    const alive = () => {
      if (!live) throw new Error('transaction is finished: tx was used after write() returned');
      if (aborted) throw aborted;
    };
    // Every statement goes through here: only successful ones are journaled, so a failure that fn
    // catches must have left nothing behind. SQLite undoes a failed statement (default ABORT), except
    // OR FAIL (keeps earlier rows) and errors that roll back the whole transaction: those abort the write.
    const step = <R>(sql: string, params: SqlParams | undefined, exec: (read: boolean) => R): R => {
      alive();
      if (typeof sql !== 'string') throw new TypeError('sql must be a string');
      assertNotTxControl(sql);
      const read = isPlainRead(sql);
      // Encode first: an unjournalable value must fail before it changes anything.
      const pending = read ? null : pendingStatement(sql, params);
      // BEGIN at the first statement: a transaction that only emits channel entries never touches sql.js.
      if (!begun) {
        this.control('BEGIN');
        this.setWritable(true);
        begun = true;
      }
      const before = read ? 0 : this.totalChanges();
      try {
        const out = exec(read);
        if (pending) recorded.push(pending);
        return out;
      } catch (err) {
        if (!read && (this.totalChanges() !== before || !this.inTransaction())) {
          aborted = new Error(`write aborted: a failed statement left partial changes or ended the transaction (${errMessage(err)})`);
        }
        throw err;
      }
    };
    const tx: Tx = {
      run: (sql, params) => step(sql, params, () => ({ changes: this.execWrite(sql, params ?? null) })),
      all: <R>(sql: string, params?: SqlParams): R[] => step(sql, params, () => this.query<R>(sql, params)),
      // A write with RETURNING runs to completion (all rows), as it will on replay.
      get: <R>(sql: string, params?: SqlParams): R | undefined =>
        step(sql, params, (read) => (read ? this.queryOne<R>(sql, params) : this.query<R>(sql, params)[0])),
      emit: (channel, data) => {
        alive();
        if (typeof channel !== 'string' || !CHANNEL_NAME.test(channel)) throw new TypeError(`invalid channel name ${String(channel)}`);
        if (!(data instanceof Uint8Array)) throw new TypeError('channel entries are bytes (a Uint8Array)');
        emits.push({ channel, data: new Uint8Array(data) }); // a copy (Buffer#slice would not be): callers reuse buffers
      },
      onCommit: (fn) => {
        alive();
        onCommit.push(fn);
      },
    };

    this.inTx = true;
    try {
      const result = fn(tx);
      if (aborted) throw aborted;
      if (isThenable(result)) {
        // Keep its eventual rejection (from using the dead tx) from becoming an unhandled rejection.
        Promise.resolve(result).catch(() => undefined);
        throw new TypeError('write() callback returned a Promise: it must be synchronous (do async work before write())');
      }
      let record: PendingRecord | null = null;
      if (recorded.length > 0 || emits.length > 0) {
        const bound = recordSizeBound(recorded, emits);
        if (bound > MAX_RECORD_BYTES) throw new RangeError(`transaction too large for one journal record (up to ${bound} bytes)`);
        record = { lsn: this.lsn + 1, statements: recorded, emits, committedAt: this.now(), waiter: null };
      }
      if (begun) this.control('COMMIT');
      live = false;
      for (const hook of onCommit) {
        try {
          hook();
        } catch (err) {
          this.log('error', 'an onCommit callback failed (the transaction is committed)', { error: errMessage(err) });
        }
      }
      return { result, record };
    } catch (err) {
      if (begun) this.rollbackQuietly();
      throw err;
    } finally {
      live = false;
      this.inTx = false;
      if (begun) this.setWritable(false);
    }
  }

  flush(): Promise<void> {
    if (this.state === 'closed') return Promise.reject(new Error('store is closed'));
    return this.requestFlush();
  }

  // ---- channels -----------------------------------------------------------------------------------

  readChannel(channel: string, fn: (entry: ChannelEntry) => void, afterLsn = 0): void {
    if (this.state === 'closed') throw new Error('store is closed');
    let last = afterLsn;
    const entry: ChannelEntry = { lsn: 0, bytes: new Uint8Array(0), start: 0, end: 0 };
    const deliver = (lsn: number, bytes: Uint8Array, start = 0, end = bytes.length) => {
      if (lsn <= afterLsn) return;
      last = lsn;
      entry.lsn = lsn;
      entry.bytes = bytes;
      entry.start = start;
      entry.end = end;
      fn(entry);
    };
    // Segments up to the snapshot (a newer one belongs to a checkpoint still writing: the journal has it).
    for (const g of listSegments(this.dir).segments) {
      if (g.channel !== channel || g.lastLsn > this.snapshotLsn || g.lastLsn <= afterLsn) continue;
      const damage = readSegment(join(this.dir, g.file), deliver);
      if (damage) {
        this.log('error', 'a channel segment is damaged; the entries after the damage are lost', { file: g.file, reason: damage });
      }
    }
    // The journal's records past the snapshot: the appends completed so far (journal.size), in order.
    if (this.journal && this.journal.version === JOURNAL_VERSION) {
      const decoder = new RecordDecoder();
      for (const { payload } of this.journal.payloads()) {
        const { lsn, emits } = decoder.decodeEmits(payload);
        if (lsn <= this.snapshotLsn || lsn <= afterLsn) continue;
        for (const e of emits) if (e.channel === channel) deliver(lsn, e.data);
      }
    }
    // Committed, not yet in the file: the batch being appended, then the queue.
    for (const r of [...this.appending, ...this.pending]) {
      if (r.lsn <= last) continue;
      for (const e of r.emits) if (e.channel === channel) deliver(r.lsn, e.data);
    }
  }

  async dropChannelBefore(channel: string, t: number, prepare?: (lastLsn: number) => Promise<void>): Promise<number> {
    if (this.state === 'closed') throw new Error('store is closed');
    const old = listSegments(this.dir).segments.filter((g) => {
      if (g.channel !== channel || g.lastLsn > this.snapshotLsn) return false;
      const writtenAt = segmentWrittenAt(join(this.dir, g.file));
      return writtenAt === null || writtenAt < t;
    });
    if (!old.length) return 0;
    await prepare?.(Math.max(...old.map((g) => g.lastLsn)));
    for (const g of old) await rm(join(this.dir, g.file), { force: true });
    return old.length;
  }

  committedLsn(): number {
    return this.lsn;
  }

  checkpoint(): Promise<void> {
    if (this.state === 'closed') return Promise.reject(new Error('store is closed'));
    // One not yet started will cover everything committed before this call.
    this.queuedCheckpoint ??= this.enqueue(() => {
      this.queuedCheckpoint = null;
      return this.runCheckpoint();
    });
    return this.queuedCheckpoint;
  }

  compact(): Promise<{ bytes_before: number; bytes_after: number }> {
    return this.compactIf(() => true) as Promise<{ bytes_before: number; bytes_after: number }>;
  }

  reclaim(): Promise<{ bytes_before: number; bytes_after: number } | null> {
    return this.compactIf((free, total) => free >= this.reclaimBytes && free * 4 >= total);
  }

  private compactIf(worth: (freeBytes: number, bytes: number) => boolean): Promise<{ bytes_before: number; bytes_after: number } | null> {
    if (this.state === 'closed') return Promise.reject(new Error('store is closed'));
    let sizes: { bytes_before: number; bytes_after: number } | null = null;
    // In the writer queue, so no write interleaves; no transaction is open between tasks (VACUUM needs that).
    return this.enqueue(async () => {
      const pragma = (name: string) => readPragma(this.db, name);
      const pageSize = pragma('page_size');
      const size = () => pragma('page_count') * pageSize;
      if (!worth(pragma('freelist_count') * pageSize, size())) return;
      sizes = { bytes_before: size(), bytes_after: 0 };
      const t0 = performance.now();
      // Not journaled: it changes how the rows are laid out, not which rows there are.
      this.setWritable(true);
      try {
        this.db.run('VACUUM');
      } finally {
        this.setWritable(false);
      }
      sizes.bytes_after = size();
      this.log('info', 'database compacted', { ...sizes, ms: round(performance.now() - t0) });
      await this.runCheckpoint();
    }).then(() => sizes);
  }

  // ---- the writer queue ---------------------------------------------------------------------------

  private enqueue(task: () => Promise<void>): Promise<void> {
    const p = this.tail.then(task);
    this.tail = p.catch(() => undefined);
    return p;
  }

  private requestFlush(): Promise<void> {
    this.queuedFlush ??= this.enqueue(() => {
      this.queuedFlush = null;
      return this.runFlush();
    });
    return this.queuedFlush;
  }

  /** Appends every pending record with one write and one fdatasync, then resolves their waiters. */
  private async runFlush(): Promise<void> {
    if (this.pending.length === 0 || !this.journal) return;
    if (this.ioError) {
      // The file may hold a partial append: only a snapshot plus truncation makes it trustworthy again.
      await this.runCheckpoint();
      return;
    }
    const batch = this.pending;
    this.pending = [];
    if (this.groupTimer) {
      clearTimeout(this.groupTimer);
      this.groupTimer = null;
    }
    this.appending = batch;
    try {
      // Encoded here, not at commit: the dictionaries are the file's, as appended so far.
      const bytes = batch.map((r) => this.encoder.encode(r.lsn, r.statements, r.emits));
      await this.journal.append(bytes.length === 1 ? bytes[0]! : Buffer.concat(bytes));
    } catch (err) {
      const e = toError(err);
      this.ioError = e;
      this.log('error', 'journal append failed; writes are refused until a checkpoint succeeds', { error: e.message });
      // Still committed in memory, so the recovery checkpoint will cover them; the callers are told it failed.
      for (const r of batch) {
        r.waiter?.reject(storageFailure(`journal write failed: ${e.message}`, e));
        r.waiter = null;
      }
      this.pending = batch.concat(this.pending);
      throw e;
    } finally {
      this.appending = [];
    }
    this.counters.journal_records += batch.length;
    for (const r of batch) r.waiter?.resolve();
    if (this.overSizeBound()) this.checkpoint().catch(() => undefined);
  }

  /**
   * Snapshot then truncate. Runs inside the queue, so no append interleaves; writes committed while the
   * snapshot is being written (LSN > X) wait in `pending` and are appended after the truncation.
   */
  private async runCheckpoint(): Promise<void> {
    if (!this.journal || this.state === 'closed') return;
    this.checkpointing = true;
    try {
      await this.checkpointNow();
    } finally {
      this.checkpointing = false;
    }
  }

  private async checkpointNow(): Promise<void> {
    const journal = this.journal!;
    const t0 = performance.now();
    // X is the last LSN the copy holds: fixed in its last step, since writes committed while it is made in
    // steps are copied too.
    const x0 = this.lsn;
    let x = 0;
    let at = '';
    const copy = await copyDatabase(this.sql, this.db, {
      sliceMs: this.copySliceMs,
      last: () => {
        x = this.lsn;
        at = new Date(this.now()).toISOString();
        // Directly, not journaled: it describes this very snapshot.
        this.setWritable(true);
        try {
          this.db.run(
            "INSERT INTO _store_meta (key, value) VALUES ('checkpoint_lsn', ?), ('checkpoint_at', ?) " +
            'ON CONFLICT(key) DO UPDATE SET value = excluded.value',
            [x, at],
          );
        } finally {
          this.setWritable(false);
        }
      },
    });
    if (copy.way === 'export') {
      this.afterExport();
      this.log('debug', 'checkpoint copied in one pass', { reason: copy.reason });
    }
    const copyMs = performance.now() - t0;
    let bytes: Uint8Array | null = copy.bytes;
    const size = bytes.length;
    let segments: number;
    try {
      await writeSnapshotTemp(this.dir, bytes);
      bytes = null; // the only full copy outside sql.js: let it go before anything else allocates
      // Channel entries leave the journal with this checkpoint, and the snapshot does not hold them: their
      // segments must be durable before the snapshot's rename makes the journal's records stale.
      segments = await this.writeSegments(x);
      await installSnapshot(this.dir);
    } catch (err) {
      const e = toError(err);
      this.log('error', 'checkpoint failed; the journal is kept', { error: e.message });
      if (this.ioError) this.failWaiters(e);
      throw e;
    } finally {
      bytes = null;
    }
    this.snapshotLsn = x;
    this.counters.snapshot_bytes = size;
    // Everything up to X is now durable in the snapshot, whether or not its record reached the journal.
    const covered = this.pending.filter((r) => r.lsn <= x);
    this.pending = this.pending.filter((r) => r.lsn > x);
    this.oldestUncheckpointed = this.pending[0]?.committedAt ?? null;
    for (const r of covered) r.waiter?.resolve();
    try {
      await journal.reset();
      this.encoder.reset();
      this.counters.journal_records = 0;
      if (this.ioError) this.log('info', 'journal recovered by a checkpoint');
      this.ioError = null;
    } catch (err) {
      // Harmless on disk (the journal only holds records <= X, skipped on start), but appending behind
      // them is not safe until a truncation succeeds.
      this.ioError = toError(err);
      this.log('error', 'journal truncation failed after checkpoint', { error: this.ioError.message });
    }
    // Counted once the journal is truncated, so stats() never shows a new checkpoint with its old journal.
    this.counters.checkpoints++;
    this.counters.last_checkpoint_at = at;
    this.log('info', 'checkpoint', {
      lsn: x, snapshot_bytes: size, segments, ms: round(performance.now() - t0), sync_ms: round(copy.heldMs),
      copy: copy.way, copy_ms: round(copyMs), copy_turns: copy.turns, copy_attempts: copy.attempts,
      // Records committed while the copy was made (it holds them), and while the files were written (after X).
      copy_records: x - x0, carried_records: this.pending.length,
    });
    if (this.pending.some((r) => r.waiter)) this.requestFlush().catch(() => undefined);
  }

  /**
   * Moves the channel entries of records <= X into one new segment per channel: those in the journal file
   * (read without blocking) and those committed but not appended yet. Returns how many segments.
   */
  private async writeSegments(x: number): Promise<number> {
    const byChannel = new Map<string, SegmentEntry[]>();
    const add = (lsn: number, emits: readonly EmittedEntry[]) => {
      for (const e of emits) {
        const list = byChannel.get(e.channel);
        if (list) list.push({ lsn, data: e.data });
        else byChannel.set(e.channel, [{ lsn, data: e.data }]);
      }
    };
    let inFile = 0;
    if (this.journal && this.journal.version === JOURNAL_VERSION) {
      const decoder = new RecordDecoder();
      await this.journal.forEachPayload((payload) => {
        const { lsn, emits } = decoder.decodeEmits(payload);
        if (lsn > x) return;
        inFile = lsn;
        add(lsn, emits);
      });
    }
    // After a failed append the file may end early: the rest is still queued.
    for (const r of this.pending) if (r.lsn > inFile && r.lsn <= x) add(r.lsn, r.emits);
    if (byChannel.size === 0) return 0;
    const at = this.now();
    for (const [channel, entries] of byChannel) await writeSegment(this.dir, channel, x, at, entries);
    await fsyncDir(this.dir);
    return byChannel.size;
  }

  private failWaiters(err: Error): void {
    for (const r of this.pending) {
      r.waiter?.reject(storageFailure(`journal unavailable: ${err.message}`, err));
      r.waiter = null;
    }
  }

  /**
   * A checkpoint rewrites the whole snapshot, so its bounds grow with it: the journal may reach the
   * snapshot's size (then a checkpoint writes at most twice what the journal did), and by age a snapshot
   * of S bytes is rewritten at most every S / snapshotBytesPerMinute minutes. Small databases keep the
   * configured bounds. See docs/store.md, "Checkpoint".
   */
  private bounds(): { bytes: number; age_ms: number } {
    const s = this.counters.snapshot_bytes;
    return {
      bytes: Math.max(this.checkpointBytes, s),
      age_ms: Math.max(this.checkpointAgeMs, Math.round((s / this.snapshotBytesPerMinute) * 60_000)),
    };
  }

  private overSizeBound(): boolean {
    return !!this.journal && this.journal.size - HEADER_BYTES > this.bounds().bytes;
  }

  private onAgeTick(): void {
    if (this.state !== 'open') return;
    // One running still sees the age it was started for (oldestUncheckpointed moves when it ends): asking
    // again would queue a second full snapshot behind it (seen when a checkpoint outlasted a tick).
    if (this.checkpointing) return;
    const due = this.oldestUncheckpointed !== null && this.now() - this.oldestUncheckpointed >= this.bounds().age_ms;
    if (due || this.ioError) {
      this.checkpoint().catch((err: unknown) => this.log('warn', 'timed checkpoint failed', { error: errMessage(err) }));
    }
  }

  // ---- sql.js plumbing ----------------------------------------------------------------------------

  /** Runs a write statement (or several, when there are no params); returns rows changed. */
  private execWrite(sql: string, params: SqlParams | null | undefined): number {
    const before = this.totalChanges();
    if (params == null && hasSeveralStatements(sql)) {
      // All or nothing, like a single statement (DDL before a failing statement would otherwise stay).
      this.db.run('SAVEPOINT _store_multi');
      try {
        for (const st of this.db.iterateStatements(sql)) {
          try {
            assertNotTxControl(st.getSQL());
            while (st.step()) { /* drain: RETURNING rows, stray SELECTs */ }
          } finally {
            st.free();
          }
        }
      } catch (err) {
        try {
          this.db.run('ROLLBACK TO _store_multi');
          this.db.run('RELEASE _store_multi');
        } catch {
          // The error already ended the whole transaction; the caller finds out (inTransaction).
        }
        throw err;
      }
      this.db.run('RELEASE _store_multi');
    } else {
      const st = this.prepare(sql);
      try {
        st.bind(params as BindParams | undefined);
        while (st.step()) { /* drain */ }
      } finally {
        st.reset();
      }
    }
    // sqlite3_changes() keeps its old value across DDL; only trust it if something changed at all.
    return this.totalChanges() === before ? 0 : this.db.getRowsModified();
  }

  private query<T>(sql: string, params?: SqlParams | null): T[] {
    const st = this.prepare(sql);
    try {
      st.bind(params as BindParams | undefined);
      const rows: T[] = [];
      // getAsObject() decodes the column names again for every row: read them once (large reads
      // otherwise make several times their own size in garbage).
      let names: string[] | null = null;
      while (st.step()) {
        names ??= st.getColumnNames();
        const values = st.get();
        const row: Record<string, unknown> = {};
        for (let i = 0; i < names.length; i++) row[names[i]!] = values[i];
        rows.push(row as T);
      }
      return rows;
    } finally {
      st.reset();
    }
  }

  private queryOne<T>(sql: string, params?: SqlParams | null): T | undefined {
    const st = this.prepare(sql);
    try {
      st.bind(params as BindParams | undefined);
      return st.step() ? (st.getAsObject() as T) : undefined;
    } finally {
      st.reset();
    }
  }

  private totalChanges(): number {
    const st = this.prepare('SELECT total_changes()');
    try {
      st.step();
      return st.get()[0] as number;
    } finally {
      st.reset();
    }
  }

  /** Small LRU of prepared statements; emptied on every export (see afterExport). */
  private prepare(sql: string): Statement {
    const hit = this.stmts.get(sql);
    if (hit) {
      this.stmts.delete(sql);
      this.stmts.set(sql, hit);
      return hit;
    }
    const st = this.db.prepare(sql);
    this.stmts.set(sql, st);
    if (this.stmts.size > STATEMENT_CACHE_SIZE) {
      const [oldest, old] = this.stmts.entries().next().value as [string, Statement];
      this.stmts.delete(oldest);
      old.free();
    }
    return st;
  }

  private freeStatements(): void {
    for (const st of this.stmts.values()) st.free();
    this.stmts.clear();
  }

  /**
   * Older sql.js releases freed every prepared statement and reset connection pragmas in export();
   * 1.16 keeps them, but we do not depend on either: drop the cache and set the pragmas again.
   */
  private afterExport(): void {
    this.freeStatements();
    this.applyPragmas(false);
  }

  private applyPragmas(writable: boolean): void {
    // The in-memory database needs no crash safety of its own (our journal provides it):
    // journal_mode MEMORY keeps SQLite's rollback journal out of the wasm file system (about 4x faster
    // commits), and EXCLUSIVE locking (there is no other connection) skips the hot-journal check and
    // page-1 re-read at the start of every transaction (point reads went from ~20 to ~3 us here).
    this.db.run('PRAGMA journal_mode = MEMORY');
    this.db.run('PRAGMA locking_mode = EXCLUSIVE');
    this.db.run('PRAGMA foreign_keys = ON');
    this.setWritable(writable);
  }

  /**
   * The database is query_only except inside our own write paths, so a stray INSERT through
   * store.all() fails instead of changing data that would never reach the journal.
   */
  private setWritable(on: boolean): void {
    this.control(on ? 'PRAGMA query_only = 0' : 'PRAGMA query_only = 1');
  }

  /** BEGIN/COMMIT/ROLLBACK/PRAGMA; kept in one place (a prepared variant measured no faster). */
  private control(sql: string): void {
    this.db.run(sql);
  }

  /** sql.js does not expose sqlite3_get_autocommit: BEGIN fails exactly when a transaction is open. */
  private inTransaction(): boolean {
    try {
      this.db.run('BEGIN');
    } catch {
      return true;
    }
    this.db.run('ROLLBACK');
    return false;
  }

  private rollbackQuietly(): void {
    try {
      this.control('ROLLBACK');
    } catch {
      // SQLite already rolled back (some errors do), or no transaction was open.
    }
  }

  private assertReadable(sql: string): void {
    if (this.state === 'closed') throw new Error('store is closed');
    // Inside write() the database is writable, so a change through store.all() would escape the journal.
    if (this.inTx && !isPlainRead(sql)) throw new Error('inside write(), run changes through tx, not the store');
  }

  // ---- stats and shutdown -------------------------------------------------------------------------

  stats(): StoreStats {
    const pragma = (name: string): number => this.state === 'closed' ? 0 : readPragma(this.db, name);
    return {
      snapshot_bytes: this.counters.snapshot_bytes,
      journal_bytes: this.journal?.size ?? 0,
      journal_records: this.counters.journal_records,
      last_lsn: this.lsn,
      last_checkpoint_at: this.counters.last_checkpoint_at,
      checkpoints: this.counters.checkpoints,
      checkpoint_bounds: this.bounds(),
      replayed_records: this.counters.replayed_records,
      discarded_bytes: this.counters.discarded_bytes,
      page_count: pragma('page_count'),
      page_size: pragma('page_size'),
      free_pages: pragma('freelist_count'),
      io_error: this.ioError ? { code: (this.ioError as NodeJS.ErrnoException).code ?? null, message: this.ioError.message } : null,
      segments: this.segmentStats(),
    };
  }

  private segmentStats(): { files: number; bytes: number } {
    if (this.state === 'closed') return { files: 0, bytes: 0 };
    const { segments } = listSegments(this.dir);
    let bytes = 0;
    for (const g of segments) bytes += statSync(join(this.dir, g.file), { throwIfNoEntry: false })?.size ?? 0;
    return { files: segments.length, bytes };
  }

  close(): Promise<void> {
    this.closing ??= this.shutdown();
    return this.closing;
  }

  private async shutdown(): Promise<void> {
    this.state = 'closing';
    this.stopTimers();
    let failure: unknown = null;
    try {
      await this.enqueue(() => this.runCheckpoint());
    } catch (err) {
      failure = err;
      // At least get queued records into the journal.
      await this.enqueue(() => this.runFlush()).catch(() => undefined);
    }
    await this.tail;
    this.failWaiters(new Error('store closed before the record was durable'));
    await this.release();
    if (failure) throw failure;
  }

  /** Releases everything without a checkpoint (failed start-up). */
  async abort(): Promise<void> {
    this.stopTimers();
    await this.tail;
    await this.release();
  }

  private stopTimers(): void {
    if (this.groupTimer) clearTimeout(this.groupTimer);
    if (this.ageTimer) clearInterval(this.ageTimer);
    this.groupTimer = null;
    this.ageTimer = null;
  }

  private async release(): Promise<void> {
    this.state = 'closed';
    await this.journal?.close().catch(() => undefined);
    this.journal = null;
    this.freeStatements();
    this.db.close();
  }
}

// ---- helpers ----------------------------------------------------------------------------------------

function positive(v: number | undefined, dflt: number, name: string): number {
  if (v === undefined) return dflt;
  if (!(typeof v === 'number' && v > 0 && Number.isFinite(v))) throw new Error(`${name} must be a positive number`);
  return v;
}

/** Removes leading whitespace and comments so the first keyword can be inspected. */
function stripLead(sql: string): string {
  let s = sql;
  for (;;) {
    s = s.trimStart();
    if (s.startsWith('--')) {
      const nl = s.indexOf('\n');
      s = nl < 0 ? '' : s.slice(nl + 1);
    } else if (s.startsWith('/*')) {
      const end = s.indexOf('*/');
      s = end < 0 ? '' : s.slice(end + 2);
    } else {
      return s;
    }
  }
}

/** A statement that cannot change anything, so need not be journaled. WITH is not: it may lead a DML. */
function isPlainRead(sql: string): boolean {
  return /^(SELECT|VALUES|EXPLAIN)\b/i.test(stripLead(sql));
}

/** The store owns BEGIN/COMMIT; a transaction-control statement inside fn would break atomicity. */
function assertNotTxControl(sql: string): void {
  if (/^(BEGIN|COMMIT|END|ROLLBACK(?!\s+(TRANSACTION\s+)?TO\b))\b/i.test(stripLead(sql))) {
    throw new Error('transaction control statements are not allowed inside write(); the store commits for you');
  }
}

/** True when there is SQL after the first ';' (a string literal with ';' only costs the slower path). */
function hasSeveralStatements(sql: string): boolean {
  const i = sql.indexOf(';');
  return i >= 0 && stripLead(sql.slice(i + 1).replace(/^[\s;]*/, '')).length > 0;
}

function isThenable(v: unknown): v is PromiseLike<unknown> {
  return (typeof v === 'object' || typeof v === 'function') && v !== null && typeof (v as { then?: unknown }).then === 'function';
}

/** A storage failure for callers, keeping the system error code (ENOSPC, EIO) that the HTTP layer maps. */
function storageFailure(message: string, cause: Error): Error {
  return Object.assign(new Error(message, { cause }), { code: (cause as NodeJS.ErrnoException).code });
}

function toError(err: unknown): Error {
  return err instanceof Error ? err : new Error(String(err));
}

function errMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

function round(ms: number): number {
  return Math.round(ms * 10) / 10;
}

function defaultLog(level: 'debug' | 'info' | 'warn' | 'error', msg: string, fields?: Record<string, unknown>): void {
  if (level === 'warn' || level === 'error') console.error(`[${level}] ${msg}`, fields ?? '');
}
