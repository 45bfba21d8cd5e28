// The list writer (src/modules/monitors/stream.ts) on a real HTTP server over loopback: items copied into
// reused piece buffers must come out whole and in order, whatever their sizes, for lists answered at the
// same time, for a reader that stops reading for a while, and after a client that went away mid-list.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { PIECE, writeJsonList } from '../../src/modules/monitors/stream.js';

/** Items as listLines makes them: JSON values, each but the first with a leading comma. */
function itemsOf(values: unknown[]): Buffer[] {
  return values.map((v, i) => Buffer.from(`${i ? ',' : ''}${JSON.stringify(v)}`));
}

let lists: Record<string, unknown[]> = {};
let finished = 0;
const server: Server = createServer((req, res) => {
  const values = lists[req.url!.slice(1)]!;
  void writeJsonList(res, 'things', itemsOf(values)).then(() => { finished++; });
});
await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
const port = (server.address() as AddressInfo).port;
after(() => new Promise<void>((r) => server.close(() => r())));

function get(path: string, pauseMs = 0): Promise<{ status: number; type: string; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ port, host: '127.0.0.1', path }, (res) => {
      const chunks: Buffer[] = [];
      if (pauseMs) { res.pause(); setTimeout(() => res.resume(), pauseMs); }
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode!, type: String(res.headers['content-type']), body: Buffer.concat(chunks).toString() }));
    });
    req.on('error', reject);
    req.end();
  });
}

const big = (n: number, pad: number) => Array.from({ length: n }, (_, i) => ({ i, name: `thing ${i} é`, pad: 'x'.repeat(pad) }));

test('items spanning many pieces, one larger than a piece, and an empty list come out whole and in order', async () => {
  lists = {
    many: big(3000, 500), // about 1.6 MiB: 7 pieces
    huge: [{ a: 1 }, { blob: 'y'.repeat(PIECE + 1000) }, { b: 2 }],
    edge: big(1, PIECE - 40), // the first piece ends right at its size
    none: [],
  };
  for (const [name, values] of Object.entries(lists)) {
    const r = await get(`/${name}`);
    assert.equal(r.status, 200);
    assert.match(r.type, /^application\/json/);
    assert.deepEqual(JSON.parse(r.body), { things: values }, name);
  }
});

test('lists answered at the same time, one to a reader that pauses, do not share a buffer', async () => {
  // The paused reader's list (about 9 MiB) is more than the sockets' buffers hold: writes queue in node.
  lists = { a: big(20_000, 400), b: big(2500, 200).map((v) => ({ ...v, other: true })) };
  const [a, b, a2] = await Promise.all([get('/a', 300), get('/b'), get('/a')]);
  assert.deepEqual(JSON.parse(a.body), { things: lists.a });
  assert.deepEqual(JSON.parse(b.body), { things: lists.b });
  assert.deepEqual(JSON.parse(a2.body), { things: lists.a });
});

test('a client that goes away mid-list ends the writer; the next lists are whole', async () => {
  lists = { long: big(20_000, 400) }; // about 9 MiB: more than the socket buffers hold
  const before = finished;
  await new Promise<void>((resolve) => {
    const req = request({ port, host: '127.0.0.1', path: '/long' }, (res) => {
      res.once('data', () => { req.destroy(); resolve(); });
    });
    req.on('error', () => undefined);
    req.end();
  });
  for (let i = 0; i < 100 && finished === before; i++) await new Promise((r) => setTimeout(r, 20));
  assert.equal(finished, before + 1, 'the writer returned after the client went away');
  lists = { after: big(1500, 300) };
  for (let i = 0; i < 3; i++) assert.deepEqual(JSON.parse((await get('/after')).body), { things: lists.after });
});
