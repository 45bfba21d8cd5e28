// The cached documents readers get: per page, its public form as JSON and as HTML, each kept with its gzip
// and brotli forms and a content ETag, so that a reader costs a lookup, a comparison of the page's monitors'
// states with those the document was made from, and one write (or a 304). Made again when the page is
// edited, when a monitor or window changes (the registry's generation: maintenance opening or closing bumps
// it), when one of its monitors' states changes (at most once a second), and at least every MAX_AGE_MS (the
// notices' times, the logo); the day bars, which read the rollups, at most every BARS_MAX_AGE_MS.
// bench/status-page.ts measures what hundreds of readers a second cost.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createHash } from 'node:crypto';
import { brotliCompressSync, constants as zlib, gzipSync } from 'node:zlib';
import type { LiveMonitor } from '../live.js';
import type { LivePage } from './pages.js';
import { PAGE_CSP, renderMissing, renderPage } from './render.js';
import type { PublicState } from './schemas.js';
import { buildView, dayBars, pageMonitors, publicState, type DayBars, type ViewDeps } from './view.js';

export const MAX_AGE_MS = 30_000;
export const BARS_MAX_AGE_MS = 60_000;
/** A state change is shown within this long; more often than this, readers get the document of a moment ago. */
export const MIN_REBUILD_MS = 1_000;
/** What browsers and proxies may keep without asking (a proxy in front then spares the probe the rest). */
const CACHE_CONTROL = 'public, max-age=10';

interface Encoded { raw: Buffer; gzip: Buffer; br: Buffer; etag: string }

interface Doc {
  version: number;
  gen: number;
  monitors: LiveMonitor[];
  states: PublicState[];
  builtAt: number;
  bars: DayBars;
  barsAt: number;
  day: number;
  html: Encoded;
  json: Encoded;
}

export const jsonPathOf = (slug: string): string => `/api/monitors/status-pages/public/${slug}`;

export class StatusDocuments {
  private docs = new Map<string, Doc>();
  private missing: Encoded | null = null;
  /** Documents made (the bench and the tests read it). */
  builds = 0;

  constructor(private readonly deps: ViewDeps, private readonly now: () => number) {}

  /** Answers a reader with the page's JSON or HTML; false when no page has that slug (nothing written). */
  serve(req: IncomingMessage, res: ServerResponse, slug: string, as: 'json' | 'html'): boolean {
    const page = this.deps.pages.bySlug(slug);
    if (!page) {
      this.docs.delete(slug);
      return false;
    }
    const doc = this.current(slug, page);
    send(req, res, as === 'json' ? doc.json : doc.html, as === 'json' ? 'application/json; charset=utf-8' : 'text/html; charset=utf-8',
      as === 'html' ? { 'Content-Security-Policy': PAGE_CSP } : {});
    return true;
  }

  /** The HTML 404 for an address that names no page. */
  serveMissing(req: IncomingMessage, res: ServerResponse): void {
    this.missing ??= encode(renderMissing());
    send(req, res, this.missing, 'text/html; charset=utf-8', { 'Content-Security-Policy': PAGE_CSP }, 404, 'no-store');
  }

  private current(slug: string, page: LivePage): Doc {
    const now = this.now();
    const old = this.docs.get(slug);
    const gen = this.deps.registry.gen;
    if (old && old.version === page.version && old.gen === gen && now - old.builtAt < MAX_AGE_MS) {
      if (now - old.builtAt < MIN_REBUILD_MS || this.sameStates(old, now)) return old;
    }
    const fresh = !old || old.version !== page.version || old.gen !== gen;
    const monitors = fresh ? pageMonitors(this.deps, page) : old.monitors;
    const day = Math.floor(now / 86_400_000);
    const keepBars = !fresh && old.day === day && now - old.barsAt < BARS_MAX_AGE_MS;
    const bars = keepBars ? old.bars : dayBars(this.deps, monitors, now);
    const view = buildView(this.deps, page, bars, now);
    const doc: Doc = {
      version: page.version, gen, monitors, states: monitors.map((m) => publicState(m, this.deps.maintenance, now)), builtAt: now,
      bars, barsAt: keepBars ? old.barsAt : now, day,
      html: encode(renderPage(view, jsonPathOf(page.row.slug))), json: encode(JSON.stringify(view)),
    };
    this.builds++;
    this.docs.set(slug, doc);
    return doc;
  }

  /** Whether the page's monitors are in the states the document shows (a lookup per monitor, no allocation). */
  private sameStates(doc: Doc, now: number): boolean {
    for (let i = 0; i < doc.monitors.length; i++) {
      if (publicState(doc.monitors[i]!, this.deps.maintenance, now) !== doc.states[i]) return false;
    }
    return true;
  }
}

function encode(text: string): Encoded {
  const raw = Buffer.from(text);
  return {
    raw, etag: `"${createHash('sha256').update(raw).digest('base64url').slice(0, 22)}"`,
    gzip: gzipSync(raw, { level: 6 }),
    br: brotliCompressSync(raw, { params: { [zlib.BROTLI_PARAM_QUALITY]: 5, [zlib.BROTLI_PARAM_SIZE_HINT]: raw.length } }),
  };
}

function send(req: IncomingMessage, res: ServerResponse, e: Encoded, type: string, extra: Record<string, string>, status = 200,
  cache = CACHE_CONTROL): void {
  const headers: Record<string, string> = { 'Content-Type': type, 'Cache-Control': cache, ETag: e.etag, Vary: 'Accept-Encoding', ...extra };
  const inm = req.headers['if-none-match'];
  if (status === 200 && inm && inm.split(',').some((t) => t.trim().replace(/^W\//, '') === e.etag)) {
    res.writeHead(304, headers).end();
    return;
  }
  const accept = String(req.headers['accept-encoding'] ?? '');
  const enc = /\bbr\b/.test(accept) ? 'br' : /\bgzip\b/.test(accept) ? 'gzip' : null;
  const body = enc ? e[enc] : e.raw;
  if (enc) headers['Content-Encoding'] = enc;
  headers['Content-Length'] = String(body.length);
  res.writeHead(status, headers).end(req.method === 'HEAD' ? undefined : body);
}
