// HTTP(S) check. node:http over a socket we open ourselves (see net.ts), not fetch: that gives the
// peer certificate even when it is bad, TLS verification per monitor, per-phase timings, and redirects
// followed by hand with a limit.

import http from 'node:http';
import { performance } from 'node:perf_hooks';
import { z } from 'zod';
import { originOf } from '../../../core/net.js';
import type { CheckContext, CheckDefinition, RunReport } from './types.js';
import { CERT_DAYS_LEFT, withCertDaysLeft } from './certificate.js';
import {
  closeGently, connect, connectionTime, Deadline, hostProblem, ms, verifyFailureMessage, type CertInfo, type Connection, type TlsInfo,
} from './net.js';

/** Bytes of body read for keyword and JSON checks; the rest is not read (the connection is closed). */
export const BODY_LIMIT = 1024 * 1024;

// ---- accepted status codes -------------------------------------------------------------------------

export type StatusRange = readonly [number, number];

/** "200-299" or "301" -> [lo, hi]; null when malformed or outside 100-599. */
export function parseStatusRange(s: string): StatusRange | null {
  const m = /^\s*(\d{3})\s*(?:-\s*(\d{3})\s*)?$/.exec(s);
  if (!m) return null;
  const lo = Number(m[1]);
  const hi = m[2] === undefined ? lo : Number(m[2]);
  if (lo < 100 || hi > 599 || lo > hi) return null;
  return [lo, hi];
}

export function statusAccepted(code: number, accepted: readonly string[]): boolean {
  return accepted.some((s) => {
    const r = parseStatusRange(s);
    return r !== null && code >= r[0] && code <= r[1];
  });
}

// ---- a small JSONPath subset ------------------------------------------------------------------------

export type JsonPathSegment = string | number;

/**
 * `$`, `.name`, `['name']` / `["name"]`, `[0]`, `[-1]` (from the end). No wildcards, filters or
 * recursive descent: a monitor checks one value. Returns null when the path is not in the subset.
 */
export function parseJsonPath(path: string): JsonPathSegment[] | null {
  const p = path.trim();
  if (!p.startsWith('$')) return null;
  const out: JsonPathSegment[] = [];
  const re = /\.([A-Za-z_$][\w$-]*)|\[\s*(-?\d+)\s*\]|\[\s*'((?:[^'\\]|\\.)*)'\s*\]|\[\s*"((?:[^"\\]|\\.)*)"\s*\]/y;
  re.lastIndex = 1;
  while (re.lastIndex < p.length) {
    const m = re.exec(p);
    if (!m) return null;
    if (m[1] !== undefined) out.push(m[1]);
    else if (m[2] !== undefined) out.push(Number(m[2]));
    else out.push((m[3] ?? m[4]!).replace(/\\(.)/g, '$1'));
  }
  return out;
}

/** The value at the path, or `{found: false}` when any step is missing. */
export function evalJsonPath(doc: unknown, path: JsonPathSegment[]): { found: true; value: unknown } | { found: false } {
  let cur: unknown = doc;
  for (const seg of path) {
    if (typeof seg === 'number') {
      if (!Array.isArray(cur)) return { found: false };
      const i = seg < 0 ? cur.length + seg : seg;
      if (i < 0 || i >= cur.length) return { found: false };
      cur = cur[i];
    } else {
      if (cur === null || typeof cur !== 'object' || Array.isArray(cur) || !Object.hasOwn(cur, seg)) return { found: false };
      cur = (cur as Record<string, unknown>)[seg];
    }
  }
  return { found: true, value: cur };
}

/** How a JSON value compares with json_expected: strings as they are, everything else as JSON text. */
export function jsonValueString(v: unknown): string {
  return typeof v === 'string' ? v : JSON.stringify(v);
}

// ---- settings ---------------------------------------------------------------------------------------

const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
// Header values may not hold CR, LF or NUL (Node would throw on them; they would split the request).
const HEADER_VALUE = /^[^\r\n\0]*$/;

const Auth = z.discriminatedUnion('type', [
  z.object({
    type: z.literal('basic'),
    username: z.string().max(256).meta({ title: 'User name' }),
    password: z.string().max(1024).meta({ title: 'Password', description: 'Stored on the probe, never shown again.' }),
  }).strict().meta({ title: 'Basic authentication' }),
  z.object({
    type: z.literal('bearer'),
    token: z.string().min(1).max(8192).meta({ title: 'Token', description: 'Sent as Authorization: Bearer …; stored, never shown again.' }),
  }).strict().meta({ title: 'Bearer token' }),
]).meta({ title: 'Authentication' });

