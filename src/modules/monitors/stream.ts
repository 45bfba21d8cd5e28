// Responses written in pieces. GET /api/monitors of 2,000 monitors is 1.2 MiB of JSON: made whole (2,000
// objects, then one string) it is held across several garbage collections while it is sent, lists
// answered back to back then pile it up in the old generation (about 90 MiB more resident memory, here),
// and making it holds the event loop for a few ms. Written 256 KiB at a time, the loop turns between
// pieces once the list has held it for SLICE_MS (a check due meanwhile starts that late at most); 64 KiB
// pieces cost more CPU per list (1.4 against 1.0 ms at 2,000 monitors) for no better lag. Turning after
// every piece made the list wait for whatever else ran between its pieces: at 2,000 monitors, lists of
// 4-5 ms took 12-28 ms one time in a hundred (measured), where one slice of 3 ms holds the loop for less.
//
// An unfiltered list comes as runs of items already joined (list-image.ts): a few copies per piece.
//
// The pieces are copied into a buffer kept for the next list once the socket has taken it, not into new
// ones: 20 new 64 KiB buffers a list were external memory that V8 answers with full mark-compact
// collections every few lists when lists come back to back (measured: 16 ms incremental-marking steps on
// the main thread, slots late by up to 21 ms during lists).
import type { ServerResponse } from 'node:http';
import type { JoinedRun } from './list-image.js';

/** Resolves when the response can take more data, or when it closed (the client went away). */
export function drainOrClose(res: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = () => { res.off('drain', done); res.off('close', done); resolve(); };
    res.on('drain', done);
    res.on('close', done);
  });
}

export const PIECE = 256 * 1024;
/** How long a list holds the event loop before it lets other work run (a Pi takes several slices). */
export const SLICE_MS = 4;
/** Piece buffers no response is using; a list takes one and gives it back once its last write was taken. */
const spare: Buffer[] = [];
const SPARE_MAX = 4;

/**
 * Writes `buf` and resolves true once the socket has taken it (the buffer may then be reused), or false
 * if the response closed first (the buffer may still be referenced by a cancelled write: not reused).
 */
function writeTaken(res: ServerResponse, buf: Buffer): Promise<boolean> {
  return new Promise((resolve) => {
    const closed = () => resolve(false);
    res.once('close', closed);
    res.write(buf, (err) => { res.off('close', closed); resolve(!err); });
  });
}

/**
 * A list's items, made as they are asked for (making them is spread over the pieces too): at(i) is item
 * i's JSON (UTF-8), or null for one the request leaves out. Plain calls, not a generator: at 2,000 items
 * a generator's result objects were about 150 KiB of garbage a list.
 */
export interface ListItems {
  readonly length: number;
  at(i: number): Buffer | null;
  /**
   * Items from i on already joined by commas, as many as fit in `room` bytes (at least item i), or null
   * for "go item by item" (list-image.ts). Its bytes may change once the loop turns: copied at once.
   */
  run?(i: number, room: number): JoinedRun | null;
}

/** `{"<key>": [...]}` as sendJson would answer it (200, JSON, no-store). */
export async function writeJsonList(res: ServerResponse, key: string, items: ListItems): Promise<void> {
  res.writeHead(200, { 'Content-Type': 'application/json; charset=utf-8', 'Cache-Control': 'no-store' });
  const buf = spare.pop() ?? Buffer.allocUnsafeSlow(PIECE);
  let n = buf.write(`{${JSON.stringify(key)}:[`);
  let slice = performance.now();
  const flush = async (): Promise<boolean> => {
    if (!n) return true;
    const ok = await writeTaken(res, buf.subarray(0, n));
    n = 0;
    if (!ok) return false;
    if (performance.now() - slice >= SLICE_MS) {
      // The write's callback came on the next tick, not a turn of the loop: let timers and I/O run.
      await new Promise<void>((r) => setImmediate(r));
      slice = performance.now();
    }
    return !res.destroyed;
  };
  let open = true;
  let first = true;
  for (let i = 0; i < items.length; i++) {
    const sep = first ? 0 : 1;
    const run = items.run?.(i, PIECE - n - sep);
    if (run && n + sep + run.end - run.start <= PIECE) {
      if (sep) buf[n++] = 0x2c;
      first = false;
      buf.set(run.bytes.subarray(run.start, run.end), n);
      n += run.end - run.start;
      i = run.next - 1;
      continue;
    }
    if (run && n > 0) { // item i does not fit in what is left of this piece: it starts the next one
      if (!(open = await flush())) break;
      i--;
      continue;
    }
    const item = items.at(i);
    if (!item) continue;
    if (n + item.length + 1 > PIECE && !(open = await flush())) break;
    if (!first) buf[n++] = 0x2c; // ','
    first = false;
    if (n + item.length > PIECE) {
      // Items are cached and never changed in place: one larger than a piece goes as it is.
      if (!(open = await flush()) || !(open = await writeTaken(res, item))) break;
      continue;
    }
    buf.set(item, n); // not item.copy(): that makes a Uint8Array view per item
    n += item.length;
  }
  if (open && n + 2 > PIECE) open = await flush();
  if (!open) return; // the buffer is left to the collector
  n += buf.write(']}', n);
  const last = buf.subarray(0, n);
  const taken = new Promise<boolean>((resolve) => {
    const closed = () => resolve(false);
    res.once('close', closed);
    res.end(last, () => { res.off('close', closed); resolve(true); });
  });
  if (await taken && spare.length < SPARE_MAX) spare.push(buf);
}
