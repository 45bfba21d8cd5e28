// The `snmp` section of the configuration: how walks and reads behave unless a request says otherwise.
import { z } from 'zod';
import { section } from '../../core/config/schema.js';

export const snmpConfig = section({
  timeout_ms: z.number().int().min(100).max(60_000).default(2000).describe('How long to wait for each answer of an agent, in ms'),
  retries: z.number().int().min(0).max(5).default(1).describe('Retries of a request that got no answer'),
  max_varbinds: z.number().int().min(1).max(100_000).default(10_000).describe('A walk stops after this many values and says truncated'),
  max_concurrent_walks: z.number().int().min(1).max(64).default(4).describe('Walks run at once; more wait in a queue (then 429)'),
});

declare module '../../core/config/schema.js' {
  interface ModuleConfig { snmp: z.infer<typeof snmpConfig> }
}
