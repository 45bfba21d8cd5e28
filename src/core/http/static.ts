// Serves the web UI from ui/: files by path, index.html for client-side routes, nothing outside ui/.
// Files up to a size bound are read once and kept in a bounded in-memory cache (checked against the
// file's size and mtime on every request); text files are compressed once, with brotli and gzip, and
// answered in the encoding the client accepts. ETags are content hashes, so a 304 is exact.
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { extname, join, normalize, sep } from 'node:path';
import { promisify } from 'node:util';
import { brotliCompress, constants as zlibConstants, gzip } from 'node:zlib';

const brotli = promisify(brotliCompress);
const gz = promisify(gzip);

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8', '.js': 'text/javascript; charset=utf-8', '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8', '.json': 'application/json; charset=utf-8', '.svg': 'image/svg+xml',
  '.png': 'image/png', '.ico': 'image/x-icon', '.webp': 'image/webp', '.woff2': 'font/woff2', '.txt': 'text/plain; charset=utf-8',
  '.webmanifest': 'application/manifest+json', '.map': 'application/json; charset=utf-8',
};
/** Types worth compressing (images and fonts are compressed already). */
const COMPRESSIBLE = new Set(['.html', '.js', '.mjs', '.css', '.json', '.svg', '.txt', '.webmanifest', '.map', '.ico']);

/** A vendor file under a versioned directory (ui/vendor/<package>@<version>/…) never changes. */
const VERSIONED = /^\/vendor\/[^/]+@[^/]+\//;
const IMMUTABLE = 'public, max-age=31536000, immutable';
/** Everything else is revalidated by ETag on each use: index.html, the app's modules, styles. */
const REVALIDATE = 'no-cache';

export interface StaticOptions {
  /** Upper bound of the bytes kept in memory (raw and compressed forms together). */
  cacheBytes?: number;
  /** Larger files are streamed from disk, uncompressed, and not cached. */
  maxFileBytes?: number;
}

type Encoding = 'br' | 'gzip';

interface Entry {
  size: number;
  mtimeMs: number;
  etag: string;
  raw: Buffer;
  /** Present when compressing made the file smaller. */
  encoded: Partial<Record<Encoding, Buffer>>;
  /** Content-Security-Policy for an HTML page: its own inline scripts (the import map) by hash. */
  csp?: string;
  bytes: number;
}

