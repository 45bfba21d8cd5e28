// Sends one request a provider built: node:http(s) on a fresh connection (no pooled sockets outlive a
// delivery), a deadline over the whole exchange, redirects not followed, at most a few KiB of the
// response read for the excerpt. Never throws: every outcome is a SendResult (an e-mail's too:
// mail-sender.ts; outbound.ts picks between them).
import http from 'node:http';
import https from 'node:https';
import { performance } from 'node:perf_hooks';
import type { OutboundRequest } from './providers/types.js';

/** Characters of the response body kept for the attempt log. */
export const EXCERPT_CHARS = 200;
const READ_LIMIT = 4096;

export interface SendResult {
  ok: boolean;
  /** The HTTP status, or for an e-mail the SMTP server's reply code (250; 4xx, 5xx refusals). */
  status_code: number | null;
  latency_ms: number | null;
  error?: string;
  response_excerpt: string;
  /** Worth another attempt: network errors, timeouts, 408, 425, 429 and 5xx (for e-mail: the server unreachable, 4xx). */
  retryable: boolean;
  /** From a Retry-After header on 429 or 503. */
  retry_after_ms?: number;
}

function excerpt(buf: Buffer): string {
  const text = buf.toString('utf8').replace(/\p{Cc}+/gu, ' ').replace(/\s+/g, ' ').trim();
  return [...text].slice(0, EXCERPT_CHARS).join('');
}

/** Retry-After as milliseconds: delta-seconds or an HTTP date (relative to `now`). */
export function retryAfterMs(value: string | undefined, now: number): number | undefined {
  if (!value) return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1000;
  const t = Date.parse(value);
  return Number.isNaN(t) ? undefined : Math.max(0, t - now);
}

const round = (ms: number) => Math.round(ms * 10) / 10;

/** A failed request in words; a name that does not resolve is said so, with the name (still retryable: DNS recovers). */
export function requestError(e: NodeJS.ErrnoException, host: string): string {
  if (e.syscall === 'getaddrinfo' || e.code === 'ENOTFOUND' || e.code === 'EAI_AGAIN') {
    const name = (e as { hostname?: string }).hostname ?? host;
    if (e.code === 'ENOTFOUND') return `host name not found: ${name} does not resolve (ENOTFOUND)`;
    if (e.code === 'EAI_AGAIN') return `host name ${name} could not be resolved: no DNS server answered (EAI_AGAIN)`;
    return `host name ${name} could not be resolved (${e.code ?? e.message})`;
  }
  return e.message || e.code || 'request failed';
}

export interface SendOptions { timeoutMs: number; signal?: AbortSignal }

export function sendRequest(req: OutboundRequest, opts: SendOptions): Promise<SendResult> {
  return new Promise((resolve) => {
    let url: URL;
    try { url = new URL(req.url); } catch {
      resolve({ ok: false, status_code: null, latency_ms: null, error: 'invalid URL', response_excerpt: '', retryable: false });
      return;
    }
    const lib = url.protocol === 'https:' ? https : url.protocol === 'http:' ? http : null;
    if (!lib) {
      resolve({ ok: false, status_code: null, latency_ms: null, error: `unsupported URL scheme ${url.protocol}`,
        response_excerpt: '', retryable: false });
      return;
    }
    const headers: Record<string, string> = { ...req.headers, 'content-length': String(Buffer.byteLength(req.body)), connection: 'close' };
    if ((url.username || url.password) && !Object.keys(headers).some((h) => h.toLowerCase() === 'authorization')) {
      const user = decodeURIComponent(url.username), pass = decodeURIComponent(url.password);
      headers.authorization = `Basic ${Buffer.from(`${user}:${pass}`, 'utf8').toString('base64')}`;
    }
    const t0 = performance.now();
    let settled = false;
    let status: number | null = null;
    const finish = (r: Omit<SendResult, 'latency_ms'> & { latency_ms?: number | null }) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      opts.signal?.removeEventListener('abort', onAbort);
      resolve({ latency_ms: round(performance.now() - t0), ...r });
    };
    const timer = setTimeout(() => {
      creq.destroy();
      finish({ ok: false, status_code: status, error: `no response within ${opts.timeoutMs / 1000} s`,
        response_excerpt: '', retryable: true });
    }, opts.timeoutMs);
    const onAbort = () => {
      creq.destroy();
      finish({ ok: false, status_code: status, error: 'aborted: the service is stopping', response_excerpt: '', retryable: true });
    };
    const creq = lib.request(url, { method: req.method, headers, agent: false }, (res) => {
      status = res.statusCode ?? 0;
      const chunks: Buffer[] = [];
      let bytes = 0;
      const done = () => {
        const code = status!;
        const body = excerpt(Buffer.concat(chunks));
        const ok = code >= 200 && code < 300;
        const retryable = code === 408 || code === 425 || code === 429 || code >= 500;
        const ra = code === 429 || code === 503 ? retryAfterMs(res.headers['retry-after'], Date.now()) : undefined;
        const why = code >= 300 && code < 400 ? ' (redirects are not followed)' : '';
        finish({
          ok, status_code: code, response_excerpt: body, retryable: !ok && retryable,
          ...(ok ? {} : { error: `HTTP ${code}${res.statusMessage ? ` ${res.statusMessage}` : ''}${why}` }),
          ...(ra !== undefined ? { retry_after_ms: ra } : {}),
        });
        res.destroy();
      };
      res.on('data', (c: Buffer) => {
        if (bytes < READ_LIMIT) { chunks.push(c.subarray(0, READ_LIMIT - bytes)); bytes += c.length; }
        if (bytes >= READ_LIMIT) done();
      });
      res.on('end', done);
      res.on('error', done);
    });
    creq.on('error', (e: NodeJS.ErrnoException) => {
      finish({ ok: false, status_code: status, error: requestError(e, url.hostname), response_excerpt: '', retryable: true });
    });
    if (opts.signal?.aborted) { onAbort(); return; }
    opts.signal?.addEventListener('abort', onAbort, { once: true });
    creq.end(req.body);
  });
}
