// Tables of pairing with a controller over MQTT 5 (system module versions 140-149).
// - hivemind_pairing: at most one row, the pairing in force; `secret` is sealed with the machine key.
// - hivemind_retained: the topics this probe has published a retained message on, so unpairing can clear
//   every one of them (with an empty retained message), also after a restart.
// - hivemind_outbox (141): the events waiting for the broker's PUBACK, each its payload as sent, in order of
//   `seq`; hivemind_outbox_state: the highest `seq` used once the table has none left, and the count of
//   events dropped because the queue was full (outbox.ts).
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
  {
    version: 141,
    name: 'hivemind event queue on disk',
    up: `
      CREATE TABLE hivemind_outbox (
        seq INTEGER PRIMARY KEY,
        payload BLOB NOT NULL
      );
      CREATE TABLE hivemind_outbox_state (
        id INTEGER PRIMARY KEY CHECK (id = 1),
        last_seq INTEGER NOT NULL,
        dropped INTEGER NOT NULL
      );
      INSERT INTO hivemind_outbox_state (id, last_seq, dropped) VALUES (1, 0, 0);
    `,
  },
];
