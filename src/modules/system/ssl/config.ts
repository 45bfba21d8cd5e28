// Configuration of TLS (section `tls`): the HTTPS listener, the plain-HTTP redirect, and the RFC 2136
// (dynamic DNS update) server that ACME dns-01 challenges are written to. Spread into the system module's
// sections (../config.ts); docs/ssl.md explains each.
import { isIP } from 'node:net';
import { z } from 'zod';
import { section } from '../../../core/config/schema.js';

const HOST = /^(?=.{1,253}$)[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?(\.[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*\.?$/;
const ZONE = /^(?=.{1,253}$)([A-Za-z0-9_]([A-Za-z0-9_-]{0,61}[A-Za-z0-9])?\.)*[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.?$/;

/** TSIG algorithms nsupdate knows (BIND 9's names). */
export const TSIG_ALGORITHMS = ['hmac-sha256', 'hmac-sha384', 'hmac-sha512', 'hmac-sha224', 'hmac-sha1', 'hmac-md5'] as const;

const tls = section({
  https_port: z.number().int().min(0).max(65535).default(8443).meta({ restart: true })
    .describe('Port of the HTTPS listener (same interface and API as HTTP, on server.host); 0 turns HTTPS off. ' +
      'Left unset while NETPROBE_PORT is given, it is NETPROBE_PORT + 363 (8080 and 8443, 80 and 443)'),
  redirect_http: z.boolean().default(false)
    .describe('Send browsers asking for the web interface over plain HTTP to HTTPS, once an uploaded or ACME certificate ' +
      'is installed (never with the self-signed one); the API and /.well-known/acme-challenge/ are never redirected'),
  rfc2136_server: z.union([z.literal(''), z.string().refine((v) => isIP(v) !== 0 || HOST.test(v), 'Must be an IP address or a host name')])
    .default('').describe('DNS server that accepts dynamic updates (RFC 2136) for ACME dns-01 challenges; empty: dns-01 is not set up'),
  rfc2136_port: z.number().int().min(1).max(65535).default(53).describe('Port of that DNS server'),
  rfc2136_zone: z.union([z.literal(''), z.string().regex(ZONE, 'Must be a DNS zone name such as example.com')]).default('')
    .describe('The zone the _acme-challenge records are written in (the certificate names must be in it)'),
  rfc2136_key_name: z.union([z.literal(''), z.string().regex(ZONE, 'Must be a TSIG key name')]).default('')
    .describe('Name of the TSIG key the updates are signed with'),
  rfc2136_key_algorithm: z.enum(TSIG_ALGORITHMS).default('hmac-sha256').describe('Algorithm of the TSIG key'),
  rfc2136_key_secret: z.union([z.literal(''), z.string().max(1024).regex(/^[A-Za-z0-9+/=]+$/, 'Must be the key\'s base64 secret')])
    .default('').meta({ secret: true, bound_to: ['rfc2136_server', 'rfc2136_port'] })
    .describe('The TSIG key\'s secret (base64, write-only)'),
  dns_propagation_seconds: z.number().int().min(0).max(600).default(10)
    .describe('Wait this long after writing a dns-01 record before asking the CA to check it (secondary servers catch up)'),
  dns01_method: z.enum(['rfc2136', 'acme-dns']).default('rfc2136')
    .describe('How dns-01 records are written: rfc2136 (dynamic updates to the zone\'s server, the rfc2136_* keys) or ' +
      'acme-dns (a CNAME delegation of _acme-challenge to an acme-dns server, the acme_dns_* keys)'),
  acme_dns_url: z.union([z.literal(''), z.url({ protocol: /^https?$/ }).max(2048)]).default('')
    .describe('Base URL of the acme-dns server (its /update is called), e.g. https://auth.acme-dns.io'),
  acme_dns_username: z.union([z.literal(''), z.string().max(256).regex(/^[A-Za-z0-9._-]+$/, 'Must be the registration\'s username')])
    .default('').describe('The acme-dns registration\'s username (X-Api-User)'),
  acme_dns_password: z.union([z.literal(''), z.string().max(256).regex(/^[A-Za-z0-9._~+/=-]+$/, 'Must be the registration\'s password')])
    .default('').meta({ secret: true, bound_to: ['acme_dns_url'] })
    .describe('The acme-dns registration\'s password (X-Api-Key, write-only)'),
  acme_dns_subdomain: z.union([z.literal(''), z.string().max(256).regex(/^[A-Za-z0-9-]+$/, 'Must be the registration\'s subdomain')])
    .default('').describe('The acme-dns registration\'s subdomain: _acme-challenge.<name> must be a CNAME to <subdomain>.<its zone>'),
});

export type TlsConfig = z.infer<typeof tls>;

export const sslConfig = { tls };

declare module '../../../core/config/schema.js' {
  interface ModuleConfig { tls: TlsConfig }
}
