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
  {
    version: 410,
    name: 'v1sion: documented routes',
    up: `
      -- How a subnet is reached (routes/service.ts). The destination is kept canonical and as its first and
      -- last address in fixed-width hex (8 digits IPv4, 32 IPv6), so "which routes cover this address" is a
      -- range comparison. The device is a session node (session_id, node_id) or an inventory endpoint
      -- (endpoint_id, its UUID); device_key names it in one column: '' (none), 'endpoint:<uuid>' or
      -- 'node:<session>/<node>'. Neither reference cascades: a route outlives a deleted node or endpoint.
      CREATE TABLE v1sion_routes (
        id          TEXT PRIMARY KEY,
        destination TEXT NOT NULL,
        family      INTEGER NOT NULL,
        dest_first  TEXT NOT NULL,
        dest_last   TEXT NOT NULL,
        prefix      INTEGER NOT NULL,
        next_hop    TEXT,
        device_type TEXT,                        -- session_node | endpoint | NULL
        session_id  TEXT,
        node_id     TEXT,
        endpoint_id TEXT,
        device_key  TEXT NOT NULL DEFAULT '',
        interface   TEXT,
        metric      INTEGER,
        source      TEXT NOT NULL,               -- manual | snmp | ssh
        note        TEXT NOT NULL DEFAULT '',
        created_at  INTEGER NOT NULL,            -- epoch ms
        updated_at  INTEGER NOT NULL,
        created_by  TEXT
      );
      -- One route per device, destination and next hop (the service answers 409 before this would fail).
      -- No other index: documented routes are hundreds, and every index costs RAM (the database lives there).
      CREATE UNIQUE INDEX v1sion_routes_same ON v1sion_routes (device_key, destination, ifnull(next_hop, ''));
    `,
  },
  {
    version: 415,
    name: 'v1sion: inventory links of discovered devices',
    up: `
      -- The inventory bridge (brain/links.ts): each inventory record (endpoint or asset, by UUID) discovery
      -- linked a device to, and the identity keys of the devices linked to it (engine:<id>, serial:<serial>,
      -- chassis:<id>, mac:<mac>), so a later scan or another session knows the device again. A key names one
      -- record. last_seen_at: when discovery last saw a device linked to the record (epoch ms).
      CREATE TABLE v1sion_inventory_links (
        inventory_id   TEXT PRIMARY KEY,
        inventory_type TEXT NOT NULL,            -- endpoints | assets
        linked_at      INTEGER NOT NULL,
        linked_by      TEXT,
        last_seen_at   INTEGER
      ) WITHOUT ROWID;
      CREATE TABLE v1sion_inventory_link_keys (
        key          TEXT PRIMARY KEY,
        inventory_id TEXT NOT NULL,
        added_at     INTEGER NOT NULL
      ) WITHOUT ROWID;
      CREATE INDEX v1sion_inventory_link_keys_record ON v1sion_inventory_link_keys (inventory_id);
    `,
  },
  {
    version: 404,
    name: 'v1sion: SSH targets',
    up: `
      -- Devices SSH enrichment logs in to (enrich-ssh/, ssh-targets/). Never a secret here: credential_id
      -- references an inventory credential (ssh_password or ssh_key) whose secrets stay in the vault.
      -- host_key: the pinned SHA256 fingerprint (trust on first use; only an administrator clears it).
      -- facts: JSON of what the last successful enrichment learned (enrich-ssh/facts.ts); last_error: JSON
      -- {code, message, at, ...} of the last failed one, NULL after a success. Times are epoch ms.
      CREATE TABLE v1sion_ssh_targets (
        id                 TEXT PRIMARY KEY,
        name               TEXT NOT NULL,
        host               TEXT NOT NULL,
        port               INTEGER NOT NULL,
        credential_id      TEXT NOT NULL,
        platform           TEXT NOT NULL,
        tags               TEXT NOT NULL DEFAULT '[]',
        host_key           TEXT,
        host_key_type      TEXT,
        host_key_pinned_at INTEGER,
        facts              TEXT,
        last_enriched_at   INTEGER,
        last_error         TEXT,
        created_at         INTEGER NOT NULL,
        updated_at         INTEGER NOT NULL,
        created_by         TEXT
      );
      CREATE INDEX v1sion_ssh_targets_host ON v1sion_ssh_targets (host, port);
    `,
  },
  {
    version: 405,
    name: 'v1sion: what SSH enrichment learned about session nodes',
    up: `
      -- JSON of the facts of the last enrichment of the device the node stands for (enrich-ssh/facts.ts),
      -- with the SSH target it came from; NULL when never enriched.
      ALTER TABLE v1sion_session_nodes ADD COLUMN facts TEXT;
    `,
  },
  {
    version: 416,
    name: 'v1sion: scheduled scan profiles',
    up: `
      -- A scan profile (profiles/): what to scan (subnets: JSON array of canonical CIDRs), with which stored
      -- credentials (credentials: JSON array of inventory credential UUIDs, references only, never a secret;
      -- NULL: the saved discovery credentials), which stages (stages: JSON array of stage names; NULL: all),
      -- on what schedule (schedule: JSON {kind: interval, every, unit} or {kind: cron, cron}, in timezone),
      -- jittered by up to jitter_seconds, merged into session_id (NULL until its first run creates one).
      -- anchor_at: the scheduled time the last run or skip stood for (epoch ms; the time the schedule was
      -- set before the first): the next run is the schedule's first time after it, so a restart keeps it.
      -- skipped_at: the scheduled time last skipped. last_run: JSON summary of the last run (profiles/runs.ts).
      CREATE TABLE v1sion_scan_profiles (
        id             TEXT PRIMARY KEY,
        name           TEXT NOT NULL,
        subnets        TEXT NOT NULL,
        snmp_enabled   INTEGER NOT NULL DEFAULT 1,
        credentials    TEXT,
        stages         TEXT,
        schedule       TEXT NOT NULL,
        timezone       TEXT NOT NULL,
        jitter_seconds INTEGER NOT NULL DEFAULT 0,
        session_id     TEXT,
        enabled        INTEGER NOT NULL DEFAULT 1,
        anchor_at      INTEGER NOT NULL,
        skipped_at     INTEGER,
        last_run       TEXT,
        created_at     INTEGER NOT NULL,
        updated_at     INTEGER NOT NULL,
        created_by     TEXT
      );
      -- The profile a kept scan ran for (NULL: a person's scan): a profile keeps its newest results apart
      -- from people's, so a schedule never pushes a person's scans out of discovery.results_kept.
      ALTER TABLE v1sion_scans ADD COLUMN profile_id TEXT;
    `,
  },
  {
    version: 418,
    name: 'v1sion: when a profile\'s devices count as missing',
    up: `
      -- Per scan profile (devices/merge.ts MissingRule): NULL takes discovery.missing_after_minutes / _scans.
      ALTER TABLE v1sion_scan_profiles ADD COLUMN missing_after_minutes INTEGER;
      ALTER TABLE v1sion_scan_profiles ADD COLUMN missing_after_scans INTEGER;
    `,
  },
  {
    version: 417,
    name: 'v1sion: devices known over time, their identity keys and history',
    up: `
      -- One row per device identity merged from completed scans (devices/merge.ts). addresses, macs: JSON
      -- arrays now; attachment: JSON {switch, port, vlan} from a forwarding table, or NULL. presence:
      -- normal | expected (its absence alerts even if not seen regularly) | transient (never alerts).
      -- Times are epoch ms.
      CREATE TABLE v1sion_devices (
        id              TEXT PRIMARY KEY,
        first_seen      INTEGER NOT NULL,
        last_seen       INTEGER NOT NULL,
        name            TEXT NOT NULL,
        vendor          TEXT,
        kind            TEXT NOT NULL,
        model           TEXT,
        addresses       TEXT NOT NULL DEFAULT '[]',
        macs            TEXT NOT NULL DEFAULT '[]',
        attachment      TEXT,
        presence        TEXT NOT NULL DEFAULT 'normal',
        acknowledged    INTEGER NOT NULL DEFAULT 0,
        missing_since   INTEGER,
        missing_alerted INTEGER NOT NULL DEFAULT 0,
        runs_seen       INTEGER NOT NULL DEFAULT 0,
        runs_missed     INTEGER NOT NULL DEFAULT 0
      );
      -- engine:<id>, serial:<vendor>:<serial>, chassis:<id>, mac:<mac>, or ip:<address> for a device seen with none of those.
      CREATE TABLE v1sion_device_keys (
        key       TEXT PRIMARY KEY,
        device_id TEXT NOT NULL
      ) WITHOUT ROWID;
      CREATE INDEX v1sion_device_keys_device ON v1sion_device_keys (device_id);
      -- What changed, when: kind is devices/merge.ts ChangeKind or a person's act (acknowledged, presence).
      CREATE TABLE v1sion_device_history (
        id        INTEGER PRIMARY KEY AUTOINCREMENT,
        device_id TEXT NOT NULL,
        t         INTEGER NOT NULL,
        kind      TEXT NOT NULL,
        from_v    TEXT,
        to_v      TEXT,
        text      TEXT NOT NULL,
        job_id    TEXT
      );
      CREATE INDEX v1sion_device_history_device ON v1sion_device_history (device_id, t);
      -- Subnets with a completed scan merged: the first one is the subnet's baseline (nothing in it is new).
      CREATE TABLE v1sion_watched_subnets (
        subnet     TEXT PRIMARY KEY,
        first_scan INTEGER NOT NULL,
        last_scan  INTEGER NOT NULL,
        scans      INTEGER NOT NULL
      ) WITHOUT ROWID;
    `,
  },
];
