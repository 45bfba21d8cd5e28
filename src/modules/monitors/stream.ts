// Responses written in pieces. GET /api/monitors of 2,000 monitors is 1.2 MiB of JSON: made whole (2,000
// objects, then one string) it is held across several garbage collections while it is sent, lists
// answered back to back then pile it up in the old generation (about 90 MiB more resident memory, here),
// and making it holds the event loop for a few ms. Made and written about 64 KiB at a time, the loop turns
// between pieces (a check due meanwhile starts on time) and each piece is short-lived young garbage.
import type { ServerResponse } from 'node:http';

/** Resolves when the response can take more data, or when it closed (the client went away). */
export function drainOrClose(res: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = () => { res.off('drain', done); res.off('close', done); resolve(); };
    res.on('drain', done);
    res.on('close', done);
  });
}

/**
 * `{"<key>": [...]}` as sendJson would answer it (200, JSON, no-store), from pieces of the array's JSON
 * (UTF-8, comma-separated within and between pieces as the maker of the pieces arranged).
 */
export async function writeJsonList(res: ServerResponse, key: string, pieces: Iterable<Buffer>): Promise<void> {
  res.writeHead(200, { 'Content-Type': 'application/json; charset=utf-8', 'Cache-Control': 'no-store' });
  res.write(`{${JSON.stringify(key)}:[`);
  for (const piece of pieces) {
    if (res.destroyed) return;
    if (!res.write(piece)) await drainOrClose(res);
    else await new Promise<void>((r) => setImmediate(r));
  }
  res.end(']}');
}
