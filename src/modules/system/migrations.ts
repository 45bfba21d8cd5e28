// Tables of the system module (migration versions 100-199): two-factor sign-in, password recovery,
// branding and the like. Users, sessions and API keys are the core's (core/schema.ts, 1-99).
import type { Migration } from '../../core/store/types.js';
import { sslMigrations } from './ssl/migrations.js';
import { updateMigrations } from './update/migrations.js';
import { oobMigrations } from './oob/migrations.js';
import { hivemindMigrations } from './hivemind/migrations.js';

export const systemMigrations: Migration[] = [
  {
    // Two-factor sign-in (modules/system/auth/two-factor.ts). The secret is sealed with the machine key,
    // never the vault; last_step is the last accepted TOTP time step (a code is accepted once).
    version: 100,
    name: 'two-factor sign-in',
    up: `
      CREATE TABLE user_totp (
        user_id     TEXT PRIMARY KEY REFERENCES users(id) ON DELETE CASCADE,
        secret      TEXT NOT NULL,
        enabled     INTEGER NOT NULL DEFAULT 0,
        last_step   INTEGER,
        created_at  TEXT NOT NULL,
        enabled_at  TEXT
      );
      CREATE TABLE user_recovery_codes (
        user_id     TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        code_hash   TEXT NOT NULL,
        used_at     TEXT,
        PRIMARY KEY (user_id, code_hash)
      );
      CREATE TRIGGER user_totp_gone AFTER DELETE ON users BEGIN
        DELETE FROM user_totp WHERE user_id = old.id;
        DELETE FROM user_recovery_codes WHERE user_id = old.id;
      END;
    `,
  },
  // TLS 110-119, update 120-129, out-of-band 130-139, controller pairing 140-149: each folder's own file.
  ...sslMigrations, ...updateMigrations, ...oobMigrations, ...hivemindMigrations,
];
