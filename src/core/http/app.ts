// The HTTP core: one tinyhttp app that dispatches /api requests through the route registry
// (authenticate, authorise, validate, handle, problem+json on failure) and serves the UI otherwise.
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer, type Server as HttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { SecureContextOptions } from 'node:tls';
import { App } from '@tinyhttp/app';
import { z } from 'zod';
import { denyReason, type Principal } from '../auth/scopes.js';
import type { AppContext } from '../context.js';
import { clientIp } from '../net.js';
import { readJson } from './body.js';
import { guardConnections, waitForTurn } from './connections.js';
import { forbidden, HttpError, invalid, unauthorized, type FieldError } from '../errors.js';
import { Reply, type RequestCtx } from './registry.js';
import { createStaticHandler } from './static.js';
import { inspectJson } from './json-guard.js';
import { isApiPath } from './path.js';
import { enforceRateLimit } from './rate-limit.js';
import { checkInput, parseInput, validationError } from './validate.js';

const UNSAFE = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
const REQUEST_ID = /^[A-Za-z0-9._:-]{1,64}$/;
/**
 * Paths outside /api that tools expect at the root, answered by the API route they name (with its access
 * rule, validation and OpenAPI entry): Prometheus scrapes /metrics by default.
 */
const ROOT_ALIASES = new Map([['/metrics', '/api/metrics']]);
/** A public status page's address, /status/<slug>: its HTML route (modules/monitors/status-pages/routes.ts). */
const STATUS_PAGE = /^\/status\/([^/]+)\/?$/;

function rootAlias(path: string): string {
  const exact = ROOT_ALIASES.get(path);
  if (exact) return exact;
  const page = STATUS_PAGE.exec(path);
  return page ? `/api/monitors/status-pages/public/${page[1]}/page` : path;
}

export interface HttpApp {
  server: Server;
  /** The HTTPS listener once listenHttps() has started it (same handler and connection guards). */
  httpsServer: HttpsServer | null;
  /**
   * Starts HTTPS on the port the TLS feature configures (modules/system/ssl), on `host`; `ephemeral`
   * (tests, an HTTP port of 0) takes any free port. Resolves null when HTTPS is off, not provided or
   * cannot listen: a busy port must not stop the probe, which keeps serving HTTP.
   */
  listenHttps(host: string, ephemeral?: boolean): Promise<AddressInfo | null>;
  /** Stops accepting, lets in-flight requests finish (up to graceMs), then ends streams and sockets. */
  close(graceMs?: number): Promise<void>;
}

/**
 * What the TLS feature (modules/system/ssl) lends the HTTP core, which must not import a module: the
 * certificate to start HTTPS with, the ACME HTTP-01 responder and the plain-HTTP redirect of the UI.
 */
export interface TlsHooks {
  /** The configured HTTPS port; 0 turns HTTPS off. */
  httpsPort(): number;
  /** The key and chain to start with (later swaps go through server.setSecureContext()). */
  secureContext(): SecureContextOptions;
  /** Called once the HTTPS server listens. */
  listening(server: HttpsServer, port: number): void;
  /** Answers a request outside /api before the UI does (/.well-known/acme-challenge/); true when it did. */
  intercept(req: IncomingMessage, res: ServerResponse, pathname: string): boolean;
  /** The https:// URL a plain-HTTP request for the UI should go to instead, or null to serve it. */
  redirect(req: IncomingMessage, pathname: string): string | null;
}

const tlsHooks = new WeakMap<AppContext, TlsHooks>();
/** Called by the TLS feature when it registers; the HTTP core reads the hooks per request. */
export function provideTls(app: AppContext, hooks: TlsHooks): void { tlsHooks.set(app, hooks); }

