// The store's public contract. Modules see only this; the journal and snapshot mechanics stay inside
// src/core/store/. See ARCHITECTURE.md, "Store: sql.js with a write-ahead journal".

/** A value bound to a statement parameter. Blobs are journaled as base64. */
export type SqlValue = string | number | bigint | null | Uint8Array;
export type SqlParams = SqlValue[] | Record<string, SqlValue>;
export type Row = Record<string, SqlValue>;

/**
 * Durability class of a write transaction.
 * - 'sync': the journal record is fsynced before write() resolves (every change made through the API).
 * - 'group': resolves once the transaction is committed in memory and queued for the journal; the record
 *   is fsynced with the next group commit (check results and other high-rate data). A 'sync' write
 *   always flushes earlier group records first, so the journal keeps commit order.
 */
export type Durability = 'sync' | 'group';

/** The handle a write transaction gets. Everything run through it is journaled and replayed on start. */
export interface Tx {
  /** Runs one statement; returns the number of rows it changed. */
  run(sql: string, params?: SqlParams): { changes: number };
  all<T = Row>(sql: string, params?: SqlParams): T[];
  get<T = Row>(sql: string, params?: SqlParams): T | undefined;
  /**
   * Adds an entry to a channel: bytes the owning module encodes, committed in this transaction's journal
   * record (atomically with its statements, in commit order) and read back with Store.readChannel. It
   * changes nothing in the database and is never replayed into it; checkpoints move it from the journal
   * into the channel's segment files, where it stays until Store.dropChannelBefore. For high-rate data
   * kept outside the database (docs/store.md, "Channels"). Names: lowercase letters, digits, '.', '-', '_'.
   */
  emit(channel: string, data: Uint8Array): void;
  /** Runs fn right after COMMIT, before write() returns: for in-memory state that mirrors the transaction. */
  onCommit(fn: () => void): void;
}

/**
 * One entry of a channel as Store.readChannel delivers it: its bytes are `bytes[start, end)`. The object
 * and the buffer are reused for the next entry (reading millions at start-up allocates nothing per entry):
 * valid only during the callback.
 */
export interface ChannelEntry {
  lsn: number;
  bytes: Uint8Array;
  start: number;
  end: number;
}

export interface Migration {
  /**
   * Numbered inside its module's range (MigrationRange), forward-only within that range; applied in
   * ascending order, each inside its own transaction.
   */
  version: number;
  name: string;
  /** Deterministic DDL/DML; no SQL time or random functions. */
  up: string | ((tx: Tx) => void);
}

/** The versions one module numbers its migrations in (inclusive). */
export interface MigrationRange {
  module: string;
  from: number;
  to: number;
}

export interface StoreOptions {
  /** Directory holding netprobe.db (snapshot) and netprobe.journal. */
  dir: string;
  migrations: Migration[];
  /** Each module's version range (default MIGRATION_RANGES): forward-only holds within each one. */
  ranges?: readonly MigrationRange[];
  /** Checkpoint when the journal grows past this many bytes, or past the snapshot's size if larger. */
  checkpointBytes?: number;
  /**
   * Checkpoint when the oldest un-checkpointed record is older than this, or than the snapshot's size
   * divided by snapshotBytesPerMinute if longer (a large snapshot is rewritten less often).
   */
  checkpointAgeMs?: number;
  /** What checkpoints by age may write on average, in bytes per minute (default 32 KiB). */
  snapshotBytesPerMinute?: number;
  /** reclaim() compacts only when at least this many bytes are free pages (default 4 MiB). */
  reclaimBytes?: number;
  /** Interval between group commits (one fsync for all queued 'group' records). */
  groupCommitMs?: number;
  /**
   * How long a checkpoint's copy of the database may hold the event loop at a time (default 2 ms); it is
   * made in steps between other work. Tests shrink it so that copies span many turns.
   */
  copySliceMs?: number;
  /** Milliseconds since the epoch; injectable for tests. */
  now?: () => number;
  log?: (level: 'debug' | 'info' | 'warn' | 'error', msg: string, fields?: Record<string, unknown>) => void;
}

export interface StoreStats {
  snapshot_bytes: number;
  journal_bytes: number;
  journal_records: number;
  last_lsn: number;
  last_checkpoint_at: string | null;
  checkpoints: number;
  /** When the next checkpoint is due, for the snapshot as large as it is now: journal bytes, record age. */
  checkpoint_bounds: { bytes: number; age_ms: number };
  replayed_records: number;
  /** Records skipped at start because they were torn or failed their checksum. */
  discarded_bytes: number;
  page_count: number;
  page_size: number;
  /** Pages on the free list: deleted rows' space, reused by later rows or given back by compact(). */
  free_pages: number;
  /** Set while the journal cannot be written (ENOSPC: the disk is full); writes are refused meanwhile. */
  io_error: { code: string | null; message: string } | null;
  /** Channel segment files and their bytes. */
  segments: { files: number; bytes: number };
}

export interface Store {
  /** Reads see every committed transaction, including ones whose journal record is not yet fsynced. */
  all<T = Row>(sql: string, params?: SqlParams): T[];
  get<T = Row>(sql: string, params?: SqlParams): T | undefined;
  /**
   * Runs fn synchronously inside BEGIN/COMMIT. If fn throws, the transaction is rolled back, nothing is
   * journaled and the error is rethrown (as a rejected promise). fn must not await.
   */
  write<T>(fn: (tx: Tx) => T, durability?: Durability): Promise<T>;
  /** Exports a snapshot now and truncates the journal. Safe to call at any time. */
  checkpoint(): Promise<void>;
  /**
   * Rebuilds the database without its free pages (VACUUM), then checkpoints, so the snapshot on disk and
   * the memory sql.js holds shrink. Only the layout changes: a crash before the checkpoint leaves the old
   * snapshot and journal, which describe the same rows. Returns the database's size before and after.
   */
  compact(): Promise<{ bytes_before: number; bytes_after: number }>;
  /**
   * compact(), but only when free pages make up at least a quarter of the database and reclaimBytes:
   * what a module calls after deleting in bulk (retention), since sql.js keeps freed pages in memory and
   * in every snapshot until a VACUUM. Null when there was too little to gain.
   */
  reclaim(): Promise<{ bytes_before: number; bytes_after: number } | null>;
  /** Flushes queued group records with an fsync. */
  flush(): Promise<void>;
  /**
   * Calls fn for every entry the channel holds, in commit order: its segments, then the journal, then
   * entries not yet appended. Synchronous (a module loads its channel once, at start-up). With `afterLsn`,
   * only the entries committed after that LSN (a module that kept an image of what it read up to there):
   * segments holding none are not opened.
   */
  readChannel(channel: string, fn: (entry: ChannelEntry) => void, afterLsn?: number): void;
  /**
   * Deletes the channel's segments whose entries were all committed before `t` (epoch ms); returns how
   * many. `prepare` runs first, only when there is something to delete (a module saving what it must keep),
   * with the LSN up to which entries go (the newest dropped segment's checkpoint): readChannel delivers
   * none up to there any more.
   */
  dropChannelBefore(channel: string, t: number, prepare?: (lastLsn: number) => Promise<void>): Promise<number>;
  /**
   * The LSN of the newest committed write (in memory: a 'group' record may not be fsynced yet). Every
   * onCommit callback of writes up to it has run, so in-memory state read in the same turn reflects
   * exactly the channel entries up to it.
   */
  committedLsn(): number;
  stats(): StoreStats;
  /** Flushes, checkpoints and releases the files. */
  close(): Promise<void>;
}
