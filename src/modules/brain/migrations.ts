// Tables of the brain (inventory) module, migration versions 300-399: the inventory (300-349), the vault
// (350-359), where credentials were used (370), their scopes (380) and what discovery found alive (390).
// A new migration goes above the newest (the store refuses one below a version a probe already has).
// See docs/brain.md, "Storage".
//
// The inventory:
// One table holds the records of every type (JSON data plus the few typed columns lookups need); the
// others are derived from it in the same transactions: references (who points at whom), exact-match
// keys for search, the FTS4 index, the change history and the links.
import type { Migration } from '../../core/store/types.js';

const inventoryMigrations: Migration[] = [
  {
    version: 300,
    name: 'brain: items, sequences, references, search keys, full-text index, history, links',
    up: `
      CREATE TABLE brain_items (
        pk         INTEGER PRIMARY KEY AUTOINCREMENT,
        id         TEXT NOT NULL UNIQUE,
        type       TEXT NOT NULL,
        seq        INTEGER NOT NULL,
        name       TEXT NOT NULL,
        data       TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL,
        UNIQUE (type, seq)
      );
      CREATE INDEX brain_items_type_name ON brain_items(type, name COLLATE NOCASE);
      CREATE INDEX brain_items_updated ON brain_items(updated_at);

      -- The last short-ID number handed out per type: never decremented, so numbers are never reused.
      CREATE TABLE brain_seq (
        type TEXT PRIMARY KEY,
        last INTEGER NOT NULL
      ) WITHOUT ROWID;

      -- Reference fields: src (the record holding the field) points at dst.
      CREATE TABLE brain_refs (
        dst   TEXT NOT NULL,
        src   TEXT NOT NULL,
        field TEXT NOT NULL,
        PRIMARY KEY (dst, src, field)
      ) WITHOUT ROWID;
      CREATE INDEX brain_refs_src ON brain_refs(src);

      -- Exact-match search keys (lowercased name, short ID, canonical IPs and MACs, host names, serials).
      CREATE TABLE brain_keys (
        k  TEXT NOT NULL,
        pk INTEGER NOT NULL,
        f  TEXT NOT NULL,
        PRIMARY KEY (k, pk, f)
      ) WITHOUT ROWID;
      CREATE INDEX brain_keys_pk ON brain_keys(pk);

      -- docid = brain_items.pk. name; keys (short ID, host names, addresses, serials); body (the rest).
      CREATE VIRTUAL TABLE brain_fts USING fts4(name, keys, body, tokenize=unicode61);

      -- Deleted records keep their short ID here so that history stays reachable by it.
      CREATE TABLE brain_tombstones (
        id         TEXT PRIMARY KEY,
        type       TEXT NOT NULL,
        seq        INTEGER NOT NULL,
        name       TEXT NOT NULL,
        deleted_at INTEGER NOT NULL,
        UNIQUE (type, seq)
      );

      CREATE TABLE brain_history (
        id      INTEGER PRIMARY KEY,
        item_id TEXT NOT NULL,
        type    TEXT NOT NULL,
        at      INTEGER NOT NULL,
        actor   TEXT,
        action  TEXT NOT NULL,
        changes TEXT NOT NULL,
        note    TEXT
      );
      CREATE INDEX brain_history_item ON brain_history(item_id, id);

      CREATE TABLE brain_links (
        id         TEXT PRIMARY KEY,
        from_type  TEXT NOT NULL,
        from_id    TEXT NOT NULL,
        to_type    TEXT NOT NULL,
        to_id      TEXT NOT NULL,
        relation   TEXT NOT NULL,
        note       TEXT,
        created_at INTEGER NOT NULL,
        created_by TEXT,
        UNIQUE (from_id, to_id, relation)
      );
      CREATE INDEX brain_links_to ON brain_links(to_id);
    `,
  },
];

// Tables of the credential vault (brain module, migration versions 350-359; the generic inventory uses
// 300-349). See docs/vault.md.
//
// brain_vault holds one row: the scrypt parameters and salt, and the random data key wrapped (AES-256-GCM)
// by the key derived from the passphrase. The GCM tag of the wrapped key is the check value: a wrong
// passphrase fails to unwrap it. brain_secrets holds one AES-256-GCM ciphertext per credential and secret
// field, sealed with the data key and bound to (credential_id, field) as additional authenticated data.
// No plaintext and no key material in the clear is ever stored. Times are ISO strings set from JS.
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

// Where discovery tried each credential (GET /api/brain/credentials/:id/scan).
const credentialUseMigrations: Migration[] = [{
  version: 370,
  name: 'brain: where discovery tried each credential',
  up: `CREATE TABLE brain_credential_uses (
         credential_id TEXT NOT NULL,
         target        TEXT NOT NULL,
         protocol      TEXT NOT NULL,
         outcome       TEXT NOT NULL CHECK (outcome IN ('success', 'failure')),
         detail        TEXT,
         at            INTEGER NOT NULL,
         PRIMARY KEY (credential_id, target, protocol)
       ) WITHOUT ROWID;`,
}];

// Credentials got a scope (where they may be sent). Those stored before are listed here, and start-up gives each
// the scope its uses had then (credentials/scope-upgrade.ts), so that discovery and SSH targets keep working.
const credentialScopeMigrations: Migration[] = [{
  version: 380,
  name: 'brain: credentials stored before scopes, to be given the scope of their uses',
  up: `CREATE TABLE brain_scope_pending (credential_id TEXT PRIMARY KEY) WITHOUT ROWID;
       INSERT INTO brain_scope_pending (credential_id) SELECT id FROM brain_items WHERE type = 'credentials';`,
}];

// Where discovery last found an address alive (seen.ts): fed by discovery's scans through the bus, read by an
// endpoint's last-seen time and a subnet's live addresses. `hex` is the address as fixed-width hex (8 digits for
// IPv4, 32 for IPv6), so "which addresses lie in this subnet" is a range comparison.
const seenMigrations: Migration[] = [{
  version: 390,
  name: 'brain: addresses discovery found alive, with when',
  up: `CREATE TABLE brain_seen (
         address    TEXT PRIMARY KEY,
         family     INTEGER NOT NULL,
         hex        TEXT NOT NULL,
         mac        TEXT,
         hostname   TEXT,
         vendor     TEXT,
         first_seen INTEGER NOT NULL,
         last_seen  INTEGER NOT NULL,
         job_id     TEXT
       ) WITHOUT ROWID;
       CREATE INDEX brain_seen_range ON brain_seen(family, hex);
       CREATE INDEX brain_seen_mac ON brain_seen(mac);
       CREATE INDEX brain_seen_last ON brain_seen(last_seen);`,
}];

export const brainMigrations: Migration[] = [
  ...inventoryMigrations, ...vaultMigrations, ...credentialUseMigrations, ...credentialScopeMigrations, ...seenMigrations,
];
