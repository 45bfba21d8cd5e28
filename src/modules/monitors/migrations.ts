// Tables of the monitors module (migration versions 200-299). The whole database lives in RAM, so the
// high-rate tables are compact: monitors get an INTEGER surrogate key (`pk`) that results, rollups and
// incidents use instead of the UUID; times there are INTEGER epoch milliseconds (seconds for rollup
// buckets); result statuses are small integers; response times are INTEGER hundredths of a millisecond;
// repeated messages are stored once in a dictionary. See docs/monitors.md, "Storage".
import type { Migration, Tx } from '../../core/store/types.js';
import { insertEvent } from './events-log.js';
import { uptimePct } from './storage/index.js';

/** A rollup row's known time (ms) as migration 204 estimates it: its bucket, or its checks times the interval when fewer. */
const KNOWN_MS = `min(CASE k WHEN 0 THEN 60 WHEN 1 THEN 3600 ELSE 86400 END,
  checks * coalesce((SELECT interval_s FROM monitors WHERE pk = m), 86400)) * 1000.0`;

export const monitorMigrations: Migration[] = [
  {
    version: 200,
    name: 'monitors: monitors, results, rollups, incidents, event log',
    up: `
      CREATE TABLE monitors (
        pk                INTEGER PRIMARY KEY AUTOINCREMENT,
        id                TEXT NOT NULL UNIQUE,
        name              TEXT NOT NULL,
        target            TEXT NOT NULL,
        check_type        TEXT NOT NULL CHECK (check_type IN ('http', 'ping', 'tcp', 'dns')),
        interval_s        INTEGER NOT NULL,
        timeout_s         INTEGER NOT NULL,
        failure_threshold INTEGER NOT NULL,
        degraded_ms       INTEGER,
        max_loss_pct      REAL,
        tags              TEXT NOT NULL DEFAULT '[]',
        settings          TEXT NOT NULL DEFAULT '{}',
        status            TEXT NOT NULL DEFAULT 'unknown'
                          CHECK (status IN ('up', 'down', 'degraded', 'paused', 'unknown')),
        fail_streak       INTEGER NOT NULL DEFAULT 0,
        last_check        INTEGER,
        last_rt           INTEGER,
        last_message      TEXT,
        cert_valid_to     INTEGER,
        cert_checked_at   INTEGER,
        created_at        INTEGER NOT NULL,
        updated_at        INTEGER NOT NULL
      );

      -- Repeated result messages ("HTTP 200 OK", "connection refused") are stored once.
      CREATE TABLE monitor_messages (
        id   INTEGER PRIMARY KEY,
        text TEXT NOT NULL UNIQUE
      );

      -- One row per check. s: 1 up, 2 degraded, 0 down (0 and 1 take no payload bytes in SQLite).
      -- rt: response time in hundredths of a millisecond. msg: a monitor_messages id (INTEGER) or the
      -- text itself (TEXT) when the dictionary is full; declared without a type so SQLite never converts
      -- a text such as "404" into a number. d: details JSON, only when useful.
      CREATE TABLE monitor_results (
        m   INTEGER NOT NULL,
        t   INTEGER NOT NULL,
        s   INTEGER NOT NULL,
        rt  INTEGER,
        msg,
        d   TEXT,
        PRIMARY KEY (m, t)
      ) WITHOUT ROWID;

      -- Aggregates per monitor and bucket. k: 0 minute, 1 hour, 2 day; b: bucket start, epoch seconds.
      -- rt_*: hundredths of a millisecond. hist: sparse log-scale histogram (see rollups.ts).
      CREATE TABLE monitor_rollups (
        m        INTEGER NOT NULL,
        k        INTEGER NOT NULL,
        b        INTEGER NOT NULL,
        checks   INTEGER NOT NULL,
        up       INTEGER NOT NULL,
        degraded INTEGER NOT NULL,
        down     INTEGER NOT NULL,
        rt_sum   INTEGER NOT NULL,
        rt_count INTEGER NOT NULL,
        rt_min   INTEGER,
        rt_max   INTEGER,
        hist     BLOB,
        PRIMARY KEY (m, k, b)
      ) WITHOUT ROWID;

      CREATE TABLE monitor_incidents (
        id            TEXT PRIMARY KEY,
        m             INTEGER NOT NULL,
        opened_at     INTEGER NOT NULL,
        closed_at     INTEGER,
        open_message  TEXT,
        close_message TEXT,
        failures      INTEGER NOT NULL DEFAULT 0
      );
      CREATE INDEX monitor_incidents_m ON monitor_incidents(m, opened_at);

      -- The event log outlives the monitors it names, so it keeps their UUID and name.
      CREATE TABLE monitor_events (
        id           INTEGER PRIMARY KEY,
        t            INTEGER NOT NULL,
        monitor_id   TEXT,
        monitor_name TEXT,
        kind         TEXT NOT NULL,
        from_status  TEXT,
        to_status    TEXT,
        message      TEXT,
        actor        TEXT,
        details      TEXT
      );
      CREATE INDEX monitor_events_monitor ON monitor_events(monitor_id, t);
      CREATE INDEX monitor_events_t ON monitor_events(t);
    `,
  },
  {
    version: 201,
    name: 'monitors: parent monitors (alert dependencies)',
    up: `
      -- m depends on parent: while the parent is down, m's down and failure alerts are held back
      -- (docs/webhooks.md, "Alert dependencies"). Both are monitors.pk; rows go with either monitor.
      CREATE TABLE monitor_parents (
        m      INTEGER NOT NULL,
        parent INTEGER NOT NULL,
        PRIMARY KEY (m, parent)
      ) WITHOUT ROWID;
      CREATE INDEX monitor_parents_parent ON monitor_parents(parent, m);
    `,
  },
  {
    version: 202,
    name: 'monitors: bookkeeping of results kept outside the database',
    up: `
      -- Raw results now live in the store's monitors.results channel (docs/monitors.md, "Storage"):
      -- monitor_results stays empty once an earlier build's rows are moved there. Keys:
      --   rollups_written_to  hour (since the epoch) up to which monitor_rollups holds every result
      --   state_saved_at      when the monitors' status, failure run and last check were last written here
      CREATE TABLE monitor_meta (
        key   TEXT PRIMARY KEY,
        value INTEGER NOT NULL
      );
    `,
  },
  {
    version: 203,
    name: 'monitors: check types known by the code, not by a CHECK constraint',
    // A new check type is one file under checks/ and one line in its registry, with no migration; the API
    // validates check_type. SQLite cannot drop a constraint: the table is rebuilt, keeping every pk and the
    // AUTOINCREMENT high-water mark (channel entries of deleted monitors must never match a new monitor).
    up: `
      CREATE TABLE monitors_new (
        pk                INTEGER PRIMARY KEY AUTOINCREMENT,
        id                TEXT NOT NULL UNIQUE,
        name              TEXT NOT NULL,
        target            TEXT NOT NULL,
        check_type        TEXT NOT NULL,
        interval_s        INTEGER NOT NULL,
        timeout_s         INTEGER NOT NULL,
        failure_threshold INTEGER NOT NULL,
        degraded_ms       INTEGER,
        max_loss_pct      REAL,
        tags              TEXT NOT NULL DEFAULT '[]',
        settings          TEXT NOT NULL DEFAULT '{}',
        status            TEXT NOT NULL DEFAULT 'unknown'
                          CHECK (status IN ('up', 'down', 'degraded', 'paused', 'unknown')),
        fail_streak       INTEGER NOT NULL DEFAULT 0,
        last_check        INTEGER,
        last_rt           INTEGER,
        last_message      TEXT,
        cert_valid_to     INTEGER,
        cert_checked_at   INTEGER,
        created_at        INTEGER NOT NULL,
        updated_at        INTEGER NOT NULL
      );
      INSERT INTO monitors_new SELECT * FROM monitors;
      INSERT INTO sqlite_sequence (name, seq)
        SELECT 'monitors_new', 0 WHERE NOT EXISTS (SELECT 1 FROM sqlite_sequence WHERE name = 'monitors_new');
      UPDATE sqlite_sequence
        SET seq = max(seq, coalesce((SELECT seq FROM sqlite_sequence WHERE name = 'monitors'), 0))
        WHERE name = 'monitors_new';
      DROP TABLE monitors;
      ALTER TABLE monitors_new RENAME TO monitors;
    `,
  },
  {
    version: 204,
    name: 'monitors: uptime is time (time-weighted status in the rollups)',
    // Uptime becomes the time a monitor was available over the time its status was known, not a count of
    // checks (docs/monitors.md, "Uptime"). Rollup rows written before this build hold counts only: their
    // time is converted here, the row's known time (its bucket, or fewer checks times the monitor's
    // interval for a monitor created or paused within it) split between up, degraded and down in the
    // proportion of its counts, so every uptime they gave before stays exactly what it was.
    up: `
      ALTER TABLE monitor_rollups ADD COLUMN ms_up INTEGER NOT NULL DEFAULT 0;
      ALTER TABLE monitor_rollups ADD COLUMN ms_degraded INTEGER NOT NULL DEFAULT 0;
      ALTER TABLE monitor_rollups ADD COLUMN ms_down INTEGER NOT NULL DEFAULT 0;
      UPDATE monitor_rollups SET
        ms_up = CAST(round((${KNOWN_MS}) * up / checks) AS INTEGER),
        ms_degraded = CAST(round((${KNOWN_MS}) * degraded / checks) AS INTEGER),
        ms_down = CAST(round((${KNOWN_MS}) * down / checks) AS INTEGER)
      WHERE checks > 0;
    `,
  },
  {
    version: 210,
    name: 'monitors: alert holds of the alert gate',
    // The gate's remembered holds (alert-gate/gate.ts). They were the webhooks module's (webhook_holds,
    // dropped by its 602): a probe that had a child held back when it upgraded still releases it.
    up: (tx) => {
      tx.run(`CREATE TABLE monitor_alert_holds (
        m       INTEGER PRIMARY KEY REFERENCES monitors(pk) ON DELETE CASCADE,
        rule    TEXT NOT NULL,
        reason  TEXT NOT NULL,
        by_id   TEXT,
        by_name TEXT,
        state   TEXT,
        held_at INTEGER NOT NULL
      )`);
      if (!tx.get("SELECT 1 AS x FROM sqlite_master WHERE type = 'table' AND name = 'webhook_holds'")) return;
      tx.run(`INSERT OR IGNORE INTO monitor_alert_holds (m, rule, reason, by_id, by_name, state, held_at)
              SELECT m.pk, 'dependency', coalesce(p.name, json_extract(h.alert, '$.details.held_by.name'), 'a parent monitor')
                       || CASE h.state WHEN 'suppressed' THEN ' is down' ELSE ' is failing' END,
                     h.parent_id, coalesce(p.name, json_extract(h.alert, '$.details.held_by.name')), h.state, h.held_at
              FROM webhook_holds h JOIN monitors m ON m.id = h.monitor_id LEFT JOIN monitors p ON p.id = h.parent_id`);
    },
  },
  {
    version: 211,
    name: 'monitors: named measurements of check results (their names, and their hour and day rollups)',
    // A check type may declare numbers besides the response time (ping: loss_pct; a TLS check: days_left);
    // results carry them in the channel, and these tables hold their names and rollups (storage/measures.ts,
    // storage/hour-close.ts). IF NOT EXISTS: the migration can meet a database that has them already.
    up: `
      CREATE TABLE IF NOT EXISTS monitor_measures (
        id   INTEGER PRIMARY KEY,
        name TEXT NOT NULL UNIQUE
      );

      -- Per monitor (m), bucket (k: 1 hour, 2 day; b: start, epoch seconds) and measurement (x: a
      -- monitor_measures id): how many results carried it (n), their sum (total), least (lo) and greatest
      -- (hi) value, in hundredths of the measurement's unit.
      CREATE TABLE IF NOT EXISTS monitor_measure_rollups (
        m     INTEGER NOT NULL,
        k     INTEGER NOT NULL,
        b     INTEGER NOT NULL,
        x     INTEGER NOT NULL,
        n     INTEGER NOT NULL,
        total INTEGER NOT NULL,
        lo    INTEGER NOT NULL,
        hi    INTEGER NOT NULL,
        PRIMARY KEY (m, k, b, x)
      ) WITHOUT ROWID;
    `,
  },
  {
    version: 212,
    name: 'monitors: uptime counts failed checks as down, also below the failure threshold',
    // Until this build the time after a failed check below the failure threshold (the monitor degraded:
    // failing) counted as available; it now counts as down (storage/hours.ts, timeStatus). The rollups
    // keep time per status, not why a monitor was degraded, so their failing time is estimated: a row's
    // failed checks times its known time per check is its down time, and what ms_down lacks of that moves
    // from ms_degraded (never more than it holds, so slow answers stay degraded). Exact for checks at
    // an even interval. Each monitor that changed gets an event saying what moved; the hours not yet
    // rolled up are recounted from their results at start-up (storage/warm-image.ts, version 3).
    up: recountFailingTime,
  },
  {
    version: 213,
    name: 'monitors: maintenance windows',
    // A window holds the alerts of the monitors it applies to while it is open (alert-gate/maintenance.ts);
    // maintenance/schedule.ts says when: once (starts_at, ends_at, epoch ms), weekly (days, start_time and
    // end_time in its time zone) or cron (five fields and duration_min). applies_to: 'all', 'monitors'
    // (monitor_ids) or 'tags' (tags: a monitor with any of them). ended_at: the occurrence holding it was
    // ended early there.
    up: `
      CREATE TABLE monitor_maintenance (
        id           TEXT PRIMARY KEY,
        name         TEXT NOT NULL,
        description  TEXT NOT NULL DEFAULT '',
        kind         TEXT NOT NULL CHECK (kind IN ('once', 'weekly', 'cron')),
        starts_at    INTEGER,
        ends_at      INTEGER,
        days         TEXT,
        start_time   TEXT,
        end_time     TEXT,
        cron         TEXT,
        duration_min INTEGER,
        timezone     TEXT NOT NULL,
        applies_to   TEXT NOT NULL CHECK (applies_to IN ('all', 'monitors', 'tags')),
        monitor_ids  TEXT NOT NULL DEFAULT '[]',
        tags         TEXT NOT NULL DEFAULT '[]',
        enabled      INTEGER NOT NULL DEFAULT 1,
        ended_at     INTEGER,
        created_at   INTEGER NOT NULL,
        updated_at   INTEGER NOT NULL
      );
    `,
  },
  {
    version: 214,
    name: 'monitors: maintenance time apart from uptime (rollups ms_maint, the windows\' occurrences)',
    // Time in a maintenance window counts as neither up nor down (storage/hours.ts, aside): the rollups keep it
    // in ms_maint. The occurrences as they happened (a window's monitors as they were, cut where it was ended
    // early) are kept for the hours not yet rolled up, which a start-up recounts: maintenance/windows.ts.
    up: `
      ALTER TABLE monitor_rollups ADD COLUMN ms_maint INTEGER NOT NULL DEFAULT 0;
      CREATE TABLE monitor_maintenance_spans (
        window_id   TEXT NOT NULL,
        from_t      INTEGER NOT NULL,
        to_t        INTEGER NOT NULL,
        applies_to  TEXT NOT NULL,
        monitor_ids TEXT NOT NULL,
        tags        TEXT NOT NULL,
        PRIMARY KEY (window_id, from_t)
      ) WITHOUT ROWID;
    `,
  },
  {
    version: 215,
    name: 'monitors: public status pages',
    // A page names its monitors by id in `groups` (JSON: [{name, monitors: [{id, alias}]}]); a monitor deleted
    // since is left out when the page is read (status-pages/pages.ts). See docs/monitors.md, "Status pages".
    up: `
      CREATE TABLE monitor_status_pages (
        id               TEXT PRIMARY KEY,
        slug             TEXT NOT NULL UNIQUE,
        title            TEXT NOT NULL,
        description      TEXT NOT NULL DEFAULT '',
        show_logo        INTEGER NOT NULL DEFAULT 1,
        show_maintenance INTEGER NOT NULL DEFAULT 1,
        notice           TEXT NOT NULL DEFAULT '',
        groups_json      TEXT NOT NULL DEFAULT '[]',
        created_at       INTEGER NOT NULL,
        updated_at       INTEGER NOT NULL
      );
    `,
  },
  {
    version: 216,
    name: 'monitors: parents applied from a topology proposal',
    // Where a parent link came from: NULL, a person (the API's parents field); else the proposal that set it
    // ("session:<id>", discovery's parent proposals). A proposal may replace only links of its own kind, never
    // a person's (docs/monitors.md, "Parents from the topology").
    up: `
      ALTER TABLE monitor_parents ADD COLUMN proposed_from TEXT;
    `,
  },
];