export const settings = z.object({
  method: z.enum(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']).default('GET')
    .meta({ title: 'Method', 'x-section': 'Request' }),
  auth: Auth.optional(),
  headers: z.record(
    z.string().regex(HEADER_NAME, 'not a valid header name').meta({ title: 'Header name', examples: ['X-Request-Source'] }),
    z.string().max(8192).regex(HEADER_VALUE, 'header values may not contain line breaks')
      .meta({ title: 'Header value', examples: ['netprobe'] }),
  ).default({}).meta({ title: 'Headers', 'x-add-label': 'Add header',
    description: 'Values of credential-like headers (Authorization, Cookie, …token…, …key…) are stored as secrets.' }),
  body: z.string().max(BODY_LIMIT).optional()
    .meta({ title: 'Request body', 'x-multiline': true, 'x-visible-when': { properties: { method: { not: { enum: ['GET', 'HEAD'] } } } } }),
  accepted_status: z.array(
    z.string().refine((s) => parseStatusRange(s) !== null, 'expected a status code or range like "200-299" (100-599)'),
  ).min(1).max(50).default(['200-299'])
    .meta({ title: 'Accepted status codes', description: 'Codes or ranges, separated by commas: 200-299, 301', 'x-section': 'Response' }),
  keyword: z.string().min(1).max(1024).optional()
    .meta({ title: 'Keyword', description: 'Optional: text the body must contain (or must not).' }),
  keyword_mode: z.enum(['present', 'absent']).default('present')
    .meta({ title: 'The keyword must be', 'x-enum-titles': { present: 'Present', absent: 'Absent' },
      'x-visible-when': { required: ['keyword'] } }),
  json_path: z.string().max(512).refine((s) => parseJsonPath(s) !== null, 'expected a JSON path like $.a.b[0].c').optional()
    .meta({ title: 'JSON path', description: 'Optional: a value in a JSON answer to compare.', examples: ['$.status'] }),
  json_expected: z.string().max(4096).optional()
    .meta({ title: 'Expected value', description: 'Optional: without it, any value at the path will do.', examples: ['ok'],
      'x-visible-when': { required: ['json_path'] } }),
  follow_redirects: z.boolean().default(true).meta({ title: 'Follow redirects' }),
  max_redirects: z.number().int().min(0).max(20).default(5)
    .meta({ title: 'Follow at most (redirects)', 'x-visible-when': { properties: { follow_redirects: { const: true } } } }),
  verify_tls: z.boolean().default(true)
    .meta({ title: 'Verify the TLS certificate', description: 'Turn off only for self-signed devices; the expiry is still tracked.' }),
}).strict();

export type HttpSettings = z.output<typeof settings>;

export function validateTarget(target: string): string | null {
  let u: URL;
  try { u = new URL(target); } catch { return 'expected an http:// or https:// URL'; }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') return `expected an http:// or https:// URL, not ${u.protocol}`;
  if (!u.hostname) return 'the URL has no host';
  if (u.username || u.password) return 'put credentials in settings.auth, not in the URL';
  const host = u.hostname.startsWith('[') ? u.hostname.slice(1, -1) : u.hostname;
  return hostProblem(host);
}

// ---- the check --------------------------------------------------------------------------------------

const DEFAULT_PORT = { 'http:': 80, 'https:': 443 } as const;
const USER_AGENT = 'netprobe-monitor/1';

interface Hop {
  url: URL;
  conn: Connection;
  res: http.IncomingMessage;
  clock: ExchangeClock;
}

/**
 * When the request left and the response's bytes arrived, from the socket itself: the request is taken
 * as sent when it is written to the connected socket (Node writes it there and then), a byte as arrived
 * when the socket reads it, before Node parses it. So the figures are the network's and the server's,
 * not the time the probe spends building the request, parsing the response or waiting for its turn.
 */
class ExchangeClock {
  sentAt = 0;
  firstByteAt: number | null = null;
  lastByteAt = 0;

  constructor(socket: Connection['socket']) {
    const arrived = () => {
      const t = performance.now();
      this.firstByteAt ??= t;
      this.lastByteAt = t;
    };
    // Before Node's own listeners: a body that ends at the connection's close ends with 'end'.
    socket.prependListener('data', arrived);
    socket.prependListener('end', arrived);
  }

  /** From the request written to the first byte of the response (0 for a peer that spoke first). */
  get ttfb(): number { return ms(Math.max(0, (this.firstByteAt ?? this.sentAt) - this.sentAt)); }
  /** From the first byte to the last read so far. */
  get transfer(): number { return ms(this.lastByteAt - (this.firstByteAt ?? this.lastByteAt)); }
}

/** A hop's network time so far: its connection's phases, then the request to the last byte read. */
const hopTime = (hop: Hop): number => ms(connectionTime(hop.conn.timings) + hop.clock.ttfb + hop.clock.transfer);

/** One request on a fresh connection; resolves at the response headers. */
async function requestOnce(url: URL, method: string, headers: Record<string, string>, body: string | undefined,
  s: HttpSettings, dl: Deadline): Promise<Hop> {
  const https = url.protocol === 'https:';
  const host = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
  const port = url.port ? Number(url.port) : DEFAULT_PORT[url.protocol as keyof typeof DEFAULT_PORT];
  const conn = await connect({ host, port, tls: https ? { alpn: ['http/1.1'] } : undefined, deadline: dl });
  if (conn.tls && s.verify_tls && !conn.tls.authorized) {
    closeGently(conn.socket); // nothing (no credentials) is sent to a peer that failed verification
    throw new TlsRejected(verifyFailureMessage(conn.tls.authorization_error ?? 'UNKNOWN', conn.tls.cert), conn);
  }
  dl.phase = 'request';
  const clock = new ExchangeClock(conn.socket);
  return new Promise<Hop>((resolve, reject) => {
    const req = http.request({
      method,
      host,
      port,
      path: `${url.pathname}${url.search}`,
      headers,
      setHost: false, // Host comes from `headers`, built from the URL (default port omitted)
      createConnection: () => conn.socket,
    });
    const onAbort = () => { req.destroy(dl.signal.reason as Error); conn.socket.destroy(); };
    dl.signal.addEventListener('abort', onAbort, { once: true });
    if (dl.signal.aborted) onAbort(); // fired while the connection was being handed over
    req.on('error', (e) => { dl.signal.removeEventListener('abort', onAbort); conn.socket.destroy(); reject(e); });
    req.on('response', (res) => {
      dl.signal.removeEventListener('abort', onAbort);
      // Closing the socket early (redirect, body limit) ends the response with an error nobody needs.
      res.on('error', () => {});
      resolve({ url, conn, res, clock });
    });
    req.on('finish', () => { dl.phase = 'response'; });
    // Node hands the request its socket a tick later; ending it then writes it at once, so the clock
    // starts as the request leaves rather than before Node's own preparations.
    req.once('socket', () => {
      clock.sentAt = performance.now();
      req.end(body);
    });
  });
}

class TlsRejected extends Error {
  constructor(message: string, readonly conn: Connection) { super(message); }
}

/** Reads up to BODY_LIMIT bytes, keeping them when `keep`; then stops reading and closes. */
function readBody(hop: Hop, keep: boolean, dl: Deadline): Promise<{ bytes: number; truncated: boolean; text: string | null }> {
  dl.phase = 'body';
  const { res } = hop;
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let bytes = 0;
    let done = false;
    const finish = (truncated: boolean) => {
      if (done) return;
      done = true;
      dl.signal.removeEventListener('abort', onAbort);
      hop.conn.socket.destroy();
      resolve({ bytes, truncated, text: keep ? Buffer.concat(chunks).toString('utf8') : null });
    };
    const onAbort = () => { if (!done) { done = true; hop.conn.socket.destroy(); reject(dl.signal.reason); } };
    dl.signal.addEventListener('abort', onAbort, { once: true });
    if (dl.signal.aborted) { onAbort(); return; }
    res.on('data', (chunk: Buffer) => {
      if (done) return;
      const room = BODY_LIMIT - bytes;
      const part = chunk.length > room ? chunk.subarray(0, room) : chunk;
      bytes += part.length;
      if (keep) chunks.push(part);
      if (bytes >= BODY_LIMIT) { res.destroy(); finish(true); }
    });
    res.on('end', () => finish(false));
    res.on('error', (e) => {
      if (done) return;
      done = true;
      dl.signal.removeEventListener('abort', onAbort);
      hop.conn.socket.destroy();
      reject(new Error(`connection closed while reading the body (${e.message})`));
    });
  });
}

