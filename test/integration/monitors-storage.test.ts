// How the monitors module keeps results outside the database (docs/monitors.md, "Storage"), through the
// real service on real files: results and state come back after a crash and after checkpoints moved them
// into segment files; cleared history stays cleared; retention drops old segments only after saving each
// monitor's state; a month of old hour rollups goes in small writes and its memory is given back, once
// when the database cleanup runs the pass; a result of an hour whose rollups are already written goes into them.
import assert from 'node:assert/strict';
import { cp, readdir, rm } from 'node:fs/promises';
import { after, before, test } from 'node:test';
import { monitorsRetentionOf, monitorsServiceOf } from '../../src/modules/monitors/index.js';
import { ROWS_PER_WRITE } from '../../src/modules/monitors/storage/retention.js';
import type { TestApp } from '../helpers/harness.js';
import { checked, hoursWritten, life, okServer, tempDir, type Life } from '../helpers/monitors-life.js';

const HOUR = 3_600_000;
const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

let web: { url: string; close(): void };
let url: string;
before(async () => { web = await okServer(); url = web.url; });
after(() => web.close());

test('after a crash the results and state come back: from the journal, and from segments once checkpointed', async (t) => {
  const dir = await tempDir();
  const copies: string[] = [];
  t.after(async () => { for (const d of [dir, ...copies]) await rm(d, { recursive: true, force: true }); });
  const a = await life(dir, Date.parse('2026-03-01T10:00:00Z'));
  const id = (await a.api('POST', '/api/monitors', { name: 'w', check_type: 'http', target: url, interval: 30, timeout: 2 })).id;
  await checked(a, id, 0, 1);
  await checked(a, id, 30_000, 2);
  await a.t.service.app.store.checkpoint(); // the first two into a segment
  await checked(a, id, 30_000, 3);
  await a.t.service.app.store.flush(); // the third in the journal (its group commit)
  const before = await a.api('GET', `/api/monitors/${id}`);
  const results = await a.api('GET', `/api/monitors/${id}/results`);
  assert.ok((await readdir(dir)).some((f) => f.endsWith('.seg')), 'a segment file');
  // What a kill leaves: a copy of the directory while the service runs.
  const image = await tempDir();
  copies.push(image);
  await cp(dir, image, { recursive: true });
  await a.t.close();
  const b = await life(image, Date.parse('2026-03-01T10:01:30Z'), a.admin);
  try {
    assert.deepEqual(await b.api('GET', `/api/monitors/${id}/results`), results);
    const got = await b.api('GET', `/api/monitors/${id}`);
    for (const k of ['status', 'last_check', 'response_time', 'last_message']) assert.deepEqual(got[k], before[k], k);
    assert.equal(got.stats.checks_24h, 3);
  } finally {
    await b.t.close();
  }
});

test('cleared history stays cleared across checkpoints and restarts; status and last check stay', async (t) => {
  const dir = await tempDir();
  t.after(() => rm(dir, { recursive: true, force: true }));
  const a = await life(dir, Date.parse('2026-03-02T10:00:00Z'));
  const id = (await a.api('POST', '/api/monitors', { name: 'c', check_type: 'http', target: url, interval: 30, timeout: 2 })).id;
  await checked(a, id, 0, 1);
  await a.t.service.app.store.checkpoint();
  await checked(a, id, 30_000, 2);
  const before = await a.api('GET', `/api/monitors/${id}`);
  await a.api('DELETE', '/api/monitors/events');
  assert.equal((await a.api('GET', `/api/monitors/${id}/results`)).total, 0);
  assert.ok(!(await readdir(dir)).some((f) => f.endsWith('.seg')), 'the segments went at once');
  await a.t.close({ keepData: true });
  for (const at of ['2026-03-02T10:05:00Z', '2026-03-02T10:06:00Z']) {
    const b = await life(dir, Date.parse(at), a.admin);
    try {
      assert.equal((await b.api('GET', `/api/monitors/${id}/results`)).total, 0);
      const got = await b.api('GET', `/api/monitors/${id}`);
      assert.equal(got.status, 'up');
      assert.equal(got.last_check, before.last_check, 'current state is not history');
      assert.equal(got.stats.checks_24h, 0);
    } finally {
      await b.t.close({ keepData: true });
    }
  }
});

