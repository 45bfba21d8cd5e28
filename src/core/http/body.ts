// Reads a request body with a hard size limit, and parses JSON bodies into problem+json errors
// (415 wrong content type, 413 too large, 400 malformed, too deep or with forbidden keys or characters).
import type { IncomingMessage } from 'node:http';
import { HttpError } from '../errors.js';
import { parseGuardedJson } from './json-guard.js';

export async function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) throw tooLarge(limit);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) throw tooLarge(limit);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

function tooLarge(limit: number): HttpError {
  return new HttpError(413, 'body_too_large', `The request body exceeds the limit of ${formatBytes(limit)}`,
    { headers: { Connection: 'close' } });
}

function formatBytes(n: number): string {
  return n >= 1 << 20 ? `${(n / (1 << 20)).toFixed(0)} MiB` : `${(n / 1024).toFixed(0)} KiB`;
}

export function isJsonType(contentType: string | undefined): boolean {
  if (!contentType) return false;
  const t = contentType.split(';')[0]!.trim().toLowerCase();
  return t === 'application/json' || (t.startsWith('application/') && t.endsWith('+json'));
}

/** Parses a JSON body; an empty body is `{}` so all-optional bodies may be omitted. */
export async function readJson(req: IncomingMessage, limit: number): Promise<unknown> {
  const buf = await readBody(req, limit);
  if (buf.length === 0) return {};
  if (!isJsonType(req.headers['content-type']))
    throw new HttpError(415, 'unsupported_media_type', 'Send the request body as application/json');
  return parseGuardedJson(buf.toString('utf8'));
}