export function createHttpApp(app: AppContext, opts: { uiDir: string }): HttpApp {
  const log = app.log.child('http');
  const serveStatic = createStaticHandler(opts.uiDir);
  let inFlight = 0;
  let idleWaiters: (() => void)[] = [];
  const settle = () => { if (--inFlight === 0) { idleWaiters.forEach((f) => f()); idleWaiters = []; } };

  const tiny = new App({
    settings: { xPoweredBy: false },
    // tinyhttp's default extensions (res.json, req.query, ... which nothing here uses) give every request
    // two accessor properties of its own (req.fresh, req.stale), so each request gets a new hidden class
    // in the old generation that holds the request's objects through every young-generation collection:
    // all of a request's garbage was promoted. Measured with back-to-back GET /api/version: the old space
    // grew by about 20 MiB a second (VmRSS past 200 MiB) until a full collection, against nothing without
    // them. The routes read the plain Node request and response (this file, registry.ts).
    applyExtensions: (_req, _res, next) => next?.(),
    onError: (err: unknown, req: IncomingMessage, res: ServerResponse) => sendError(res, err, requestIdOf(res), req.url),
  });
  tiny.use(async (req, res) => {
    // Nothing is done for a request until the responses before it on its connection have drained.
    if (!(await waitForTurn(req, res))) return;
    const requestId = REQUEST_ID.test(String(req.headers['x-request-id'] ?? '')) ? String(req.headers['x-request-id']) : randomUUID();
    res.setHeader('X-Request-Id', requestId);
    res.setHeader('X-Content-Type-Options', 'nosniff');
    res.setHeader('Referrer-Policy', 'same-origin');
    res.setHeader('X-Frame-Options', 'DENY');
    const requested = (req.originalUrl ?? req.url ?? '/').split('?')[0]!;
    const pathname = rootAlias(requested);
    if (!isApiPath(pathname)) {
      // The ACME HTTP-01 responder, and the UI's move to HTTPS once a trusted certificate is installed.
      const tls = tlsHooks.get(app);
      if (tls) {
        try {
          if (tls.intercept(req, res, pathname)) return;
          const to = (req.socket as { encrypted?: boolean }).encrypted ? null : tls.redirect(req, pathname);
          if (to) { res.writeHead(307, { Location: to, 'Cache-Control': 'no-store' }).end(); return; }
        } catch (e) { sendError(res, e, requestId, pathname); return; }
      }
      // On a fresh probe (no administrator yet) the first page a browser gets is the setup wizard.
      if (pathname === '/' && app.auth.bootstrap.needed()) {
        res.writeHead(302, { Location: '/setup', 'Cache-Control': 'no-store' }).end();
        return;
      }
      try { await serveStatic(req, res, pathname); } catch (e) { sendError(res, e, requestId, pathname); }
      return;
    }
    const started = performance.now();
    const long = { value: false };
    inFlight++;
    try {
      await dispatch(req, res, pathname, requestId, long);
    } catch (e) {
      sendError(res, e, requestId, pathname);
      if (!(e instanceof HttpError) || e.status >= 500)
        log.error('request failed', { request_id: requestId, method: req.method, path: pathname, err: e as Error });
    } finally {
      if (!long.value) settle();
      const ms = Math.round(performance.now() - started);
      const level = res.statusCode >= 500 ? 'error' : req.method === 'GET' && res.statusCode < 400 ? 'debug' : 'info';
      log.log(level, `${req.method} ${pathname} ${res.statusCode} ${ms}ms`, { request_id: requestId });
    }
  });

  async function dispatch(req: IncomingMessage, res: ServerResponse, pathname: string, requestId: string, long: { value: boolean }) {
    const method = req.method ?? 'GET';
    const found = app.routes.match(method, pathname);
    const r = found.route;
    if (!r) {
      if (found.allowed.length) {
        throw new HttpError(405, 'method_not_allowed', `${method} is not allowed on ${pathname}; use ${found.allowed.join(', ')}`,
          { headers: { Allow: found.allowed.join(', ') } });
      }
      throw new HttpError(404, 'route_not_found', `There is no API endpoint ${method} ${pathname}`);
    }
    const ip = clientIp(req, app.config.get().server.trust_proxy);

    let principal: Principal | null = null;
    if (r.auth === 'none' && !r.authRequiredIf?.(app)) {
      principal = await app.auth.authenticator.authenticate(req).catch(() => null);
    } else {
      principal = await app.auth.authenticator.authenticate(req);
      if (!principal) throw unauthorized();
      const why = denyReason(principal, r.auth === 'none' ? { scope: r.scope, admin: r.admin } : r);
      if (why) throw forbidden(why);
      for (const guard of app.auth.guards) {
        const refused = guard(principal, r);
        if (refused) throw new HttpError(403, refused.code, refused.detail);
      }
    }
    if (UNSAFE.has(method) && (principal?.kind === 'session' || req.headers.origin)) checkOrigin(req, app.config.get().server.public_url);

    const params = r.params ? parseInput('params', r.params, found.params) : found.params;
    // The query's and the body's errors (their guards' and their schemas') go out together in one 400.
    const url = req.url ?? '';
    const q = r.query ? checkInput('query', r.query, queryObject(url), queryProblems(url)) : { ok: true as const, data: {} };
    let b: ReturnType<typeof checkInput> = { ok: true, data: undefined };
    if (r.body && !r.rawBody) {
      const limit = r.bodyLimit ?? app.config.get().http.json_limit_kb * 1024;
      const json = await readJson(req, limit);
      b = checkInput('body', r.body, json.value, json.errors);
    }
    if (!q.ok || !b.ok) {
      const errors = [...(q.ok ? [] : q.errors), ...(b.ok ? [] : b.errors)];
      throw invalid(q.ok ? 'request body' : b.ok ? 'request query' : 'request', errors);
    }
    const query = q.data;
    const body: unknown = b.data;
    if (r.produces === 'text/event-stream') { long.value = true; settle(); }

    const ctx: RequestCtx = {
      params, query, body, principal, req, res, ip, requestId, app,
      log: app.log.child('http', { request_id: requestId }),
      auditEntry: (action, target, details, outcome) => ({
        action, target: target ?? null, details, outcome: outcome ?? 'success',
        actor: principal?.actor ?? null, actor_user_id: principal?.user.id ?? null, source_ip: ip,
      }),
      audit: (action, target, details, outcome) => app.audit.record(ctx.auditEntry(action, target, details, outcome)),
    };
    const rule = r.rateLimit && !r.rateLimit.exempt?.(ctx) ? r.rateLimit : undefined;
    const limit = rule && enforceRateLimit(app.auth.limiter, rule, ip, principal, body);
    ctx.rateLimit = limit;
    let result: unknown;
    try {
      result = await r.handler(ctx);
    } finally {
      limit?.settle(); // an attempt the handler did not call a failure is refunded
    }
    if (res.headersSent || res.writableEnded) return;
    if (result instanceof Reply) return sendJson(res, result.status, result.body, result.headers);
    if (result === undefined) return sendJson(res, 204);
    sendJson(res, 200, result);
  }

  function sendError(res: ServerResponse, err: unknown, requestId: string, instance?: string) {
    const httpErr = toHttpError(err);
    if (res.headersSent) { res.destroy(); return; }
    const problem = httpErr.toProblem(requestId, instance);
    if (httpErr.code === 'internal_error') problem.detail = `Unexpected error; quote request id ${requestId} when reporting it`;
    const headers = { ...httpErr.headers, 'Content-Type': 'application/problem+json; charset=utf-8', 'Cache-Control': 'no-store' };
    res.writeHead(httpErr.status, headers).end(JSON.stringify(problem));
  }

  // Request timeouts are enforced by a sweep; once a second keeps a slow body from outliving its bound by much.
  const handle = (req: IncomingMessage, res: ServerResponse) => tiny.attach(req as any, res as any);
  const limits = () => {
    const h = app.config.get().http;
    return { maxConnections: h.max_connections, maxPerAddress: h.max_connections_per_address, timeoutMs: h.request_timeout_seconds * 1000 };
  };
  const server = createServer({ connectionsCheckingInterval: 1000 }, handle);
  guardConnections(server, limits);

  // Stops one server: stop accepting, close idle sockets, the rest once in-flight requests are done.
  const closeServer = (s: Server | HttpsServer, graceMs: number) => new Promise<void>((resolve) => {
    s.close(() => resolve());
    s.closeIdleConnections();
    const done = () => { s.closeAllConnections(); };
    if (inFlight === 0) done();
    else {
      const t = setTimeout(done, graceMs);
      idleWaiters.push(() => { clearTimeout(t); done(); });
    }
  });

  const http: HttpApp = {
    server,
    httpsServer: null,
    async listenHttps(host, ephemeral = false) {
      const tls = tlsHooks.get(app);
      if (!tls || http.httpsServer) return null;
      const configured = tls.httpsPort();
      if (configured === 0) return null;
      try {
        // The same handler and guards as HTTP. The guards count the raw TCP connection (the 'connection'
        // event comes before the handshake); their refusal is plain HTTP, which a TLS client sees as a failed handshake.
        const s = createHttpsServer({ ...tls.secureContext(), connectionsCheckingInterval: 1000 }, handle);
        guardConnections(s as unknown as Server, limits);
        await new Promise<void>((resolve, reject) => {
          s.once('error', reject);
          s.listen(ephemeral ? 0 : configured, host, () => { s.off('error', reject); resolve(); });
        });
        s.on('tlsClientError', () => { /* a client that gave up or distrusts the certificate: nothing to do */ });
        http.httpsServer = s;
        const addr = s.address() as AddressInfo;
        tls.listening(s, addr.port);
        return addr;
      } catch (e) {
        log.error(`HTTPS not started on port ${configured}: ${(e as Error).message}; HTTP keeps serving`, { err: e as Error });
        return null;
      }
    },
    async close(graceMs = 10_000) {
      await Promise.all([closeServer(server, graceMs), ...(http.httpsServer ? [closeServer(http.httpsServer, graceMs)] : [])]);
    },
  };
  return http;
}