test('retention drops old segments after saving each monitor\'s state, which a restart then reads from the table', async (t) => {
  const dir = await tempDir();
  t.after(() => rm(dir, { recursive: true, force: true }));
  const a = await life(dir, Date.parse('2026-03-03T10:00:00Z'));
  const id = (await a.api('POST', '/api/monitors', { name: 'r', check_type: 'tcp', target: '127.0.0.1:9', interval: 30, timeout: 2,
    failure_threshold: 1 })).id;
  await checked(a, id, 0, 1);
  await a.api('POST', `/api/monitors/${id}/pause`);
  await a.api('POST', `/api/monitors/${id}/pause`); // resumed: unknown, checked at once
  await checked(a, id, 0, 2);
  const before = await a.api('GET', `/api/monitors/${id}`);
  assert.equal(before.status, 'down');
  await a.t.service.app.store.checkpoint();
  const svc = monitorsServiceOf(a.t.service.app)!;
  assert.equal(svc.stateSavedAt(), 0, 'nothing saved yet');
  await a.api('POST', `/api/monitors/${id}/pause`); // no more checks
  a.clock.advance(25 * HOUR);
  await hoursWritten(a.t.service.app);
  const retention = monitorsRetentionOf(a.t.service.app)!;
  const segments = async () => (await readdir(dir)).filter((f) => f.endsWith('.seg')).length;
  try {
    assert.equal(await segments(), 1);
    // The job's own timer started a pass while the clock moved (at +1 min): on a busy machine it may have
    // ended already and dropped the segment, so the figures of the passes asked for here may be 0. What
    // counts is the effect: the segment is gone, and the state was saved first.
    const stats = [await retention.runOnce(), await retention.runOnce()];
    assert.equal(await segments(), 0, JSON.stringify(stats));
    assert.ok(stats.every((x) => x.segments <= 1), JSON.stringify(stats));
    assert.ok(svc.stateSavedAt() > 0, 'the state was saved before the segment went');
  } finally {
    await a.t.close({ keepData: true }); // a failed assertion must not leave the service holding the process open
  }
  const b = await life(dir, Date.parse('2026-03-04T12:00:00Z'), a.admin);
  try {
    const got = await b.api('GET', `/api/monitors/${id}`);
    assert.equal(got.status, 'paused');
    assert.equal(got.last_check, before.last_check);
    assert.equal(got.last_message, before.last_message);
    assert.equal((await b.api('GET', `/api/monitors/${id}/results`)).total, 0, 'past retention');
  } finally {
    await b.t.close();
  }
});

/**
 * What a probe that kept hour rows 30 days holds, for every monitor: the 720 hours before `now` (a whole
 * hour) and the 30 days up to today's, all up but the hour 30 hours before `now` (down). The histograms are
 * made large so the rows fill several MiB, as 2,000 monitors' rows would.
 */
async function seedMonthOfRollups(store: TestApp['service']['app']['store'], now: number): Promise<void> {
  const sec = now / 1000, today = Math.floor(sec / 86_400) * 86_400, todayHours = (sec - today) / 3600;
  const down = sec - 30 * 3600;
  await store.write((tx) => {
    tx.run(
      `WITH RECURSIVE h(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM h WHERE i < 720)
       INSERT OR REPLACE INTO monitor_rollups (m, k, b, checks, up, degraded, down, rt_sum, rt_count, rt_min, rt_max, hist, ms_up, ms_degraded, ms_down)
       SELECT m.pk, 1, ? - h.i * 3600, 60, 60, 0, 0, 6000, 60, 100, 100, zeroblob(400), 3600000, 0, 0 FROM monitors m, h`, [sec]);
    tx.run('UPDATE monitor_rollups SET up = 0, down = 60, ms_up = 0, ms_down = 3600000 WHERE k = 1 AND b = ?', [down]);
    // Day rows as the hours add up: 24 hours a day, today's hours before now.
    tx.run(
      `WITH RECURSIVE d(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM d WHERE i < 29)
       INSERT OR REPLACE INTO monitor_rollups (m, k, b, checks, up, degraded, down, rt_sum, rt_count, rt_min, rt_max, hist, ms_up, ms_degraded, ms_down)
       SELECT m.pk, 2, ? - d.i * 86400, d.n * 60, d.n * 60, 0, 0, d.n * 6000, d.n * 60, 100, 100, zeroblob(400), d.n * 3600000, 0, 0
         FROM monitors m, (SELECT i, CASE WHEN i = 0 THEN ? ELSE 24 END AS n FROM d) d`, [today, todayHours]);
    tx.run('UPDATE monitor_rollups SET up = up - 60, down = 60, ms_up = ms_up - 3600000, ms_down = 3600000 WHERE k = 2 AND b = ?',
      [Math.floor(down / 86_400) * 86_400]);
  });
}

