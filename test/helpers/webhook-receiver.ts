// A real HTTP server on 127.0.0.1 that records every request a webhook sends and answers as the test
// plans: a status, a body, a delay, headers; in order, then the fallback.
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Received {
  method: string;
  /** Path and query. */
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  /** The body parsed as JSON, or undefined. */
  json: any;
}

export interface Answer { status: number; body?: string; delayMs?: number; headers?: Record<string, string> }

export class Receiver {
  readonly requests: Received[] = [];
  private readonly timers = new Set<NodeJS.Timeout>();
  /** Answers for the next requests, in order; then `fallback`. */
  plan: Answer[] = [];
  fallback: Answer = { status: 200, body: 'ok' };

  private readonly server: Server;
  url = '';

  private constructor() {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const body = Buffer.concat(chunks).toString('utf8');
        let json: unknown;
        try { json = JSON.parse(body); } catch { json = undefined; }
        this.requests.push({ method: req.method ?? '', path: req.url ?? '', headers: req.headers, body, json });
        const a = this.plan.shift() ?? this.fallback;
        const answer = () => {
          if (res.destroyed) return;
          res.writeHead(a.status, { 'content-type': 'text/plain', ...a.headers });
          res.end(a.body ?? '');
        };
        if (!a.delayMs) { answer(); return; }
        const timer = setTimeout(() => { this.timers.delete(timer); answer(); }, a.delayMs);
        this.timers.add(timer);
      });
    });
  }

  static async start(): Promise<Receiver> {
    const r = new Receiver();
    await new Promise<void>((resolve) => r.server.listen(0, '127.0.0.1', resolve));
    r.url = `http://127.0.0.1:${(r.server.address() as AddressInfo).port}`;
    return r;
  }

  /** Waits until at least n requests arrived (polling real time), and returns them all. */
  async waitFor(n: number, timeoutMs = 5000): Promise<Received[]> {
    const end = Date.now() + timeoutMs;
    while (this.requests.length < n) {
      if (Date.now() > end) throw new Error(`expected ${n} webhook requests, got ${this.requests.length}`);
      await new Promise((r) => setTimeout(r, 10));
    }
    return this.requests;
  }

  async close(): Promise<void> {
    for (const timer of this.timers) clearTimeout(timer);
    this.server.closeAllConnections();
    await new Promise<void>((r) => this.server.close(() => r()));
  }
}
