// ACME dns-01 through an acme-dns server (github.com/joohoi/acme-dns): the probe's names delegate their
// `_acme-challenge` records by CNAME to the probe's acme-dns subdomain, and the probe writes the value with
// the server's documented call, POST <url>/update {subdomain, txt} with X-Api-User / X-Api-Key. Nothing
// of the DNS provider's own credentials is on the probe: the realistic choice for a probe on a LAN.
// acme-dns keeps the two latest values per subdomain and has no delete: at most two names an order (a
// name and its wildcard), and nothing to clean up.
import { HttpError } from '../../../core/errors.js';
import type { TlsConfig } from './config.js';

export interface AcmeDnsSettings { url: string; username: string; password: string; subdomain: string }

/** The most names one order may validate through one acme-dns registration. */
export const ACME_DNS_MAX_NAMES = 2;
const TIMEOUT_MS = 10_000;

/** The settings from the configuration, or a 400 naming what is missing. */
export function acmeDnsFrom(cfg: TlsConfig): AcmeDnsSettings {
  const missing = (['acme_dns_url', 'acme_dns_username', 'acme_dns_password', 'acme_dns_subdomain'] as const).filter((k) => !cfg[k]);
  if (missing.length) {
    throw new HttpError(400, 'tls_dns_not_configured',
      `dns-01 through acme-dns needs its registration: set ${missing.map((k) => `tls.${k}`).join(', ')} in the configuration`);
  }
  return { url: cfg.acme_dns_url, username: cfg.acme_dns_username, password: cfg.acme_dns_password, subdomain: cfg.acme_dns_subdomain };
}

/** Writes the TXT value; throws an Error with the server's own answer when it refuses. */
export async function updateAcmeDns(s: AcmeDnsSettings, value: string, signal?: AbortSignal): Promise<void> {
  const url = new URL('update', s.url.replace(/\/?$/, '/'));
  const bounded = signal ? AbortSignal.any([signal, AbortSignal.timeout(TIMEOUT_MS)]) : AbortSignal.timeout(TIMEOUT_MS);
  let res: Response;
  try {
    res = await fetch(url, {
      method: 'POST', signal: bounded, redirect: 'error',
      headers: { 'X-Api-User': s.username, 'X-Api-Key': s.password, 'Content-Type': 'application/json' },
      body: JSON.stringify({ subdomain: s.subdomain, txt: value }),
    });
  } catch (e) {
    if (signal?.aborted) throw e;
    const cause = (e as { cause?: { code?: string; message?: string } }).cause;
    throw new Error(`the acme-dns server ${url.origin} could not be reached: ${cause?.code ?? cause?.message ?? (e as Error).message}`);
  }
  const text = (await res.text().catch(() => '')).slice(0, 300);
  if (res.status === 200) return;
  // Its errors are {"error": "forbidden" | "bad_txt" | "bad_subdomain" | ...}.
  let said = text;
  try { said = String((JSON.parse(text) as { error?: unknown }).error ?? text); } catch { /* not JSON */ }
  const hint = res.status === 401 ? ' (check tls.acme_dns_username, tls.acme_dns_password and tls.acme_dns_subdomain)' : '';
  throw new Error(`the acme-dns server ${url.origin} refused the update: ${res.status} ${said}${hint}`);
}
