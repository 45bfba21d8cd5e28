// Monitoring at a glance, the parts without a service: the time-weighted hours (a 7-second outage is 7
// seconds of its hour) and migration 204 converting rollups written by earlier builds (their uptime stays
// what it was). The UI's pure functions are in monitors-glance-ui.test.ts.
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { test } from 'node:test';
import initSqlJs from 'sql.js';
import { HourRing, HOUR_MS } from '../../src/modules/monitors/storage/hours.js';
import { monitorMigrations } from '../../src/modules/monitors/migrations.js';
import { uptimePct } from '../../src/modules/monitors/storage/rollups.js';
import { beatOf, RawHistory, STANDING, standingOf } from '../../src/modules/monitors/storage/history.js';

const H = 1_000 * HOUR_MS; // an hour boundary
const CAP = (2 * 60 + 10) * 1000;

test('time-weighted hours: a 7-second outage is 7 s of its hour; the status holds at most the cap; pauses do not count', () => {
  const ring = new HourRing();
  for (let i = 0; i < 60; i++) {
    ring.observe(1, H + i * 60_000, i === 30 ? 'down' : 'up', CAP);
    if (i === 30) ring.observe(1, H + 30 * 60_000 + 7_000, 'up', CAP); // a manual check: up again
  }
  ring.observe(1, H + HOUR_MS, 'up', CAP);
  const h = ring.sum(1, 1000, 1000);
  assert.deepEqual([h.ms_up, h.ms_degraded, h.ms_down], [3_593_000, 0, 7_000]);
  assert.equal(uptimePct({ ...h, checks: 0, up: 0, degraded: 0 }), 99.806);
  // Nobody looked for three hours: only the cap counts.
  ring.observe(2, H, 'degraded', CAP);
  ring.observe(2, H + 3 * HOUR_MS, 'up', CAP);
  assert.equal(ring.sum(2, 1000, 1003).ms_degraded, CAP);
  // Paused: the time up to the pause counts, then nothing until the next result.
  ring.observe(3, H, 'up', CAP);
  ring.stop(3, H + 30_000, CAP);
  ring.observe(3, H + 20 * 60_000, 'up', CAP);
  assert.equal(ring.sum(3, 1000, 1000).ms_up, 30_000);
  // The hour closer brings a status to the end of the hour; the next result does not count it twice.
  ring.observe(4, H + HOUR_MS - 30_000, 'down', CAP);
  ring.advance(4, H + HOUR_MS, CAP);
  ring.observe(4, H + HOUR_MS + 30_000, 'up', CAP);
  assert.equal(ring.sum(4, 1000, 1000).ms_down, 30_000);
  assert.equal(ring.sum(4, 1001, 1001).ms_down, 30_000);
  // Hours below the floor (written to the rollups) get nothing more.
  ring.floorHour = () => 1001;
  ring.observe(5, H + HOUR_MS - 30_000, 'down', CAP);
  ring.observe(5, H + HOUR_MS + 30_000, 'up', CAP);
  assert.equal(ring.sum(5, 1000, 1000).ms_down, 0);
  assert.equal(ring.sum(5, 1001, 1001).ms_down, 30_000);
});

test('uptime without known time falls back to the share of checks that answered', () => {
  assert.equal(uptimePct({ checks: 1, up: 0, degraded: 0 }), 0);
  assert.equal(uptimePct({ checks: 0, up: 0, degraded: 0 }), null);
  assert.equal(uptimePct({ checks: 4, up: 1, degraded: 0, ms_up: 1, ms_degraded: 0, ms_down: 0 }), 100);
});

test('beats: a letter per check, failing apart from down, manual in upper case, the newest 30', () => {
  const hist = new RawHistory();
  const at = (i: number) => ({ t: H + i * 1000, status: 'down' as const, rt: null, msg: 0, d: null });
  hist.append(1, at(0), standingOf('down', 'degraded'));
  hist.append(1, at(1), standingOf('down', 'down'));
  hist.append(1, { ...at(2), status: 'up', manual: true }, standingOf('up', 'up'));
  hist.append(1, { ...at(3), status: 'degraded' }, standingOf('degraded', 'paused'));
  assert.equal(hist.beats(1), 'fdUp');
  const back = hist.query(1, { from: -Infinity, to: Infinity, limit: 10, offset: 0 }).items;
  assert.deepEqual(back.map((r) => [r.manual ?? false, r.standing ?? 0]), [[false, STANDING.paused], [true, 0], [false, 0], [false, STANDING.failing]]);
  for (let i = 4; i < 40; i++) hist.append(1, { ...at(i), status: 'up' });
  assert.equal(hist.beats(1), 'u'.repeat(30));
  assert.equal(beatOf('degraded', 0, false), 's');
});

test('migration 204 converts old rollups: the time split as the counts were, so their uptime is unchanged', async () => {
  const wasm = await readFile(createRequire(import.meta.url).resolve('sql.js/dist/sql-wasm.wasm'));
  const SQL = await initSqlJs({ wasmBinary: wasm as unknown as ArrayBuffer });
  const db = new SQL.Database();
  for (const m of monitorMigrations.filter((x) => x.version < 204)) db.exec(m.up as string);
  db.exec(`INSERT INTO monitors (pk, id, name, target, check_type, interval_s, timeout_s, failure_threshold, created_at, updated_at)
    VALUES (1, 'a', 'a', 'x', 'http', 60, 10, 3, 0, 0)`);
  // A full hour (60 checks, 3 failed), an hour the monitor was checked 10 times, a day, and a deleted monitor's hour.
  db.exec(`INSERT INTO monitor_rollups (m, k, b, checks, up, degraded, down, rt_sum, rt_count) VALUES
    (1, 1, 3600, 60, 55, 2, 3, 0, 0), (1, 1, 7200, 10, 10, 0, 0, 0, 0), (1, 2, 86400, 1440, 1437, 0, 3, 0, 0),
    (9, 1, 3600, 4, 2, 0, 2, 0, 0)`);
  db.exec(monitorMigrations.find((x) => x.version === 204)!.up as string);
  const rows = db.exec('SELECT m, k, b, checks, up, degraded, down, ms_up, ms_degraded, ms_down FROM monitor_rollups ORDER BY m, k, b')[0]!.values;
  assert.deepEqual(rows.map((r) => r.slice(7)), [[3_300_000, 120_000, 180_000], [600_000, 0, 0], [86_220_000, 0, 180_000],
    [1_800_000, 0, 1_800_000]]);
  for (const r of rows) {
    const [, , , checks, up, degraded, , msUp, msDeg, msDown] = r as number[];
    assert.equal(uptimePct({ checks: checks!, up: up!, degraded: degraded!, ms_up: msUp!, ms_degraded: msDeg!, ms_down: msDown! }),
      uptimePct({ checks: checks!, up: up!, degraded: degraded! }));
  }
});
