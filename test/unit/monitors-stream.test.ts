// The list writer (src/modules/monitors/stream.ts) on a real HTTP server over loopback: items copied into
// reused piece buffers must come out whole and in order, whatever their sizes, for lists answered at the
// same time, for a reader that stops reading for a while, and after a client that went away mid-list.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, request, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { PIECE, SLICE_MS, writeJsonList, type ListItems } from '../../src/modules/monitors/stream.js';

/** Items as listLines gives them: JSON values; every third left out when `skip` is set. */
function itemsOf(values: unknown[], skip = false): ListItems & { kept: unknown[] } {
  const bytes = values.map((v) => Buffer.from(JSON.stringify(v)));
  const left = (i: number) => skip && i % 3 === 0;
  return { length: bytes.length, at: (i) => (left(i) ? null : bytes[i]!), kept: values.filter((_, i) => !left(i)) };
}

/**
 * Items as the list image gives them (list-image.ts): runs of a joined copy, each item followed by a comma.
 * Every call makes a new copy and spoils the one before, as a rebuild between two pieces may: a writer that
 * kept a run's bytes past the call would send the spoiled ones. From `fallBackAt` on there are no runs, as
 * after the list's order changed.
 */
function runItemsOf(values: unknown[], fallBackAt = Infinity): ListItems & { calls: () => number } {
  const bytes = values.map((v) => Buffer.from(JSON.stringify(v)));
  const starts = [0];
  for (const b of bytes) starts.push(starts.at(-1)! + b.length + 1);
  let image = Buffer.concat(bytes.flatMap((b) => [b, Buffer.from(',')]));
  let calls = 0;
  return {
    length: bytes.length,
    at: (i) => bytes[i]!,
    run: (i, room) => {
      calls++;
      if (i >= fallBackAt) return null;
      const fresh = Buffer.from(image);
      image.fill(0x21); // '!'
      image = fresh;
      let next = i + 1;
      while (next < bytes.length && starts[next + 1]! - 1 - starts[i]! <= room) next++;
      return { bytes: image, start: starts[i]!, end: starts[next]! - 1, next };
    },
    calls: () => calls,
  };
}

let lists: Record<string, unknown[]> = {};
let finished = 0;
const server: Server = createServer((req, res) => {
  const [name, how] = req.url!.slice(1).split('?');
  const items = how === 'runs' ? runItemsOf(lists[name!]!) : itemsOf(lists[name!]!, how === 'skip');
  void writeJsonList(res, 'things', items).then(() => { finished++; });
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

test('items spanning many pieces, one larger than a piece, an empty list and items left out come out whole and in order', async () => {
  lists = {
    many: big(3000, 500), // about 1.6 MiB: 7 pieces
    huge: [{ a: 1 }, { blob: 'y'.repeat(PIECE + 1000) }, { b: 2 }],
    exact: [1, 'z'.repeat(PIECE - 2), 'w'.repeat(PIECE - 3), 2], // items of a piece's size and one byte less
    edge: big(1, PIECE - 40), // the first piece ends right at its size
    none: [],
  };
  for (const [name, values] of Object.entries(lists)) {
    const r = await get(`/${name}`);
    assert.equal(r.status, 200);
    assert.match(r.type, /^application\/json/);
    assert.deepEqual(JSON.parse(r.body), { things: values }, name);
    // Every third item left out, the first among them: the commas go between the items kept only.
    const kept = await get(`/${name}?skip`);
    assert.deepEqual(JSON.parse(kept.body), { things: itemsOf(values, true).kept }, `${name}, some left out`);
    // The same items in runs: one larger than a piece goes item by item, the others as runs.
    assert.equal((await get(`/${name}?runs`)).body, r.body, `${name}, in runs`);
  }
});

test('runs fill each piece, and a list whose runs stop (its order changed) goes on item by item', async () => {
  const values = big(3000, 500); // about 1.6 MiB: 7 pieces
  const whole = instantResponse();
  const runs = runItemsOf(values);
  await writeJsonList(whole, 'things', runs);
  assert.deepEqual(JSON.parse(whole.body()), { things: values });
  assert.ok(runs.calls() <= 2 * Math.ceil(whole.body().length / PIECE) + 2, `about two runs a piece (${runs.calls()} calls)`);
  for (const at of [0, 1, 1234, 2999]) {
    const res = instantResponse();
    await writeJsonList(res, 'things', runItemsOf(values, at));
    assert.deepEqual(JSON.parse(res.body()), { things: values }, `no runs from item ${at} on`);
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

/**
 * A response whose socket takes every write at once (its callbacks come on the next tick, as node's do for
 * a write the kernel took whole): the writer then turns the event loop only where it chooses to.
 */
function instantResponse(): ServerResponse & { body: () => string } {
  const parts: Buffer[] = [];
  const res = {
    destroyed: false,
    writeHead: () => res,
    once: () => res,
    off: () => res,
    write: (b: Buffer, cb: (e?: Error) => void) => { parts.push(Buffer.from(b)); process.nextTick(cb); return true; },
    end: (b: Buffer, cb: () => void) => { parts.push(Buffer.from(b)); process.nextTick(cb); return res; },
    body: () => Buffer.concat(parts).toString(),
  };
  return res as unknown as ServerResponse & { body: () => string };
}

test('a list lets other work run once it has held the event loop for a slice, and not before', async (t) => {
  const values = big(2000, 400); // about 0.9 MiB: 4 pieces
  const bytes = values.map((v) => Buffer.from(JSON.stringify(v)));
  // The writer's clock, moved by the items below: what a slice holds does not depend on this machine's speed.
  let clock = 0;
  t.mock.method(performance, 'now', () => clock);

  // Items made in no time: the whole list is written before anything else runs.
  let turned = false;
  setImmediate(() => { turned = true; });
  const quick = instantResponse();
  await writeJsonList(quick, 'things', { length: bytes.length, at: (i) => bytes[i]! });
  assert.equal(turned, false, 'a list shorter than a slice did not turn the loop');
  assert.deepEqual(JSON.parse(quick.body()), { things: values });
  await new Promise((r) => setImmediate(r));

  // Items slow to make: each piece takes longer than a slice, so a check due meanwhile runs between pieces.
  turned = false;
  setImmediate(() => { turned = true; });
  let askedAfterTurn = -1;
  const slow = instantResponse();
  await writeJsonList(slow, 'things', {
    length: bytes.length,
    at: (i) => {
      if (turned && askedAfterTurn < 0) askedAfterTurn = i;
      if (i % 100 === 0) clock += SLICE_MS / 2;
      return bytes[i]!;
    },
  });
  assert.ok(askedAfterTurn > 0 && askedAfterTurn < bytes.length, `the loop turned mid-list (first item after it: ${askedAfterTurn})`);
  assert.deepEqual(JSON.parse(slow.body()), { things: values });
});