const REDIRECT_CODES = new Set([301, 302, 303, 307, 308]);

/**
 * The request's headers. A redirect to another origin gets only the probe's own: a configured header may
 * hold a credential under any name, and the monitor's secrets are bound to its target's origin.
 */
function buildHeaders(url: URL, s: HttpSettings, sameOrigin: boolean, body: string | undefined): Record<string, string> {
  const h: Record<string, string> = { host: url.host, 'user-agent': USER_AGENT, accept: '*/*', connection: 'close' };
  if (sameOrigin) for (const [k, v] of Object.entries(s.headers)) h[k.toLowerCase()] = v;
  if (sameOrigin && s.auth) {
    h.authorization = s.auth.type === 'basic'
      ? `Basic ${Buffer.from(`${s.auth.username}:${s.auth.password}`, 'utf8').toString('base64')}`
      : `Bearer ${s.auth.token}`;
  }
  if (body !== undefined) h['content-length'] = String(Buffer.byteLength(body));
  return h;
}

export async function run(target: string, s: HttpSettings, ctx: CheckContext): Promise<RunReport> {
  const dl = new Deadline(ctx.timeout, ctx.signal);
  const chain: string[] = [];
  let cert: CertInfo | null = null;
  let tlsDetails: Record<string, unknown> | null = null;
  const details = (extra: Record<string, unknown>): Record<string, unknown> => ({
    ...extra,
    ...(chain.length > 1 ? { redirect_chain: chain } : {}),
    ...(tlsDetails ? { tls: tlsDetails } : {}),
    ...(cert ? { cert } : {}),
  });
  try {
    let url: URL;
    try { url = new URL(target); } catch { return down('invalid URL', null, details({})); }
    const origin = url.origin;
    let method: string = s.method;
    let body = s.body;
    let redirects = 0;
    /** The network time of the hops before this one (redirects): the response time is the chain's. */
    let before = 0;
    for (;;) {
      chain.push(url.href);
      const sameOrigin = url.origin === origin;
      const sendBody = method === 'GET' || method === 'HEAD' ? undefined : body;
      let hop: Hop;
      try {
        hop = await requestOnce(url, method, buildHeaders(url, s, sameOrigin, sendBody), sendBody, s, dl);
      } catch (e) {
        if (e instanceof TlsRejected) {
          const t = e.conn.tls;
          cert = t?.cert ?? null;
          if (t) tlsDetails = tlsSummary(t);
          return down(e.message, null, details({ final_url: url.href, redirects }));
        }
        return down(dl.failure(e), null, details({ final_url: url.href, redirects }));
      }
      if (hop.conn.tls) {
        cert = hop.conn.tls.cert;
        tlsDetails = tlsSummary(hop.conn.tls);
      }
      const code = hop.res.statusCode ?? 0;
      const location = hop.res.headers.location;
      if (s.follow_redirects && REDIRECT_CODES.has(code) && location) {
        hop.conn.socket.destroy();
        const chainMs = ms(before + hopTime(hop));
        if (redirects >= s.max_redirects) {
          return down(`too many redirects (more than ${s.max_redirects})`, chainMs,
            details({ status_code: code, final_url: url.href, redirects, location }));
        }
        let next: URL;
        try { next = new URL(location, url); } catch {
          const facts = details({ status_code: code, final_url: url.href, redirects });
          return down(`redirect to an invalid URL: ${location}`, chainMs, facts);
        }
        if (next.protocol !== 'http:' && next.protocol !== 'https:') {
          return down(`redirect to an unsupported URL scheme: ${next.protocol}`, chainMs,
            details({ status_code: code, final_url: url.href, redirects, location }));
        }
        // 303 always, and 301/302 after a POST, continue as GET without the body (as browsers do).
        if (code === 303 ? method !== 'HEAD' : (code === 301 || code === 302) && method === 'POST') {
          method = 'GET';
          body = undefined;
        }
        redirects++;
        before = chainMs;
        url = next;
        continue;
      }
      return await judge(hop, s, dl, redirects, before, details);
    }
  } finally {
    dl.dispose();
  }
}

