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
  /** Checkpoint when the journal grows past this many bytes. */
  checkpointBytes?: number;
  /** Checkpoint when the oldest un-checkpointed record is older than this. */
  checkpointAgeMs?: number;
  /** Interval between group commits (one fsync for all queued 'group' records). */
  groupCommitMs?: number;
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
  replayed_records: number;
  /** Records skipped at start because they were torn or failed their checksum. */
  discarded_bytes: number;
  page_count: number;
  page_size: number;
  /** Set while the journal cannot be written (ENOSPC: the disk is full); writes are refused meanwhile. */
  io_error: { code: string | null; message: string } | null;
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
  /** Flushes queued group records with an fsync. */
  flush(): Promise<void>;
  stats(): StoreStats;
  /** Flushes, checkpoints and releases the files. */
  close(): Promise<void>;
}
