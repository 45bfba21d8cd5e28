// Where an ACME dns-01 challenge's TXT record is written (tls.dns01_method): RFC 2136 dynamic updates to
// the zone's server (dns-rfc2136.ts), or an acme-dns delegation (dns-acme-dns.ts). Checked before the
// order's job starts, so a missing setting or program is a 400/503, not a failed job.
import { unavailable, HttpError } from '../../../core/errors.js';
import { installHint, which } from '../../../core/exec.js';
import type { TlsConfig } from './config.js';
import { ACME_DNS_MAX_NAMES, acmeDnsFrom, updateAcmeDns } from './dns-acme-dns.js';
import { rfc2136From, updateTxt } from './dns-rfc2136.js';

export interface Dns01Writer {
  /** Writes one value at `name` (the _acme-challenge name). */
  add(name: string, value: string, signal: AbortSignal): Promise<void>;
  /** Takes it away again after the validation (a no-op where the server cannot delete). */
  remove(name: string, value: string): Promise<void>;
}

export async function dns01Writer(cfg: TlsConfig, domains: readonly string[]): Promise<Dns01Writer> {
  if (cfg.dns01_method === 'acme-dns') {
    const s = acmeDnsFrom(cfg);
    if (domains.length > ACME_DNS_MAX_NAMES) {
      throw new HttpError(400, 'tls_too_many_names',
        `acme-dns keeps ${ACME_DNS_MAX_NAMES} values per registration: ` +
        `order at most ${ACME_DNS_MAX_NAMES} names (a name and its wildcard)`);
    }
    return {
      add: (_name, value, signal) => updateAcmeDns(s, value, signal),
      remove: async () => { /* acme-dns has no delete: the next update replaces the value */ },
    };
  }
  const s = rfc2136From(cfg);
  if (!(await which('nsupdate'))) {
    throw unavailable(`dns-01 by RFC 2136 needs the program "nsupdate": ${installHint('nsupdate')}`, 'program_missing',
      { program: 'nsupdate', install_hint: installHint('nsupdate') });
  }
  return {
    add: (name, value, signal) => updateTxt(s, 'add', name, value, signal),
    remove: (name, value) => updateTxt(s, 'delete', name, value),
  };
}
