// The storage of results over time, behind this one interface: a series is an integer key (a monitor's
// pk) whose results (a time, a status, a response time, named measurements, a message, details) go to a
// store channel as they come, are held compactly in memory for the raw window, add up per hour in memory (counts and
// time-weighted status) and are rolled up into hour and day rows once an hour has closed; a retention
// pass trims all of it and a start-up image spares start-up most of the channel. Nothing outside this
// folder imports its other files (test/unit/monitors-storage-boundary.test.ts, and the ESLint
// no-restricted-imports rule on monitors/). It imports nothing of the monitors module either, so that the
// next users of time series (SNMP counters over time, path and throughput tests) take it as it is, with
// their own SeriesNames (names.ts). See docs/monitors.md, "Storage".
//
//   channel.ts         the channel's entries (results, state changes, clearing, imported rows)
//   history.ts         raw results in memory: delta-encoded pages per series
//   hours.ts           per-series counts and time of the last 26 hours
//   hour-close.ts      hour and day rollup rows once an hour has closed; the watermark
//   rollups.ts         the rows' response-time histogram, late results, the figures read from rows
//   messages.ts        the result-message dictionary
//   measures.ts        named measurements: their name dictionary and how values are held
//   load.ts            start-up: the channel (after the image) back into memory
//   warm-image.ts      the start-up image and its schedule
//   retention.ts       the storage's part of a retention pass
//   import-results.ts  an earlier build's raw-results table into the channel
import type { AppContext } from '../../../core/context.js';
import type { Logger } from '../../../core/log.js';
import type { Tx } from '../../../core/store/types.js';
import { encodeMessage, type SeriesState, type StoredResult as ChannelResult } from './channel.js';
import { RawHistory, standingOf, type StoredResult } from './history.js';
import { HourCloser } from './hour-close.js';
import { HOUR_MS, hourOf, HourRing, timeStatus } from './hours.js';
import { importLegacyResults } from './import-results.js';
import { loadSeries, type SeriesLatest } from './load.js';
import { fromMeasureUnits, MeasureNames } from './measures.js';
import { Messages } from './messages.js';
import type { SeriesNames } from './names.js';
import { retainSeries, type RetentionCuts, type SeriesRetained } from './retention.js';
import {
  addMeasures, addMeasuresToRollups, addRollupHist, addToRollups, bucketOf, bucketStart, emptyAggregate, emptyHist, expandRollup,
  KIND, mergeMeasure, quantile, type Aggregate, type MeasureAggregate, type ResultStatus,
} from './rollups.js';
import { CHANNEL_DROPPED_TO, readWarmImage, StartupImages, type ImageSection } from './warm-image.js';

export type { SeriesNames } from './names.js';
export type { SeriesState, SeriesStatus } from './channel.js';
export { SERIES_STATES } from './channel.js';
export type { ImageSection } from './warm-image.js';
export type { SeriesLatest } from './load.js';
export type { RetentionCuts, SeriesRetained } from './retention.js';
export { BEATS, STANDING } from './history.js';
export { HOUR_MS, hourOf } from './hours.js';
export { MAX_MEASURES } from './measures.js';
export {
  avgMs, fromRtUnits, RESULT_STATUS, toRtUnits, UPTIME_DECIMALS, uptimePct, type Aggregate, type ResultStatus,
} from './rollups.js';
export type { HourCloser } from './hour-close.js';
export type { StartupImages } from './warm-image.js';

/** A result to append: times in epoch ms, the response time in rt units (hundredths of a millisecond). */
export interface NewResult {
  t: number;
  status: ResultStatus;
  rt: number | null;
  message: string;
  /** Details JSON, or null (kept only when useful: the user decides). */
  details: string | null;
  /** A result outside the schedule ("check now"): it counts in no figure (uptime, response times, rollups). */
  manual: boolean;
  /** Named measurements in their unit (a ping's loss in %), kept to hundredths; at most MAX_MEASURES. */
  measurements?: Readonly<Record<string, number>> | null;
}

/** A result as reads give it back. */
export interface SeriesResult extends Omit<NewResult, 'measurements'> {
  /** How the series stood after it, beyond its status (STANDING: as the result says, failing, paused). */
  standing: number;
  /** Named measurements in their unit, or null without any. */
  measurements: Record<string, number> | null;
}

