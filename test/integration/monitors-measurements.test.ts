// Named measurements (docs/monitors.md, "Measurements") through the real service on real files: the ones
// a check type declares come with its results (a real ping's loss_pct, a real TLS connection's days_left),
// are kept in the raw history and rolled up per hour and day, come back from the results and the monitor's
// 24-hour figures, and survive a restart (from the start-up image and from the channel alone); a name the
// type does not declare is dropped (the result is kept) and logged once.
import assert from 'node:assert/strict';
import { rm } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import tls from 'node:tls';
import { monitorsServiceOf } from '../../src/modules/monitors/index.js';
import { selfSigned } from '../helpers/certs.js';
import { checked, hoursWritten, life, monitorsView, svcOf, tempDir, wholeRead, type Life } from '../helpers/monitors-life.js';

type Row = { k: number; b: number; name: string; n: number; total: number; lo: number; hi: number };
const rollups = (l: Life, id: string): Row[] => l.t.service.app.store.all<Row>(
  `SELECT r.k, r.b, x.name, r.n, r.total, r.lo, r.hi FROM monitor_measure_rollups r JOIN monitors mo ON mo.pk = r.m
     JOIN monitor_measures x ON x.id = r.x WHERE mo.id = ? ORDER BY r.k, r.b, x.name`, [id]);

/** A scheduled result as the scheduler applies it, at `at`, with the measurements given. */
async function apply(l: Life, id: string, at: number, status: 'up' | 'degraded' | 'down', measurements: Record<string, number>) {
  const svc = monitorsServiceOf(l.t.service.app);
  const m = svc.registry.byId(id)!;
  const r = await svc.recorder.apply(m, { status, response_time_ms: status === 'down' ? null : 1, message: `loss ${measurements.loss_pct}`,
    details: {}, measurements }, at, {}, 'group');
  assert.ok(r, 'applied');
  return r;
}

