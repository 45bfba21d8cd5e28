// Tables of self-update (system module versions 120-129): what the last check found, and which helper
// outcomes have already been written to the audit log. Runs and their outcomes themselves live in the files
// the root helper writes (update-status.json), since the helper replaces this database on a rollback.
import type { Migration } from '../../../core/store/types.js';

export const updateMigrations: Migration[] = [
  {
    version: 120,
    name: 'self-update state',
    up: `
      CREATE TABLE update_state (
        key         TEXT PRIMARY KEY,
        value       TEXT NOT NULL,
        updated_at  TEXT NOT NULL
      );
    `,
  },
];
