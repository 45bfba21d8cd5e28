// Routes that describe the service itself: version, web identity, OpenAPI document, route listing, live log.
import { z } from 'zod';
import { CachedJson } from '../../core/http/cached-json.js';
import { openSse } from '../../core/http/sse.js';
import { buildOpenApi } from '../../core/http/openapi.js';
import { route, RouteRegistry, type AnyRoute } from '../../core/http/registry.js';
import type { AppContext } from '../../core/context.js';
import type { LogLevel } from '../../core/log.js';

const Version = z.object({ name: z.string(), version: z.string(), prerelease: z.boolean(), channel: z.string(), node: z.string() });

export function metaRoutes(app: AppContext): AnyRoute[] {
  // Routes are all registered before the first request; the count guards against a late registration.
  let openApiCache: { count: number; doc: CachedJson } | undefined;
  return [
    route({
      method: 'GET', path: '/api/version', auth: 'none', tag: 'system', summary: 'Application version',
      response: Version,
      handler: () => ({ name: 'netprobe', version: app.version, prerelease: app.version.includes('-'), channel: 'alpha', node: process.version }),
    }),
    route({
      method: 'GET', path: '/api/web-identity', auth: 'none', tag: 'system',
      summary: "The probe's name as the web interface shows it, also on the sign-in page",
      response: z.object({ probe_name: z.string() }),
      handler: () => ({ probe_name: app.config.get().probe.name }),
    }),
    route({
      method: 'GET', path: '/api/openapi.json', auth: 'none', tag: 'system', summary: 'OpenAPI 3.1 document of this API',
      response: z.record(z.string(), z.unknown()),
      handler: ({ req, res }) => {
        const count = app.routes.all().length;
        if (openApiCache?.count !== count) openApiCache = { count, doc: new CachedJson(buildOpenApi(app.routes, { version: app.version })) };
        openApiCache.doc.send(req, res);
      },
    }),
    route({
      method: 'GET', path: '/api/developer/routes', admin: true, tag: 'system', summary: 'All routes with their access rules (admin)',
      response: z.object({ items: z.array(z.object({ method: z.string(), path: z.string(), summary: z.string(), access: z.string(), tag: z.string() })), total: z.number() }),
      handler: () => {
        const items = app.routes.all().map((r) => ({
          method: r.method, path: r.path, summary: r.summary, access: RouteRegistry.accessOf(r), tag: r.tag ?? r.path.split('/')[2] ?? '',
        }));
        return { items, total: items.length };
      },
    }),
    route({
      method: 'GET', path: '/api/dev/logs/stream', admin: true, tag: 'dev', produces: 'text/event-stream',
      summary: 'Live log as server-sent events (admin): replays the ring buffer, then follows',
      description: 'Each message is one log entry {seq, time, level, msg, module?, fields?} with type "log" and progress 0. ' +
        'Honours Last-Event-ID (the seq); `level` filters to that level and above.',
      query: z.object({ level: z.enum(['debug', 'info', 'warn', 'error']).optional() }),
      handler: ({ req, res, query }) => {
        const order: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };
        const min = order[(query.level ?? 'debug') as LogLevel];
        const stream = openSse(req, res);
        const after = Number(stream.lastEventId ?? 0) || 0;
        const send = (e: { seq: number; level: LogLevel }) => {
          if (order[e.level] >= min) stream.send({ type: 'log', progress: 0, ...e }, { id: e.seq });
        };
        for (const e of app.log.recent(after)) send(e);
        const off = app.log.subscribe(send);
        stream.onClose(off);
      },
    }),
  ];
}
