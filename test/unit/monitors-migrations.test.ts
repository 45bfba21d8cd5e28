// Migration 203 rebuilds the monitors table without the CHECK on check_type. A monitor's pk is the key of
// its channel entries, which outlive a deleted monitor until retention drops them: the rebuild must keep
// every pk and the AUTOINCREMENT high-water mark, so a new monitor never takes a deleted one's pk.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { monitorMigrations } from '../../src/modules/monitors/migrations.js';
import { openTestStore, tempDir } from '../helpers/store.js';

const before203 = monitorMigrations.filter((m) => m.version < 203);
const insert = (id: string, type = 'http'): [string, string[]] =>
  [`INSERT INTO monitors (id, name, target, check_type, interval_s, timeout_s, failure_threshold, created_at, updated_at)
    VALUES (?, ?, 'x', ?, 60, 10, 3, 1, 1)`, [id, id, type]];

for (const deleteNewest of [true, false]) {
  test(`203 keeps pks and the high-water mark (${deleteNewest ? 'newest monitor deleted' : 'none deleted'})`, async (t) => {
    const dir = await tempDir(t, 'monitors-migrations');
    const old = await openTestStore(t, dir, before203);
    await old.write((tx) => {
      for (const id of ['a', 'b', 'c']) tx.run(...insert(id));
      if (deleteNewest) tx.run("DELETE FROM monitors WHERE id = 'c'");
    }, 'sync');
    await assert.rejects(old.write((tx) => tx.run(...insert('z', 'snmp')), 'sync'), /CHECK constraint/);
    await old.close();

    const s = await openTestStore(t, dir, monitorMigrations);
    await s.write((tx) => { tx.run(...insert('d')); tx.run(...insert('e', 'snmp')); }, 'sync');
    const rows = s.all<{ pk: number; id: string }>('SELECT pk, id FROM monitors ORDER BY pk');
    assert.deepEqual(rows.map((r) => [r.pk, r.id]),
      deleteNewest ? [[1, 'a'], [2, 'b'], [4, 'd'], [5, 'e']] : [[1, 'a'], [2, 'b'], [3, 'c'], [4, 'd'], [5, 'e']]);
    assert.deepEqual(s.all("SELECT name, seq FROM sqlite_sequence WHERE name LIKE 'monitors%'"), [{ name: 'monitors', seq: 5 }]);
  });
}

// Migration 210 gives the alert gate its holds; before, the webhooks module kept them (webhook_holds,
// dropped by webhooks' 602). A child held back when the probe upgraded must still be released.
test('210 takes the held alerts of webhook_holds; 602 drops that table', async (t) => {
  const { webhookMigrations } = await import('../../src/modules/webhooks/migrations.js');
  const dir = await tempDir(t, 'monitors-migrations');
  const old = await openTestStore(t, dir, [...monitorMigrations.filter((m) => m.version < 210), ...webhookMigrations.filter((m) => m.version < 602)]);
  await old.write((tx) => {
    for (const id of ['switch', 'host', 'gone']) tx.run(...insert(id));
    const alert = JSON.stringify({ details: { held_by: { id: 'switch', name: 'core switch', state: 'suppressed' } } });
    tx.run(`INSERT INTO webhook_holds (monitor_id, parent_id, state, held_at, alert) VALUES ('host', 'switch', 'suppressed', 5000, ?)`, [alert]);
    tx.run(`INSERT INTO webhook_holds (monitor_id, parent_id, state, held_at, alert) VALUES ('nobody', 'switch', 'pending', 6000, ?)`, [alert]);
  }, 'sync');
  await old.close();

  const s = await openTestStore(t, dir, [...monitorMigrations, ...webhookMigrations]);
  assert.deepEqual(s.all('SELECT m, rule, reason, by_id, by_name, state, held_at FROM monitor_alert_holds'), [
    { m: 2, rule: 'dependency', reason: 'switch is down', by_id: 'switch', by_name: 'switch', state: 'suppressed', held_at: 5000 },
  ], 'the held child, with its parent named as it is now; a hold of a monitor that no longer exists is dropped');
  assert.equal(s.get("SELECT 1 AS x FROM sqlite_master WHERE name = 'webhook_holds'"), undefined);
});

