// Start-up of the storage's memory: the results channel read back in commit order into the raw history
// (results within retention, and any of hours whose rollups are not written yet), the hour ring's time,
// and each series' latest result and state, which its user applies (the monitors' table holds them only
// as of its last save); then the hourly counts of the last day: written hours from the rollups table, the
// others from the results just loaded. With a start-up image (warm-image.ts), memory starts as the image
// and only the entries after it are read; what follows is the same.
import type { Store } from '../../../core/store/types.js';
import { readMessage, type MessageVisitor, type SeriesState, type SeriesStatus, type StoredResult } from './channel.js';
import type { RawHistory } from './history.js';
import { standingOf } from './history.js';
import { HOUR_MS, hourOf, RING_HOURS, timeStatus, type HourRing } from './hours.js';
import type { Messages } from './messages.js';
import type { SeriesNames } from './names.js';
import type { ImageSection, WarmImage } from './warm-image.js';
import { KIND } from './rollups.js';

export interface LoadParts {
  store: Store;
  names: SeriesNames;
  history: RawHistory;
  hours: HourRing;
  messages: Messages;
  /** The user's part of the start-up image. */
  section: ImageSection;
  /** How long a series' status counts after a result (hours.ts); null for a series that is gone: its entries are skipped. */
  capOf(key: number): number | null;
  /** The first hour whose rollups are not written (hour-close.ts). */
  watermark: number;
  now: number;
  /** Results older than this are not loaded, unless their hour's rollups are still to be written. */
  keepFrom: number;
  /** A checked start-up image to start from. */
  image?: WarmImage | null;
  /** Whether series `pk`'s time at `t` was set aside (a maintenance window): its result's standing says so. */
  aside?(pk: number, t: number): boolean;
}

/** A series' latest entries in the channel: its last result (time, rt units, message) and its state after the last entry. */
export interface SeriesLatest {
  result: { t: number; rt: number | null; message: string } | null;
  state: SeriesState | null;
}

/**
 * A series' latest entries while the channel is read: kept in fields that hold numbers unboxed (made
 * with doubles), and handed on once at the end, so that millions of entries allocate nothing.
 */
interface Last {
  /** How long the series' status counts after a result (LoadParts.capOf), looked up once. */
  cap: number;
  result: boolean; t: number; rt: number; msg: number | string;
  state: boolean; status: SeriesStatus; streak: number;
  cert: boolean; certTo: number; certAt: number;
}

export interface Loaded {
  entries: number;
  results: number;
  image: 'used' | string | null;
  /** Each series with entries read from the channel (not those the image held and nothing changed since). */
  latest: Map<number, SeriesLatest>;
}

