// /api/v1sion/credentials: the ordered list of credentials scans try (credentials/service.ts).
import { z } from 'zod';
import { isAdmin } from '../../../core/auth/index.js';
import { actorOf, route } from '../../../core/http/registry.js';
import { MAX_CREDENTIALS, type DiscoveryCredentials } from './service.js';

const Entry = z.object({
  credential_id: z.string().min(1).max(64).optional().describe('A stored credential (UUID or CR-n); other fields are then ignored'),
  kind: z.string().max(32).optional(),
}).passthrough().describe('A reference ({credential_id}) or a new credential in the inventory\'s credential shape (admin)');

const ListSchema = z.object({
  credentials: z.array(z.object({ credential_id: z.string(), id: z.string(), kind: z.string() }).catchall(z.unknown())),
});

export function credentialRoutes(svc: DiscoveryCredentials) {
  return [
    route({
      method: 'GET', path: '/api/v1sion/credentials', scope: 'v1sion:read',
      summary: 'Get discovery credentials',
      description: 'The stored credentials a scan tries, in order, when its request names none; secrets as {set: true}.',
      response: ListSchema,
      handler: () => svc.list(),
    }),
    route({
      method: 'POST', path: '/api/v1sion/credentials', scope: 'v1sion:write',
      summary: 'Save discovery credentials',
      description: 'Replaces the list. GET\'s body posts back unchanged. An entry without credential_id is stored as a ' +
        'new inventory credential first (SNMP kinds; admin only, 423 while the vault is locked): no secret is ever kept ' +
        'outside the vault.',
      body: z.object({ credentials: z.array(Entry).max(MAX_CREDENTIALS) }).strict(), response: ListSchema,
      handler: (ctx) => svc.save(ctx.body.credentials, actorOf(ctx), isAdmin(ctx.principal)),
    }),
  ];
}
