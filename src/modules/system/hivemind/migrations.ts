// Tables of pairing with a controller over MQTT 5 (system module versions 140-149).
// - hivemind_pairing: at most one row, the pairing in force; `secret` is sealed with the machine key.
// - hivemind_retained: the topics this probe has published a retained message on, so unpairing can clear
//   every one of them (with an empty retained message), also after a restart.
import type { Migration } from '../../../core/store/types.js';

export const hivemindMigrations: Migration[] = [
  {
    version: 140,
    name: 'hivemind pairing',
    up: `
      CREATE TABLE hivemind_pairing (
        id INTEGER PRIMARY KEY CHECK (id = 1),
        broker_url TEXT NOT NULL,
        probe_id TEXT NOT NULL,
        secret TEXT NOT NULL,
        ca_pem TEXT,
        ca_sha256 TEXT,
        paired_at TEXT NOT NULL,
        paired_by TEXT
      );
      CREATE TABLE hivemind_retained (
        topic TEXT PRIMARY KEY
      );
    `,
  },
];
