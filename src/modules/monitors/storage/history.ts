// Raw results in memory, compact: the channel (channel.ts) makes them durable, this holds them for
// reading. Each series (a monitor) has a chain of 1 KiB pages taken from a shared pool of 256 KiB slabs; a page is a
// run of results, each delta-encoded against the one before it in the same page:
//
//   varint zigzag(dt - previous dt) | u8 flags | [u8 more] | [varint rt] | [varint message code] | [measurements]
//   flags: bits 0-1 status (0 down, 1 up, 2 degraded), 4 rt present, 8 same message as before,
//          16 extra (inline text or details, kept in the monitor's `extras` map by time), 32 manual check,
//          bits 6-7 how the monitor stood after it (STANDING: 0 as the result says, 1 failing below its
//          failure threshold, so degraded, 2 paused), or 3: the byte `more` follows
//   more:  bits 0-1 the standing (3: its time set aside, a maintenance window), 4 measurements present
//          (written only for a result with measurements or standing 3, so that other results are as long
//          as before them, and pages of earlier builds read the same)
//   message code: dictionary id + 1, or 0 for an inline text (in extras)
//   measurements: varint n, n x (varint name id | varint zigzag(value in hundredths)) (measures.ts)
//
// A result checked on schedule costs about 4 bytes (dt differs from the interval by a few ms, the message
// repeats): 24 hours of 2,000 monitors checked every minute fit in about 12 MiB. Whole pages are freed by
// retention; reads filter by time, so what they return is exact.
import type { ByteReader, ByteWriter } from '../../../core/store/index.js';
import type { StoredResult as ChannelResult } from './channel.js';
import { MAX_MEASURES, unzigzag, zigzag } from './measures.js';
import { RESULT_CODE, RESULT_STATUS } from './rollups.js';

const PAGE = 1024;
const SLAB_PAGES = 256;
/**
 * The longest entry without measurements: 10 (dt) + 1 + 8 (rt) + 6 (message); measurements add the byte
 * `more`, their count (2) and at most MEASURE_BYTES each: 3 (id) + 8 (value).
 */
const MAX_ENTRY = 26;
const MEASURE_BYTES = 11;
const F_RT = 4, F_SAME = 8, F_EXTRA = 16, F_MANUAL = 32;
/** Standing 3: the byte `more` follows the flags. */
const MORE = 3;
const M_MEASURES = 4;
/** How long the beat bar of the list is (GET /api/monitors `beats`). */
export const BEATS = 30;

/** How the monitor stood after a result, beyond its status: bits 6-7 of the flags (aside: in the byte `more`). */
export const STANDING = { asResult: 0, failing: 1, paused: 2, aside: 3 } as const;

/** The standing of a monitor whose status is `status` after a result of `result`; `aside`: in a maintenance window. */
export function standingOf(result: string, status: string, aside = false): number {
  if (status === 'paused') return STANDING.paused;
  if (aside) return STANDING.aside;
  return result === 'down' && status !== 'down' ? STANDING.failing : STANDING.asResult;
}

/**
 * One letter per check for the beat bar: u up, s answered but degraded (slow or loss), f failed below the
 * failure threshold (the monitor is degraded: failing), d failed and the monitor is down, p checked while
 * paused, m checked in a maintenance window; upper case for a manual check. ui/pages/monitors/model.js has
 * the same letters.
 */
export function beatOf(status: string, standing: number, manual: boolean): string {
  const c = standing === STANDING.paused ? 'p' : standing === STANDING.aside ? 'm' : status === 'up' ? 'u' : status === 'degraded' ? 's'
    : standing === STANDING.failing ? 'f' : 'd';
  return manual ? c.toUpperCase() : c;
}

interface Extra { text?: string; d?: string }

/** A result as the history gives it back: with how the monitor stood after it (STANDING). */
export interface StoredResult extends ChannelResult { standing?: number }

