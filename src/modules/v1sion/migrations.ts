// Tables of the discovery module (migration versions 400-499). A saved topology session keeps its nodes
// and edges as rows, not as one document: moving a node on the canvas rewrites one row, not the graph
// (every write goes to the journal on the SD card).
import type { Migration } from '../../core/store/types.js';

export const v1sionMigrations: Migration[] = [
  {
    version: 400,
    name: 'v1sion: saved topology sessions',
    up: `
      CREATE TABLE v1sion_sessions (
        id          TEXT PRIMARY KEY,
        name        TEXT NOT NULL,
        subnets     TEXT NOT NULL DEFAULT '[]',   -- JSON array of canonical CIDRs
        scan_job_id TEXT,
        notes       TEXT NOT NULL DEFAULT '',
        created_at  INTEGER NOT NULL,             -- epoch ms
        updated_at  INTEGER NOT NULL,
        created_by  TEXT
      );

      -- manual: added by a person (never dropped by a merge of a newer scan).
      CREATE TABLE v1sion_session_nodes (
        session_id     TEXT NOT NULL REFERENCES v1sion_sessions(id) ON DELETE CASCADE,
        id             TEXT NOT NULL,
        label          TEXT NOT NULL,
        addresses      TEXT NOT NULL DEFAULT '[]', -- JSON array of canonical IPs
        mac            TEXT,
        vendor_key     TEXT,
        kind           TEXT NOT NULL,
        inventory_type TEXT,
        inventory_id   TEXT,
        x              REAL,
        y              REAL,
        manual         INTEGER NOT NULL DEFAULT 0,
        PRIMARY KEY (session_id, id)
      ) WITHOUT ROWID;

      CREATE TABLE v1sion_session_edges (
        session_id TEXT NOT NULL REFERENCES v1sion_sessions(id) ON DELETE CASCADE,
        id         TEXT NOT NULL,
        from_node  TEXT NOT NULL,
        to_node    TEXT NOT NULL,
        from_port  TEXT,
        to_port    TEXT,
        source     TEXT NOT NULL,
        PRIMARY KEY (session_id, id)
      ) WITHOUT ROWID;
    `,
  },
  {
    version: 401,
    name: 'v1sion: the ordered list of credentials scans try',
    up: `
      -- References to inventory credentials (their secrets live in the vault, never here), in the order
      -- a scan offers them. A deleted credential drops out of the list.
      CREATE TABLE v1sion_credentials (
        position      INTEGER PRIMARY KEY,
        credential_id TEXT NOT NULL
      );
    `,
  },
  {
    version: 402,
    name: 'v1sion: kept scan results',
    up: `
      -- The index of the scan results kept on disk (<data>/v1sion/scans/<job_id>.json.gz): a result can be
      -- a few MiB for a /20, too much to hold in the in-memory database. The newest are kept (config
      -- discovery.results_kept and results_max_mib); a row is written after its file is on disk.
      CREATE TABLE v1sion_scans (
        job_id      TEXT PRIMARY KEY,
        subnet      TEXT NOT NULL,
        state       TEXT NOT NULL,
        started_at  TEXT NOT NULL,
        finished_at TEXT,
        counts      TEXT NOT NULL DEFAULT '{}',  -- JSON ScanCounts
        bytes       INTEGER NOT NULL,            -- size of the file
        created_by  TEXT
      );
    `,
  },
  {
    version: 403,
    name: 'v1sion: what a merged scan said about each session node',
    up: `
      -- new: the last merged scan found it and the session did not have it; missing: the session had it
      -- (from a scan) and the last merged scan did not see it again. NULL: seen, or drawn by a person.
      ALTER TABLE v1sion_session_nodes ADD COLUMN scan_state TEXT;
    `,
  },
];
