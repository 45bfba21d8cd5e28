// Upgrade: an earlier build kept raw results as rows of monitor_results. At start they move into the
// monitors channel (channel.ts, an `imported` entry per monitor), a batch of monitors per 'group' write
// that emits their rows and deletes them, so an interrupted start resumes where it stopped. Once done
// the table stays empty; nothing writes it any more.
import type { Store } from '../../../core/store/types.js';
import { encodeMessage, type StoredResult } from './channel.js';
import { RESULT_STATUS } from './rollups.js';

const BATCH = 50;

interface LegacyRow { m: number; t: number; s: number; rt: number | null; msg: number | string | null; d: string | null }

/** From `table` (monitor_results) into `channel`. Returns how many rows moved. */
export async function importLegacyResults(store: Store, table: string, channel: string): Promise<number> {
  const pks = store.all<{ m: number }>(`SELECT DISTINCT m FROM ${table} ORDER BY m`).map((r) => r.m);
  let moved = 0;
  for (let i = 0; i < pks.length; i += BATCH) {
    const list = JSON.stringify(pks.slice(i, i + BATCH));
    moved += await store.write((tx) => {
      const rows = tx.all<LegacyRow>(
        `SELECT m, t, s, rt, msg, d FROM ${table} WHERE m IN (SELECT value FROM json_each(?)) ORDER BY m, t`, [list]);
      for (let a = 0; a < rows.length;) {
        const m = rows[a]!.m;
        let b = a;
        while (b < rows.length && rows[b]!.m === m) b++;
        const results: StoredResult[] = rows.slice(a, b).map((r) => ({
          t: r.t, status: RESULT_STATUS[r.s] ?? 'down', rt: r.rt, msg: r.msg ?? '', d: r.d,
        }));
        tx.emit(channel, encodeMessage({ kind: 'imported', pk: m, results }));
        a = b;
      }
      tx.run(`DELETE FROM ${table} WHERE m IN (SELECT value FROM json_each(?))`, [list]);
      return rows.length;
    }, 'group');
  }
  if (moved) await store.flush();
  return moved;
}
