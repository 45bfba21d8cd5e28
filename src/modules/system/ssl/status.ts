// GET /api/ssl/status: the certificate in use, the HTTPS listener, and ACME (settings, last attempt,
// next renewal). Nothing secret: no key, no TSIG secret.
import { z } from 'zod';
import type { AppContext } from '../../../core/context.js';
import type { AcmeService } from './acme.js';
import type { AcmeStateStore } from './acme-state.js';
import type { TlsService } from './service.js';

export const SslStatus = z.object({
  mode: z.enum(['self-signed', 'uploaded', 'acme']),
  installed_at: z.string(),
  subject: z.string(),
  issuer: z.string(),
  names: z.array(z.string()),
  valid_from: z.string(),
  valid_to: z.string(),
  days_left: z.number(),
  fingerprint_sha256: z.string().describe('SHA-256 of the certificate, as browsers show it (AB:CD:...)'),
  serial: z.string(),
  key_type: z.string(),
  self_signed: z.boolean(),
  chain_length: z.number(),
  https: z.object({ enabled: z.boolean(), port: z.number().nullable(), listening: z.boolean() }),
  redirect_http: z.boolean(),
  acme: z.object({
    configured: z.boolean().describe('An order succeeded: renewal repeats its settings'),
    domains: z.array(z.string()),
    email: z.string(),
    directory_url: z.string().nullable(),
    challenge: z.enum(['http-01', 'dns-01']).nullable(),
    last_attempt_at: z.string().nullable(),
    last_attempt_kind: z.enum(['order', 'renewal']).nullable(),
    last_error: z.string().nullable(),
    last_success_at: z.string().nullable(),
    next_renewal_at: z.string().nullable(),
    running_job_id: z.string().nullable(),
  }),
});

export function sslStatus(app: AppContext, tls: TlsService, acme: AcmeService, state: AcmeStateStore): z.infer<typeof SslStatus> {
  const c = tls.installed()!;
  const s = state.get();
  return {
    mode: c.mode, installed_at: c.installed_at, ...c.info,
    https: tls.https(),
    redirect_http: app.config.get().tls.redirect_http,
    acme: {
      configured: !!s.settings,
      domains: s.settings?.domains ?? [],
      email: s.settings?.email ?? '',
      directory_url: s.settings?.directory_url ?? null,
      challenge: s.settings?.challenge ?? null,
      last_attempt_at: s.last_attempt_at,
      last_attempt_kind: s.last_attempt_kind,
      last_error: s.last_error,
      last_success_at: s.last_success_at,
      next_renewal_at: c.mode === 'acme' ? s.next_renewal_at : null,
      running_job_id: acme.running(),
    },
  };
}
