// Tables of the SNMP module (migration versions 500-599). Neither holds a secret: templates and device
// cards reach agents through a stored credential (the vault keeps its secrets) or the public community.
import type { Migration } from '../../core/store/types.js';

export const snmpMigrations: Migration[] = [
  {
    version: 500,
    name: 'snmp: walk templates and per-device card selections',
    up: `
      CREATE TABLE snmp_templates (
        id             TEXT PRIMARY KEY,
        name           TEXT NOT NULL UNIQUE COLLATE NOCASE,
        description    TEXT,
        target         TEXT NOT NULL,
        port           INTEGER,
        version        TEXT NOT NULL CHECK (version IN ('v1', 'v2c', 'v3')),
        credential_id  TEXT,
        oids           TEXT NOT NULL,
        options        TEXT NOT NULL DEFAULT '{}',
        last_run_at    INTEGER,
        last_outcome   TEXT CHECK (last_outcome IN ('success', 'failure')),
        last_count     INTEGER,
        last_elapsed_ms INTEGER,
        last_error     TEXT,
        created_at     INTEGER NOT NULL,
        updated_at     INTEGER NOT NULL
      );

      CREATE TABLE snmp_device_cards (
        device_name    TEXT PRIMARY KEY COLLATE NOCASE,
        target         TEXT,
        port           INTEGER,
        version        TEXT CHECK (version IN ('v1', 'v2c', 'v3')),
        credential_id  TEXT,
        vendor_key     TEXT,
        variant        TEXT,
        cards          TEXT NOT NULL DEFAULT '[]',
        extra_oids     TEXT NOT NULL DEFAULT '[]',
        updated_at     INTEGER NOT NULL
      );`,
  },
];
