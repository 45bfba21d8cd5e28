// Reading the audit trail (administrators only).
import { z } from 'zod';
import type { AuditService } from '../../../core/audit/index.js';
import { route, type AnyRoute } from '../../../core/http/registry.js';
import { paging } from '../../../core/http/schemas.js';

const IsoTime = z.iso.datetime({ offset: true });

const AuditQuery = z.object({
  actor: z.string().min(1).max(200).optional().describe('Exact actor, e.g. "admin" or "admin (key ci)"'),
  action: z.string().min(1).max(100).optional().describe('Exact action, or a prefix ending in * such as auth.*'),
  since: IsoTime.optional().describe('Entries at or after this time (ISO 8601)'),
  until: IsoTime.optional().describe('Entries at or before this time (ISO 8601)'),
  ...paging(500, 50),
});

const AuditEntrySchema = z.object({
  id: z.string(),
  at: z.string(),
  actor: z.string().nullable(),
  actor_user_id: z.string().nullable(),
  source_ip: z.string().nullable(),
  action: z.string(),
  target: z.string().nullable(),
  outcome: z.enum(['success', 'failure']),
  details: z.record(z.string(), z.unknown()).nullable(),
});

export function auditRoutes(audit: AuditService): AnyRoute[] {
  return [
    route({
      method: 'GET', path: '/api/audit-log', admin: true, tag: 'audit',
      summary: 'Audit log entries, newest first',
      query: AuditQuery, response: z.object({ items: z.array(AuditEntrySchema), total: z.number().int() }),
      handler: (ctx) => audit.query(ctx.query),
    }),
  ];
}
