// /api/update: the running release and the update source (status, credentials, branches, check) and the
// update itself (run, with its progress as SSE). docs/update.md.
import { z } from 'zod';
import { reply, route, type AnyRoute } from '../../../core/http/registry.js';
import type { UpdateService } from './service.js';

const CredentialsBody = z.strictObject({
  token: z.string().min(1).max(4096)
    // eslint-disable-next-line no-control-regex -- a header value: no control characters, no line breaks
    .refine((s) => !/[\u0000-\u001f\u007f]/.test(s), 'Must not contain control characters or line breaks').optional()
    .describe('Read-only token of a private source (GitHub fine-grained "Contents: read", GitLab deploy token, Gitea read:repository)'),
  username: z.string().min(1).max(256).regex(/^[^:\s]+$/, 'Must not contain a colon or spaces').optional()
    .describe('With a user name the token is sent as HTTP Basic, without as a Bearer token'),
  clear: z.literal(true).optional().describe('Forget the stored credentials'),
}).superRefine((b, c) => {
  if (b.clear && (b.token !== undefined || b.username !== undefined)) {
    c.addIssue({ code: 'custom', path: ['clear'], message: 'Give either clear or a token, not both' });
  } else if (!b.clear && b.token === undefined) c.addIssue({ code: 'custom', path: ['token'], message: 'Required (or clear: true)' });
});
const CredentialsResponse = z.object({
  set: z.boolean(), username: z.string().nullable(), set_at: z.string().nullable(), applies_to_source: z.boolean(),
});

const RunBody = z.strictObject({
  allow_downgrade: z.boolean().optional().describe('Install the release at the tip even when it is older than the running one'),
  restore_backup: z.boolean().optional()
    .describe("For a downgrade across a schema change: put back the database backed up when that release was left (later data is lost)"),
});
const RunResponse = z.object({ job_id: z.string(), request_id: z.string(), stream: z.string(), status: z.string() });
const JobParams = z.strictObject({ job_id: z.uuid() });

const Outcome = z.enum(['updated', 'up_to_date', 'rolled_back', 'refused', 'failed']);
const CheckResponse = z.object({
  checked_at: z.string(), url: z.string(), channel: z.string(), tip: z.string(), tag: z.string().nullable(), version: z.string().nullable(),
  running_version: z.string(), update_available: z.boolean(), downgrade: z.boolean(), detail: z.string(),
  changes: z.object({ source: z.enum(['tag_message', 'none']), text: z.string().nullable(), note: z.string() }),
  signature: z.string(),
});
const StatusResponse = z.object({
  running: z.object({
    version: z.string(), commit: z.string().nullable(), release_dir: z.string(), installed_releases: z.array(z.string()),
  }),
  source: z.object({ url: z.string(), channel: z.string(), configured: z.boolean(),
    daily_check: z.boolean().describe('The probe checks the channel once a day by itself (update.daily_check)') }),
  credentials: CredentialsResponse,
  helper: z.object({ installed: z.boolean(), unit_file: z.string(), release_key_pinned: z.boolean(), allowed_signers_file: z.string() }),
  in_progress: z.boolean(),
  job_id: z.string().nullable(),
  last_check: z.object({ at: z.string(), ok: z.boolean(), error: z.string().optional(), result: CheckResponse.optional() }).nullable(),
  last_run: z.object({
    request_id: z.string().nullable(), requested_at: z.string().nullable(), requested_by: z.string().nullable(),
    job_id: z.string().nullable(), result: Outcome.nullable(), detail: z.string(), from: z.string().nullable(),
    to: z.string().nullable(), finished_at: z.string().nullable(),
    log_tail: z.array(z.string()),
  }).nullable(),
});

export function updateRoutes(svc: UpdateService): AnyRoute[] {
  return [
    route({
      method: 'GET', path: '/api/update/status', scope: 'system:read', tag: 'update',
      summary: 'Running version and commit, source and channel, credentials set or not, last check, last run and its outcome',
      description: 'The token is never shown, only whether one is set (and for which source). `last_run.result` is null while the ' +
        'helper has not reported; after a rollback `log_tail` holds the new release\'s last log lines.',
      response: StatusResponse,
      handler: () => svc.status(),
    }),
    route({
      method: 'POST', path: '/api/update/credentials', admin: true, tag: 'update',
      summary: 'Set (or clear) the read-only token of a private update source (admin, write-only)',
      description: 'Stored 0600 in the data directory for the configured source URL only; sent to git as an HTTP header through the ' +
        'environment, never in a URL, argv or a git config file. 409 `update_source_not_configured` without a source.',
      body: CredentialsBody, response: CredentialsResponse,
      handler: (ctx) => svc.setCredentials(ctx, ctx.body),
    }),
    route({
      method: 'GET', path: '/api/update/branches', scope: 'system:read', tag: 'update',
      summary: 'Branches of the update source (git ls-remote)',
      description: '502 `update_source_failed` with git\'s message when the source cannot be reached or refuses the credentials.',
      response: z.object({
        items: z.array(z.object({ name: z.string(), commit: z.string(), default: z.boolean(), current_channel: z.boolean() })),
        total: z.number().int(), default_branch: z.string().nullable(), channel: z.string(),
      }),
      handler: () => svc.branches(),
    }),
    route({
      method: 'GET', path: '/api/update/check', scope: 'system:read', tag: 'update',
      summary: 'Whether the release at the channel\'s tip is newer than the running one, with its version and changes',
      description: 'The release is the annotated v<version> tag that peels to the tip. The changes are the tag\'s message when the ' +
        'source offers a partial fetch (a few hundred bytes); git ls-remote itself carries no messages.',
      response: CheckResponse,
      handler: () => svc.check(),
    }),
    route({
      method: 'POST', path: '/api/update/run', admin: true, status: 202, tag: 'update',
      summary: 'Update to the release at the channel\'s tip (admin): a job; the root helper verifies, installs, checks, rolls back',
      description: '503 `update_helper_missing` where the root helper is not installed (development), 409 `update_in_progress`, ' +
        '507 `insufficient_storage`. The helper restarts the service, so the job ends with this process when it gets that far: ' +
        'the outcome (updated, up_to_date, rolled_back, refused, failed) is then in GET /api/update/status.',
      body: RunBody, response: RunResponse,
      handler: async (ctx) => reply(202, await svc.run(ctx, ctx.body)),
    }),
    route({
      method: 'GET', path: '/api/update/run/:job_id/stream', scope: 'system:read', tag: 'update', produces: 'text/event-stream',
      summary: 'Progress of an update run as server-sent events',
      params: JobParams,
      handler: ({ req, res, params }) => { svc.stream(req, res, params.job_id); },
    }),
  ];
}
