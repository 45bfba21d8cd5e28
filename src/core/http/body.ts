// Reads a request body with a hard size limit, and parses JSON bodies into problem+json errors
// (415 wrong content type, 413 too large, 400 not UTF-8, malformed, too deep or with forbidden keys or characters).
import { isUtf8 } from 'node:buffer';
import type { IncomingMessage } from 'node:http';
import { HttpError, type FieldError } from '../errors.js';
import { parseJsonFields } from './json-guard.js';

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

/** The media type of a request's body, lowercased, without its parameters ('' when none is given). */
export function mediaTypeOf(req: IncomingMessage): string {
  return String(req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
}

/**
 * A text body (a CSV or YAML upload) of one of the `allowed` media types (415 otherwise; `application/json` allows
 * any `+json` type too), at most `limit` bytes (413) and UTF-8 (400). `what` names it in the errors.
 */
export async function readTextBody(req: IncomingMessage, limit: number, allowed: readonly string[], what: string): Promise<string> {
  const type = mediaTypeOf(req);
  if (!allowed.includes(type) && !(allowed.includes('application/json') && type.endsWith('+json'))) {
    throw new HttpError(415, 'unsupported_media_type', `Send ${what} as ${allowed.join(', ')}`);
  }
  return decodeUtf8(await readBody(req, limit), `The body of ${what}`);
}

/**
 * Parses a JSON body; an empty body is `{}` so all-optional bodies may be omitted. Strings with characters
 * their field may not hold come back as field errors (json-guard.ts), for the route to report with its schema's.
 */
export async function readJson(req: IncomingMessage, limit: number): Promise<{ value: unknown; errors: FieldError[] }> {
  const buf = await readBody(req, limit);
  if (buf.length === 0) return { value: {}, errors: [] };
  if (!isJsonType(req.headers['content-type']))
    throw new HttpError(415, 'unsupported_media_type', 'Send the request body as application/json');
  return parseJsonFields(decodeUtf8(buf, 'The request body'));
}

/**
 * The text of a body that must be UTF-8 (JSON: RFC 8259 section 8.1); anything else is a 400 naming the first
 * bad byte, never text with U+FFFD where the bytes were. A leading byte order mark is ignored, as the RFC allows.
 */
export function decodeUtf8(buf: Buffer, what: string): string {
  if (!isUtf8(buf)) {
    const at = invalidUtf8At(buf);
    throw new HttpError(400, 'invalid_utf8', `${what} is not valid UTF-8: the bytes from offset ${at} ` +
      `(0x${buf[at]!.toString(16).padStart(2, '0')}) are no UTF-8 character`, { extra: { offset: at } });
  }
  const text = buf.toString('utf8');
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

/** Offset of the first sequence that is not well-formed UTF-8 (RFC 3629: no overlongs, surrogates or > U+10FFFF), or -1. */
export function invalidUtf8At(buf: Uint8Array): number {
  for (let i = 0; i < buf.length;) {
    const b = buf[i]!;
    if (b < 0x80) { i++; continue; }
    const more = b >= 0xc2 && b <= 0xdf ? 1 : b >= 0xe0 && b <= 0xef ? 2 : b >= 0xf0 && b <= 0xf4 ? 3 : 0;
    if (!more) return i;
    // The second byte's range is narrower after E0 and F0 (overlong), ED (surrogates) and F4 (beyond U+10FFFF).
    const lo = b === 0xe0 ? 0xa0 : b === 0xf0 ? 0x90 : 0x80;
    const hi = b === 0xed ? 0x9f : b === 0xf4 ? 0x8f : 0xbf;
    for (let k = 1; k <= more; k++) {
      const c = buf[i + k];
      if (c === undefined || c < (k === 1 ? lo : 0x80) || c > (k === 1 ? hi : 0xbf)) return i;
    }
    i += more + 1;
  }
  return -1;
}