interface Chain {
  head: number;
  tail: number;
  /** Encoder state of the tail page. */
  prevT: number;
  prevDt: number;
  prevMsg: number;
  count: number;
  lastT: number;
  extras: Map<number, Extra> | null;
  /**
   * The beat letters (char codes) of the newest BEATS results in a ring, and how many were ever added: no
   * string is made per result (start-up appends 24 hours of them); beats() makes one when asked.
   */
  beatRing: Uint8Array;
  beatCount: number;
}

/**
 * One decoded result before its extras are looked up: message code (id + 1, 0 inline); its measurements
 * (`xn` pairs in `x`, an array the page decoder reuses: copied by whoever keeps the row).
 */
interface Row { t: number; s: number; rt: number; code: number; extra: boolean; manual: boolean; standing: number; x: number[]; xn: number }

export class RawHistory {
  private slabs: Uint8Array[] = [];
  private free: number[] = [];
  private pages = 0;
  private used = new Uint16Array(0);
  private lastT = new Float64Array(0);
  private next = new Int32Array(0);
  private chains = new Map<number, Chain>();
  /** Results before this are gone as far as readers are concerned (the last retention cut). */
  private floor = -Infinity;
  /** The measurements of the row the page decoder hands out (reused). */
  private readonly rowX: number[] = [];

  /** Pages in use and their bytes (memory figures for the bench). */
  stats(): { monitors: number; results: number; pages: number; bytes: number } {
    let results = 0;
    for (const c of this.chains.values()) results += c.count;
    const pages = this.pages - this.free.length;
    return { monitors: this.chains.size, results, pages, bytes: this.slabs.length * SLAB_PAGES * PAGE };
  }

  /** The monitors that have results. */
  monitors(): IterableIterator<number> {
    return this.chains.keys();
  }

  /** Appends a result; `standing`: how the monitor stood after it (STANDING). */
  append(pk: number, r: StoredResult, standing = 0): void {
    let c = this.chains.get(pk);
    if (!c) {
      c = { head: -1, tail: -1, prevT: 0, prevDt: 0, prevMsg: -1, count: 0, lastT: -Infinity, extras: null,
        beatRing: new Uint8Array(BEATS), beatCount: 0 };
      this.chains.set(pk, c);
    }
    const x = r.x?.length ? r.x : null;
    const xn = x ? Math.min(x.length >> 1, MAX_MEASURES) : 0;
    const more = x !== null || standing >= MORE;
    if (c.tail < 0 || this.used[c.tail]! + MAX_ENTRY + (more ? 1 : 0) + (x ? 2 + xn * MEASURE_BYTES : 0) > PAGE) this.newPage(c);
    const page = c.tail;
    const buf = this.slabs[page >> 8]!;
    let pos = (page & (SLAB_PAGES - 1)) * PAGE + this.used[page]!;
    const dt = r.t - c.prevT;
    const code = typeof r.msg === 'number' ? r.msg + 1 : 0;
    const extra: Extra | null = code === 0 || r.d != null ? {} : null;
    if (extra && code === 0) extra.text = r.msg as string;
    if (extra && r.d != null) extra.d = r.d;
    let flags = RESULT_CODE[r.status];
    if (r.rt != null) flags |= F_RT;
    if (code !== 0 && code === c.prevMsg) flags |= F_SAME;
    if (extra) flags |= F_EXTRA;
    if (r.manual) flags |= F_MANUAL;
    flags |= ((more ? MORE : standing) & 3) << 6;
    pos = putVarint(buf, pos, zigzag(dt - c.prevDt));
    buf[pos++] = flags;
    if (more) buf[pos++] = (standing & 3) | (x ? M_MEASURES : 0);
    if (r.rt != null) pos = putVarint(buf, pos, r.rt);
    if (!(flags & F_SAME)) pos = putVarint(buf, pos, code);
    if (x) {
      pos = putVarint(buf, pos, xn);
      for (let i = 0; i < 2 * xn; i += 2) { pos = putVarint(buf, pos, x[i]!); pos = putVarint(buf, pos, zigzag(x[i + 1]!)); }
    }
    this.used[page] = pos - (page & (SLAB_PAGES - 1)) * PAGE;
    this.lastT[page] = Math.max(this.lastT[page]!, r.t);
    if (extra) (c.extras ??= new Map()).set(r.t, extra);
    c.prevDt = dt;
    c.prevT = r.t;
    c.prevMsg = code;
    c.count++;
    c.lastT = Math.max(c.lastT, r.t);
    c.beatRing[c.beatCount % BEATS] = beatOf(r.status, standing, !!r.manual).charCodeAt(0);
    c.beatCount++;
  }