/** A named measurement over a span: how many results carried it, and its least, mean and greatest value. */
export interface MeasureSummary { count: number; min: number; avg: number; max: number }

/** Figures over a series' last 24 hours, the last 7 and the last 30 UTC days (today's included). */
export interface SeriesSummary {
  day24: Aggregate;
  week: Aggregate;
  month: Aggregate;
  /** 95th percentile of the last 24 hours' scheduled response times, rt units; null without any. */
  p95: number | null;
  /** The last 24 hours' named measurements (of scheduled results), by name. */
  measures24h: Record<string, MeasureSummary>;
}

export interface SeriesOptions {
  names: SeriesNames;
  log: Logger;
  /** How long raw results are kept, and how often a start-up image is written besides at stop (hours, 0: only at stop). */
  settings(): { rawRetentionHours: number; imageEveryHours: number };
  /** How long a series' status counts after a result (hours.ts); null for a series that is gone. */
  capOf(key: number): number | null;
  /** The series there are, ascending (retention deletes their old rollups). */
  keys(): number[];
  /** The user's part of the start-up image. */
  section: ImageSection;
  /**
   * Before the channel's entries older than `cut` are deleted (retention): the user saves what they say
   * of each series' state (the latest entries of a series may be among them) unless it has since `cut`.
   */
  beforeDrop(cut: number): Promise<void>;
  /**
   * The parts of [from, to) set aside for series `key` (a monitor's maintenance windows), sorted and apart:
   * that time counts as neither up nor down (hours.ts). Asked at every credit of time: keep it cheap.
   */
  aside?(key: number, from: number, to: number): readonly (readonly [number, number])[];
}

export class SeriesStore {
  /** Writes the rollups of each hour once it has closed (tests hold or pace it). */
  readonly closer: HourCloser;
  /** The start-up image, written at every stop and every few hours (tests write one on demand). */
  readonly images: StartupImages;
  /** What start-up did with the image ('none', 'used (...)' or 'not used: why') and how many channel entries it read. */
  readonly startup = { image: 'none', entries: 0 };
  private readonly history = new RawHistory();
  private readonly hours = new HourRing();
  private readonly messages: Messages;
  private readonly measures: MeasureNames;
  private readonly names: SeriesNames;

  constructor(private readonly app: Pick<AppContext, 'store' | 'clock' | 'config'>, private readonly o: SeriesOptions) {
    this.names = o.names;
    this.messages = new Messages(o.names.messages);
    this.measures = new MeasureNames(o.names.measures);
    this.closer = new HourCloser(app, o.names, this.history, this.hours, o.capOf, o.log);
    this.hours.floorHour = () => this.closer.watermark;
    if (o.aside) this.hours.aside = o.aside;
    this.images = new StartupImages(app,
      { store: app.store, names: o.names, history: this.history, hours: this.hours, section: o.section },
      () => this.closer.watermark,
      () => ({ everyHours: o.settings().imageEveryHours, rawRetentionHours: o.settings().rawRetentionHours }), o.log);
  }

  /** Whether series `key`'s time at `t` is set aside (a maintenance window: SeriesOptions.aside). */
  isAside(key: number, t: number): boolean {
    return this.hours.aside(key, t, t + 1).length > 0;
  }

  /** The first hour (since the epoch) whose rollups are not written yet: hours from it on are read from memory. */
  get watermark(): number {
    return this.closer.watermark;
  }

  // ---- start-up and stop -----------------------------------------------------------------------

  /**
   * Start-up, after the user has its series (capOf answers for them): an earlier build's raw results
   * into the channel, the watermark, then the image and the channel into memory. Returns each series'
   * latest result and state the channel holds, for the user to apply.
   */
  async load(): Promise<{ results: number; imported: number; latest: Map<number, SeriesLatest> }> {
    const store = this.app.store, now = this.app.clock.now();
    const imported = this.names.legacyResults ? await importLegacyResults(store, this.names.legacyResults, this.names.channel) : 0;
    await this.closer.load();
    this.measures.load(store);
    const retention = this.o.settings().rawRetentionHours;
    const image = readWarmImage(this.app.config.dataDir, store, this.names, retention, now);
    const got = loadSeries({
      store, names: this.names, history: this.history, hours: this.hours, messages: this.messages, section: this.o.section,
      aside: (pk, t) => this.isAside(pk, t),
      capOf: this.o.capOf, watermark: this.closer.watermark, now, keepFrom: now - retention * HOUR_MS,
      image: image && 'install' in image ? image : null,
    });
    // Whether the image served, and why not: a slow start-up says why here.
    this.startup.entries = got.entries;
    this.startup.image = !image ? 'none' : 'unused' in image ? `not used: ${image.unused}` : got.image === 'used'
      ? `used (${image.bytes} bytes, written ${new Date(image.writtenAt).toISOString()})` : `not used: ${got.image}`;
    return { results: got.results, imported, latest: got.latest };
  }