export function createStaticHandler(root: string, opts: StaticOptions = {}) {
  const base = normalize(root + sep);
  const cacheBytes = opts.cacheBytes ?? 16 * 1024 * 1024;
  const maxFileBytes = opts.maxFileBytes ?? 2 * 1024 * 1024;
  // Map order is recency order: a hit is moved to the end, eviction takes from the front.
  const cache = new Map<string, Entry>();
  const loading = new Map<string, Promise<Entry>>();
  let cachedBytes = 0;

  function remember(file: string, e: Entry) {
    const old = cache.get(file);
    if (old) { cache.delete(file); cachedBytes -= old.bytes; }
    if (e.bytes > cacheBytes) return;
    cache.set(file, e);
    cachedBytes += e.bytes;
    for (const [k, v] of cache) {
      if (cachedBytes <= cacheBytes) break;
      cache.delete(k);
      cachedBytes -= v.bytes;
    }
  }

  async function entryFor(file: string, size: number, mtimeMs: number): Promise<Entry> {
    const hit = cache.get(file);
    if (hit && hit.size === size && hit.mtimeMs === mtimeMs) {
      cache.delete(file);
      cache.set(file, hit);
      return hit;
    }
    const key = `${file}\0${size}\0${mtimeMs}`;
    let p = loading.get(key);
    if (!p) {
      p = load(file, size, mtimeMs).finally(() => loading.delete(key));
      loading.set(key, p);
    }
    const e = await p;
    remember(file, e);
    return e;
  }

  return async function serveStatic(req: IncomingMessage, res: ServerResponse, pathname: string): Promise<void> {
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { Allow: 'GET, HEAD', 'Content-Type': 'text/plain; charset=utf-8' }).end('Method Not Allowed');
      return;
    }
    let rel: string;
    try { rel = decodeURIComponent(pathname); } catch { rel = ''; }
    const file = normalize(join(base, rel));
    let target = file.startsWith(base) && !rel.includes('\0') ? file : null;
    let st = target ? await stat(target).catch(() => null) : null;
    if (st?.isDirectory()) {
      target = join(target!, 'index.html');
      st = await stat(target).catch(() => null);
    }
    // Unknown paths without an extension are client-side routes of the single-page app.
    if ((!st || !st.isFile()) && !extname(rel)) {
      target = join(base, 'index.html');
      st = await stat(target).catch(() => null);
    }
    if (!st || !st.isFile() || !target) {
      res.writeHead(404, { 'Content-Type': 'text/plain; charset=utf-8' }).end('Not Found');
      return;
    }
    const ext = extname(target);
    const headers: Record<string, string> = {
      'Content-Type': TYPES[ext] ?? 'application/octet-stream',
      'Cache-Control': VERSIONED.test(rel) && !target.endsWith('.html') ? IMMUTABLE : REVALIDATE,
    };

    if (st.size > maxFileBytes) {
      headers.ETag = `W/"${st.size.toString(16)}-${Math.floor(st.mtimeMs).toString(16)}"`;
      if (notModified(req, headers.ETag)) { res.writeHead(304, headers).end(); return; }
      headers['Content-Length'] = String(st.size);
      res.writeHead(200, headers);
      if (req.method === 'HEAD') { res.end(); return; }
      createReadStream(target).on('error', () => res.destroy()).pipe(res);
      return;
    }

    const e = await entryFor(target, st.size, st.mtimeMs);
    headers.ETag = e.etag;
    if (COMPRESSIBLE.has(ext)) headers.Vary = 'Accept-Encoding';
    if (e.csp) headers['Content-Security-Policy'] = e.csp;
    if (notModified(req, e.etag)) { res.writeHead(304, headers).end(); return; }
    const enc = chooseEncoding(String(req.headers['accept-encoding'] ?? ''), e.encoded);
    const body = enc ? e.encoded[enc]! : e.raw;
    if (enc) headers['Content-Encoding'] = enc;
    headers['Content-Length'] = String(body.length);
    res.writeHead(200, headers);
    res.end(req.method === 'HEAD' ? undefined : body);
  };

  async function load(file: string, size: number, mtimeMs: number): Promise<Entry> {
    const raw = await readFile(file);
    const ext = extname(file);
    const encoded: Entry['encoded'] = {};
    if (COMPRESSIBLE.has(ext) && raw.length >= 256) {
      const [b, g] = await Promise.all([
        brotli(raw, { params: {
          [zlibConstants.BROTLI_PARAM_QUALITY]: 11,
          [zlibConstants.BROTLI_PARAM_MODE]: zlibConstants.BROTLI_MODE_TEXT,
          [zlibConstants.BROTLI_PARAM_SIZE_HINT]: raw.length,
        } }),
        gz(raw, { level: 9 }),
      ]);
      if (b.length < raw.length) encoded.br = b;
      if (g.length < raw.length) encoded.gzip = g;
    }
    // A weak tag: the compressed forms are the same content, so one tag serves every encoding.
    const etag = `W/"${createHash('sha256').update(raw).digest('base64url').slice(0, 27)}"`;
    const csp = ext === '.html' ? pageCsp(raw.toString('utf8')) : undefined;
    const bytes = raw.length + (encoded.br?.length ?? 0) + (encoded.gzip?.length ?? 0);
    return { size, mtimeMs, etag, raw, encoded, csp, bytes };
  }
}

/** If-None-Match with weak comparison (RFC 9110 13.1.2): any listed tag, or *, matches. */
function notModified(req: IncomingMessage, etag: string): boolean {
  const header = req.headers['if-none-match'];
  if (!header) return false;
  if (header.trim() === '*') return true;
  const opaque = (t: string) => t.trim().replace(/^W\//, '');
  const mine = opaque(etag);
  return header.split(',').some((t) => opaque(t) === mine);
}

/** The best encoding the client accepts (q > 0) among those we hold; brotli first, then gzip. */
export function chooseEncoding(acceptEncoding: string, available: Partial<Record<Encoding, Buffer>>): Encoding | null {
  const q = new Map<string, number>();
  for (const part of acceptEncoding.toLowerCase().split(',')) {
    const [name, ...params] = part.trim().split(';');
    if (!name) continue;
    const qp = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    const value = qp ? Number(qp.slice(2)) : 1;
    q.set(name.trim(), Number.isFinite(value) ? value : 0);
  }
  const accepts = (name: string) => (q.get(name) ?? (name !== 'identity' ? q.get('*') : undefined) ?? 0) > 0;
  for (const enc of ['br', 'gzip'] as const) if (available[enc] && accepts(enc)) return enc;
  return null;
}

/**
 * The page may run scripts from this origin and its own inline scripts (the import map), nothing else.
 * Styles come from this origin only: components set inline styles through the CSSOM, which the policy
 * does not restrict.
 */
function pageCsp(html: string): string {
  const hashes = [...html.matchAll(/<script\b[^>]*>([\s\S]*?)<\/script>/gi)]
    .filter((m) => !/\bsrc\s*=/.test(m[0].slice(0, m[0].indexOf('>'))) && m[1]!.trim())
    .map((m) => `'sha256-${createHash('sha256').update(m[1]!).digest('base64')}'`);
  return [
    "default-src 'self'", `script-src 'self' ${hashes.join(' ')}`.trim(), "style-src 'self'",
    "img-src 'self' data:", "connect-src 'self'", "object-src 'none'", "base-uri 'self'", "form-action 'self'",
    "frame-ancestors 'none'",
  ].join('; ');
}
