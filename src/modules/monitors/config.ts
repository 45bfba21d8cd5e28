// The `monitors` section of the configuration: how long history is kept and how many checks run at once.
import { z } from 'zod';
import { section } from '../../core/config/schema.js';
import type { AppContext } from '../../core/context.js';

export const monitorsConfig = section({
  raw_retention_hours: z.number().min(1).max(24 * 30).default(24)
    .describe('Raw check results are kept this long (in memory and in the results segments)'),
  minute_retention_hours: z.number().min(1).max(24 * 30).default(24)
    .describe('Minute rollups an earlier build wrote are deleted after this long (none are written any more)'),
  hour_retention_days: z.number().min(1).max(365).default(2)
    .describe('Hourly rollups are kept this long (the 24-hour figures read them; nothing reads older ones)'),
  day_retention_days: z.number().min(1).max(3650).default(365)
    .describe('Daily rollups, closed incidents and the event log are kept this long'),
  max_concurrent_checks: z.number().int().min(1).max(1024).default(32)
    .describe('Checks (other than ping, which share fping processes) running at once; more wait their turn'),
  startup_image_hours: z.number().min(0).max(7 * 24).default(6)
    .describe('How often the monitors\' memory is also written as a start-up image besides at every stop (0: only at stop)'),
  retention_interval_minutes: z.number().min(1).max(24 * 60).default(10).describe('How often the retention job runs'),
});

export type MonitorConfig = z.infer<typeof monitorsConfig>;

declare module '../../core/config/schema.js' {
  interface ModuleConfig { monitors: MonitorConfig }
}

export function monitorConfig(app: Pick<AppContext, 'config'>): MonitorConfig {
  return app.config.get().monitors;
}
