import { test } from 'node:test';
import assert from 'node:assert/strict';
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { HttpError } from '../../src/core/errors.js';
import { openSse, streamJob, type SseStream } from '../../src/core/http/sse.js';
import { JobManager } from '../../src/core/jobs.js';
import { Logger } from '../../src/core/log.js';

const quiet = Logger.create({ write: () => {} });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

/** A real server on 127.0.0.1, port 0; errors thrown by the handler become their status. */
async function serve(handler: Handler) {
  const server = http.createServer((req, res) => {
    try {
      handler(req, res);
    } catch (e) {
      const status = e instanceof HttpError ? e.status : 500;
      res.writeHead(status, { 'Content-Type': 'application/problem+json' }).end(JSON.stringify({ status }));
    }
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () => new Promise<void>((r) => { server.closeAllConnections(); server.close(() => r()); }),
  };
}

interface SseMessage { id?: string; event?: string; data: string }

/** A real client: reads the raw stream and parses it into messages and comments as they arrive. */
class Client {
  raw = '';
  messages: SseMessage[] = [];
  comments: string[] = [];
  ended = false;
  res!: IncomingMessage;
  private req!: http.ClientRequest;
  private buf = '';

  static open(url: string, headers: Record<string, string> = {}): Promise<Client> {
    const c = new Client();
    return new Promise((resolve, reject) => {
      c.req = http.get(url, { headers: { Accept: 'text/event-stream', ...headers } }, (res) => {
        c.res = res;
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => c.feed(chunk));
        res.on('end', () => { c.ended = true; });
        res.on('error', () => {});
        resolve(c);
      });
      c.req.on('error', reject);
    });
  }

  private feed(chunk: string): void {
    this.raw += chunk;
    this.buf += chunk;
    let i: number;
    while ((i = this.buf.indexOf('\n\n')) >= 0) {
      const block = this.buf.slice(0, i);
      this.buf = this.buf.slice(i + 2);
      const msg: SseMessage = { data: '' };
      let isMessage = false;
      for (const line of block.split('\n')) {
        if (line.startsWith(':')) { this.comments.push(line.slice(1).trim()); continue; }
        const [field, ...rest] = line.split(':');
        const value = rest.join(':').replace(/^ /, '');
        if (field === 'data') { msg.data += value; isMessage = true; } else if (field === 'id') msg.id = value;
        else if (field === 'event') msg.event = value;
      }
      if (isMessage) this.messages.push(msg);
    }
  }

  json(): Record<string, unknown>[] { return this.messages.map((m) => JSON.parse(m.data) as Record<string, unknown>); }

  async until(cond: () => boolean, ms = 3000): Promise<void> {
    const end = Date.now() + ms;
    while (!cond()) {
      if (Date.now() > end) throw new Error(`timed out; got so far: ${JSON.stringify(this.raw)}`);
      await sleep(10);
    }
  }

  destroy(): void { this.req.destroy(); }
}

test('openSse sends the headers at once, messages as JSON lines, and comments', async () => {
  let stream!: SseStream;
  const srv = await serve((req, res) => { stream = openSse(req, res); });
  try {
    const c = await Client.open(srv.url, { 'Last-Event-ID': '41' });
    // The response event fired before any message: the headers were flushed on their own.
    assert.equal(c.res.statusCode, 200);
    assert.equal(c.res.headers['content-type'], 'text/event-stream');
    assert.equal(c.res.headers['cache-control'], 'no-cache, no-transform');
    assert.equal(c.res.headers.connection, 'keep-alive');
    assert.equal(c.res.headers['x-accel-buffering'], 'no');
    assert.equal(c.raw, '');
    assert.equal(stream.lastEventId, '41');

    stream.send({ type: 'x', progress: 0, text: 'two\nlines' }, { id: 42 });
    stream.send({ type: 'y', progress: 1 }, { event: 'named\nevent', id: 'a\rb' });
    stream.comment('hello\nworld');
    await c.until(() => c.messages.length === 2 && c.comments.length === 2);
    assert.deepEqual(c.messages[0], { id: '42', data: '{"type":"x","progress":0,"text":"two\\nlines"}' });
    assert.deepEqual(c.messages[1], { id: 'a b', event: 'named event', data: '{"type":"y","progress":1}' });
    assert.deepEqual(c.comments, ['hello', 'world']);

    stream.close();
    await c.until(() => c.ended);
    assert.equal(stream.closed, true);
    stream.send({ type: 'after', progress: 0 }); // ignored, no throw
  } finally { await srv.close(); }
});

test('heartbeat comments arrive every heartbeatMs', async () => {
  const srv = await serve((req, res) => { openSse(req, res, { heartbeatMs: 40 }); });
  try {
    const c = await Client.open(srv.url);
    await c.until(() => c.comments.filter((x) => x === 'ping').length >= 3);
    assert.equal(c.messages.length, 0);
    c.destroy();
  } finally { await srv.close(); }
});

test('a client disconnect closes the stream, stops the heartbeat and runs onClose', async () => {
  let stream!: SseStream;
  let closedCalls = 0;
  const srv = await serve((req, res) => {
    stream = openSse(req, res, { heartbeatMs: 20 });
    stream.onClose(() => { closedCalls++; });
  });
  try {
    const c = await Client.open(srv.url);
    await c.until(() => c.comments.length >= 1);
    c.destroy();
    await c.until(() => stream.closed);
    assert.equal(closedCalls, 1);
    stream.send({ type: 'late', progress: 0 }); // no throw after close
    let late = false;
    stream.onClose(() => { late = true; }); // registered after close: runs at once
    assert.equal(late, true);
    await sleep(60);
    assert.equal(closedCalls, 1);
  } finally { await srv.close(); }
});

