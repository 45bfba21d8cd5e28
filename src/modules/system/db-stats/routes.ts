// GET /api/system/db-stats (admin): files, tables, memory, checkpoints and retention windows of the store.
import { z } from 'zod';
import { route, type AnyRoute } from '../../../core/http/registry.js';
import { CleanupResultSchema } from '../database/schemas.js';
import type { DatabaseService } from '../database/service.js';

const DbStatsSchema = z.object({
  files: z.object({
    snapshot_bytes: z.number(), journal_bytes: z.number(), journal_records: z.number(),
    segment_files: z.number(), segment_bytes: z.number(), total_bytes: z.number(),
  }).describe('netprobe.db, netprobe.journal and the check results\' segment files in the data directory'),
  database: z.object({ page_size: z.number(), page_count: z.number(), bytes: z.number(), free_bytes: z.number() }),
  memory: z.object({
    database_bytes: z.number().describe('The database image held in memory (pages times page size)'),
    process_rss_bytes: z.number(),
    array_buffers_bytes: z.number().describe('ArrayBuffers and WebAssembly memory, where sql.js keeps the database'),
  }),
  tables: z.array(z.object({
    name: z.string(), rows: z.number(),
    bytes_estimate: z.number().describe('Value bytes estimated from up to 500 rows (no page or index overhead)'),
  })),
  checkpoint: z.object({
    last_at: z.string().nullable(), count: z.number().describe('Checkpoints since the service started'), last_lsn: z.number(),
    due_at_journal_bytes: z.number(), due_at_age: z.number().describe('Seconds'),
  }),
  retention: z.record(z.string(), z.number().nullable()).describe('The configured windows (monitors and webhooks sections)'),
  io_error: z.object({ code: z.string().nullable(), message: z.string() }).nullable(),
  cleanup: z.object({ running: z.boolean(), last: CleanupResultSchema.nullable() }),
});

export function dbStatsRoutes(db: DatabaseService): AnyRoute[] {
  return [
    route({
      method: 'GET', path: '/api/system/db-stats', admin: true, tag: 'system', summary: 'Database size and stats (admin)',
      description: 'Counts the rows of every table (a few milliseconds for a large database). docs/system.md.',
      response: DbStatsSchema,
      handler: () => db.stats(),
    }),
  ];
}
