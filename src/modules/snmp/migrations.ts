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
  {
    version: 501,
    name: 'snmp: interface polling (devices polled over time, their interfaces and alert thresholds)',
    // A polled device names a stored credential (never a secret) and, when chosen from there, the inventory
    // endpoint it is. An interface's id is its history's key (polling/history/): AUTOINCREMENT, never reused.
    up: `
      CREATE TABLE snmp_poll_devices (
        id                 TEXT PRIMARY KEY,
        name               TEXT NOT NULL,
        target             TEXT NOT NULL,
        port               INTEGER,
        credential_id      TEXT NOT NULL,
        endpoint_id        TEXT,
        interval_s         INTEGER NOT NULL DEFAULT 60 CHECK (interval_s IN (60, 300)),
        all_interfaces     INTEGER NOT NULL DEFAULT 1,
        enabled            INTEGER NOT NULL DEFAULT 1,
        util_alert_pct     REAL,
        util_alert_minutes INTEGER NOT NULL DEFAULT 5,
        error_alert_ps     REAL,
        created_at         INTEGER NOT NULL,
        updated_at         INTEGER NOT NULL
      );
      CREATE UNIQUE INDEX snmp_poll_devices_target ON snmp_poll_devices (target, port);

      CREATE TABLE snmp_poll_interfaces (
        id             INTEGER PRIMARY KEY AUTOINCREMENT,
        device_id      TEXT NOT NULL REFERENCES snmp_poll_devices (id) ON DELETE CASCADE,
        if_index       INTEGER NOT NULL,
        name           TEXT,
        descr          TEXT,
        alias          TEXT,
        type           INTEGER,
        speed_bps      INTEGER,
        chosen         INTEGER NOT NULL DEFAULT 0,
        watched        INTEGER NOT NULL DEFAULT 0,
        watched_by     TEXT CHECK (watched_by IN ('person', 'lldp')),
        neighbour      TEXT,
        oper           INTEGER,
        admin          INTEGER,
        oper_since     INTEGER,
        renumbered_from INTEGER,
        renumbered_at  INTEGER,
        first_seen     INTEGER NOT NULL,
        gone_at        INTEGER
      );
      CREATE INDEX snmp_poll_interfaces_device ON snmp_poll_interfaces (device_id, if_index);`,
  },
];
