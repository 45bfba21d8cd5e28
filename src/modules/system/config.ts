// The system module's sections of the configuration (Module.config spreads them): `system` (the web
// interface's branding; the probe's name itself is `probe.name`), `two_factor` and `smtp`. Add keys at the end of
// a section. A secret key (a password, a token) carries `.meta({ secret: true })`: the API then shows it
// as {set: true|false}, keeps it when a save leaves it out, and the file holds it sealed; one sent
// somewhere names the keys that say where (`bound_to`), and a save that changes them drops it; a key that takes
// effect only at the next start carries `.meta({ restart: true })` (docs/development.md, "Configuration keys").
import { z } from 'zod';
import { section } from '../../core/config/schema.js';
import { sslConfig } from './ssl/config.js';
import { updateConfig } from './update/config.js';
import { oobConfig } from './oob/config.js';
import { hivemindConfig } from './hivemind/config.js';

/** Also the body fields of POST /api/web-identity. */
export const AccentColor = z.union([z.literal(''), z.string().regex(/^#[0-9a-fA-F]{6}$/, 'Must be a colour as #rrggbb')]);
export const LoginNotice = z.string().max(500)
  // eslint-disable-next-line no-control-regex -- control characters are what is refused
  .refine((s) => !/[\u0000-\u001f\u007f]/.test(s), 'Must be one line without control characters');

const system = section({
  accent_color: AccentColor.default('')
    .describe('Accent colour of the web interface as #rrggbb; empty keeps the built-in one'),
  login_notice: LoginNotice
    .default('').describe('A short notice shown on the sign-in page (one line of plain text, at most 500 characters)'),
  metrics_token: z.union([z.literal(''), z.string().regex(/^[A-Za-z0-9._~+/=-]{24,256}$/,
    'Must be 24 to 256 characters of letters, digits and ._~+/=-')]).default('').meta({ secret: true })
    .describe('Bearer token that may read GET /metrics (Prometheus: authorization.credentials); ' +
      'empty: only signed-in callers and API keys with system:read'),
});

// Reconstructed after an accidental overwrite (see the issue 17 configuration report): the two-factor
// engineer owns these keys and may adjust them.
const two_factor = section({
  issuer: z.string().max(100).default('')
    .describe('Issuer shown in authenticator apps; empty means "netprobe (<probe name>)"'),
  required_for_admins: z.boolean().default(false)
    .describe('Administrators must use two-factor sign-in: one signed in without it may only enroll (403 ' +
      'two_factor_enrollment_required for everything else) until it is confirmed; API keys are not affected'),
});

// Outgoing e-mail (password recovery, the test message): docs/auth.md, "Password recovery". Empty `host`
// turns e-mail off, and recovery by e-mail with it.
const smtp = section({
  host: z.union([z.literal(''), z.string().max(253).regex(/^[A-Za-z0-9.:_-]+$/, 'Must be a host name or an IP address')])
    .default('').describe('SMTP server (host name or address); empty turns e-mail off, and password recovery by e-mail with it'),
  port: z.number().int().min(1).max(65535).default(587).describe('SMTP port: 587 for STARTTLS, 465 for TLS, 25 for plain'),
  security: z.enum(['starttls', 'tls', 'none']).default('starttls')
    .describe('starttls: upgrade with STARTTLS and refuse to send without it; tls: TLS from the first byte (port 465); ' +
      'none: plain text (a relay on a trusted network only)'),
  verify_certificate: z.boolean().default(true)
    .describe("Check the server's TLS certificate against the system's trusted authorities (turn off only for a self-signed relay)"),
  user: z.string().max(256).default('').describe('User name for SMTP authentication; empty: send without authentication'),
  // Sent only to the server these keys name: a save that moves it drops the password unless it sends it again.
  password: z.string().max(1024).default('').meta({ secret: true, bound_to: ['host', 'port'] })
    .describe('Password for SMTP authentication (write-only)'),
  from: z.union([z.literal(''), z.email().max(254)]).default('')
    .describe('Sender address; empty: netprobe@ and the SMTP server\'s domain'),
  timeout_seconds: z.number().int().min(1).max(300).default(15)
    .describe('Connecting, the greeting and each command must each finish within this'),
});

export const systemConfig = { system, two_factor, smtp, ...sslConfig, ...updateConfig, ...oobConfig, ...hivemindConfig };

export type SystemConfig = z.infer<typeof system>;

declare module '../../core/config/schema.js' {
  interface ModuleConfig { system: SystemConfig; two_factor: z.infer<typeof two_factor>; smtp: z.infer<typeof smtp> }
}