/** A job driven by the test: it emits progress when told and finishes when released. */
function gatedJob(jobs: JobManager) {
  let step!: (pct: number) => void;
  let finish!: () => void;
  const done = new Promise<void>((r) => { finish = r; });
  const job = jobs.start('scan', async (ctl) => {
    step = (pct) => ctl.progress(pct, { note: `at ${pct}` });
    await done;
    return { hosts: 2 };
  });
  return { job, step: (pct: number) => step(pct), finish: () => finish() };
}

test('streamJob follows a job live and closes after the final event', async () => {
  const jobs = new JobManager({ log: quiet });
  const g = gatedJob(jobs);
  const srv = await serve((req, res) => streamJob(req, res, jobs, g.job.id));
  try {
    await sleep(10);
    const c = await Client.open(srv.url);
    await c.until(() => c.messages.length === 1);
    g.step(30);
    g.step(60);
    await c.until(() => c.messages.length === 3);
    assert.equal(c.ended, false);
    g.finish();
    await c.until(() => c.ended);
    assert.deepEqual(c.messages.map((m) => m.id), ['1', '2', '3', '4']);
    const data = c.json();
    assert.deepEqual(data.map((d) => d.type), ['started', 'progress', 'progress', 'completed']);
    assert.deepEqual(data.map((d) => d.progress), [0, 30, 60, 100]);
    for (const d of data) assert.ok('type' in d && 'progress' in d);
    assert.deepEqual(data[3]!.result, { hosts: 2 });
  } finally { await srv.close(); }
});

test('streamJob replays after Last-Event-ID (header or query), then follows', async () => {
  const jobs = new JobManager({ log: quiet });
  const g = gatedJob(jobs);
  const srv = await serve((req, res) => streamJob(req, res, jobs, g.job.id));
  try {
    await sleep(10);
    g.step(10);
    g.step(20);
    g.step(30); // events 1..4 buffered

    const byHeader = await Client.open(srv.url, { 'Last-Event-ID': '2' });
    await byHeader.until(() => byHeader.messages.length === 2);
    assert.deepEqual(byHeader.messages.map((m) => m.id), ['3', '4']);

    const byQuery = await Client.open(`${srv.url}/?last_event_id=3`);
    await byQuery.until(() => byQuery.messages.length === 1);
    assert.deepEqual(byQuery.messages.map((m) => m.id), ['4']);

    g.finish();
    await byHeader.until(() => byHeader.ended);
    await byQuery.until(() => byQuery.ended);
    assert.deepEqual(byHeader.messages.map((m) => m.id), ['3', '4', '5']);
    assert.deepEqual(byQuery.messages.map((m) => m.id), ['4', '5']);
    assert.equal(byQuery.json().at(-1)!.type, 'completed');
  } finally { await srv.close(); }
});

test('streamJob on a finished job replays and closes; after the final event it answers 204', async () => {
  const jobs = new JobManager({ log: quiet });
  const job = jobs.start('scan', async (ctl) => { ctl.progress(50); throw new Error('no route'); });
  await jobs.waitFor(job.id);
  const srv = await serve((req, res) => streamJob(req, res, jobs, job.id));
  try {
    const all = await Client.open(srv.url);
    await all.until(() => all.ended);
    assert.deepEqual(all.json().map((d) => [d.type, d.progress]), [['started', 0], ['progress', 50], ['failed', 50]]);
    assert.equal(all.json()[2]!.error, 'no route');

    const resumed = await Client.open(srv.url, { 'Last-Event-ID': '3' });
    await resumed.until(() => resumed.ended);
    assert.equal(resumed.res.statusCode, 204);
    assert.equal(resumed.raw, '');
  } finally { await srv.close(); }
});

test('streamJob throws 404 for an unknown job before writing anything', async () => {
  const jobs = new JobManager({ log: quiet });
  const srv = await serve((req, res) => streamJob(req, res, jobs, 'no-such-job'));
  try {
    const c = await Client.open(srv.url);
    await c.until(() => c.ended);
    assert.equal(c.res.statusCode, 404);
  } finally { await srv.close(); }
});

test('a client leaving a job stream unsubscribes; the job carries on', async () => {
  const jobs = new JobManager({ log: quiet });
  const g = gatedJob(jobs);
  let unsubscribed = 0;
  const subscribe = jobs.subscribe.bind(jobs);
  jobs.subscribe = (id, fn, after) => {
    const off = subscribe(id, fn, after);
    return () => { unsubscribed++; off(); };
  };
  let serverRes!: ServerResponse;
  const srv = await serve((req, res) => { serverRes = res; streamJob(req, res, jobs, g.job.id); });
  try {
    await sleep(10);
    const c = await Client.open(srv.url);
    await c.until(() => c.messages.length === 1);
    c.destroy();
    await c.until(() => serverRes.closed);
    assert.equal(unsubscribed, 1);
    g.step(50); // delivered to nobody, and nothing written to the closed response
    g.finish();
    assert.equal((await jobs.waitFor(g.job.id)).state, 'completed');
    assert.equal(serverRes.writableEnded, false);
  } finally { await srv.close(); }
});

test('a client that stops reading is disconnected instead of buffered without bound', async () => {
  let stream!: SseStream;
  const srv = await serve((req, res) => { stream = openSse(req, res, { maxBufferedBytes: 64 * 1024 }); });
  try {
    const c = await Client.open(srv.url);
    c.res.pause(); // stop reading
    const blob = 'x'.repeat(64 * 1024);
    for (let i = 0; i < 2000 && !stream.closed; i++) {
      stream.send({ type: 'log', progress: 0, blob });
      if (i % 16 === 0) await sleep(1);
    }
    assert.equal(stream.closed, true);
    c.destroy();
  } finally { await srv.close(); }
});