export function loadSeries(p: LoadParts): Loaded {
  const { store, history, hours, messages } = p;
  messages.load(store);
  let after = 0;
  let image: 'used' | string | null = null;
  // Hours before the watermark are read from the rollups table, unless the image was taken at the same
  // watermark: then its cells of those hours are what the rows say (hour-close.ts wrote them from it).
  let hoursInImage = false;
  if (p.image) {
    hoursInImage = p.image.watermark === p.watermark;
    try {
      p.image.install({ store, names: p.names, history, hours, section: p.section }, hoursInImage ? -Infinity : p.watermark);
      after = p.image.lsn;
      image = 'used';
    } catch (err) {
      history.clear(); // the user's section is applied only once the whole image has read well
      hours.clear();
      hoursInImage = false;
      image = `malformed: ${(err as Error).message}`;
    }
  }
  const last = new Map<number, Last>();
  const lastOf = (pk: number): Last | undefined => {
    let l = last.get(pk);
    const cap = l ? null : p.capOf(pk);
    if (cap != null) {
      l = { cap, result: false, t: 0.5, rt: 0.5, msg: 0, state: false, status: 'unknown', streak: 0, cert: false,
        certTo: 0.5, certAt: 0.5 };
      last.set(pk, l);
    }
    return l; // undefined for a series that is gone
  };
  const setState = (l: Last, s: SeriesState) => {
    l.state = true;
    l.status = s.status;
    l.streak = s.fail_streak;
    if (!s.cert) return;
    l.cert = true;
    l.certTo = s.cert.valid_to ?? NaN;
    l.certAt = s.cert.checked_at ?? NaN;
  };
  const keep = (r: StoredResult) => r.t >= p.keepFrom || hourOf(r.t) >= p.watermark;
  let entries = 0, results = 0;
  const add = (pk: number, r: StoredResult, standing: number) => {
    if (!keep(r)) return;
    history.append(pk, r, standing);
    if (hourOf(r.t) >= p.watermark && !r.manual) hours.add(pk, r.t, r.status, r.rt);
    results++;
  };
  const visitor: MessageVisitor = {
    result(pk, r, state) {
      const l = lastOf(pk);
      if (!l) return;
      add(pk, r, standingOf(r.status, state.status, p.aside?.(pk, r.t) ?? false));
      // Time is credited from the watermark on (hours.ts); earlier hours' time is in their rollup rows.
      hours.observe(pk, r.t, timeStatus(r.status, state.status), l.cap);
      l.result = true;
      l.t = r.t;
      l.rt = r.rt ?? NaN;
      l.msg = r.msg;
      setState(l, state);
    },
    state(pk, state, t) {
      const l = lastOf(pk);
      if (!l) return;
      setState(l, state);
      // Paused or resumed: the status stops counting (at an unknown time in entries of earlier builds: as
      // long as it would have counted).
      if (state.status === 'paused' || state.status === 'unknown') hours.stop(pk, Number.isNaN(t) ? Infinity : t, l.cap);
    },
    // What came before is gone, and the user's table holds the state as it was then (saved with the clearing).
    cleared() {
      history.clear();
      hours.clear();
      last.clear();
    },
    // Rows of an earlier build's table: history only (their hours' rollups were written with them).
    imported(pk, r) { if (p.capOf(pk) != null) add(pk, r, 0); },
  };
  store.readChannel(p.names.channel, (e) => {
    entries++;
    readMessage(e.bytes, e.start, e.end, visitor);
  }, after);
  if (after > 0) {
    // The image holds series gone since, and results retention has cut since: as if never read.
    for (const pk of [...history.monitors()]) if (p.capOf(pk) == null) history.drop(pk);
    for (const pk of [...hours.monitors()]) if (p.capOf(pk) == null) hours.forget(pk);
    history.trim(Math.min(p.keepFrom, p.watermark * HOUR_MS));
  }
  const latest = new Map<number, SeriesLatest>();
  for (const [pk, l] of last) {
    latest.set(pk, {
      state: l.state ? { status: l.status, fail_streak: l.streak,
        cert: l.cert ? { valid_to: nullIfNaN(l.certTo), checked_at: nullIfNaN(l.certAt) } : undefined } : null,
      result: l.result ? { t: l.t, rt: nullIfNaN(l.rt), message: messages.text(l.msg) } : null,
    });
  }
  // Hours already written: their counts come from the rollup rows (unless the image holds them).
  if (!hoursInImage) {
    const first = hourOf(p.now) - RING_HOURS + 1;
    type HourRow = { m: number; b: number; checks: number; up: number; degraded: number; down: number; rt_sum: number;
      rt_count: number; ms_up: number; ms_degraded: number; ms_down: number; ms_maint: number };
    for (const r of store.all<HourRow>(
      `SELECT m, b, checks, up, degraded, down, rt_sum, rt_count, ms_up, ms_degraded, ms_down, ms_maint FROM ${p.names.rollups}
        WHERE k = ? AND b >= ? AND b < ?`,
      [KIND.hour, (first * HOUR_MS) / 1000, (p.watermark * HOUR_MS) / 1000])) {
      if (p.capOf(r.m) != null) hours.addHour(r.m, (r.b * 1000) / HOUR_MS, r);
    }
  }
  return { entries, results, image, latest };
}

const nullIfNaN = (v: number): number | null => (Number.isNaN(v) ? null : v);