  /** Starts writing the hours' rollups and the periodic start-up image. */
  start(): void {
    this.closer.start();
    this.images.start();
  }

  /** Stops writing rollups (an hour being written stops between batches, its progress saved). */
  stopRollups(): Promise<void> {
    return this.closer.stop();
  }

  /** After the last result: the start-up image the next start-up reads. */
  stop(): Promise<void> {
    return this.images.stop();
  }

  // ---- writes (inside the user's write; memory follows at commit) -----------------------------------

  /**
   * Appends a result and the series' state after it. `capMs`: how long that status counts (hours.ts).
   * A result of an hour whose rollups are written already goes into them in this write.
   */
  append(tx: Tx, key: number, r: NewResult, state: SeriesState, capMs: number): void {
    const x = r.measurements ? this.measures.encode(tx, r.measurements) : null;
    const stored: ChannelResult = { t: r.t, status: r.status, rt: r.rt, msg: this.messages.ref(tx, r.message), d: r.details,
      manual: r.manual, x };
    if (!r.manual && this.closer.isLate(r.t, key)) {
      addToRollups(tx, this.names.rollups, key, r.t, r.status, r.rt);
      if (x) addMeasuresToRollups(tx, this.names.measureRollups, key, r.t, x);
    }
    tx.emit(this.names.channel, encodeMessage({ kind: 'result', pk: key, result: stored, state }));
    tx.onCommit(() => {
      this.history.append(key, stored, standingOf(r.status, state.status, this.isAside(key, r.t)));
      if (!r.manual) this.hours.add(key, r.t, r.status, r.rt);
      this.hours.observe(key, r.t, timeStatus(r.status, state.status), capMs);
    });
  }

  /**
   * A change of the series' state at `t` without a result (pause, resume, certificate facts cleared):
   * paused and unknown time stops counting (hours.ts).
   */
  setState(tx: Tx, key: number, state: SeriesState, t: number, capMs: number): void {
    tx.emit(this.names.channel, encodeMessage({ kind: 'state', pk: key, state, t }));
    if (state.status === 'paused' || state.status === 'unknown') tx.onCommit(() => this.hours.stop(key, t, capMs));
  }

  /** Deletes a series' rollups in this write, its memory at commit. Returns how many raw results it had. */
  forget(tx: Tx, key: number): number {
    const results = this.history.count(key);
    tx.run(`DELETE FROM ${this.names.rollups} WHERE m = ?`, [key]);
    tx.run(`DELETE FROM ${this.names.measureRollups} WHERE m = ?`, [key]);
    // Its channel entries stay until retention drops them; start-up skips entries of series that are gone.
    tx.onCommit(() => {
      this.history.drop(key);
      this.hours.forget(key);
    });
    return results;
  }

  /**
   * Deletes every series' results, rollups and messages in this write (the user saves the series' state
   * in it first); memory follows at commit, and dropCleared() deletes the channel's segments after it.
   */
  clear(tx: Tx): { results: number; rollups: number } {
    const legacy = this.names.legacyResults ? tx.run(`DELETE FROM ${this.names.legacyResults}`).changes : 0;
    const out = {
      results: this.history.stats().results + legacy,
      rollups: tx.run(`DELETE FROM ${this.names.rollups}`).changes + tx.run(`DELETE FROM ${this.names.measureRollups}`).changes,
    };
    tx.run(`DELETE FROM ${this.names.messages}`);
    tx.emit(this.names.channel, encodeMessage({ kind: 'cleared' }));
    tx.onCommit(() => {
      this.history.clear();
      this.hours.clear();
      this.messages.clear();
    });
    return out;
  }