/** The part of a rollup row's degraded time that failed checks account for (migration 212). */
const FAILING_MS = `max(0, min(ms_degraded,
  CAST(round(down * (ms_up + ms_degraded + ms_down) * 1.0 / checks) AS INTEGER) - ms_down))`;

function recountFailingTime(tx: Tx): void {
  // Per monitor: the time moved over all its day rows, and its uptime over its last 30 days of them, before and after.
  type Row = { pk: number; id: string | null; name: string | null; moved: number; moved30: number; up: number; deg: number;
    dn: number; checks: number };
  const recent = `r.b >= (SELECT max(b) FROM monitor_rollups WHERE m = r.m AND k = 2) - 29 * 86400`;
  const rows = tx.all<Row>(`SELECT r.m AS pk, mo.id AS id, mo.name AS name, sum(${FAILING_MS}) AS moved,
      sum(CASE WHEN ${recent} THEN ${FAILING_MS} ELSE 0 END) AS moved30,
      sum(CASE WHEN ${recent} THEN r.ms_up ELSE 0 END) AS up, sum(CASE WHEN ${recent} THEN r.ms_degraded ELSE 0 END) AS deg,
      sum(CASE WHEN ${recent} THEN r.ms_down ELSE 0 END) AS dn, sum(CASE WHEN ${recent} THEN r.checks ELSE 0 END) AS checks
    FROM monitor_rollups r LEFT JOIN monitors mo ON mo.pk = r.m
    WHERE r.k = 2 AND r.checks > 0
    GROUP BY r.m HAVING sum(${FAILING_MS}) > 0`);
  tx.run(`UPDATE monitor_rollups SET ms_degraded = ms_degraded - (${FAILING_MS}), ms_down = ms_down + (${FAILING_MS})
    WHERE checks > 0 AND down > 0 AND ms_degraded > 0`);
  const now = Date.now(); // a bound value: the journal replays it as written
  for (const r of rows) {
    if (!r.id) continue; // rollups of a monitor deleted since (retention drops them)
    const before = uptimePct({ checks: r.checks, up: 0, degraded: 0, ms_up: r.up, ms_degraded: r.deg, ms_down: r.dn });
    const after = uptimePct({ checks: r.checks, up: 0, degraded: 0, ms_up: r.up, ms_degraded: r.deg - r.moved30,
      ms_down: r.dn + r.moved30 });
    insertEvent(tx, {
      t: now, kind: 'uptime_recounted', monitor_id: r.id, monitor_name: r.name, actor: 'system (upgrade)',
      message: `Uptime now counts failed checks as down, also below the failure threshold: ${spanOf(r.moved)} of earlier `
        + `failing time moved from available to down; uptime over its last 30 stored days ${before} % → ${after} %`,
      details: { moved_ms: r.moved, uptime_30d_before: before, uptime_30d_after: after },
    });
  }
}

/** "3 h 12 min", "45 s". */
function spanOf(ms: number): string {
  const s = Math.round(ms / 1000);
  if (s < 60) return `${s} s`;
  const m = Math.round(s / 60);
  return m < 60 ? `${m} min` : m % 60 ? `${Math.floor(m / 60)} h ${m % 60} min` : `${m / 60} h`;
}
