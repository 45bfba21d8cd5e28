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