  /** The beat letters of the monitor's newest results (beatOf), oldest first; '' without results. */
  beats(pk: number): string {
    const c = this.chains.get(pk);
    if (!c) return '';
    const n = Math.min(c.beatCount, BEATS);
    let out = '';
    for (let i = c.beatCount - n; i < c.beatCount; i++) out += String.fromCharCode(c.beatRing[i % BEATS]!);
    return out;
  }

  /** Results of a monitor in insertion (time) order, filtered; `fn` returns false to stop. */
  forEach(pk: number, fn: (r: StoredResult) => boolean | void, from = -Infinity, to = Infinity): void {
    this.scan(pk, from, to, (row, c) => fn(this.materialize(row, c)));
  }

  /** How many results the monitor has at or after `from`. */
  count(pk: number, from = -Infinity): number {
    const c = this.chains.get(pk);
    if (!c) return 0;
    if (Math.max(from, this.floor) === -Infinity) return c.count;
    let n = 0;
    this.scan(pk, from, Infinity, () => { n++; });
    return n;
  }

  /**
   * Newest first, as the results API pages them: `total` matches, `items` the window [offset, offset + limit).
   */
  query(pk: number, q: { from: number; to: number; status?: string; limit: number; offset: number }):
    { total: number; items: StoredResult[] } {
    const want = q.status ? RESULT_CODE[q.status as keyof typeof RESULT_CODE] : -1;
    const rows: Row[] = [];
    this.scan(pk, q.from, q.to, (row) => { if (want < 0 || row.s === want) rows.push(copyRow(row)); });
    const c = this.chains.get(pk)!;
    const items: StoredResult[] = [];
    for (let i = rows.length - 1 - q.offset; i >= 0 && items.length < q.limit; i--) items.push(this.materialize(rows[i]!, c));
    return { total: rows.length, items };
  }

  last(pk: number): StoredResult | null {
    const c = this.chains.get(pk);
    if (!c || c.count === 0) return null;
    let last: Row | null = null;
    this.decodePage(c.tail, (row) => { last = copyRow(row); });
    return last && (last as Row).t >= this.floor ? this.materialize(last, c) : null;
  }

  /**
   * Results before `cut` are gone: readers no longer see them, and the pages (and extras) holding only
   * such results are freed. Returns how many results were freed.
   */
  trim(cut: number): number {
    this.floor = Math.max(this.floor, cut);
    let dropped = 0;
    for (const [pk, c] of this.chains) {
      while (c.head >= 0 && c.head !== c.tail && this.lastT[c.head]! < cut) {
        let n = 0;
        this.decodePage(c.head, () => { n++; });
        const page = c.head;
        c.head = this.next[page]!;
        this.release(page);
        c.count -= n;
        dropped += n;
      }
      if (c.head === c.tail && c.head >= 0 && this.lastT[c.head]! < cut) {
        dropped += c.count;
        this.drop(pk);
        continue;
      }
      if (c.extras) for (const t of c.extras.keys()) { if (t >= cut) break; c.extras.delete(t); }
    }
    return dropped;
  }

  drop(pk: number): void {
    const c = this.chains.get(pk);
    if (!c) return;
    for (let p = c.head; p >= 0;) { const n = this.next[p]!; this.release(p); p = n; }
    this.chains.delete(pk);
  }

  clear(): void {
    for (const pk of [...this.chains.keys()]) this.drop(pk);
  }

  /** Dictionary ids the results still refer to (the retention job collects the others). */
  messageIds(): Set<number> {
    const ids = new Set<number>();
    for (const pk of this.chains.keys()) this.scan(pk, -Infinity, Infinity, (row) => { if (row.code > 0) ids.add(row.code - 1); });
    return ids;
  }

  // ---- the start-up image (warm-image.ts) ---------------------------------------------------------