async function judge(hop: Hop, s: HttpSettings, dl: Deadline, redirects: number, before: number,
  details: (extra: Record<string, unknown>) => Record<string, unknown>): Promise<RunReport> {
  const { res } = hop;
  const code = res.statusCode ?? 0;
  const statusText = res.statusMessage ?? '';
  const needBody = s.keyword !== undefined || s.json_path !== undefined;
  let read: Awaited<ReturnType<typeof readBody>>;
  try {
    read = await readBody(hop, needBody, dl);
  } catch (e) {
    return down(dl.failure(e), null, details({ status_code: code, status_text: statusText, final_url: hop.url.href, redirects }));
  }
  const elapsed = ms(before + hopTime(hop));
  const base = details({
    status_code: code,
    status_text: statusText,
    final_url: hop.url.href,
    redirects,
    headers: pickHeaders(res.headers),
    bytes: read.bytes,
    ...(read.truncated ? { body_truncated: true } : {}),
    remote_address: hop.conn.remote_address,
    // The last hop's phases; total_ms (the response time) adds the hops before it (redirects).
    timing: { ...hop.conn.timings, ttfb_ms: hop.clock.ttfb, transfer_ms: hop.clock.transfer, total_ms: elapsed },
  });
  const statusLine = `HTTP ${code}${statusText ? ` ${statusText}` : ''}`;
  if (!statusAccepted(code, s.accepted_status)) {
    return down(`${statusLine} (expected ${s.accepted_status.join(', ')})`, elapsed, base);
  }
  const notes: string[] = [];
  if (s.keyword !== undefined) {
    const text = read.text ?? '';
    const found = text.includes(s.keyword);
    const scope = read.truncated ? ` in the first ${BODY_LIMIT / 1024 / 1024} MiB` : '';
    if (s.keyword_mode === 'present' && !found) return down(`${statusLine}, but keyword "${s.keyword}" not found${scope}`, elapsed, base);
    if (s.keyword_mode === 'absent' && found) return down(`${statusLine}, but keyword "${s.keyword}" found`, elapsed, base);
    notes.push(s.keyword_mode === 'present' ? 'keyword found' : 'keyword absent');
  }
  if (s.json_path !== undefined) {
    if (read.truncated) return down(`${statusLine}, but the body is larger than 1 MiB: JSON not checked`, elapsed, base);
    let doc: unknown;
    try { doc = JSON.parse(read.text ?? ''); } catch {
      return down(`${statusLine}, but the body is not valid JSON`, elapsed, base);
    }
    const r = evalJsonPath(doc, parseJsonPath(s.json_path)!);
    if (!r.found) return down(`${statusLine}, but JSON path ${s.json_path} not found`, elapsed, base);
    const actual = jsonValueString(r.value);
    base.json_value = actual.length > 200 ? `${actual.slice(0, 200)}…` : actual;
    if (s.json_expected !== undefined && actual !== s.json_expected) {
      return down(`${statusLine}, but ${s.json_path} is ${clip(actual)}, expected ${clip(s.json_expected)}`, elapsed, base);
    }
    notes.push(s.json_expected !== undefined ? `${s.json_path} matches` : `${s.json_path} exists`);
  }
  return { status: 'up', response_time_ms: elapsed, message: [statusLine, ...notes].join(', '), details: base };
}