// Migration 212: time failing below the failure threshold counted as available until then; it is down
// now. The rollups hold time per status only, so a row's failing time is estimated from its failed checks
// (their share of the row's known time, less the time it was down), moved from degraded to down, and each
// monitor that changed gets an event saying what moved.
test('212 moves the failing time of rollups from degraded to down and says so in the event log', async (t) => {
  const dir = await tempDir(t, 'monitors-migrations');
  const old = await openTestStore(t, dir, monitorMigrations.filter((m) => m.version < 212));
  const H = 3_600_000;
  const day = Date.parse('2026-06-01T00:00:00Z') / 1000;
  const row = (m: number, k: number, b: number, [checks, up, degraded, down]: number[], [msUp, msDeg, msDown]: number[]):
    [string, number[]] => [`INSERT INTO monitor_rollups (m, k, b, checks, up, degraded, down, rt_sum, rt_count, ms_up, ms_degraded, ms_down)
      VALUES (?, ?, ?, ?, ?, ?, ?, 0, 0, ?, ?, ?)`, [m, k, b, checks, up, degraded, down, msUp!, msDeg!, msDown!]];
  await old.write((tx) => {
    for (const id of ['broken-api', 'slow-but-fine', 'flapping']) tx.run(...insert(id));
    // broken-api: 60 checks an hour, every one failed; threshold 3, so 2 minutes failing (degraded) then down.
    tx.run(...row(1, 1, day, [60, 0, 0, 60], [0, 2 * 60_000, 58 * 60_000]));
    tx.run(...row(1, 2, day, [60, 0, 0, 60], [0, 2 * 60_000, 58 * 60_000]));
    // slow-but-fine: slow answers, no failed check: stays degraded.
    tx.run(...row(2, 1, day, [60, 30, 30, 0], [H / 2, H / 2, 0]));
    tx.run(...row(2, 2, day, [60, 30, 30, 0], [H / 2, H / 2, 0]));
    // flapping: 6 failed checks never reaching the threshold (6 minutes failing), 10 slow minutes, the rest up.
    tx.run(...row(3, 1, day, [60, 44, 10, 6], [44 * 60_000, 16 * 60_000, 0]));
    tx.run(...row(3, 2, day, [60, 44, 10, 6], [44 * 60_000, 16 * 60_000, 0]));
  }, 'sync');
  await old.close();

  const s = await openTestStore(t, dir, monitorMigrations);
  const times = s.all<{ m: number; k: number; ms_up: number; ms_degraded: number; ms_down: number }>(
    'SELECT m, k, ms_up, ms_degraded, ms_down FROM monitor_rollups ORDER BY m, k');
  assert.deepEqual(times.map((r) => [r.m, r.k, r.ms_up, r.ms_degraded, r.ms_down]), [
    [1, 1, 0, 0, H], [1, 2, 0, 0, H],
    [2, 1, H / 2, H / 2, 0], [2, 2, H / 2, H / 2, 0],
    [3, 1, 44 * 60_000, 10 * 60_000, 6 * 60_000], [3, 2, 44 * 60_000, 10 * 60_000, 6 * 60_000],
  ]);
  const events = s.all<{ monitor_id: string; kind: string; actor: string; message: string; details: string }>(
    'SELECT monitor_id, kind, actor, message, details FROM monitor_events ORDER BY monitor_id');
  assert.deepEqual(events.map((e) => [e.monitor_id, e.kind, e.actor]),
    [['broken-api', 'uptime_recounted', 'system (upgrade)'], ['flapping', 'uptime_recounted', 'system (upgrade)']],
    'one event per monitor whose uptime changed; none for the one that was only slow');
  assert.match(events[0]!.message, /2 min of earlier failing time moved from available to down; .* 3\.333 % → 0 %/);
  assert.deepEqual(JSON.parse(events[1]!.details), { moved_ms: 6 * 60_000, uptime_30d_before: 100, uptime_30d_after: 90 });
});