  /**
   * Everything as it stands, pages as they are: each chain's pages with their bytes, the tail page's
   * encoder state (later appends continue its deltas), the beat ring and the extras.
   */
  writeImage(w: ByteWriter): void {
    w.f64(this.floor);
    w.varint(this.chains.size);
    for (const [pk, c] of this.chains) {
      w.varint(pk);
      w.f64(c.prevT); w.f64(c.prevDt); w.f64(c.prevMsg); w.varint(c.count); w.f64(c.lastT);
      w.varint(c.beatCount); w.raw(c.beatRing);
      let pages = 0;
      for (let p = c.head; p >= 0; p = this.next[p]!) pages++;
      w.varint(pages);
      for (let p = c.head; p >= 0; p = this.next[p]!) {
        const base = (p & (SLAB_PAGES - 1)) * PAGE;
        w.f64(this.lastT[p]!);
        w.bytes(this.slabs[p >> 8]!.subarray(base, base + this.used[p]!));
      }
      w.varint(c.extras?.size ?? 0);
      for (const [t, e] of c.extras ?? []) {
        w.f64(t);
        w.u8((e.text !== undefined ? 1 : 0) | (e.d !== undefined ? 2 : 0));
        if (e.text !== undefined) w.utf8(e.text);
        if (e.d !== undefined) w.utf8(e.d);
      }
    }
  }

  /** Replaces everything with an image writeImage() made. Throws on a malformed one (nothing is kept then). */
  readImage(r: ByteReader): void {
    this.clear();
    try {
      this.floor = r.f64();
      for (let n = r.varint(); n > 0; n--) {
        const pk = r.varint();
        const c: Chain = { head: -1, tail: -1, prevT: 0, prevDt: 0, prevMsg: -1, count: 0, lastT: -Infinity, extras: null,
          beatRing: new Uint8Array(BEATS), beatCount: 0 };
        this.chains.set(pk, c);
        const prevT = r.f64(), prevDt = r.f64(), prevMsg = r.f64();
        c.count = r.varint();
        c.lastT = r.f64();
        c.beatCount = r.varint();
        c.beatRing.set(r.take(BEATS));
        for (let pages = r.varint(); pages > 0; pages--) {
          this.newPage(c);
          const p = c.tail;
          this.lastT[p] = r.f64();
          const bytes = r.bytes();
          if (bytes.length > PAGE) throw new Error('history image: page too long');
          this.slabs[p >> 8]!.set(bytes, (p & (SLAB_PAGES - 1)) * PAGE);
          this.used[p] = bytes.length;
        }
        c.prevT = prevT; c.prevDt = prevDt; c.prevMsg = prevMsg;
        for (let e = r.varint(); e > 0; e--) {
          const t = r.f64(), mask = r.u8();
          const extra: Extra = {};
          if (mask & 1) extra.text = r.utf8();
          if (mask & 2) extra.d = r.utf8();
          (c.extras ??= new Map()).set(t, extra);
        }
      }
    } catch (err) {
      this.clear();
      this.floor = -Infinity;
      throw err;
    }
  }

  // ---- internals -------------------------------------------------------------------------------

  private scan(pk: number, from0: number, to: number, fn: (row: Row, c: Chain) => boolean | void): void {
    const c = this.chains.get(pk);
    if (!c) return;
    const from = Math.max(from0, this.floor);
    for (let p = c.head; p >= 0; p = this.next[p]!) {
      if (this.lastT[p]! < from) continue;
      let stop = false;
      // Pages and their rows are in time order (a monitor's results are appended in the order it was checked).
      this.decodePage(p, (row) => {
        if (row.t < from) return true;
        if (row.t > to || fn(row, c) === false) { stop = true; return false; }
        return true;
      });
      if (stop) return;
    }
  }

