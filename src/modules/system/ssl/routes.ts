// /api/ssl: the certificate HTTPS serves. Upload a PFX, order one by ACME (a job: follow it, cancel it),
// read the status. The ACME HTTP-01 answers (/.well-known/acme-challenge/) are served by the HTTP core
// through the TLS hooks (service.ts), outside /api.
import { X509Certificate } from 'node:crypto';
import { z } from 'zod';
import { HttpError, notFound } from '../../../core/errors.js';
import { reply, route, type AnyRoute } from '../../../core/http/registry.js';
import { streamJob } from '../../../core/http/sse.js';
import { ACME_JOB, type AcmeService } from './acme.js';
import type { AcmeStateStore } from './acme-state.js';
import type { TlsService } from './service.js';
import { SslStatus, sslStatus } from './status.js';
import { checkPfx, PASSWORD_HEADER, PFX_MAX_BYTES, PFX_TYPES, readUpload } from './upload.js';

export const DIRECTORIES = {
  letsencrypt: 'https://acme-v02.api.letsencrypt.org/directory',
  'letsencrypt-staging': 'https://acme-staging-v02.api.letsencrypt.org/directory',
} as const;

const Domain = z.string().trim().toLowerCase().max(253)
  .regex(/^(\*\.)?([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]([a-z0-9-]{0,61}[a-z0-9])?$/,
    'Must be a fully qualified DNS name such as probe.example.com (*.example.com with dns-01)');

const CaPem = z.string().max(65_536).refine((s) => {
  if (s === '') return true;
  try {
    const blocks = s.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? [];
    return blocks.length > 0 && blocks.every((b) => new X509Certificate(b));
  } catch { return false; }
}, 'Must be one or more PEM certificates (-----BEGIN CERTIFICATE-----)');

const OrderBody = z.strictObject({
  domains: z.array(Domain).min(1).max(20).refine((d) => new Set(d).size === d.length, 'Must not repeat a name')
    .describe('The names the certificate is for; the first is its common name'),
  challenge: z.enum(['http-01', 'dns-01']).describe('http-01: the CA fetches http://<name>/.well-known/acme-challenge/... from this probe ' +
    '(port 80 must reach it); dns-01: a TXT record written by RFC 2136 update (tls.rfc2136_* in the configuration)'),
  terms_of_service_agreed: z.literal(true)
    .describe('You agree to the ACME server\'s terms of service (Let\'s Encrypt\'s subscriber agreement)'),
  email: z.union([z.literal(''), z.email().max(254)]).default('').describe('Contact address given to the CA (expiry notices); optional'),
  directory_url: z.union([z.enum(['letsencrypt', 'letsencrypt-staging']), z.url({ protocol: /^https$/ }).max(2000)]).default('letsencrypt')
    .describe('letsencrypt, letsencrypt-staging, or the https:// directory URL of another ACME server'),
  // An object so that the PEM sits under a key the JSON guard lets hold line breaks (core/http/json-guard.ts).
  server_ca: z.strictObject({ certificate: CaPem.describe('PEM of one or more CA certificates') }).optional()
    .describe('For a private ACME server: the CA that signed its own TLS certificate; left out, the system\'s trusted CAs'),
  self_check: z.boolean().default(true)
    .describe('Check the challenge from the probe before asking the CA (http-01 on port 80 of the name, dns-01 through the ' +
      'system resolver)'),
});

const JobParams = z.object({ job_id: z.uuid() });
const JobView = z.object({
  id: z.string(), kind: z.string(), state: z.string(), progress: z.number(), created_at: z.string(),
  started_at: z.string().nullable(), finished_at: z.string().nullable(), error: z.string().optional(),
  meta: z.record(z.string(), z.unknown()).optional(), result: z.unknown().optional(),
});

export function sslRoutes(parts: { tls: TlsService; acme: AcmeService; state: AcmeStateStore }): AnyRoute[] {
  const { tls, acme, state } = parts;
  const orderJob = (ctx: { app: { jobs: import('../../../core/jobs.js').JobManager } }, id: string) => {
    const job = ctx.app.jobs.get(id);
    if (!job || job.kind !== ACME_JOB) throw notFound('Certificate order');
    return job;
  };
  return [
    route({
      method: 'GET', path: '/api/ssl/status', scope: 'system:read', tag: 'system',
      summary: 'Certificate status: mode, names, validity, fingerprint, HTTPS listener, ACME renewal',
      response: SslStatus,
      handler: (ctx) => sslStatus(ctx.app, tls, acme, state),
    }),
    route({
      method: 'POST', path: '/api/ssl/upload', admin: true, tag: 'system', rawBody: true, bodyLimit: PFX_MAX_BYTES,
      consumes: [...PFX_TYPES, 'multipart/form-data'], response: SslStatus,
      summary: 'Upload a PFX certificate (admin): installed at once, without a restart',
      description: 'The body is a PFX/PKCS#12 file (application/x-pkcs12 or application/octet-stream, its password in the ' +
        `${PASSWORD_HEADER} header) or a multipart/form-data form with "file" and "password"; at most 10 MiB. Legacy (RC2, 3DES) ` +
        'and modern encodings, RSA and EC keys. The key must match a certificate in the file, which must be valid now and ' +
        'name a host; the chain is put in order. A wrong password, a file that is not a PFX, an expired, not yet valid or ' +
        'mismatched certificate each get a 400 and the certificate in use stays. New connections get the new certificate.',
      handler: async (ctx) => {
        try {
          const { file, password } = await readUpload(ctx.req);
          const checked = await checkPfx(file, password, ctx.app.clock.now());
          const installed = await tls.install(checked, 'uploaded');
          await ctx.audit('tls.upload', installed.info.subject, {
            names: installed.info.names, fingerprint_sha256: installed.info.fingerprint_sha256, valid_to: installed.info.valid_to,
            ignored_certificates: checked.ignored,
          });
          return sslStatus(ctx.app, tls, acme, state);
        } catch (e) {
          const code = e instanceof HttpError ? e.code : 'error';
          await ctx.audit('tls.upload', null, { refused: code }, 'failure').catch(() => undefined);
          throw e;
        }
      },
    }),
    route({
      method: 'POST', path: '/api/ssl/letsencrypt', admin: true, tag: 'system', status: 202, body: OrderBody,
      response: z.object({ job_id: z.string(), domains: z.array(z.string()), challenge: z.string(), directory_url: z.string() }),
      summary: 'Order a certificate by ACME (admin): Let\'s Encrypt or any ACME server; renewed automatically',
      description: 'Starts the order as a job (GET /api/ssl/letsencrypt/{job_id}, its SSE stream, DELETE to cancel). The ' +
        'directory is checked first, so an unreachable or untrusted server fails in seconds with a readable error. On ' +
        'success the certificate is installed at once and renewed when a third of its lifetime is left (retried daily; ' +
        'failures alert through the webhooks as system_health). 409 while an order runs; 503 when dns-01 needs nsupdate.',
      handler: async (ctx) => {
        const b = ctx.body;
        const directory = b.directory_url in DIRECTORIES ? DIRECTORIES[b.directory_url as keyof typeof DIRECTORIES] : b.directory_url;
        const job = await acme.start({
          domains: b.domains, email: b.email, directory_url: directory, challenge: b.challenge,
          ca_pem: b.server_ca?.certificate ?? '', self_check: b.self_check,
        }, 'order');
        await ctx.audit('tls.acme_order', b.domains.join(','), { job_id: job.id, challenge: b.challenge, directory_url: directory });
        return reply(202, { job_id: job.id, domains: b.domains, challenge: b.challenge, directory_url: directory });
      },
    }),
    route({
      method: 'GET', path: '/api/ssl/letsencrypt/:job_id', scope: 'system:read', tag: 'system', params: JobParams, response: JobView,
      summary: 'A certificate order: state, progress, error or result',
      handler: (ctx) => {
        const job = orderJob(ctx, ctx.params.job_id);
        const result = ctx.app.jobs.result(job.id);
        return result === undefined ? job : { ...job, result };
      },
    }),
    route({
      method: 'GET', path: '/api/ssl/letsencrypt/:job_id/stream', scope: 'system:read', tag: 'system', params: JobParams,
      produces: 'text/event-stream',
      summary: 'A certificate order\'s progress as SSE',
      description: 'Messages: progress (with step and message), dns_record, and a final completed, failed (with error) or ' +
        'cancelled. Last-Event-ID replays.',
      handler: (ctx) => {
        orderJob(ctx, ctx.params.job_id);
        streamJob(ctx.req, ctx.res, ctx.app.jobs, ctx.params.job_id);
      },
    }),
    route({
      method: 'DELETE', path: '/api/ssl/letsencrypt/:job_id', admin: true, tag: 'system', params: JobParams,
      summary: 'Cancel a certificate order (admin); the certificate in use stays',
      handler: async (ctx) => {
        const job = orderJob(ctx, ctx.params.job_id);
        if (!ctx.app.jobs.cancel(job.id)) throw new HttpError(409, 'job_finished', `The order has already ${job.state}`);
        await ctx.audit('tls.acme_cancel', job.id, {});
      },
    }),
  ];
}