const tlsSummary = (t: TlsInfo) =>
  ({ protocol: t.protocol, cipher: t.cipher, alpn: t.alpn, authorized: t.authorized, authorization_error: t.authorization_error });

function pickHeaders(h: http.IncomingHttpHeaders): Record<string, string> {
  const out: Record<string, string> = {};
  for (const k of ['content-type', 'server', 'content-length', 'location'] as const) {
    const v = h[k];
    if (typeof v === 'string') out[k] = v;
  }
  return out;
}

const clip = (s: string) => JSON.stringify(s.length > 80 ? `${s.slice(0, 80)}…` : s);

function down(message: string, response_time_ms: number | null, details: Record<string, unknown>): RunReport {
  return { status: 'down', response_time_ms, message, details };
}

/** The check type as the monitor service sees it (checks/index.ts, CHECKS). */
export const check: CheckDefinition<HttpSettings> = {
  label: 'HTTP(S)', icon: 'external', hint: 'Web page or API',
  target: { title: 'URL', placeholder: 'https://intranet.example.lan/health',
    description: 'http:// or https://; credentials go under Authentication, not in the URL.' },
  settings, validateTarget, run: withCertDaysLeft(run), measurements: [CERT_DAYS_LEFT],
  secretPaths: ['auth.password', 'auth.token'], secretHeaders: true, destination: originOf,
  host: (target) => { try { return new URL(target).hostname.replace(/^\[(.*)\]$/, '$1') || null; } catch { return null; } },
};
