// Tables of the webhooks module (migration versions 600-699). Small by design: the outbox holds only
// deliveries not yet done, and the attempt and alert logs are trimmed to a fixed number of rows (the
// database lives in RAM and on an SD card). Times are INTEGER epoch milliseconds.
import type { Migration } from '../../core/store/types.js';

export const webhookMigrations: Migration[] = [
  {
    version: 600,
    name: 'webhooks: webhooks, outbox, attempt log, alert log, cooldowns, dependency holds, certificate alerts',
    up: `
      CREATE TABLE webhooks (
        id          TEXT PRIMARY KEY,
        name        TEXT NOT NULL,
        url         TEXT NOT NULL,
        type        TEXT NOT NULL,
        alert_types TEXT NOT NULL DEFAULT '[]',
        cooldown    INTEGER NOT NULL,
        enabled     INTEGER NOT NULL DEFAULT 1,
        secret      TEXT,
        created_at  INTEGER NOT NULL,
        updated_at  INTEGER NOT NULL
      );

      -- The durable outbox: one row per delivery not yet done (delivered, failed for good or cancelled
      -- rows leave it). seq orders each webhook's deliveries (first in, first out).
      CREATE TABLE webhook_outbox (
        seq        INTEGER PRIMARY KEY AUTOINCREMENT,
        id         TEXT NOT NULL UNIQUE,
        webhook_id TEXT NOT NULL,
        alert      TEXT NOT NULL,
        attempts   INTEGER NOT NULL DEFAULT 0,
        next_at    INTEGER NOT NULL,
        created_at INTEGER NOT NULL,
        last_error TEXT
      );
      CREATE INDEX webhook_outbox_webhook ON webhook_outbox(webhook_id, seq);

      -- Every delivery attempt (and every test), trimmed to webhooks.attempt_log_size rows.
      CREATE TABLE webhook_attempts (
        id               INTEGER PRIMARY KEY,
        t                INTEGER NOT NULL,
        webhook_id       TEXT NOT NULL,
        webhook_name     TEXT NOT NULL,
        delivery_id      TEXT,
        alert_id         TEXT,
        alert_type       TEXT NOT NULL,
        attempt          INTEGER NOT NULL,
        outcome          TEXT NOT NULL,
        status_code      INTEGER,
        latency_ms       REAL,
        error            TEXT,
        response_excerpt TEXT
      );
      CREATE INDEX webhook_attempts_webhook ON webhook_attempts(webhook_id, id);

      -- Every alert raised and what became of it per webhook, trimmed to webhooks.alert_log_size rows.
      CREATE TABLE webhook_alerts (
        n         INTEGER PRIMARY KEY,
        id        TEXT NOT NULL,
        t         INTEGER NOT NULL,
        type      TEXT NOT NULL,
        subject   TEXT NOT NULL,
        outcome   TEXT NOT NULL,
        alert     TEXT NOT NULL,
        decisions TEXT NOT NULL
      );

      -- When a webhook last got an alert of a type about a subject (cooldown, and whether a recovery
      -- has a problem to resolve).
      CREATE TABLE webhook_cooldowns (
        webhook_id TEXT NOT NULL,
        subject    TEXT NOT NULL,
        alert_type TEXT NOT NULL,
        last_at    INTEGER NOT NULL,
        PRIMARY KEY (webhook_id, subject, alert_type)
      ) WITHOUT ROWID;

      -- Problem alerts of monitors held back because a parent monitor is down (or failing).
      CREATE TABLE webhook_holds (
        monitor_id TEXT PRIMARY KEY,
        parent_id  TEXT NOT NULL,
        state      TEXT NOT NULL CHECK (state IN ('pending', 'suppressed')),
        held_at    INTEGER NOT NULL,
        alert      TEXT NOT NULL
      );
      CREATE INDEX webhook_holds_parent ON webhook_holds(parent_id);

      -- The last certificate-expiry threshold alerted per monitor, for the certificate it saw.
      CREATE TABLE webhook_cert_alerts (
        monitor_id TEXT PRIMARY KEY,
        valid_to   INTEGER NOT NULL,
        threshold  INTEGER NOT NULL
      );
    `,
  },
  {
    version: 601,
    // Filled from URLs that packed them (Telegram's ?chat_id=) at start-up, by options.ts: the URL may be sealed.
    name: 'webhooks: provider options',
    up: `ALTER TABLE webhooks ADD COLUMN options TEXT NOT NULL DEFAULT '{}'`,
  },
  {
    version: 602,
    // The alert gate keeps them now (monitors' monitor_alert_holds, which took these rows in its 210).
    name: 'webhooks: dependency holds move to the monitors alert gate',
    up: 'DROP TABLE IF EXISTS webhook_holds',
  },
  {
    version: 603,
    // Routing (routing.ts): which monitors' alerts a channel gets, all of them for the webhooks there were;
    // reminders off. The alert log keeps the monitor an alert is about, so a monitor's page can list its alerts.
    name: 'webhooks: per-channel monitor routing and reminders; the alert log by monitor',
    up: `
      ALTER TABLE webhooks ADD COLUMN monitors TEXT NOT NULL DEFAULT '{"mode":"all"}';
      ALTER TABLE webhooks ADD COLUMN reminder_minutes INTEGER;
      ALTER TABLE webhook_alerts ADD COLUMN monitor_id TEXT;
      UPDATE webhook_alerts SET monitor_id = json_extract(alert, '$.monitor.id');
      CREATE INDEX webhook_alerts_monitor ON webhook_alerts(monitor_id, n);
    `,
  },
];
