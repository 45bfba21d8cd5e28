// Tables of TLS (system module versions 110-119). The certificates themselves are files (<data>/tls/,
// 0600 PEM): the database holds the ACME settings that renewal reuses and the outcome of the last attempt.
import type { Migration } from '../../../core/store/types.js';

export const sslMigrations: Migration[] = [
  {
    // One row (id 1). domains/email/directory/challenge/ca_pem are those of the last order that succeeded
    // (renewal repeats it); the attempt columns say how the latest order or renewal went.
    version: 110,
    name: 'tls: ACME settings and renewal state',
    up: `
      CREATE TABLE tls_acme (
        id               INTEGER PRIMARY KEY CHECK (id = 1),
        domains          TEXT,
        email            TEXT,
        directory_url    TEXT,
        challenge        TEXT,
        ca_pem           TEXT,
        account_url      TEXT,
        last_attempt_at  TEXT,
        last_attempt_kind TEXT,
        last_error       TEXT,
        last_success_at  TEXT,
        next_renewal_at  TEXT
      );
    `,
  },
];
