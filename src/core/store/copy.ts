// The checkpoint's copy of the in-memory database, made in short steps between other work instead of
// db.export()'s one synchronous pass (43-63 ms for 6 MiB in the service here; likely most of a second on
// a Pi for a database with a year of rollups), during which no check starts on time.
//
// SQLite's backup API copies some pages per call, and pages that the same connection changes in between
// are copied again as they commit, so the copy ends equal to the source as of its last step. sql.js
// exports the backup functions but not its file system, so the destination's file must be an array we
// hold: MEMFS keeps a new file's first write by calling slice() on it, and a Capture answers slice() of
// its whole self with itself. The array is larger than the file, so the file can grow into it as the
// source grows during the copy; it stays the file's storage while nothing is written past the array's
// end and the file is not made smaller (a database only shrinks by VACUUM, which the store runs in its
// writer queue, never during a copy). Every way this can fail (another sql.js release, a source that
// outgrew the array) is detected and falls back to db.export().
import { setImmediate as nextTurn } from 'node:timers/promises';
import type { Database, SqlJsStatic } from 'sql.js';
import { readPragma } from './pragma.js';

/** Pages per backup step: 64 KiB at 4 KiB pages, about 0.1 ms here. */
const STEP_PAGES = 16;
/** A source that outgrows the array during a copy is copied again at its new size, this many times at most. */
const ATTEMPTS = 3;
/** Room in the array for the source to grow during a copy, in pages: a sixteenth, at least 64. */
const headroom = (pages: number): number => Math.max(64, pages >> 4);
const SQLITE_OK = 0;
const SQLITE_DONE = 101;

export interface CopyOptions {
  /** How long one turn of copying may hold the event loop. */
  sliceMs: number;
  /**
   * Runs synchronously right before the last step, so what it writes is in the copy and nothing else
   * commits between the two. Idempotent: a copy started again runs it again.
   */
  last: () => void;
}

export interface CopyResult {
  bytes: Uint8Array;
  /** 'steps', or 'export' when this copy could not be made in steps (see `reason`). */
  way: 'steps' | 'export';
  reason?: string;
  /** Copies started (a source that outgrew the room left in the array is copied again). */
  attempts: number;
  /** Turns of the event loop the copy took, all attempts together. */
  turns: number;
  /** The longest the copy held the event loop at once. */
  heldMs: number;
}

/** What sql.js has beyond its typings: emscripten's cwrap, and each Database's connection pointer. */
type SqlJsModule = SqlJsStatic & { cwrap(name: string, ret: string, args: string[]): unknown };
const handle = (db: Database): number => (db as Database & { db: number }).db;

interface BackupApi {
  init(dest: number, destName: string, src: number, srcName: string): number;
  step(backup: number, pages: number): number;
  finish(backup: number): number;
  errmsg(db: number): string;
}

const apis = new WeakMap<SqlJsStatic, BackupApi>();

function backupApi(SQL: SqlJsStatic): BackupApi {
  let api = apis.get(SQL);
  if (!api) {
    const { cwrap } = SQL as SqlJsModule;
    api = {
      init: cwrap('sqlite3_backup_init', 'number', ['number', 'string', 'number', 'string']) as BackupApi['init'],
      step: cwrap('sqlite3_backup_step', 'number', ['number', 'number']) as BackupApi['step'],
      finish: cwrap('sqlite3_backup_finish', 'number', ['number']) as BackupApi['finish'],
      errmsg: cwrap('sqlite3_errmsg', 'string', ['number']) as BackupApi['errmsg'],
    };
    apis.set(SQL, api);
  }
  return api;
}

/**
 * The first page of an empty database as SQLite writes it (https://sqlite.org/fileformat2.html): the
 * header and an empty schema table. SQLite refuses a destination file without a valid header; made by
 * hand because making one with sql.js costs 5-45 ms of cold code paths.
 */
function emptyDatabase(pageSize: number): Uint8Array {
  const b = new Uint8Array(pageSize);
  const v = new DataView(b.buffer);
  b.set(Buffer.from('SQLite format 3\0', 'latin1'), 0);
  v.setUint16(16, pageSize === 65536 ? 1 : pageSize);
  b[18] = 1; // write and read versions: rollback journal
  b[19] = 1;
  b[21] = 64; // payload fractions, fixed by the format
  b[22] = 32;
  b[23] = 32;
  v.setUint32(24, 1); // change counter
  v.setUint32(28, 1); // pages
  v.setUint32(44, 4); // schema format
  v.setUint32(56, 1); // text encoding: UTF-8
  v.setUint32(92, 1); // the page count is valid for change counter 1
  b[100] = 13; // page 1: a table b-tree leaf without cells, its content area starting at the page's end
  v.setUint16(105, pageSize === 65536 ? 0 : pageSize);
  return b;
}

/**
 * An array that MEMFS adopts as a file's storage instead of copying it (see the top of this file). While
 * sql.js creates the file, `length` says the file's size; then it is the array's own again, so that MEMFS
 * writes past the file's end in place.
 */
class Capture extends Uint8Array {
  static adopted(capacity: number, fileBytes: number, create: (file: Capture) => Database): { file: Capture; db: Database } {
    const file = new Capture(capacity);
    Object.defineProperty(file, 'length', { value: fileBytes, configurable: true });
    try {
      return { file, db: create(file) };
    } finally {
      delete (file as { length?: number }).length;
    }
  }