function requestIdOf(res: ServerResponse): string {
  return String(res.getHeader('X-Request-Id') ?? randomUUID());
}

/** Library errors that are really bad input must not become 500s. */
function toHttpError(err: unknown): HttpError {
  if (err instanceof HttpError) return err;
  if (err instanceof z.ZodError) return validationError('body', err);
  const msg = err instanceof Error ? err.message : String(err);
  if (/UNIQUE constraint failed/.test(msg)) return new HttpError(409, 'conflict', 'A record with the same unique value already exists');
  if (/FOREIGN KEY constraint failed/.test(msg))
    return new HttpError(409, 'reference_conflict', 'The change conflicts with records that reference it');
  const code = (err as { code?: string })?.code;
  if (code === 'ERR_STREAM_PREMATURE_CLOSE' || /aborted/.test(msg)) return new HttpError(400, 'request_aborted', 'The request was aborted');
  if (code === 'ENOSPC' || code === 'EDQUOT') {
    return new HttpError(507, 'storage_full', 'The probe\'s data storage is full, so the change was not saved. Free space on the ' +
      'data partition (or run the database cleanup); writes resume by themselves once there is room.');
  }
  if (code === 'EROFS' || code === 'EIO') {
    return new HttpError(503, 'storage_unavailable', `The probe cannot write to its data storage (${code}), so the change was not saved. ` +
      'Check the SD card or disk; writes resume by themselves once it can be written again.', { headers: { 'Retry-After': '30' } });
  }
  return new HttpError(500, 'internal_error', msg);
}

