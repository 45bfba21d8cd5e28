// /api/v1sion/ssh-targets: the devices SSH enrichment logs in to, and their pinned host keys (ssh-targets/service.ts).
import { z } from 'zod';
import { isAdmin } from '../../../core/auth/index.js';
import { actorOf, reply, route } from '../../../core/http/registry.js';
import { listOf, paging } from '../../../core/http/schemas.js';
import { TARGET_PLATFORMS } from '../enrich-ssh/facts.js';
import { FINGERPRINT, type SshTargetService } from './service.js';

const IdParams = z.object({ id: z.uuid() });
const Name = z.string().trim().min(1).max(200);
const Host = z.string().trim().min(1).max(253).describe('IP address or host name (no port, no scheme)');
const Port = z.number().int().min(1).max(65535);
const CredentialId = z.string().trim().min(1).max(64).describe('An inventory credential of kind ssh_password or ssh_key: UUID or CR-n');
const Platform = z.enum(TARGET_PLATFORMS).describe('auto: from the SSH banner, then uname, then show version');
const Tags = z.array(z.string().trim().min(1).max(64).regex(/^[^\p{Cc}]+$/u, 'no control characters')).max(32);
const HostKey = z.string().regex(FINGERPRINT, 'a SHA256 fingerprint as ssh-keygen -l prints it: SHA256: and 43 base64 characters')
  .describe('Expected host key (pinned before the first login); without it the first login pins the key it meets');

const CreateBody = z.object({
  name: Name, host: Host, port: Port.default(22), credential_id: CredentialId, platform: Platform.default('auto'),
  tags: Tags.default([]), host_key: HostKey.optional().describe('Administrators only: a key pinned before the first login'),
}).strict();

const UpdateBody = z.object({
  name: Name.optional(), host: Host.optional(), port: Port.optional(), credential_id: CredentialId.optional(),
  platform: Platform.optional(), tags: Tags.optional(),
  host_key: HostKey.optional().describe('Only while no key is pinned (or the pinned one again); a pin is cleared by DELETE .../host-key'),
}).strict().refine((b) => Object.keys(b).length > 0, 'Give at least one field to change');

const ListQuery = z.object({
  ...paging(500, 100),
  q: z.string().max(200).optional().describe('Text in the name or host'),
  tag: z.string().max(64).optional(),
}).strict();

const Summary = z.object({
  platform: z.string(), hostname: z.string().nullable(), os: z.string().nullable(), os_version: z.string().nullable(),
  vendor: z.string().nullable(), model: z.string().nullable(), serial: z.string().nullable(),
  counts: z.record(z.string(), z.number()), collected_at: z.string(),
});
const TargetSchema = z.object({
  id: z.string(), name: z.string(), host: z.string(), port: z.number(), credential_id: z.string(),
  credential: z.object({ id: z.string(), short_id: z.string(), name: z.string(), kind: z.string(), username: z.string().nullable() })
    .nullable().describe('The referenced credential without secrets; null when it has been deleted'),
  platform: z.enum(TARGET_PLATFORMS), tags: z.array(z.string()),
  host_key: z.string().nullable().describe('The pinned SHA256 fingerprint; null until the first login pins one'),
  host_key_type: z.string().nullable(), host_key_pinned_at: z.string().nullable(),
  last_enriched_at: z.string().nullable(),
  last_error: z.object({ code: z.string(), message: z.string(), at: z.string() }).catchall(z.unknown()).nullable()
    .describe('The last failed enrichment (a changed host key carries pinned and presented); null after a success'),
  summary: Summary.nullable(), created_at: z.string(), updated_at: z.string(),
});
const TargetWithFacts = TargetSchema.extend({
  facts: z.record(z.string(), z.unknown()).nullable().describe('Everything the last successful enrichment learned (docs/discovery.md)'),
});

export function sshTargetRoutes(svc: SshTargetService) {
  return [
    route({
      method: 'GET', path: '/api/v1sion/ssh-targets', scope: 'v1sion:read',
      summary: 'List SSH targets',
      description: 'By name; each with a summary of what the last enrichment learned (GET one target for all of it).',
      query: ListQuery, response: listOf(TargetSchema),
      handler: (ctx) => svc.list(ctx.query),
    }),
    route({
      method: 'POST', path: '/api/v1sion/ssh-targets', scope: 'v1sion:write', status: 201,
      summary: 'Add an SSH target',
      description: 'A reference to a stored ssh_password or ssh_key credential, never a secret. 400 naming credential_id for ' +
        'another kind, a credential without its secret, or a key the SSH library cannot read (PKCS#8: convert it); 403 for an ' +
        'address outside the allowed ranges.',
      body: CreateBody, response: TargetWithFacts,
      handler: async (ctx) => reply(201, await svc.create(ctx.body, actorOf(ctx), isAdmin(ctx.principal))),
    }),
    route({
      method: 'GET', path: '/api/v1sion/ssh-targets/:id', scope: 'v1sion:read',
      summary: 'Get an SSH target', description: 'With facts: everything the last successful enrichment learned.',
      params: IdParams, response: TargetWithFacts,
      handler: (ctx) => svc.get(ctx.params.id),
    }),
    route({
      method: 'PUT', path: '/api/v1sion/ssh-targets/:id', scope: 'v1sion:write',
      summary: 'Change an SSH target',
      description: 'The fields given change. The pinned host key stays across a change of address (the same device keeps its ' +
        'key); only an administrator clears it, with DELETE .../host-key.',
      params: IdParams, body: UpdateBody, response: TargetWithFacts,
      handler: (ctx) => svc.update(ctx.params.id, ctx.body, actorOf(ctx), isAdmin(ctx.principal)),
    }),
    route({
      method: 'DELETE', path: '/api/v1sion/ssh-targets/:id', scope: 'v1sion:write',
      summary: 'Delete an SSH target', params: IdParams,
      handler: async (ctx) => { await svc.remove(ctx.params.id, actorOf(ctx)); },
    }),
    route({
      method: 'PUT', path: '/api/v1sion/ssh-targets/:id/host-key', admin: true,
      summary: 'Pin a host key',
      description: 'Administrators only, audited (v1sion.ssh_host_key_pin). A password credential is sent only to a host whose ' +
        'key is pinned: compare the fingerprint a refused login reported (last_error.presented) with the device\'s own ' +
        '(`ssh-keygen -lf /etc/ssh/ssh_host_ed25519_key.pub` on it) and pin it. 409 while another key is pinned.',
      params: IdParams,
      body: z.strictObject({
        fingerprint: HostKey,
        type: z.string().trim().min(1).max(64).regex(/^[a-z0-9@.-]+$/).optional().describe('Key type, e.g. ssh-ed25519'),
      }),
      response: TargetWithFacts,
      handler: (ctx) => svc.pinHostKey(ctx.params.id, ctx.body, actorOf(ctx)),
    }),
    route({
      method: 'DELETE', path: '/api/v1sion/ssh-targets/:id/host-key', admin: true,
      summary: 'Clear the pinned host key',
      description: 'Administrators only, audited (v1sion.ssh_host_key_clear with the old fingerprint). The next login trusts ' +
        'and pins whatever key the device presents: do it only when the device was really replaced or reinstalled.',
      params: IdParams, response: TargetWithFacts,
      handler: (ctx) => svc.clearHostKey(ctx.params.id, actorOf(ctx)),
    }),
  ];
}
