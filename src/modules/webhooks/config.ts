// The `webhooks` section of the configuration: delivery timeouts, retries and how much history is kept.
import { z } from 'zod';
import { section } from '../../core/config/schema.js';

export const webhooksConfig = section({
  timeout_seconds: z.number().int().min(1).max(60).default(10).describe('How long one delivery attempt may take'),
  max_attempts: z.number().int().min(3).max(10).default(5).describe('Attempts of a delivery before it is given up'),
  retry_base_seconds: z.number().int().min(1).max(3600).default(10)
    .describe('First retry delay; each later one waits three times longer (Retry-After is honoured)'),
  attempt_log_size: z.number().int().min(50).max(10_000).default(500).describe('Delivery attempts kept for GET /api/webhooks/deliveries'),
  alert_log_size: z.number().int().min(50).max(10_000).default(200).describe('Alerts kept for GET /api/webhooks/alerts'),
  log_retention_days: z.number().int().min(1).max(90).default(7).describe('Attempts and alerts older than this are dropped'),
});

export type WebhookConfig = z.infer<typeof webhooksConfig>;

declare module '../../core/config/schema.js' {
  interface ModuleConfig { webhooks: WebhookConfig }
}
