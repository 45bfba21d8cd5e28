// Kept scan results: each finished scan's result as a gzipped JSON file under <data>/v1sion/scans/,
// indexed by a row in v1sion_scans. The file is written (temp, fsync, rename, fsync of the directory)
// before its row, so a row always has its file; a file without a row (a crash between the two) is
// removed at start. The newest `results_kept` results of people's scans within `results_max_mib` are kept;
// a scan profile's runs are kept apart, its newest PROFILE_KEPT only, so a schedule never pushes a person's
// scans out. Older ones are deleted and their job ids answer 404.
import { mkdir, readdir, readFile, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import type { AppContext } from '../../../core/context.js';
import { fsyncDir, writeFully, writeSyncedTemp } from '../../../core/store/files.js';
import type { ScanCounts, ScanResult } from './result.js';

interface Row {
  job_id: string; subnet: string; state: string; started_at: string; finished_at: string | null; counts: string; bytes: number;
  profile_id: string | null;
}

export interface KeptScan extends Omit<Row, 'counts'> { counts: ScanCounts }

/** A profile's newest results kept: the one its session points at and the one before, to compare. */
export const PROFILE_KEPT = 2;

const FILE = /^([0-9a-f-]{36})\.json\.gz$/;

export class ScanResults {
  readonly dir: string;

  constructor(private readonly app: AppContext) {
    this.dir = join(app.config.dataDir, 'v1sion', 'scans');
  }

  private settings() { return this.app.config.get().discovery; }

  /** Removes files without a row (a crash between file and row) and rows without a file. */
  async recover(): Promise<void> {
    await mkdir(this.dir, { recursive: true, mode: 0o700 });
    const rows = new Set(this.app.store.all<{ job_id: string }>('SELECT job_id FROM v1sion_scans').map((r) => r.job_id));
    const files = new Set<string>();
    for (const name of await readdir(this.dir)) {
      const m = FILE.exec(name);
      if (m && rows.has(m[1]!)) files.add(m[1]!);
      else await rm(join(this.dir, name), { force: true });
    }
    const gone = [...rows].filter((id) => !files.has(id));
    if (gone.length) {
      await this.app.store.write((tx) => {
        for (const id of gone) tx.run('DELETE FROM v1sion_scans WHERE job_id = ?', [id]);
      }, 'sync');
    }
  }

  private file(jobId: string) { return join(this.dir, `${jobId}.json.gz`); }

  /** Keeps a finished result, then drops the oldest beyond the configured count and size. */
  async save(result: ScanResult, by: string | null, profileId: string | null = null): Promise<void> {
    await mkdir(this.dir, { recursive: true, mode: 0o700 });
    const bytes = gzipSync(JSON.stringify(result), { level: 6 });
    const tmp = this.file(result.job_id) + '.tmp';
    await writeSyncedTemp(tmp, (fh) => writeFully(fh, bytes, 0));
    await rename(tmp, this.file(result.job_id));
    await fsyncDir(this.dir);
    await this.app.store.write((tx) => {
      tx.run(`INSERT OR REPLACE INTO v1sion_scans (job_id, subnet, state, started_at, finished_at, counts, bytes, created_by, profile_id)
              VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      [result.job_id, result.subnet, result.state, result.started_at, result.finished_at, JSON.stringify(result.counts), bytes.length, by,
        profileId]);
    }, 'sync');
    await this.prune();
  }

  private async prune(): Promise<void> {
    const { results_kept, results_max_mib } = this.settings();
    const rows = this.app.store.all<Row>('SELECT job_id, bytes, profile_id FROM v1sion_scans ORDER BY finished_at DESC, started_at DESC');
    let total = 0, people = 0;
    const perProfile = new Map<string, number>();
    const drop = rows.filter((r, i) => {
      total += r.bytes;
      const n = r.profile_id ? perProfile.set(r.profile_id, (perProfile.get(r.profile_id) ?? 0) + 1).get(r.profile_id)! : ++people;
      return i > 0 && (n > (r.profile_id ? PROFILE_KEPT : results_kept) || total > results_max_mib * 1024 * 1024);
    }).map((r) => r.job_id);
    if (!drop.length) return;
    await this.app.store.write((tx) => {
      for (const id of drop) tx.run('DELETE FROM v1sion_scans WHERE job_id = ?', [id]);
    }, 'sync');
    for (const id of drop) await rm(this.file(id), { force: true });
  }

  /** The kept results, newest first; `subnet` (canonical CIDR text) keeps only scans of that network. */
  list(opts: { subnet?: string; limit: number; offset: number }): { items: KeptScan[]; total: number } {
    const where = opts.subnet !== undefined ? 'WHERE subnet = ?' : '';
    const args = opts.subnet !== undefined ? [opts.subnet] : [];
    const total = this.app.store.get<{ n: number }>(`SELECT COUNT(*) AS n FROM v1sion_scans ${where}`, args)?.n ?? 0;
    const rows = this.app.store.all<Row>(
      `SELECT * FROM v1sion_scans ${where} ORDER BY started_at DESC, job_id LIMIT ? OFFSET ?`, [...args, opts.limit, opts.offset]);
    return { items: rows.map((r) => ({ ...r, counts: JSON.parse(r.counts) as ScanCounts })), total };
  }

  has(jobId: string): boolean {
    return !!this.app.store.get('SELECT 1 FROM v1sion_scans WHERE job_id = ?', [jobId]);
  }

  meta(jobId: string): KeptScan | undefined {
    const r = this.app.store.get<Row>('SELECT * FROM v1sion_scans WHERE job_id = ?', [jobId]);
    return r && { ...r, counts: JSON.parse(r.counts) as ScanCounts };
  }

  /** The kept result, or undefined when it is not (or no longer) kept. */
  async load(jobId: string): Promise<ScanResult | undefined> {
    if (!this.has(jobId)) return undefined;
    try {
      return JSON.parse(gunzipSync(await readFile(this.file(jobId))).toString('utf8')) as ScanResult;
    } catch {
      return undefined;
    }
  }
}
