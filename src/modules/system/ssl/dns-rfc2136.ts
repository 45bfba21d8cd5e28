// ACME dns-01 through RFC 2136 dynamic updates, signed with a TSIG key: BIND's `nsupdate` (Debian
// bind9-dnsutils) run through core/exec.ts. The key's secret goes to nsupdate on stdin (its `key`
// command), never in argv, where any local user could read it.
import { HttpError } from '../../../core/errors.js';
import { run } from '../../../core/exec.js';
import type { TlsConfig } from './config.js';

export interface Rfc2136Settings {
  server: string;
  port: number;
  zone: string;
  keyName: string;
  algorithm: string;
  secret: string;
}

/** The settings from the configuration, or a 400 naming what is missing. */
export function rfc2136From(cfg: TlsConfig): Rfc2136Settings {
  const missing = (['rfc2136_server', 'rfc2136_zone', 'rfc2136_key_name', 'rfc2136_key_secret'] as const).filter((k) => !cfg[k]);
  if (missing.length) {
    throw new HttpError(400, 'tls_dns_not_configured',
      `dns-01 needs a DNS server that accepts dynamic updates: set ${missing.map((k) => `tls.${k}`).join(', ')} in the configuration`);
  }
  return {
    server: cfg.rfc2136_server, port: cfg.rfc2136_port, zone: cfg.rfc2136_zone.replace(/\.?$/, '.'),
    keyName: cfg.rfc2136_key_name.replace(/\.$/, ''), algorithm: cfg.rfc2136_key_algorithm, secret: cfg.rfc2136_key_secret,
  };
}

/** The record name a dns-01 challenge for `domain` lives at (a wildcard's is its base name's). */
export const challengeName = (domain: string) => `_acme-challenge.${domain.replace(/^\*\./, '').replace(/\.$/, '')}.`;

/** Adds (or deletes) one TXT value; throws an Error with nsupdate's own words when the server refuses. */
export async function updateTxt(s: Rfc2136Settings, action: 'add' | 'delete', name: string, value: string,
  signal?: AbortSignal): Promise<void> {
  if (!/^[A-Za-z0-9_-]{1,255}$/.test(value)) throw new Error('unexpected characters in the dns-01 value'); // base64url only
  const script = [
    `server ${s.server} ${s.port}`,
    `zone ${s.zone}`,
    `key ${s.algorithm}:${s.keyName} ${s.secret}`,
    action === 'add' ? `update add ${name} 60 TXT "${value}"` : `update delete ${name} TXT "${value}"`,
    'send',
    '',
  ].join('\n');
  // -t: the whole update's timeout; -u: the UDP retry interval.
  const r = await run('nsupdate', ['-t', '10', '-u', '3'], { input: script, timeoutMs: 20_000, signal });
  if (r.code !== 0 || r.timed_out) {
    const said = (r.stderr || r.stdout).trim().split('\n').filter(Boolean).slice(-2).join('; ').slice(0, 300);
    const why = r.timed_out ? 'no answer within 20 s' : said || `nsupdate exited with ${r.code}`;
    throw new Error(`the DNS server ${s.server}:${s.port} did not accept the update of ${name}: ${why}`);
  }
}
