// Keeps what slow or greedy clients can cost bounded. Node parses every request a client pipelines in
// one packet at once, and a response written while an earlier one is still queued is buffered whole
// in memory: 50 pipelined requests from a client that never reads held 50 responses. So a request
// waits for its turn (its response is the one on the socket, and the socket has drained) before any
// work is done for it; connections are counted in total and per address; and a socket whose response
// has stopped draining is cut when the timeout passes. A connection over the limits never reaches the
// server's own handling (HTTP's parser, TLS's handshake): it costs no request objects, and no aborted
// request errors when it closes. One address opening 2,000 connections a second with pipelined requests
// spent about a fifth of the service's time creating those errors' stack traces before.
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { normaliseAddress } from '../net.js';

export interface ConnectionLimits {
  maxConnections: number;
  maxPerAddress: number;
  /** Request headers and body must arrive within it; a response that makes no progress for it is cut. */
  timeoutMs: number;
}

/** Applies the limits to a server; `limits()` is read for each connection, so configuration applies live. */
export function guardConnections(server: Server, limits: () => ConnectionLimits): void {
  const perAddress = new Map<string, number>();
  let total = 0;
  const initial = limits();
  server.requestTimeout = initial.timeoutMs;
  server.headersTimeout = Math.min(15_000, initial.timeoutMs);
  server.keepAliveTimeout = 5000;

  // A response whose bytes stop leaving (the client does not read) is cut once it has made no progress
  // for the timeout. A handler that is still working (an SNMP walk) writes nothing and is not stuck.
  const stuckSince = new Map<Socket, { length: number; since: number }>();
  const sweep = setInterval(() => {
    const now = Date.now(), limit = limits().timeoutMs;
    for (const [socket, seen] of stuckSince) {
      const length = socket.writableLength;
      if (socket.destroyed) stuckSince.delete(socket);
      else if (length === 0 || length < seen.length) stuckSince.set(socket, { length, since: now });
      else if (now - seen.since >= limit) socket.destroy();
      else seen.length = length;
    }
  }, 1000);
  sweep.unref();
  server.once('close', () => clearInterval(sweep));

  // The server's own connection listeners run only for connections within the limits (see the top).
  const serve = server.listeners('connection') as ((socket: Socket) => void)[];
  server.removeAllListeners('connection');
  server.on('connection', (socket: Socket) => {
    const l = limits();
    const addr = normaliseAddress(socket.remoteAddress);
    const mine = (perAddress.get(addr) ?? 0) + 1;
    if (total + 1 > l.maxConnections || mine > l.maxPerAddress) {
      const why = total + 1 > l.maxConnections ? 'the probe has too many open connections'
        : `too many open connections from ${addr} (at most ${l.maxPerAddress})`;
      refuse(socket, why);
      return;
    }
    total++;
    perAddress.set(addr, mine);
    stuckSince.set(socket, { length: 0, since: Date.now() });
    socket.once('close', () => {
      total--;
      const n = (perAddress.get(addr) ?? 1) - 1;
      if (n > 0) perAddress.set(addr, n);
      else perAddress.delete(addr);
      stuckSince.delete(socket);
    });
    for (const listener of serve) listener.call(server, socket);
  });
}

/** A minimal 503 problem, written straight to the socket since no request has been parsed yet. */
function refuse(socket: Socket, detail: string): void {
  const body = JSON.stringify({
    type: 'https://netprobe.local/problems/too_many_connections', title: 'Service Unavailable', status: 503,
    detail: `Connection refused: ${detail}; close idle connections and retry`, code: 'too_many_connections',
  });
  socket.on('error', () => undefined);
  socket.end(
    'HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/problem+json; charset=utf-8\r\n' +
    `Retry-After: 5\r\nConnection: close\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
  );
  setTimeout(() => socket.destroy(), 1000).unref();
}

/**
 * Resolves true once `res` is the response its socket is writing and the socket has drained, so the
 * request can be handled without piling up output; false when the connection went away meanwhile.
 */
export function waitForTurn(req: IncomingMessage, res: ServerResponse): Promise<boolean> {
  const socket = req.socket;
  if (res.socket && !res.socket.writableNeedDrain) return Promise.resolve(true);
  return new Promise<boolean>((resolve) => {
    let waitingOn: { emitter: NodeJS.EventEmitter; event: string } | null = null;
    const finish = (ok: boolean) => {
      onSocketClose(socket).delete(gone);
      if (waitingOn) waitingOn.emitter.off(waitingOn.event, step);
      resolve(ok);
    };
    const gone = () => finish(false);
    const wait = (emitter: NodeJS.EventEmitter, event: string) => {
      waitingOn = { emitter, event };
      emitter.once(event, step);
    };
    function step(): void {
      waitingOn = null;
      if (socket.destroyed) return finish(false);
      const s = res.socket;
      if (!s) return wait(res, 'socket');
      if (s.writableNeedDrain) return wait(s, 'drain');
      finish(true);
    }
    onSocketClose(socket).add(gone);
    step();
  });
}

/** Callbacks for a socket's close: one listener per socket, however many requests it pipelines. */
const closeWaiters = new WeakMap<Socket, Set<() => void>>();
function onSocketClose(socket: Socket): Set<() => void> {
  let set = closeWaiters.get(socket);
  if (!set) {
    const waiters = new Set<() => void>();
    set = waiters;
    closeWaiters.set(socket, waiters);
    socket.once('close', () => { for (const f of [...waiters]) f(); });
  }
  return set;
}
