// Core tables (migration versions 1-99): users, sessions, API keys, the audit log, system settings and
// temporary passwords.
// Times are ISO 8601 strings and IDs UUIDs, both bound from JavaScript: the store journals statements,
// so SQL must stay deterministic (no datetime('now'), no random()).
import type { Migration } from './store/types.js';

export const coreMigrations: Migration[] = [
  {
    version: 1,
    name: 'core: users, sessions, api keys, audit log, settings',
    up: `
      CREATE TABLE users (
        id                  TEXT PRIMARY KEY,
        username            TEXT NOT NULL UNIQUE COLLATE NOCASE,
        display_name        TEXT,
        email               TEXT,
        role                TEXT NOT NULL CHECK (role IN ('admin', 'operator', 'viewer')),
        password_hash       TEXT NOT NULL,
        one_time            INTEGER NOT NULL DEFAULT 0 CHECK (one_time IN (0, 1)),
        disabled            INTEGER NOT NULL DEFAULT 0 CHECK (disabled IN (0, 1)),
        created_at          TEXT NOT NULL,
        updated_at          TEXT NOT NULL,
        last_login_at       TEXT,
        password_changed_at TEXT
      );

      -- id is the sha256 hex of the cookie token: a copy of the database cannot be replayed as cookies.
      CREATE TABLE sessions (
        id           TEXT PRIMARY KEY,
        user_id      TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        created_at   TEXT NOT NULL,
        expires_at   TEXT NOT NULL,
        last_seen_at TEXT NOT NULL,
        ip           TEXT,
        user_agent   TEXT
      );
      CREATE INDEX sessions_user ON sessions(user_id);
      CREATE INDEX sessions_expires ON sessions(expires_at);

      CREATE TABLE api_keys (
        id           TEXT PRIMARY KEY,
        name         TEXT NOT NULL,
        prefix       TEXT NOT NULL,
        hash         TEXT NOT NULL UNIQUE,
        scopes       TEXT NOT NULL,
        owner_id     TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        created_at   TEXT NOT NULL,
        expires_at   TEXT,
        last_used_at TEXT,
        last_used_ip TEXT
      );
      CREATE INDEX api_keys_owner ON api_keys(owner_id);

      -- No foreign key to users: the trail must outlive the accounts it names.
      CREATE TABLE audit_log (
        id            TEXT PRIMARY KEY,
        at            TEXT NOT NULL,
        actor         TEXT,
        actor_user_id TEXT,
        source_ip     TEXT,
        action        TEXT NOT NULL,
        target        TEXT,
        outcome       TEXT NOT NULL CHECK (outcome IN ('success', 'failure')),
        details       TEXT
      );
      CREATE INDEX audit_log_at ON audit_log(at);

      CREATE TABLE settings (
        key        TEXT PRIMARY KEY,
        value      TEXT NOT NULL,
        updated_at TEXT NOT NULL
      );
    `,
  },
  {
    version: 2,
    name: 'core: temporary passwords (password recovery by e-mail)',
    // One pending temporary password per user, scrypt-hashed like the real one, which stays valid until
    // the temporary one is used to set a new password (docs/auth.md, "Password recovery").
    up: `
      CREATE TABLE user_temp_passwords (
        user_id    TEXT PRIMARY KEY REFERENCES users(id) ON DELETE CASCADE,
        hash       TEXT NOT NULL,
        created_at TEXT NOT NULL,
        expires_at TEXT NOT NULL
      );
    `,
  },
];
