// GET /api/monitors' items kept joined: every monitor's list line (queries.ts) in list order, each
// followed by a comma, in one buffer. A list copies a few long runs of it instead of checking and copying
// 2,000 lines one by one: those touched several scattered objects per monitor, about 2 ms of each list at
// 2,000 monitors on the bench machine (memory latency, seen in a CPU profile), where the runs take a
// fraction of that.
//
// Brought up to date when a list asks for it. After results, only the lines of the monitors the registry
// marked changed are made again and spliced in between runs of the previous image. Every line is checked
// again (lineBytes' own test) when the registry's generation, the list order or the hour changed, when an
// incident of the last day ages out of stats_24h, and at least once a minute, so that a change that
// reached no mark still shows within a minute.
//
// Two buffers take turns: each rebuild writes the one not current. A list reads the current image by
// index between its pieces and copies the bytes into its own piece before writing, so no socket ever holds
// an image and a rebuild never changes bytes a write still needs.
import { hourOf } from './storage/index.js';
import type { LiveMonitor, Registry } from './live.js';

/** Items i to next-1 of a list, joined by commas: bytes[start, end). Valid until the event loop turns. */
export interface JoinedRun {
  bytes: Buffer;
  start: number;
  end: number;
  next: number;
}

/** A monitor's list line as of `now` (queries.ts, lineBytes): cached on the monitor until it changes. */
export type LineOf = (m: LiveMonitor, now: number, hour: number, gen: number) => Buffer;

const DAY = 86_400_000;
/** Every line checked again at least this often. */
export const FULL_CHECK_MS = 60_000;
/** Room a new buffer leaves for lines that grow, so that most rebuilds reuse the spare one. */
const SLACK = 64 * 1024;

export class ListImage {
  private order: readonly LiveMonitor[] | null = null;
  private gen = -1;
  private hour = NaN;
  private fullAt = -Infinity;
  /** When the oldest incident closed in the last day leaves stats_24h of its monitor. */
  private ageOutAt = Infinity;
  private index = new Map<LiveMonitor, number>();
  private bytes: Buffer = Buffer.alloc(0);
  /** Item i is bytes[starts[i], starts[i + 1] - 1), its comma at starts[i + 1] - 1. */
  private starts: Int32Array = new Int32Array(1);
  private spare: { bytes: Buffer; starts: Int32Array } | null = null;
  private readonly out: JoinedRun = { bytes: this.bytes, start: 0, end: 0, next: 0 };
  /** Rebuilds so far, by kind (tests, and the proof that most are partial). */
  readonly rebuilds = { full: 0, partial: 0 };

  constructor(private readonly registry: Registry, private readonly lineOf: LineOf) {}

  /**
   * Items of `order` from i on, as many as fit in `room` bytes (at least item i, even when it alone does
   * not), or null when `order` is no longer the registry's list order (the list then goes item by item).
   */
  runOf(order: readonly LiveMonitor[], i: number, room: number, now: number): JoinedRun | null {
    this.update(now);
    if (order !== this.order || i >= order.length) return null;
    const s = this.starts, from = s[i]!;
    // The last j (items i..j-1) whose bytes, without the comma after the last, fit in the room.
    let lo = i + 1, hi = order.length;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (s[mid]! - 1 - from <= room) lo = mid; else hi = mid - 1;
    }
    const out = this.out;
    out.bytes = this.bytes;
    out.start = from;
    out.end = s[lo]! - 1;
    out.next = lo;
    return out;
  }

  /** Brings the image up to date with no list waiting (after start-up, so the first list finds it made). */
  warm(now: number): void {
    this.update(now);
  }

  private update(now: number): void {
    const reg = this.registry, order = reg.inOrder(), h = hourOf(now), gen = reg.gen;
    if (order !== this.order || gen !== this.gen || h !== this.hour || now >= this.fullAt + FULL_CHECK_MS || now >= this.ageOutAt) {
      reg.takeChanged();
      this.rebuild(order, now, h, gen, null);
      return;
    }
    const changed = reg.takeChanged();
    if (!changed.length) return;
    const at: number[] = [];
    for (const m of changed) {
      const i = this.index.get(m);
      if (i !== undefined) at.push(i); // one not in the image was replaced, which changed the generation
    }
    if (at.length) this.rebuild(order, now, h, gen, at.sort((a, b) => a - b));
  }

  /** Makes the image of `order` again: every line when `at` is null, else those at `at` (ascending). */
  private rebuild(order: readonly LiveMonitor[], now: number, h: number, gen: number, at: number[] | null): void {
    const n = order.length, old = this.bytes, os = this.starts;
    const fresh: Buffer[] = [];
    let size: number;
    if (at) {
      size = os[n]!;
      for (const i of at) {
        const m = order[i]!, line = this.lineOf(m, now, h, gen);
        fresh.push(line);
        size += line.length - (os[i + 1]! - 1 - os[i]!);
        if (m.closed.length) this.ageOutAt = Math.min(this.ageOutAt, m.closed[0]! + DAY);
      }
    } else {
      size = 0;
      this.ageOutAt = Infinity;
      for (const m of order) {
        const line = this.lineOf(m, now, h, gen); // prunes the incidents that aged out first
        fresh.push(line);
        size += line.length + 1;
        if (m.closed.length) this.ageOutAt = Math.min(this.ageOutAt, m.closed[0]! + DAY);
      }
    }
    const spare = this.spare;
    const bytes = spare && spare.bytes.length >= size && spare.bytes.length <= 2 * size + SLACK
      ? spare.bytes : Buffer.allocUnsafeSlow(size + SLACK);
    const starts = spare && spare.starts.length === n + 1 ? spare.starts : new Int32Array(n + 1);
    let w = 0;
    const put = (line: Buffer) => { bytes.set(line, w); w += line.length; bytes[w++] = 0x2c; }; // the line and its ','
    if (at) {
      let prev = 0;
      const copyOld = (to: number) => { // items prev..to-1 as they were
        const a = os[prev]!, b = os[to]!;
        for (let j = prev; j < to; j++) starts[j] = os[j]! - a + w;
        old.copy(bytes, w, a, b);
        w += b - a;
      };
      for (let k = 0; k < at.length; k++) {
        const i = at[k]!;
        copyOld(i);
        starts[i] = w;
        put(fresh[k]!);
        prev = i + 1;
      }
      copyOld(n);
      starts[n] = w;
      this.rebuilds.partial++;
    } else {
      this.index.clear();
      for (let i = 0; i < n; i++) {
        starts[i] = w;
        put(fresh[i]!);
        this.index.set(order[i]!, i);
      }
      starts[n] = w;
      this.fullAt = now;
      this.rebuilds.full++;
    }
    this.spare = old.length ? { bytes: old, starts: os } : null;
    this.bytes = bytes;
    this.starts = starts;
    this.order = order;
    this.gen = gen;
    this.hour = h;
  }
}