test('a declared measurement is kept, rolled up and returned; an undeclared one is dropped; both ways across a restart', async (t) => {
  const dir = await tempDir('monitors-measurements');
  t.after(() => rm(dir, { recursive: true, force: true }));
  const cert = await selfSigned(30);
  const server = tls.createServer({ key: cert.key, cert: cert.cert }, (s) => s.end());
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  t.after(() => server.close());
  const t0 = Date.parse('2026-03-07T10:10:00Z');
  const a = await life(dir, t0);
  let aOpen = true;
  t.after(async () => { if (aOpen) await a.t.close(); });

  // Real checks: fping's loss of 127.0.0.1 and the days left on the loopback server's certificate.
  const ping = (await a.api('POST', '/api/monitors', { name: 'p', check_type: 'ping', target: '127.0.0.1', interval: 600, timeout: 5 })).id;
  const tcp = (await a.api('POST', '/api/monitors', { name: 's', check_type: 'tcp', interval: 600, timeout: 5,
    target: `127.0.0.1:${(server.address() as AddressInfo).port}`, settings: { tls: true, verify_tls: false } })).id;
  await checked(a, ping, 0, 1);
  await checked(a, tcp, 0, 1);
  const first = (await a.api('GET', `/api/monitors/${ping}/results`)).items[0];
  assert.equal(first.status, 'up', first.message);
  assert.deepEqual(first.measurements, { loss_pct: 0 });
  const days = (await a.api('GET', `/api/monitors/${tcp}/results`)).items[0].measurements.days_left;
  assert.ok(days === 29 || days === 30, `days_left ${days}`);
  const http = (await a.api('POST', '/api/monitors', { name: 'h', check_type: 'http', target: 'http://127.0.0.1:9/', interval: 600,
    timeout: 5 })).id;
  await checked(a, http, 0, 1);
  assert.deepEqual((await a.api('GET', `/api/monitors/${http}/results`)).items[0].measurements, {}, 'no certificate, no days_left');
  // No more real checks while the clock moves: the results below are the ones this test applies.
  for (const id of [ping, tcp, http]) svcOf(a).scheduler.remove(svcOf(a).registry.byId(id)!.row.pk);

  // Scheduled results of the same hour with other losses, one with a name ping does not declare.
  const applied = await apply(a, ping, Date.parse('2026-03-07T10:20:00Z'), 'degraded', { loss_pct: 50, hops: 7 });
  assert.deepEqual(applied.result.measurements, { loss_pct: 50 }, 'the result says what was kept');
  await apply(a, ping, Date.parse('2026-03-07T10:30:00Z'), 'down', { loss_pct: 100 });
  await apply(a, ping, Date.parse('2026-03-07T10:40:00Z'), 'up', { loss_pct: 33.333 });
  const items = (await a.api('GET', `/api/monitors/${ping}/results`)).items;
  assert.deepEqual(items.map((x: any) => x.measurements), [{ loss_pct: 33.33 }, { loss_pct: 100 }, { loss_pct: 50 }, { loss_pct: 0 }],
    'newest first; kept to hundredths; hops dropped');
  assert.ok(a.t.logs.some((l) => /does not declare/.test(l) && /hops/.test(l)), 'the dropped name is logged');
  assert.deepEqual(a.t.service.app.store.all('SELECT name FROM monitor_measures ORDER BY name'), [{ name: 'days_left' }, { name: 'loss_pct' }]);
  const expected = { name: 'loss_pct', label: 'Packet loss', unit: '%', count: 4, min: 0, avg: 45.83, max: 100 };
  const stat = async (l: Life) => (await l.api('GET', `/api/monitors/${ping}`)).stats.measurements_24h;
  assert.deepEqual(await stat(a), [expected], 'from memory while the hour is open');
  assert.deepEqual((await a.api('GET', `/api/monitors/${http}`)).stats.measurements_24h,
    [{ name: 'days_left', label: 'Certificate days left', unit: 'days', count: 0, min: null, avg: null, max: null }]);

  // The hour closes: its rows and the day's.
  a.clock.advance(Date.parse('2026-03-07T11:06:01Z') - a.clock.now());
  await hoursWritten(a.t.service.app);
  const hour = Date.parse('2026-03-07T10:00:00Z') / 1000, day = Date.parse('2026-03-07T00:00:00Z') / 1000;
  assert.deepEqual(rollups(a, ping), [
    { k: 1, b: hour, name: 'loss_pct', n: 4, total: 18333, lo: 0, hi: 10000 },
    { k: 2, b: day, name: 'loss_pct', n: 4, total: 18333, lo: 0, hi: 10000 },
  ]);
  assert.deepEqual(await stat(a), [expected], 'from the rows once written');
  // A late result of that hour (a clock stepped back) goes into both rows.
  await apply(a, ping, Date.parse('2026-03-07T10:59:30Z'), 'up', { loss_pct: 10 });
  assert.deepEqual(rollups(a, ping).map((r) => [r.k, r.n, r.total, r.lo, r.hi]), [[1, 5, 19333, 0, 10000], [2, 5, 19333, 0, 10000]]);
  const after = { ...expected, count: 5, avg: 38.67 };
  assert.deepEqual(await stat(a), [after]);

  // A restart from the start-up image, and one that reads the whole channel: the same.
  const results = await a.api('GET', `/api/monitors/${ping}/results`);
  aOpen = false;
  await a.t.close({ keepData: true });
  const at = Date.parse('2026-03-07T11:10:00Z');
  const b = await life(dir, at, a.admin);
  let view: unknown;
  try {
    assert.match(svcOf(b).storage.startup.image, /^used/);
    assert.deepEqual(await stat(b), [after]);
    assert.deepEqual(await b.api('GET', `/api/monitors/${ping}/results`), results);
    view = await monitorsView(b);
  } finally {
    await b.t.close({ keepData: true });
  }
  assert.deepEqual(await wholeRead(dir, at, a.admin), view, 'without the image: from the channel');

  // Deleting the monitor deletes its measurements' rollups.
  const c = await life(dir, at, a.admin);
  try {
    const count = (pk: number) =>
      c.t.service.app.store.get<{ n: number }>('SELECT count(*) AS n FROM monitor_measure_rollups WHERE m = ?', [pk])!.n;
    const pk = svcOf(c).registry.byId(ping)!.row.pk, other = svcOf(c).registry.byId(tcp)!.row.pk;
    assert.equal(count(pk), 2);
    await c.api('DELETE', `/api/monitors/${ping}`);
    assert.equal(count(pk), 0);
    assert.equal(count(other), 2, 'the TLS check\'s days_left rows stay');
  } finally {
    await c.t.close();
  }
});
