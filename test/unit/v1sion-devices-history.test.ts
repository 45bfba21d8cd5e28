// The known devices' history stays bounded as years pass (src/modules/v1sion/devices/store.ts thinHistory):
// the last 30 days whole; older changes thinned to the first and last of each kind per device and day, then
// per 30 days after a year; a device unseen for 400 days forgotten with its history. A real store.
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { openStore } from '../../src/core/store/index.js';
import type { KnownDevice } from '../../src/modules/v1sion/devices/merge.js';
import { addHistory, thinHistory, writeDevice } from '../../src/modules/v1sion/devices/store.js';
import { v1sionMigrations } from '../../src/modules/v1sion/migrations.js';

const DAY = 86_400_000;
const HOUR = 3_600_000;

const device = (id: string, lastSeen: number): KnownDevice => ({
  id, first_seen: 0, last_seen: lastSeen, name: id, vendor: null, kind: 'host', model: null, addresses: ['10.0.0.9'], macs: [], keys: [`mac:${id}`],
  attachment: null, presence: 'normal', acknowledged: true, missing_since: null, missing_alerted: false, runs_seen: 1, runs_missed: 0,
});

test('two years of a laptop coming and going every hour: recent history whole, older thinned per day then per month, none of it dropped whole', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'netprobe-devhist-'));
  const store = await openStore({ dir, migrations: v1sionMigrations });
  try {
    const now = 800 * DAY;
    await store.write((tx) => {
      writeDevice(tx, device('laptop', now));
      writeDevice(tx, device('gone', now - 401 * DAY));
      addHistory(tx, 'gone', now - 500 * DAY, 'discovered', null, null, 'first seen');
      for (let t = now - 730 * DAY; t < now; t += HOUR) addHistory(tx, 'laptop', t, (t / HOUR) % 2 ? 'seen_again' : 'missing', null, null, 'x');
    });
    const before = store.get<{ n: number }>('SELECT count(*) AS n FROM v1sion_device_history')!.n;
    let removed = { history: 0, devices: 0 };
    await store.write((tx) => { removed = thinHistory(tx, now); });
    const rows = store.all<{ t: number; kind: string }>("SELECT t, kind FROM v1sion_device_history WHERE device_id = 'laptop'");
    assert.equal(removed.devices, 1, 'the device unseen for 401 days');
    assert.equal(store.get<{ n: number }>("SELECT count(*) AS n FROM v1sion_devices WHERE id = 'gone'")?.n, 0);
    assert.equal(before - rows.length, removed.history, 'the row of the device forgotten counted too');
    const recent = rows.filter((r) => r.t >= now - 30 * DAY).length;
    assert.equal(recent, 30 * 24, 'the last 30 days whole');
    const perDay = new Map<string, number>();
    for (const r of rows.filter((x) => x.t < now - 30 * DAY && x.t >= now - 365 * DAY)) {
      const k = `${r.kind}@${Math.floor(r.t / DAY)}`;
      perDay.set(k, (perDay.get(k) ?? 0) + 1);
    }
    assert.ok([...perDay.values()].every((n) => n <= 2), 'at most the first and last of each kind a day');
    assert.ok(perDay.size >= 2 * 330, 'every day still has its changes');
    const old = rows.filter((r) => r.t < now - 365 * DAY);
    assert.ok(old.length > 0 && old.length <= 2 * 2 * 14, `a year's worth of hourly changes thinned to per 30 days: ${old.length}`);
    assert.ok(rows.length < 30 * 24 + 2 * 2 * 336 + 60, `bounded: ${rows.length} rows of ${before}`);
    // Thinning again changes nothing.
    await store.write((tx) => { removed = thinHistory(tx, now); });
    assert.deepEqual(removed, { history: 0, devices: 0 });
  } finally {
    await store.close();
    await rm(dir, { recursive: true, force: true });
  }
});