function sendJson(res: ServerResponse, status: number, body?: unknown, headers: Record<string, string> = {}) {
  if (status === 204 || body === undefined) {
    res.writeHead(status === 200 ? 204 : status, { 'Cache-Control': 'no-store', ...headers }).end();
    return;
  }
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'Content-Type': 'application/json; charset=utf-8', 'Cache-Control': 'no-store',
    'Content-Length': String(Buffer.byteLength(text)), ...headers,
  }).end(text);
}

/** The query string's values with control characters, as field errors (reported with the query schema's). */
function queryProblems(url: string): FieldError[] {
  return inspectJson(queryObject(url)).map((e) => ({ path: `query.${e.path}`, message: e.message }));
}

function queryObject(url: string): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  const i = url.indexOf('?');
  if (i < 0) return out;
  for (const [k, v] of new URLSearchParams(url.slice(i + 1))) {
    const prev = out[k];
    out[k] = prev === undefined ? v : Array.isArray(prev) ? [...prev, v] : [prev, v];
  }
  return out;
}


/** Cookie-authenticated unsafe requests must come from our own origin (CSRF defence with SameSite). */
function checkOrigin(req: IncomingMessage, publicUrl: string): void {
  const origin = req.headers.origin;
  if (!origin) throw forbidden('Cross-site request refused: an Origin header is required for this request');
  let host: string;
  try { host = new URL(origin).host; } catch { throw forbidden('Cross-site request refused: malformed Origin'); }
  const allowed = new Set([req.headers.host]);
  if (publicUrl) { try { allowed.add(new URL(publicUrl).host); } catch { /* invalid public_url is reported by config */ } }
  if (!allowed.has(host)) throw forbidden(`Cross-site request refused: origin ${origin} is not this probe`);
}
