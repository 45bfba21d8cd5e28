// The contract between the service and the root helper (scripts/updater.mjs, started by
// netprobe-update.path): the service writes <data dir>/update-request.json (0600); the helper removes it,
// appends its steps to update-progress.jsonl (one JSON object per line, a fresh file per run) and ends by
// writing update-status.json. Both files are the helper's (root's, 0644): the service only reads them.
import { existsSync } from 'node:fs';
import { open, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { writeFileAtomic } from '../../../core/files.js';

export const REQUEST_FILE = 'update-request.json';
export const PROGRESS_FILE = 'update-progress.jsonl';
export const STATUS_FILE = 'update-status.json';

export type Outcome = 'updated' | 'up_to_date' | 'rolled_back' | 'refused' | 'failed';

export interface UpdateRequest {
  id: string;
  url: string;
  branch: string;
  requested_at: string;
  requested_by: string | null;
  /** Install a release older than the running one (refused otherwise). */
  allow_downgrade: boolean;
  /** For a downgrade across a schema change: put back the database backed up when that release was left. */
  restore_backup: boolean;
  /** Where the helper checks the new release (GET, must answer {version}). Loopback only. */
  health_url: string;
  health_timeout_seconds: number;
  min_free_mb: number;
}

export interface ProgressLine {
  request_id: string;
  at: string;
  step: string;
  progress: number;
  message: string;
}

export interface HelperStatus {
  request_id: string | null;
  result: Outcome;
  url?: string;
  branch?: string;
  from: string | null;
  to: string | null;
  tag?: string | null;
  commit?: string | null;
  detail: string;
  /** The new release's last log lines, after a rollback. */
  log_tail?: string[];
  started_at?: string;
  finished_at: string;
}

export const helperInstalled = (unitFile: string): boolean => existsSync(unitFile);

export const requestPending = (dataDir: string): boolean => existsSync(join(dataDir, REQUEST_FILE));

export async function writeRequest(dataDir: string, req: UpdateRequest): Promise<void> {
  await writeFileAtomic(join(dataDir, REQUEST_FILE), JSON.stringify(req, null, 2) + '\n');
}

/** Withdraws a request the helper never picked up; true when there was one with this id. */
export async function withdrawRequest(dataDir: string, id: string): Promise<boolean> {
  const file = join(dataDir, REQUEST_FILE);
  try {
    const r = JSON.parse(await readFile(file, 'utf8')) as { id?: string };
    if (r.id !== id) return false;
    await rm(file, { force: true });
    return true;
  } catch {
    return false;
  }
}

export async function readStatus(dataDir: string): Promise<HelperStatus | null> {
  try {
    const s = JSON.parse(await readFile(join(dataDir, STATUS_FILE), 'utf8')) as HelperStatus;
    return s && typeof s === 'object' && typeof s.result === 'string' ? s : null;
  } catch {
    return null;
  }
}

/** The progress lines after byte `offset` of the helper's log, and the offset to read on from. */
export async function readProgress(dataDir: string, offset: number): Promise<{ lines: ProgressLine[]; offset: number }> {
  let fh;
  try { fh = await open(join(dataDir, PROGRESS_FILE), 'r'); } catch { return { lines: [], offset }; }
  try {
    const size = (await fh.stat()).size;
    if (size < offset) offset = 0; // a new run started a new file
    const len = Math.min(size - offset, 1024 * 1024);
    if (len <= 0) return { lines: [], offset };
    const buf = Buffer.alloc(len);
    await fh.read(buf, 0, len, offset);
    const text = buf.toString('utf8');
    const end = text.lastIndexOf('\n') + 1; // a line still being written waits for the next read
    const lines: ProgressLine[] = [];
    for (const l of text.slice(0, end).split('\n')) {
      if (!l) continue;
      try { lines.push(JSON.parse(l) as ProgressLine); } catch { /* not a line of the helper's */ }
    }
    return { lines, offset: offset + Buffer.byteLength(text.slice(0, end)) };
  } finally {
    await fh.close();
  }
}
