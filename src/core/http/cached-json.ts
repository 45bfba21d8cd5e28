// A large JSON document that rarely changes (the OpenAPI document), serialised and compressed once.
// Every response then writes the same Buffer, which a socket holds by reference: a thousand clients
// reading it slowly cost no more memory than one.
import { createHash } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { gzipSync } from 'node:zlib';

export class CachedJson {
  readonly plain: Buffer;
  readonly gzip: Buffer;
  readonly etag: string;

  constructor(value: unknown) {
    this.plain = Buffer.from(JSON.stringify(value));
    this.gzip = gzipSync(this.plain, { level: 9 });
    this.etag = `"${createHash('sha256').update(this.plain).digest('base64url').slice(0, 27)}"`;
  }

  send(req: IncomingMessage, res: ServerResponse): void {
    const headers: Record<string, string> = {
      'Content-Type': 'application/json; charset=utf-8', 'Cache-Control': 'no-cache', ETag: this.etag, Vary: 'Accept-Encoding',
    };
    if (req.headers['if-none-match'] === this.etag) {
      res.writeHead(304, headers).end();
      return;
    }
    const gz = /\bgzip\b/.test(String(req.headers['accept-encoding'] ?? ''));
    const body = gz ? this.gzip : this.plain;
    if (gz) headers['Content-Encoding'] = 'gzip';
    headers['Content-Length'] = String(body.length);
    res.writeHead(200, headers);
    res.end(req.method === 'HEAD' ? undefined : body);
  }
}
