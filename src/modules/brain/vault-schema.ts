// Tables of the credential vault (brain module, migration versions 350-359; the generic inventory uses
// 300-349). See docs/vault.md.
//
// brain_vault holds one row: the scrypt parameters and salt, and the random data key wrapped (AES-256-GCM)
// by the key derived from the passphrase. The GCM tag of the wrapped key is the check value: a wrong
// passphrase fails to unwrap it. brain_secrets holds one AES-256-GCM ciphertext per credential and secret
// field, sealed with the data key and bound to (credential_id, field) as additional authenticated data.
// No plaintext and no key material in the clear is ever stored. Times are ISO strings set from JS.
import type { Migration } from '../../core/store/types.js';

export const vaultMigrations: Migration[] = [
  {
    version: 350,
    name: 'brain: credential vault (wrapped data key) and encrypted credential secrets',
    up: `
      CREATE TABLE brain_vault (
        id          INTEGER PRIMARY KEY CHECK (id = 1),
        format      INTEGER NOT NULL,
        kdf         TEXT NOT NULL,
        salt        BLOB NOT NULL,
        wrap_iv     BLOB NOT NULL,
        wrapped_key BLOB NOT NULL,
        wrap_tag    BLOB NOT NULL,
        created_at  TEXT NOT NULL,
        updated_at  TEXT NOT NULL
      );

      CREATE TABLE brain_secrets (
        credential_id TEXT NOT NULL,
        field         TEXT NOT NULL,
        iv            BLOB NOT NULL,
        ciphertext    BLOB NOT NULL,
        tag           BLOB NOT NULL,
        updated_at    TEXT NOT NULL,
        PRIMARY KEY (credential_id, field)
      ) WITHOUT ROWID;
    `,
  },
];
