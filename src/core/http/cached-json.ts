// A JSON document served many times as it is (the OpenAPI document; status badges for a second),
// serialised once and compressed once, when a client first asks for gzip. Every response then writes the
// same Buffer, which a socket holds by reference: a thousand clients reading it slowly cost no more
// memory than one.
import { createHash } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { gzipSync } from 'node:zlib';

export class CachedJson {
  readonly plain: Buffer;
  readonly etag: string;
  private gzipped: Buffer | null = null;

  constructor(value: unknown, private readonly gzipLevel = 9) {
    this.plain = Buffer.from(JSON.stringify(value));
    this.etag = `"${createHash('sha256').update(this.plain).digest('base64url').slice(0, 27)}"`;
  }

  get gzip(): Buffer {
    this.gzipped ??= gzipSync(this.plain, { level: this.gzipLevel });
    return this.gzipped;
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