test('a month of hour rollups shortened to two days: deleted a few thousand rows a write, the memory given back, the uptimes kept', async (t) => {
  const dir = await tempDir();
  t.after(() => rm(dir, { recursive: true, force: true }));
  const now = Date.parse('2026-03-10T10:00:00Z');
  const a = await life(dir, now);
  let aOpen = true;
  t.after(async () => { if (aOpen) await a.t.close(); });
  const store = a.t.service.app.store;
  const ids: string[] = [];
  for (let i = 0; i < 20; i++) {
    ids.push((await a.api('POST', '/api/monitors', { name: `m${i}`, check_type: 'tcp', target: '127.0.0.1:9', interval: 3600, timeout: 2 })).id);
    await a.api('POST', `/api/monitors/${ids.at(-1)}/pause`);
  }
  await seedMonthOfRollups(store, now);
  const rows = () => store.get<{ n: number }>('SELECT count(*) AS n FROM monitor_rollups WHERE k = 1')!.n;
  assert.equal(rows(), 20 * 720);
  const uptimes = async (l: Life) => {
    const s = (await l.api('GET', `/api/monitors/${ids[0]}`)).stats;
    return [s.uptime_7d, s.uptime_30d];
  };
  // At 10:00 UTC. 7 d: 6 days of 24 hours and 10 hours today, one hour down; 30 d: 29 days and 10 hours.
  const expected = [Math.round((1 - 1 / (6 * 24 + 10)) * 100_000) / 1000, Math.round((1 - 1 / (29 * 24 + 10)) * 100_000) / 1000];
  assert.deepEqual(await uptimes(a), expected);
  const pagesBefore = store.stats().page_count;

  // Each write's deleted rows, seen around the store's write(), and whether the event loop turned
  // between two of them (a callback queued with setImmediate ran: checks due meanwhile could start).
  const deleted: number[] = [];
  const turnsAt: number[] = [];
  let turns = 0, turning = true;
  const turn = () => { turns++; if (turning) setImmediate(turn); };
  setImmediate(turn);
  const write = store.write.bind(store);
  store.write = (async (fn, durability) => {
    const n0 = rows();
    const out = await write(fn, durability);
    if (rows() < n0) {
      deleted.push(n0 - rows());
      turnsAt.push(turns);
    }
    return out;
  }) as typeof store.write;
  const stats = await monitorsRetentionOf(a.t.service.app)!.runOnce();
  store.write = write;
  turning = false;
  for (let i = 1; i < turnsAt.length; i++) assert.ok(turnsAt[i]! > turnsAt[i - 1]!, `the event loop turns between deletes: ${turnsAt.join(', ')}`);
  // Hours 49-720 before now go; the last two days' 48 stay, and every day row.
  assert.equal(stats.rollups, 20 * 672, JSON.stringify(stats));
  assert.equal(rows(), 20 * 48);
  assert.equal(store.get<{ n: number }>('SELECT count(*) AS n FROM monitor_rollups WHERE k = 2')!.n, 20 * 30);
  assert.ok(deleted.length >= 3, `deleted per write: ${deleted.join(', ')}`);
  for (const n of deleted) assert.ok(n <= ROWS_PER_WRITE, `a write deleted ${n} rows`);
  assert.ok(stats.reclaimed_bytes > 4 * 1024 * 1024, JSON.stringify(stats));
  const s = store.stats();
  assert.ok(s.page_count < pagesBefore / 2, `pages ${pagesBefore} -> ${s.page_count}`);
  assert.ok(s.free_pages * s.page_size < 1024 * 1024, `free pages left: ${s.free_pages}`);
  assert.ok(s.snapshot_bytes <= s.page_count * s.page_size, 'the compacted database was checkpointed');
  assert.deepEqual(await uptimes(a), expected);
  const again = await monitorsRetentionOf(a.t.service.app)!.runOnce();
  assert.equal(again.rollups, 0);
  assert.equal(again.reclaimed_bytes, 0, 'nothing left to give back');
  aOpen = false;
  await a.t.close({ keepData: true });
  const b = await life(dir, now + 60_000, a.admin);
  try {
    assert.equal(b.t.service.app.store.get<{ n: number }>('SELECT count(*) AS n FROM monitor_rollups WHERE k = 1')!.n, 20 * 48);
    assert.deepEqual(await uptimes(b), expected);
  } finally {
    await b.t.close();
  }
});

