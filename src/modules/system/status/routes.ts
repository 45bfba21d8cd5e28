// GET /api/system/status: the probe's health (CPU, load, memory, disk, uptime, temperature, throttling).
import { z } from 'zod';
import { route, type AnyRoute } from '../../../core/http/registry.js';
import type { StatusService } from './service.js';

const Throttle = z.object({
  raw: z.string(), under_voltage: z.boolean(), frequency_capped: z.boolean(), throttled: z.boolean(), soft_temperature_limit: z.boolean(),
  under_voltage_occurred: z.boolean(), frequency_capped_occurred: z.boolean(), throttled_occurred: z.boolean(),
  soft_temperature_limit_occurred: z.boolean(), checked_at: z.string(),
});

export const SystemStatusSchema = z.object({
  time: z.string(),
  cpu: z.object({
    cores: z.number().int(),
    usage_pct: z.number().nullable()
      .describe('Busy share of all cores since the previous reading (a window of at least a second); null until one exists'),
    process_pct: z.number().nullable().describe("The service's own CPU over the same window, as a share of one core"),
    load: z.object({ '1m': z.number(), '5m': z.number(), '15m': z.number() }),
  }),
  memory: z.object({
    total_bytes: z.number(), available_bytes: z.number(), used_pct: z.number(),
    process_rss_bytes: z.number().describe('Resident memory of the service'), process_heap_used_bytes: z.number(),
  }),
  disk: z.object({
    path: z.string(), total_bytes: z.number(), free_bytes: z.number(), available_bytes: z.number(), used_pct: z.number(),
  })
    .nullable().describe('The file system of the data directory'),
  uptime: z.object({
    host: z.number().describe('Seconds since the host booted'), service: z.number().describe('Seconds since the service started'),
  }),
  temperatures: z.array(z.object({ zone: z.string(), type: z.string(), celsius: z.number() }))
    .describe('Thermal zones of /sys/class/thermal; empty where there are none'),
  throttling: Throttle.nullable()
    .describe('Raspberry Pi firmware flags (vcgencmd get_throttled, read in the background at most once a minute); null without vcgencmd'),
});

export function statusRoutes(status: StatusService): AnyRoute[] {
  return [
    route({
      method: 'GET', path: '/api/system/status', scope: 'system:read', tag: 'system',
      summary: 'CPU, memory, disk, uptime, temperature and throttling',
      description: 'Read from /proc, /sys, os and statfs on each request (well under a millisecond, no child process). docs/system.md.',
      response: SystemStatusSchema,
      handler: () => status.status(),
    }),
  ];
}
