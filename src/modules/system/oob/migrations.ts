// Tables of out-of-band access (system module versions 130-139): the ZeroTier networks the probe was told
// to join, so that toggle can leave and rejoin one and forget can drop it. Tailscale keeps its own state
// in tailscaled; nothing of it is stored here (an auth key is used once, from a temporary file).
import type { Migration } from '../../../core/store/types.js';

export const oobMigrations: Migration[] = [
  {
    version: 130,
    name: 'oob_zerotier_networks',
    up: `CREATE TABLE oob_zerotier_networks (
      nwid TEXT PRIMARY KEY,
      enabled INTEGER NOT NULL DEFAULT 1,
      name TEXT NOT NULL DEFAULT '',
      joined_at TEXT,
      left_at TEXT,
      updated_at TEXT NOT NULL
    )`,
  },
];
