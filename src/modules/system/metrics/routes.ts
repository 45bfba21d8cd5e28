// GET /api/metrics, also served as GET /metrics (core/http/app.ts): Prometheus text format.
import { route, type AnyRoute } from '../../../core/http/registry.js';
import { authorizeMetrics, METRICS_SCOPE } from './access.js';
import { METRICS_CONTENT_TYPE, type MetricsService } from './service.js';

export function metricsRoutes(metrics: MetricsService): AnyRoute[] {
  return [
    route({
      // auth: 'none' for the registry only: authorizeMetrics requires a caller (below); the scope is documentation.
      method: 'GET', path: '/api/metrics', auth: 'none', scope: METRICS_SCOPE, tag: 'system', produces: METRICS_CONTENT_TYPE,
      summary: 'Prometheus metrics (also at /metrics): a bearer metrics token, or a caller with system:read',
      description: 'Text exposition format 0.0.4. Accepted: `Authorization: Bearer <system.metrics_token>`, ' +
        '`Authorization: Bearer <API key>` ' +
        'or X-API-Key with system:read, or a session; anything else 401 (403 without the scope). Series and costs: docs/system.md.',
      handler: async (ctx) => {
        await authorizeMetrics(ctx);
        const body = await metrics.render();
        ctx.res.writeHead(200, {
          'Content-Type': METRICS_CONTENT_TYPE, 'Cache-Control': 'no-store', 'Content-Length': String(Buffer.byteLength(body)),
        }).end(body);
      },
    }),
  ];
}
