// Server-sent events on a raw Node response: the job progress streams and the live log.
//
// Messages carry no `event:` field, so a browser EventSource gets every one through onmessage; the
// message type is the `type` inside the JSON data. A client that cannot keep up (more than
// MAX_BUFFERED_BYTES queued on its socket) is disconnected rather than buffered without bound; it
// reconnects with Last-Event-ID and the replay fills the gap.

import type { IncomingMessage, ServerResponse } from 'node:http';
import type { JobEvent, JobManager } from '../jobs.js';
import { notFound } from '../errors.js';

export interface SseStream {
  send(data: object, opts?: { id?: number | string; event?: string }): void;
  comment(text: string): void;
  close(): void;
  onClose(fn: () => void): void;
  readonly closed: boolean;
  /** The Last-Event-ID request header, when the client is resuming. */
  lastEventId: string | undefined;
}

export interface SseOptions {
  /** Interval of the `: ping` comment that keeps proxies and NAT tables from dropping the stream. */
  heartbeatMs?: number;
  /** Disconnect a client whose unsent backlog exceeds this; default 1 MiB. */
  maxBufferedBytes?: number;
}

const MAX_BUFFERED_BYTES = 1024 * 1024;

/** A field value on one line: SSE would split a value at CR or LF. */
const oneLine = (s: string) => s.replace(/[\r\n]+/g, ' ');

export function openSse(req: IncomingMessage, res: ServerResponse, opts: SseOptions = {}): SseStream {
  const heartbeatMs = opts.heartbeatMs ?? 15_000;
  const maxBuffered = opts.maxBufferedBytes ?? MAX_BUFFERED_BYTES;
  const closeFns: (() => void)[] = [];
  let closed = false;

  res.writeHead(200, {
    'Content-Type': 'text/event-stream', // always UTF-8 by definition
    'Cache-Control': 'no-cache, no-transform',
    Connection: 'keep-alive',
    'X-Accel-Buffering': 'no',
  });
  res.flushHeaders();
  req.socket.setNoDelay(true);
  req.socket.setTimeout(0); // a quiet stream between heartbeats is not an idle connection

  const write = (chunk: string) => {
    if (closed) return;
    res.write(chunk);
    if (res.writableLength > maxBuffered) {
      // A stalled client: drop the connection (end() would keep the backlog until it drains).
      teardown();
      res.destroy();
    }
  };

  const heartbeat = setInterval(() => write(': ping\n\n'), heartbeatMs);
  heartbeat.unref();

  const teardown = () => {
    if (closed) return;
    closed = true;
    clearInterval(heartbeat);
    for (const fn of closeFns.splice(0)) {
      try { fn(); } catch { /* one failing cleanup must not skip the others */ }
    }
  };
  // 'close' on the response fires when the client goes away and after end(); req's 'close' does not
  // reliably mean the connection is gone.
  res.on('close', teardown);

  const header = req.headers['last-event-id'];
  const stream: SseStream = {
    lastEventId: Array.isArray(header) ? header[0] : header,
    get closed() { return closed; },
    send(data, o = {}) {
      let msg = '';
      if (o.id !== undefined) msg += `id: ${oneLine(String(o.id))}\n`;
      if (o.event !== undefined) msg += `event: ${oneLine(o.event)}\n`;
      msg += `data: ${JSON.stringify(data)}\n\n`;
      write(msg);
    },
    comment(text) {
      write(text.split(/\r\n|\r|\n/).map((l) => `: ${l}\n`).join('') + '\n');
    },
    close() {
      if (closed) return;
      teardown();
      res.end();
    },
    onClose(fn) {
      if (closed) { fn(); return; }
      closeFns.push(fn);
    },
  };
  return stream;
}

/** Where to resume: the Last-Event-ID header, else the `last_event_id` query parameter, else 0. */
function resumeAfter(req: IncomingMessage): number {
  const header = req.headers['last-event-id'];
  let raw = Array.isArray(header) ? header[0] : header;
  if (raw === undefined || raw === '') {
    raw = new URL(req.url ?? '/', 'http://localhost').searchParams.get('last_event_id') ?? undefined;
  }
  const n = Number(raw);
  return Number.isSafeInteger(n) && n > 0 ? n : 0;
}

const FINAL_TYPES = new Set(['completed', 'failed', 'cancelled']);

/**
 * Streams a job's events: replays those buffered after Last-Event-ID (or ?last_event_id=), follows
 * live, and ends the stream after the final event. The SSE id of each message is the event's id.
 *
 * The caller checks the job exists and throws HttpError 404 before calling; as a safety net this
 * throws the same 404 itself, before anything is written. A client resuming after the final event
 * (an EventSource reconnecting after the stream ended) gets 204 No Content, which tells EventSource
 * to stop reconnecting.
 */
export function streamJob(req: IncomingMessage, res: ServerResponse, jobs: JobManager, jobId: string): void {
  const job = jobs.get(jobId);
  if (!job) throw notFound('Job');
  const after = resumeAfter(req);
  const finished = job.state === 'completed' || job.state === 'failed' || job.state === 'cancelled';
  if (finished && jobs.events(jobId, after).length === 0) {
    res.writeHead(204, { 'Cache-Control': 'no-cache' });
    res.end();
    return;
  }

  const stream = openSse(req, res);
  const onEvent = (ev: JobEvent) => {
    if (stream.closed) return;
    stream.send(ev, { id: ev.id });
    if (FINAL_TYPES.has(ev.type)) stream.close();
  };
  // subscribe replays synchronously, so the stream may already be closed when it returns; onClose
  // then unsubscribes at once.
  const unsubscribe = jobs.subscribe(jobId, onEvent, after);
  stream.onClose(unsubscribe);
}