test('the database cleanup compacts once, after a retention pass that leaves the freed pages to it', async (t) => {
  const dir = await tempDir();
  t.after(() => rm(dir, { recursive: true, force: true }));
  const now = Date.parse('2026-03-10T10:00:00Z');
  const a = await life(dir, now);
  try {
    for (let i = 0; i < 20; i++) {
      const id = (await a.api('POST', '/api/monitors', { name: `c${i}`, check_type: 'tcp', target: '127.0.0.1:9', interval: 3600, timeout: 2 })).id;
      await a.api('POST', `/api/monitors/${id}/pause`);
    }
    const store = a.t.service.app.store;
    await seedMonthOfRollups(store, now);
    const compactions: string[] = [];
    const compact = store.compact.bind(store), reclaim = store.reclaim.bind(store);
    store.compact = () => { compactions.push('compact'); return compact(); };
    store.reclaim = () => { compactions.push('reclaim'); return reclaim(); };
    const res = await a.t.request('POST', '/api/system/db-cleanup', { key: a.key });
    store.compact = compact;
    store.reclaim = reclaim;
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(compactions, ['compact'], 'one VACUUM');
    assert.equal(res.body.retention.rollups, 20 * 672);
    assert.equal(res.body.retention.reclaimed_bytes, 0);
    // What the retention pass freed is what the compaction found and gave back.
    assert.ok(res.body.compaction.free_bytes > 4 * 1024 * 1024, JSON.stringify(res.body.compaction));
    assert.equal(store.stats().free_pages, 0);
  } finally {
    await a.t.close();
  }
});

test('a result of an hour whose rollups are written goes into them (a clock stepped back)', async (t) => {
  const dir = await tempDir();
  t.after(() => rm(dir, { recursive: true, force: true }));
  const a = await life(dir, Date.parse('2026-03-05T10:59:00Z'));
  try {
    const id = (await a.api('POST', '/api/monitors', { name: 'l', check_type: 'http', target: url, interval: 3600, timeout: 2 })).id;
    await checked(a, id, 0, 1);
    const rows = () => a.t.service.app.store.all<{ k: number; checks: number }>(
      'SELECT r.k, r.checks FROM monitor_rollups r JOIN monitors mo ON mo.pk = r.m WHERE mo.id = ? ORDER BY r.k', [id]);
    a.clock.advance(7 * 60_000 + 1000); // 11:06:01: the 10:00 hour closes (at 11:06:00.525, off the checks' grids)
    for (let i = 0; i < 200 && !rows().length; i++) await sleep(10);
    assert.deepEqual(rows(), [{ k: 1, checks: 1 }, { k: 2, checks: 1 }]);
    a.clock.advance(-7 * 60_000 - 1000 + 30_000); // 10:59:30 again
    await a.api('POST', `/api/monitors/${id}/check`);
    assert.deepEqual(rows(), [{ k: 1, checks: 1 }, { k: 2, checks: 1 }], 'a manual check counts in no figure');
    // A scheduled result of that hour, as the scheduler applies it.
    const svc = monitorsServiceOf(a.t.service.app);
    const m = svc.registry.byId(id)!;
    const times = () => a.t.service.app.store.all<{ k: number; ms_up: number }>(
      'SELECT r.k, r.ms_up FROM monitor_rollups r JOIN monitors mo ON mo.pk = r.m WHERE mo.id = ? ORDER BY r.k', [id]);
    const upBefore = times();
    assert.ok(upBefore.every((r) => r.ms_up > 0), JSON.stringify(upBefore));
    await svc.recorder.apply(m, { status: 'up', response_time_ms: 5, message: 'OK', details: {} }, a.clock.now(), {}, 'group');
    assert.deepEqual(rows(), [{ k: 1, checks: 2 }, { k: 2, checks: 2 }]);
    assert.deepEqual(times(), upBefore, 'the hour\'s and the day\'s time up stay');
    assert.equal((await a.api('GET', `/api/monitors/${id}`)).stats.checks_24h, 2, 'counted once');
  } finally {
    await a.t.close();
  }
});