  override slice(start?: number, end?: number): Uint8Array<ArrayBuffer> {
    return start === 0 && end === this.length ? this : Uint8Array.prototype.slice.call(this, start, end);
  }
}

/** Copies `db`, in steps when it can. Nothing else may write to `db` from another connection or run VACUUM meanwhile. */
export async function copyDatabase(SQL: SqlJsStatic, db: Database, opts: CopyOptions): Promise<CopyResult> {
  const api = backupApi(SQL);
  let turns = 0;
  let heldMs = 0;
  let reason = '';
  let attempts = 0;
  while (attempts < ATTEMPTS) {
    attempts++;
    const r = await copyInSteps(SQL, api, db, opts);
    turns += r.turns;
    heldMs = Math.max(heldMs, r.heldMs);
    if (r.bytes) return { bytes: r.bytes, way: 'steps', attempts, turns, heldMs };
    reason = r.reason;
    if (r.final) break; // not something another attempt changes
  }
  const t0 = performance.now();
  opts.last();
  const bytes = db.export();
  return { bytes, way: 'export', reason, attempts, turns: turns + 1, heldMs: Math.max(heldMs, performance.now() - t0) };
}

interface Attempt {
  bytes: Uint8Array | null;
  reason: string;
  /** The reason is not the source growing: do not try again. */
  final: boolean;
  turns: number;
  heldMs: number;
}

async function copyInSteps(SQL: SqlJsStatic, api: BackupApi, db: Database, opts: CopyOptions): Promise<Attempt> {
  let t0 = performance.now();
  let heldMs = 0;
  let turns = 1;
  const out = (reason: string, final: boolean): Attempt =>
    ({ bytes: null, reason, final, turns, heldMs: Math.max(heldMs, performance.now() - t0) });
  const pageSize = readPragma(db, 'page_size');
  const pages = readPragma(db, 'page_count');
  if (pages < 1) return out('the database has no pages yet', true);
  const capacity = pages + headroom(pages);
  let file: Capture;
  let dest: Database;
  try {
    ({ file, db: dest } = Capture.adopted(capacity * pageSize, pages * pageSize, (f) => {
      f.set(emptyDatabase(pageSize));
      return new SQL.Database(f);
    }));
  } catch (err) {
    return out(`the destination did not open: ${err instanceof Error ? err.message : String(err)}`, true);
  }
  const cookie = readU32(file, 40); // the empty database's schema cookie (0); the backup leaves cookie + 1
  let backup = 0;
  try {
    try {
      // No rollback journal (the copy is thrown away on any failure) and a small cache, so that pages go
      // into the array as they are copied rather than all at the end.
      dest.run('PRAGMA journal_mode = OFF');
      dest.run('PRAGMA cache_size = 64');
      dest.run('PRAGMA user_version = 1');
    } catch (err) {
      return out(`the destination refused a write: ${err instanceof Error ? err.message : String(err)}`, true);
    }
    if (readU32(file, 60) !== 1) return out('this sql.js does not keep a new file in the array it was given', true);
    backup = api.init(handle(dest), 'main', handle(db), 'main');
    if (!backup) return out(`backup_init: ${api.errmsg(handle(dest))}`, true);
    let stepped = 0;
    let total = pages; // changes only between turns, when others write
    // Never the last pages before `last` ran: a finished backup no longer follows the source.
    while (stepped + STEP_PAGES < total) {
      if (performance.now() - t0 >= opts.sliceMs) {
        heldMs = Math.max(heldMs, performance.now() - t0);
        await nextTurn();
        turns++;
        t0 = performance.now();
        total = readPragma(db, 'page_count');
        if (total > capacity) return out('the database outgrew the room the copy left it', false);
        continue;
      }
      const rc = api.step(backup, STEP_PAGES);
      if (rc !== SQLITE_OK) return out(`backup_step: ${rc} ${api.errmsg(handle(dest))}`, true);
      stepped += STEP_PAGES;
    }
    opts.last();
    if (readPragma(db, 'page_count') > capacity) return out('the database outgrew the room the copy left it', false);
    const rc = api.step(backup, -1);
    if (rc !== SQLITE_DONE) return out(`backup_step: ${rc} ${api.errmsg(handle(dest))}`, true);
    const fin = api.finish(backup);
    backup = 0;
    if (fin !== SQLITE_OK) return out(`backup_finish: ${fin}`, true);
    // The array is the file only if the header the backup wrote last is in it.
    const final = readPragma(db, 'page_count');
    if (readU32(file, 28) !== final || readU32(file, 40) !== cookie + 1) return out('the copy did not end in the array', true);
    return { bytes: file.subarray(0, final * pageSize), reason: '', final: true, turns, heldMs: Math.max(heldMs, performance.now() - t0) };
  } finally {
    if (backup) api.finish(backup);
    dest.close();
  }
}

function readU32(b: Uint8Array, at: number): number {
  return ((b[at]! << 24) | (b[at + 1]! << 16) | (b[at + 2]! << 8) | b[at + 3]!) >>> 0;
}
