// The storage's part of a retention pass: hour and day rollups (and an earlier build's minute rollups),
// those of named measurements too, older than their windows, raw results older than the raw window (in memory, and the channel's segment
// files on disk), and message-dictionary entries no result uses any more. Rollup deletes go per batch of
// series (each a primary-key range seek, in its own 'group' write), sized so that one write deletes about
// ROWS_PER_WRITE rows: a backlog (weeks of hour rows when the retention was shortened) never holds the
// event loop for long. The monitors' retention job (../retention.ts) runs it on its schedule.
import type { Store } from '../../../core/store/types.js';
import type { RawHistory } from './history.js';
import { HOUR_MS } from './hours.js';
import type { Messages } from './messages.js';
import type { SeriesNames } from './names.js';
import { KIND } from './rollups.js';

/** Series per rollup delete, at most (about 200 rows a pass in the steady state). */
const BATCH = 200;
/** Rollup rows one write deletes, about: some 15 ms of held event loop on a slow core. */
export const ROWS_PER_WRITE = 4000;
/** Collect unused dictionary entries only when there are more than this many. */
const DICT_GC_MIN = 256;

/** Cut-offs (epoch ms): what is older goes. */
export interface RetentionCuts {
  raw: number;
  minute: number;
  hour: number;
  day: number;
}

export interface SeriesRetained {
  /** Raw results freed from memory. */
  results: number;
  /** Channel segment files deleted. */
  segments: number;
  rollups: number;
  /** Rows of named measurements' rollups. */
  measure_rollups: number;
  messages: number;
}

export interface RetentionParts {
  store: Store;
  names: SeriesNames;
  history: RawHistory;
  messages: Messages;
  /**
   * The first hour whose rollups are not written: raw results of it and later stay (they are still to be
   * rolled up). Read when the results are trimmed: hours may close while the rollups are deleted.
   */
  watermark(): number;
  /** The series keys, ascending. */
  keys: readonly number[];
  /** True once the caller stops: the pass ends between two writes. */
  stopped(): boolean;
  /**
   * Before segments holding entries up to `lastLsn` (results older than `cut`) are deleted: the user saves
   * what the entries say of each series' state if it has not since `cut`, and the start-up image is marked.
   */
  dropping(cut: number, lastLsn: number): Promise<void>;
}

/** One pass. Stops early (with what it did) when `stopped()` says so between writes. */
export async function retainSeries(p: RetentionParts, cuts: RetentionCuts): Promise<SeriesRetained> {
  const { store, names } = p;
  const out: SeriesRetained = { results: 0, segments: 0, rollups: 0, measure_rollups: 0, messages: 0 };
  const sec = (ms: number) => Math.floor(ms / 1000);
  const byKind = [[KIND.minute, sec(cuts.minute)], [KIND.hour, sec(cuts.hour)], [KIND.day, sec(cuts.day)]] as const;
  const keys = p.keys;
  for (let i = 0; i < keys.length && !p.stopped();) {
    // The batch's first series is its oldest (keys ascend), so it has about the most rows to lose.
    let first = 0;
    for (const [k, cut] of byKind) {
      first += store.get<{ n: number }>(`SELECT count(*) AS n FROM ${names.rollups} WHERE m = ? AND k = ? AND b < ?`,
        [keys[i], k, cut])!.n;
    }
    const size = Math.max(1, Math.min(BATCH, Math.floor(ROWS_PER_WRITE / Math.max(1, first))));
    const list = JSON.stringify(keys.slice(i, i + size));
    i += size;
    await store.write((tx) => {
      for (const [k, cut] of byKind) {
        out.rollups += tx.run(`DELETE FROM ${names.rollups} WHERE m IN (SELECT value FROM json_each(?)) AND k = ? AND b < ?`,
          [list, k, cut]).changes;
        if (k === KIND.minute) continue; // never kept per minute
        out.measure_rollups += tx.run(
          `DELETE FROM ${names.measureRollups} WHERE m IN (SELECT value FROM json_each(?)) AND k = ? AND b < ?`, [list, k, cut]).changes;
      }
    }, 'group');
    // A group write resolves at once (a microtask): without this the batches would run back to back,
    // and checks due meanwhile would wait for all of them (3 s for 1.3 million rows, measured).
    await new Promise<void>((r) => setImmediate(r));
  }
  if (p.stopped()) return out;

  // Raw results: never those of hours whose rollups are still to be written from them.
  const cut = Math.min(cuts.raw, p.watermark() * HOUR_MS);
  out.results = p.history.trim(cut);
  // Segments whose results are past retention; what they say of each series' state is saved first.
  out.segments = await store.dropChannelBefore(names.channel, cut, (lastLsn) => p.dropping(cut, lastLsn));

  const unused = p.messages.size > DICT_GC_MIN ? p.messages.unused(p.history.messageIds()) : [];
  if (unused.length) out.messages = await store.write((tx) => p.messages.delete(tx, unused), 'group');
  return out;
}
