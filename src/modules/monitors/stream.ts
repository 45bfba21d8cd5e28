// Responses written in pieces. GET /api/monitors of 2,000 monitors is 1.2 MiB of JSON: made whole (2,000
// objects, then one string) it is held across several garbage collections while it is sent, lists
// answered back to back then pile it up in the old generation (about 90 MiB more resident memory, here),
// and making it holds the event loop for a few ms. Written 256 KiB at a time, the loop turns between
// pieces (a check due meanwhile starts on time); 64 KiB pieces cost more CPU per list (1.4 against 1.0 ms
// at 2,000 monitors) and let more other work in between, for no better lag.
//
// The pieces are copied into a buffer kept for the next list once the socket has taken it, not into new
// ones: 20 new 64 KiB buffers a list were external memory that V8 answers with full mark-compact
// collections every few lists when lists come back to back (measured: 16 ms incremental-marking steps on
// the main thread, slots late by up to 21 ms during lists).
import type { ServerResponse } from 'node:http';

/** Resolves when the response can take more data, or when it closed (the client went away). */
export function drainOrClose(res: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = () => { res.off('drain', done); res.off('close', done); resolve(); };
    res.on('drain', done);
    res.on('close', done);
  });
}

export const PIECE = 256 * 1024;
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
 * `{"<key>": [...]}` as sendJson would answer it (200, JSON, no-store), from the array's items as JSON
 * (UTF-8, each but the first with its leading comma, as the maker of the items arranged).
 */
export async function writeJsonList(res: ServerResponse, key: string, items: Iterable<Buffer>): Promise<void> {
  res.writeHead(200, { 'Content-Type': 'application/json; charset=utf-8', 'Cache-Control': 'no-store' });
  const buf = spare.pop() ?? Buffer.allocUnsafeSlow(PIECE);
  let n = buf.write(`{${JSON.stringify(key)}:[`);
  const flush = async (): Promise<boolean> => {
    if (!n) return true;
    const ok = await writeTaken(res, buf.subarray(0, n));
    n = 0;
    if (!ok) return false;
    await new Promise<void>((r) => setImmediate(r)); // the callback comes on the next tick: let timers and I/O run
    return !res.destroyed;
  };
  let open = true;
  for (const item of items) {
    if (n + item.length > PIECE && !(open = await flush())) break;
    if (item.length > PIECE) {
      // Items are cached and never changed in place: one larger than a piece goes as it is.
      if (!(open = await writeTaken(res, item))) break;
      continue;
    }
    n += item.copy(buf, n);
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
