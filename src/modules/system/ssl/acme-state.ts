// The ACME row of the database (table tls_acme, migrations.ts): the settings of the last order that
// succeeded, which renewal repeats, and how the last attempt went.
import type { Store } from '../../../core/store/types.js';

export type Challenge = 'http-01' | 'dns-01';

export interface AcmeSettings {
  domains: string[];
  email: string;
  directory_url: string;
  challenge: Challenge;
  /** PEM of the CA that signed the ACME server's own TLS certificate (a private ACME server); '' for the system's. */
  ca_pem: string;
}

export interface AcmeState {
  settings: AcmeSettings | null;
  account_url: string | null;
  last_attempt_at: string | null;
  last_attempt_kind: 'order' | 'renewal' | null;
  last_error: string | null;
  last_success_at: string | null;
  next_renewal_at: string | null;
}

interface Row {
  domains: string | null; email: string | null; directory_url: string | null; challenge: string | null; ca_pem: string | null;
  account_url: string | null; last_attempt_at: string | null; last_attempt_kind: string | null; last_error: string | null;
  last_success_at: string | null; next_renewal_at: string | null;
}

export class AcmeStateStore {
  constructor(private readonly store: Store) {}

  get(): AcmeState {
    const r = this.store.get<Row>('SELECT * FROM tls_acme WHERE id = 1');
    let settings: AcmeSettings | null = null;
    if (r?.domains && r.directory_url && r.challenge) {
      try {
        settings = { domains: JSON.parse(r.domains) as string[], email: r.email ?? '', directory_url: r.directory_url,
          challenge: r.challenge as Challenge, ca_pem: r.ca_pem ?? '' };
      } catch { settings = null; }
    }
    return {
      settings, account_url: r?.account_url ?? null, last_attempt_at: r?.last_attempt_at ?? null,
      last_attempt_kind: (r?.last_attempt_kind as AcmeState['last_attempt_kind']) ?? null, last_error: r?.last_error ?? null,
      last_success_at: r?.last_success_at ?? null, next_renewal_at: r?.next_renewal_at ?? null,
    };
  }

  /** Sets the given columns of the row (made when missing). */
  async update(fields: Partial<Row>): Promise<void> {
    const keys = Object.keys(fields) as (keyof Row)[];
    if (!keys.length) return;
    await this.store.write((tx) => {
      tx.run('INSERT OR IGNORE INTO tls_acme (id) VALUES (1)');
      tx.run(`UPDATE tls_acme SET ${keys.map((k) => `${k} = ?`).join(', ')} WHERE id = 1`, keys.map((k) => fields[k] ?? null));
    }, 'sync');
  }

  async attempted(kind: 'order' | 'renewal', at: string): Promise<void> {
    await this.update({ last_attempt_at: at, last_attempt_kind: kind });
  }

  async failed(error: string): Promise<void> { await this.update({ last_error: error }); }

  async succeeded(settings: AcmeSettings, accountUrl: string | null, at: string, nextRenewal: string | null): Promise<void> {
    await this.update({
      domains: JSON.stringify(settings.domains), email: settings.email, directory_url: settings.directory_url,
      challenge: settings.challenge, ca_pem: settings.ca_pem, account_url: accountUrl, last_error: null,
      last_success_at: at, next_renewal_at: nextRenewal,
    });
  }

  async scheduled(nextRenewal: string | null): Promise<void> { await this.update({ next_renewal_at: nextRenewal }); }
}