  /** After a clear() has committed: the channel's segments go. */
  async dropCleared(): Promise<void> {
    await this.app.store.dropChannelBefore(this.names.channel, Infinity, (lsn) => this.channelDropping(lsn));
  }

  // ---- reads -----------------------------------------------------------------------------------

  /** The beat letters of the series' newest results (history.ts beatOf), oldest first. */
  beats(key: number): string {
    return this.history.beats(key);
  }

  /** Counts and time over hours [from, to] (hour numbers since the epoch), from memory: the last 26 hours only. */
  sum(key: number, fromHour: number, toHour: number): Aggregate {
    return this.hours.sum(key, fromHour, toHour);
  }

  /** Each hour of [from, to] on its own, from memory (null for an hour it does not hold). */
  perHour(key: number, fromHour: number, toHour: number): (Aggregate | null)[] {
    return this.hours.perHour(key, fromHour, toHour);
  }

  last(key: number): SeriesResult | null {
    const r = this.history.last(key);
    return r ? this.out(r) : null;
  }

  /** Raw results within [from, to], newest first, paged as the results API pages them. */
  query(key: number, q: { from: number; to: number; status?: ResultStatus; limit: number; offset: number }):
    { total: number; items: SeriesResult[] } {
    const r = this.history.query(key, q);
    return { total: r.total, items: r.items.map((x) => this.out(x)) };
  }

  /**
   * Uptime counts and time over 24 hours, 7 and 30 days, and the 24-hour p95: the written part from the
   * rollup rows, the rest (hours from the watermark on) from memory, so that nothing is counted twice.
   */
  summary(key: number, now: number): SeriesSummary {
    const h = hourOf(now), w = this.closer.watermark;
    const sql = `SELECT checks, up, degraded, down, rt_sum, rt_count, rt_min, rt_max, hist, ms_up, ms_degraded, ms_down, ms_maint
      FROM ${this.names.rollups} WHERE m = ? AND k = ? AND b >= ? AND b < ?`;
    const written = (k: number, from: number, to: number) =>
      this.app.store.all<Aggregate & { hist: Uint8Array | null }>(sql, [key, k, from, to]);
    const sec = (hour: number) => (hour * HOUR_MS) / 1000;

    // 24 h: counts from memory; min, max and the histogram from the written rows and the unwritten results.
    const day24 = this.hours.sum(key, h - 23, h);
    const hist = emptyHist();
    let min: number | null = null, max: number | null = null;
    const spread = (lo: number | null, hi: number | null) => {
      if (lo != null) min = min == null ? lo : Math.min(min, lo);
      if (hi != null) max = max == null ? hi : Math.max(max, hi);
    };
    for (const r of written(KIND.hour, sec(h - 23), sec(w))) {
      const e = expandRollup(r);
      addRollupHist(e, hist);
      spread(e.rt_min, e.rt_max);
    }
    // Named measurements the same way: the written hours' rows, then the results of the others.
    const measures = new Map<number, MeasureAggregate>();
    for (const r of this.app.store.all<MeasureAggregate & { x: number }>(`SELECT x, n, total, lo, hi FROM ${this.names.measureRollups}
        WHERE m = ? AND k = ? AND b >= ? AND b < ?`, [key, KIND.hour, sec(h - 23), sec(w)])) {
      const a = measures.get(r.x);
      if (a) mergeMeasure(a, r); else measures.set(r.x, { n: r.n, total: r.total, lo: r.lo, hi: r.hi });
    }
    this.history.forEach(key, (r) => {
      if (r.manual) return;
      if (r.rt != null) { hist[bucketOf(r.rt)]! += 1; spread(r.rt, r.rt); }
      if (r.x) addMeasures(measures, r.x);
    }, Math.max(w, h - 23) * HOUR_MS);
    const measures24h: Record<string, MeasureSummary> = {};
    for (const [id, a] of measures) {
      const name = this.measures.name(id);
      if (name !== undefined && a.n > 0) {
        measures24h[name] = { count: a.n, min: fromMeasureUnits(a.lo), avg: Math.round(a.total / a.n) / 100, max: fromMeasureUnits(a.hi) };
      }
    }

    // 7 d and 30 d: UTC days, today's included, from day rows (hour rows are kept only for the 24 h figures).
    const days = (n: number) => {
      const day0 = bucketStart(KIND.day, now) - (n - 1) * 86_400;
      return sum([...written(KIND.day, day0, Number.MAX_SAFE_INTEGER), this.hours.sum(key, Math.max(w, (day0 * 1000) / HOUR_MS), h)]);
    };
    return { day24, week: days(7), month: days(30), p95: quantile(hist, 0.95, min, max), measures24h };
  }

