// Response shapes of the database endpoints shared by db-stats and db-cleanup.
import { z } from 'zod';

export const CleanupResultSchema = z.object({
  started_at: z.string(),
  finished_at: z.string(),
  duration_ms: z.number(),
  retention: z.record(z.string(), z.number()).nullable()
    .describe('What the monitors retention pass removed: results (from memory), segments (files), rollups, measure_rollups, ' +
      'incidents, events, messages; and reclaimed_bytes, what the database gave back'),
  checkpoint: z.object({
    journal_bytes_before: z.number(), journal_bytes_after: z.number(), snapshot_bytes_before: z.number(), snapshot_bytes_after: z.number(),
  }),
  segments: z.object({ files_before: z.number(), files_after: z.number(), bytes_before: z.number(), bytes_after: z.number() }),
  freed_bytes: z.number().describe('Bytes in the data directory before minus after; negative when the snapshot grew'),
  compaction: z.object({ performed: z.boolean(), free_bytes: z.number(), detail: z.string() }),
});
