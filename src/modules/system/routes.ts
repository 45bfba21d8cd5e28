// Routes that describe the service itself: version, OpenAPI document, route listing (web identity: web-identity/).
import { z } from 'zod';
import { CachedJson } from '../../core/http/cached-json.js';
import { buildOpenApi } from '../../core/http/openapi.js';
import { route, RouteRegistry, type AnyRoute } from '../../core/http/registry.js';
import type { AppContext } from '../../core/context.js';

const Version = z.object({ name: z.string(), version: z.string(), prerelease: z.boolean(), channel: z.string(), node: z.string() });

export function metaRoutes(app: AppContext): AnyRoute[] {
  // Routes are all registered before the first request; the count guards against a late registration.
  let openApiCache: { count: number; doc: CachedJson } | undefined;
  return [
    route({
      method: 'GET', path: '/api/version', auth: 'none', tag: 'system', summary: 'Application version',
      response: Version,
      handler: () => ({ name: 'netprobe', version: app.version, prerelease: app.version.includes('-'), channel: 'alpha',
        node: process.version }),
    }),
    route({
      method: 'GET', path: '/api/openapi.json', auth: 'none', tag: 'system', summary: 'OpenAPI 3.1 document of this API',
      response: z.record(z.string(), z.unknown()),
      handler: ({ req, res }) => {
        const count = app.routes.all().length;
        if (openApiCache?.count !== count)
          openApiCache = { count, doc: new CachedJson(buildOpenApi(app.routes, { version: app.version })) };
        openApiCache.doc.send(req, res);
      },
    }),
    route({
      method: 'GET', path: '/api/developer/routes', admin: true, tag: 'system', summary: 'All routes with their access rules (admin)',
      description: 'Each route names the module and the source file that declare it (docs/development.md, "Where an endpoint lives").',
      response: z.object({
        items: z.array(z.object({
          method: z.string(), path: z.string(), summary: z.string(), access: z.string(), tag: z.string(),
          module: z.string(), file: z.string(),
        })),
        total: z.number(),
      }),
      handler: () => {
        const items = app.routes.all().map((r) => ({
          method: r.method, path: r.path, summary: r.summary, access: RouteRegistry.accessOf(r), tag: r.tag ?? r.path.split('/')[2] ?? '',
          module: r.module ?? 'core', file: r.file ?? 'unknown',
        }));
        return { items, total: items.length };
      },
    }),
  ];
}