test('an hour closes a batch of monitors at a time; a late result of a written monitor goes into its rows; a restart mid-closing resumes after the written ones', async (t) => {
  const dir = await tempDir();
  t.after(() => rm(dir, { recursive: true, force: true }));
  const a = await life(dir, Date.parse('2026-03-06T10:58:00Z'));
  let aOpen = true;
  t.after(async () => { if (aOpen) await a.t.close(); });
  const rows = (l: Life, id: string) => l.t.service.app.store.all<{ k: number; checks: number }>(
    'SELECT r.k, r.checks FROM monitor_rollups r JOIN monitors mo ON mo.pk = r.m WHERE mo.id = ? ORDER BY r.k', [id]);
  const ids: string[] = [];
  for (const name of ['b1', 'b2']) {
    ids.push((await a.api('POST', '/api/monitors', { name, check_type: 'http', target: url, interval: 3600, timeout: 2 })).id);
    await checked(a, ids.at(-1)!, 0, 1);
  }
  const svc = monitorsServiceOf(a.t.service.app);
  const [m1, m2] = ids.map((id) => svc.registry.byId(id)!);
  assert.ok(m1!.row.pk < m2!.row.pk, 'written in pk order');
  // One monitor a write, and the closing held after the first.
  svc.storage.closer.batch = 1;
  let reached!: () => void, release!: () => void;
  const held = new Promise<void>((r) => { reached = r; });
  svc.storage.closer.betweenBatches = () => { reached(); return new Promise<void>((r) => { release = r; }); };
  let closing = false;
  void held.then(() => { closing = true; });
  a.clock.advance(8 * 60_000); // 11:06:00.000: a point of every ping grid, so not yet
  await sleep(50);
  assert.equal(closing, false, 'the closing does not start on a whole second');
  a.clock.advance(1000); // 11:06:01: the 10:00 hour has closed (at 11:06:00.525)
  await held;
  assert.deepEqual(rows(a, ids[0]!), [{ k: 1, checks: 1 }, { k: 2, checks: 1 }], 'the first monitor is written');
  assert.deepEqual(rows(a, ids[1]!), [], 'the second is not yet');
  assert.equal(svc.storage.closer.watermark * HOUR, Date.parse('2026-03-06T10:00:00Z'), 'the watermark moves with the last batch');
  // Late results of 10:59 (a clock stepped back): the written monitor's go into its rows, the other's wait for its batch.
  const late = Date.parse('2026-03-06T10:59:30Z');
  for (const m of [m1!, m2!]) await svc.recorder.apply(m, { status: 'up', response_time_ms: 5, message: 'OK', details: {} }, late, {}, 'group');
  assert.deepEqual(rows(a, ids[0]!), [{ k: 1, checks: 2 }, { k: 2, checks: 2 }]);
  assert.deepEqual(rows(a, ids[1]!), []);
  // Stopped while the closing is held: the stop waits for the batch in hand and the closing stops there,
  // as a crash between two batches leaves it; the next start resumes after m1.
  const stop = svc.storage.closer.stop.bind(svc.storage.closer);
  svc.storage.closer.stop = () => { const stopped = stop(); release(); return stopped; };
  aOpen = false;
  await a.t.close({ keepData: true });
  const b = await life(dir, Date.parse('2026-03-06T11:10:00Z'), a.admin);
  try {
    const bsvc = monitorsServiceOf(b.t.service.app);
    b.clock.advance(1000); // the closer's timer (due at once) runs on the clock
    for (let i = 0; i < 200 && bsvc.storage.closer.watermark * HOUR < Date.parse('2026-03-06T11:00:00Z'); i++) await sleep(10);
    assert.equal(bsvc.storage.closer.watermark * HOUR, Date.parse('2026-03-06T11:00:00Z'), 'the hour is closed');
    assert.deepEqual(rows(b, ids[0]!), [{ k: 1, checks: 2 }, { k: 2, checks: 2 }], 'the written monitor is not added twice');
    assert.deepEqual(rows(b, ids[1]!), [{ k: 1, checks: 2 }, { k: 2, checks: 2 }], 'the other is written with its late result');
    assert.equal(b.t.service.app.store.all("SELECT key FROM monitor_meta WHERE key LIKE 'rollups_closing%'").length, 0);
  } finally {
    await b.t.close();
  }
});