  /**
   * Each of the last `n` UTC days (today's last, partly over) for series `key`: the day rows, with the hours
   * not yet written (from the watermark on) added from memory, so that nothing is counted twice; null for a
   * day with neither checks nor time. What a status page's 90-day bar draws.
   */
  days(key: number, n: number, now: number): (Aggregate | null)[] {
    const DAY_S = 86_400;
    const day0 = bucketStart(KIND.day, now) - (n - 1) * DAY_S;
    const out: (Aggregate | null)[] = new Array<Aggregate | null>(n).fill(null);
    for (const r of this.app.store.all<Aggregate & { b: number }>(`SELECT b, checks, up, degraded, down, rt_sum, rt_count, rt_min,
        rt_max, ms_up, ms_degraded, ms_down, ms_maint FROM ${this.names.rollups} WHERE m = ? AND k = ? AND b >= ?`,
      [key, KIND.day, day0])) {
      const i = (r.b - day0) / DAY_S;
      if (i >= 0 && i < n) out[i] = sum([r]);
    }
    const last = hourOf(now), hoursPerDay = DAY_S / 3600;
    for (let hour = Math.max(this.closer.watermark, (day0 * 1000) / HOUR_MS); hour <= last;) {
      const i = Math.floor((hour * 3600 - day0) / DAY_S);
      const end = Math.min(last, (day0 / 3600) + (i + 1) * hoursPerDay - 1);
      const a = this.hours.sum(key, hour, end);
      if (a.checks || a.ms_up || a.ms_degraded || a.ms_down || a.ms_maint) out[i] = sum(out[i] ? [out[i], a] : [a]);
      hour = end + 1;
    }
    return out;
  }

  /** Raw results held and their memory (the bench). */
  stats(): { series: number; results: number; pages: number; bytes: number } {
    const s = this.history.stats();
    return { series: s.monitors, results: s.results, pages: s.pages, bytes: s.bytes };
  }

  // ---- retention -------------------------------------------------------------------------------

  /** One retention pass over the storage (rollups, raw results and the channel, unused messages). */
  retain(cuts: RetentionCuts, stopped: () => boolean): Promise<SeriesRetained> {
    return retainSeries({
      store: this.app.store, names: this.names, history: this.history, messages: this.messages, watermark: () => this.closer.watermark,
      keys: this.o.keys(), stopped,
      dropping: async (cut, lastLsn) => {
        await this.o.beforeDrop(cut);
        await this.channelDropping(lastLsn);
      },
    }, cuts);
  }

  /**
   * Before channel segments holding entries up to `lastLsn` are deleted: a start-up image older than that
   * can no longer be completed from the channel (warm-image.ts). 'sync': on disk before the deletion.
   */
  private async channelDropping(lastLsn: number): Promise<void> {
    await this.app.store.write((tx) => {
      tx.run(`INSERT INTO ${this.names.meta} (key, value) VALUES (?, ?)
        ON CONFLICT(key) DO UPDATE SET value = max(value, excluded.value)`, [CHANNEL_DROPPED_TO, lastLsn]);
    }, 'sync');
  }

  private out(r: StoredResult): SeriesResult {
    return { t: r.t, status: r.status, rt: r.rt, message: this.messages.text(r.msg), details: r.d, manual: !!r.manual,
      standing: r.standing ?? 0, measurements: r.x?.length ? this.measures.decode(r.x) : null };
  }
}

function sum(rows: Aggregate[]): Aggregate {
  const a = emptyAggregate();
  for (const r of rows) {
    a.checks += r.checks; a.up += r.up; a.degraded += r.degraded; a.down += r.down; a.rt_sum += r.rt_sum; a.rt_count += r.rt_count;
    a.ms_up += r.ms_up; a.ms_degraded += r.ms_degraded; a.ms_down += r.ms_down; a.ms_maint += r.ms_maint;
  }
  return a;
}
