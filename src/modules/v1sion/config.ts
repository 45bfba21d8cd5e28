// The `discovery` section of the configuration (the v1sion module): who may read the topology's
// status badges. The scan's keys (allowed ranges, largest prefix) join it with the scan.
import { z } from 'zod';
import { section } from '../../core/config.js';

export const discoveryConfig = section({
  status_requires_auth: z.boolean().default(false).describe(
    'GET /api/v1sion/monitor/status and /by-ip need a signed-in caller with v1sion:read (by default they are open, as SPEC.md says)'),
});

declare module '../../core/config.js' {
  interface ModuleConfig { discovery: z.infer<typeof discoveryConfig> }
}
