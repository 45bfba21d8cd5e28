// POST /api/system/db-cleanup (admin): retention now and a checkpoint; one at a time (409 otherwise).
import { route, type AnyRoute } from '../../../core/http/registry.js';
import { CleanupResultSchema } from '../database/schemas.js';
import type { DatabaseService } from '../database/service.js';

export function dbCleanupRoutes(db: DatabaseService): AnyRoute[] {
  return [
    route({
      method: 'POST', path: '/api/system/db-cleanup', admin: true, tag: 'system', summary: 'Trigger database cleanup (admin)',
      description: 'Runs the retention pass now, then a checkpoint, and answers with what they freed. A request while one runs gets ' +
        '409 cleanup_running. No body. docs/system.md.',
      response: CleanupResultSchema,
      handler: async (ctx) => {
        const result = await db.cleanup();
        await ctx.audit('system.db_cleanup', null, { freed_bytes: result.freed_bytes, duration_ms: result.duration_ms });
        return result;
      },
    }),
  ];
}