  /** Decodes a page in order; `fn` returns false to stop. The row object is reused between calls. */
  private decodePage(page: number, fn: (row: Row) => boolean | void): void {
    const buf = this.slabs[page >> 8]!;
    const base = (page & (SLAB_PAGES - 1)) * PAGE;
    const end = base + this.used[page]!;
    const row: Row = { t: 0, s: 0, rt: -1, code: 0, extra: false, manual: false, standing: 0, x: this.rowX, xn: 0 };
    let pos = base, prevDt = 0, t = 0, code = 0;
    while (pos < end) {
      let v = 0, mul = 1, b: number;
      do { b = buf[pos++]!; v += (b & 0x7f) * mul; mul *= 128; } while (b & 0x80);
      const dt = prevDt + unzigzag(v);
      t += dt;
      prevDt = dt;
      const flags = buf[pos++]!;
      let standing = (flags >> 6) & 3, more = 0;
      if (standing === MORE) { more = buf[pos++]!; standing = more & 3; }
      let rt = -1;
      if (flags & F_RT) { rt = 0; mul = 1; do { b = buf[pos++]!; rt += (b & 0x7f) * mul; mul *= 128; } while (b & 0x80); }
      if (!(flags & F_SAME)) { code = 0; mul = 1; do { b = buf[pos++]!; code += (b & 0x7f) * mul; mul *= 128; } while (b & 0x80); }
      row.xn = 0;
      if (more & M_MEASURES) {
        const x = row.x;
        let n = 0;
        mul = 1; do { b = buf[pos++]!; n += (b & 0x7f) * mul; mul *= 128; } while (b & 0x80);
        for (let i = 0; i < 2 * n; i++) {
          let v = 0;
          mul = 1; do { b = buf[pos++]!; v += (b & 0x7f) * mul; mul *= 128; } while (b & 0x80);
          x[i] = i & 1 ? unzigzag(v) : v; // id, value, id, value, ...
        }
        row.xn = n;
      }
      row.t = t; row.s = flags & 3; row.rt = rt; row.code = code; row.extra = (flags & F_EXTRA) !== 0;
      row.manual = (flags & F_MANUAL) !== 0; row.standing = standing;
      if (fn(row) === false) return;
    }
  }

  private materialize(row: Row, c: Chain): StoredResult {
    const extra = row.extra ? c.extras?.get(row.t) : undefined;
    const r: StoredResult = {
      t: row.t,
      status: RESULT_STATUS[row.s] ?? 'down',
      rt: row.rt < 0 ? null : row.rt,
      msg: row.code > 0 ? row.code - 1 : extra?.text ?? '',
      d: extra?.d ?? null,
    };
    if (row.manual) r.manual = true;
    if (row.standing) r.standing = row.standing;
    if (row.xn) r.x = row.x.slice(0, 2 * row.xn);
    return r;
  }

  private newPage(c: Chain): void {
    const page = this.free.pop() ?? this.grow();
    this.used[page] = 0;
    this.lastT[page] = -Infinity;
    this.next[page] = -1;
    if (c.tail >= 0) this.next[c.tail] = page; else c.head = page;
    c.tail = page;
    c.prevT = 0;
    c.prevDt = 0;
    c.prevMsg = -1;
  }

  /** A new slab: its first page is returned, the others go to the free list. */
  private grow(): number {
    const first = this.slabs.length * SLAB_PAGES;
    this.slabs.push(new Uint8Array(SLAB_PAGES * PAGE));
    const n = first + SLAB_PAGES;
    const used = new Uint16Array(n); used.set(this.used); this.used = used;
    const lastT = new Float64Array(n); lastT.set(this.lastT); this.lastT = lastT;
    const next = new Int32Array(n); next.set(this.next); this.next = next;
    for (let p = n - 1; p > first; p--) this.free.push(p);
    this.pages = n;
    return first;
  }

  private release(page: number): void {
    this.used[page] = 0;
    this.next[page] = -1;
    this.free.push(page);
  }
}

/** A row kept past the decoder's next call: its measurements copied out of the reused array. */
const copyRow = (row: Row): Row => ({ ...row, x: row.xn ? row.x.slice(0, 2 * row.xn) : [] });

function putVarint(buf: Uint8Array, pos: number, v: number): number {
  while (v >= 0x80) { buf[pos++] = (v % 0x80) | 0x80; v = Math.floor(v / 0x80); }
  buf[pos++] = v;
  return pos;
}
