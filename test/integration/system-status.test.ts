// The probe's health and facts: GET /api/system/status, GET /api/host/info, GET /api/system/db-stats,
// POST /api/system/db-cleanup and GET /api/dev/info, against the real service on loopback; plus the
// parsers of /proc and vcgencmd output on recorded text.
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { Logger } from '../../src/core/log.js';
import { parseIpv6Route, parseOsRelease, parseResolvConf, parseRoute } from '../../src/modules/system/host/service.js';
import { parseMeminfo, parseProcStat, parseThrottled, StatusService } from '../../src/modules/system/status/service.js';
import { assertProblem, startTestApp, type TestApp } from '../helpers/harness.js';

let t: TestApp;
let admin: { cookie: string; key: string };
before(async () => { t = await startTestApp(); admin = await t.admin(); });
after(() => t.close());

test('GET /api/system/status: plausible figures of this host and process', async () => {
  const r = await t.request('GET', '/api/system/status', { key: admin.key });
  assert.equal(r.status, 200, r.text);
  const s = r.body;
  assert.equal(s.cpu.cores, os.availableParallelism());
  assert.ok(s.cpu.load['1m'] >= 0 && s.cpu.load['15m'] >= 0);
  assert.ok(s.cpu.usage_pct === null || (s.cpu.usage_pct >= 0 && s.cpu.usage_pct <= 100));
  assert.ok(s.memory.total_bytes > 64 * 1024 * 1024);
  assert.ok(s.memory.available_bytes > 0 && s.memory.available_bytes <= s.memory.total_bytes);
  // The service's own RSS: this process (the service runs in-process here) within a few MiB.
  assert.ok(Math.abs(s.memory.process_rss_bytes - process.memoryUsage().rss) < 64 * 1024 * 1024);
  assert.equal(s.disk.path, t.dataDir);
  assert.ok(s.disk.total_bytes >= s.disk.free_bytes && s.disk.free_bytes >= s.disk.available_bytes && s.disk.available_bytes > 0);
  assert.ok(Math.abs(s.uptime.host - os.uptime()) < 5);
  assert.ok(s.uptime.service >= 0 && s.uptime.service < 600);
  assert.ok(Array.isArray(s.temperatures));
  for (const z of s.temperatures) assert.ok(z.celsius > -60 && z.celsius < 200, JSON.stringify(z));
  assert.ok(Date.parse(s.time) > 0);
  // A second reading a second later has a CPU window.
  await new Promise((res) => setTimeout(res, 1100));
  const again = await t.request('GET', '/api/system/status', { key: admin.key });
  assert.ok(again.body.cpu.usage_pct >= 0 && again.body.cpu.usage_pct <= 100);
  assert.ok(again.body.cpu.process_pct >= 0);
});

test('status reads temperatures from thermal zones and throttling from vcgencmd when present', async () => {
  const dir = await mkdtemp(join(os.tmpdir(), 'netprobe-thermal-'));
  try {
    await mkdir(join(dir, 'thermal', 'thermal_zone0'), { recursive: true });
    await writeFile(join(dir, 'thermal', 'thermal_zone0', 'type'), 'cpu-thermal\n');
    await writeFile(join(dir, 'thermal', 'thermal_zone0', 'temp'), '48312\n');
    // A stand-in with vcgencmd's documented output ("throttled=0x50005"), run through core/exec.
    const fake = join(dir, 'vcgencmd');
    await writeFile(fake, '#!/bin/sh\n[ "$1" = get_throttled ] && echo "throttled=0x50005"\n', { mode: 0o755 });
    const s = new StatusService(dir, () => 1, Logger.create({ write: () => {} }), { thermalDir: join(dir, 'thermal'), vcgencmd: fake });
    assert.equal(s.throttling(), null, 'the first call starts the reading in the background');
    await s.settled();
    const st = await s.status();
    assert.deepEqual(st.temperatures, [{ zone: 'thermal_zone0', type: 'cpu-thermal', celsius: 48.3 }]);
    assert.equal(st.throttling?.raw, '0x50005');
    assert.equal(st.throttling?.under_voltage, true);
    assert.equal(st.throttling?.throttled, true);
    assert.equal(st.throttling?.frequency_capped, false);
    assert.equal(st.throttling?.under_voltage_occurred, true);
    assert.equal(st.throttling?.throttled_occurred, true);
    const none = new StatusService(dir, () => 1, Logger.create({ write: () => {} }), { thermalDir: join(dir, 'nothing'), vcgencmd: null });
    none.throttling();
    await none.settled();
    assert.equal((await none.status()).throttling, null);
    assert.deepEqual((await none.status()).temperatures, []);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('parsers of /proc and vcgencmd text', () => {
  assert.deepEqual(parseProcStat('cpu  100 5 50 800 20 1 2 3 0 0\ncpu0 1 2 3 4\n'), { busy: 161, total: 981 });
  assert.equal(parseProcStat('garbage'), null);
  assert.deepEqual(parseMeminfo('MemTotal:        3884376 kB\nMemFree:  100 kB\nMemAvailable:    2000000 kB\n'),
    { total: 3884376 * 1024, available: 2000000 * 1024 });
  assert.equal(parseThrottled('error', new Date()), null);
  assert.equal(parseThrottled('throttled=0x0\n', new Date())?.throttled, false);
  assert.deepEqual(parseOsRelease('PRETTY_NAME="Debian GNU/Linux 12 (bookworm)"\nID=debian\nVERSION_ID="12"\n'),
    { PRETTY_NAME: 'Debian GNU/Linux 12 (bookworm)', ID: 'debian', VERSION_ID: '12' });
  const route = 'Iface\tDestination\tGateway \tFlags\tRefCnt\tUse\tMetric\tMask\t\tMTU\tWindow\tIRTT\n' +
    'eth0\t00000000\t0101A8C0\t0003\t0\t0\t100\t00000000\t0\t0\t0\n' +
    'wlan0\t00000000\t0102A8C0\t0003\t0\t0\t600\t00000000\t0\t0\t0\n' +
    'eth0\t0001A8C0\t00000000\t0001\t0\t0\t100\t00FFFFFF\t0\t0\t0\n';
  assert.deepEqual(parseRoute(route), { address: '192.168.1.1', interface: 'eth0' });
  assert.equal(parseRoute(route.split('\n').slice(0, 1).join('\n')), null);
  const r6 = '00000000000000000000000000000000 00 00000000000000000000000000000000 00 fe800000000000000000000000000001 00000400 00000001 00000000 00000003 eth0\n' +
    'fe800000000000000000000000000000 40 00000000000000000000000000000000 00 00000000000000000000000000000000 00000100 00000001 00000000 00000001 eth0\n';
  assert.deepEqual(parseIpv6Route(r6), { address: 'fe80::1', interface: 'eth0' });
  assert.deepEqual(parseResolvConf('# comment\nnameserver 192.0.2.53\nsearch lan\nnameserver 2001:db8::53\n'), ['192.0.2.53', '2001:db8::53']);
});

test('GET /api/host/info: facts of this host, cached until refresh=true', async () => {
  const r = await t.request('GET', '/api/host/info', { key: admin.key });
  assert.equal(r.status, 200, r.text);
  const h = r.body;
  assert.equal(h.hostname, os.hostname());
  assert.equal(h.kernel.release, os.release());
  assert.equal(h.cpu.cores, os.availableParallelism());
  assert.ok(h.os.name);
  const lo = h.interfaces.find((i: { name: string }) => i.name === 'lo');
  assert.ok(lo?.addresses.some((a: { address: string; prefix: number }) => a.address === '127.0.0.1' && a.prefix === 8), JSON.stringify(h.interfaces));
  for (const i of h.interfaces) if (i.mac) assert.match(i.mac, /^[0-9a-f]{2}(:[0-9a-f]{2}){5}$/);
  assert.ok(Array.isArray(h.dns_servers));
  assert.ok(h.time.timezone);
  const cached = await t.request('GET', '/api/host/info', { key: admin.key });
  assert.equal(cached.body.collected_at, h.collected_at, 'served from the cache');
  await new Promise((res) => setTimeout(res, 5));
  const fresh = await t.request('GET', '/api/host/info?refresh=true', { key: admin.key });
  assert.equal(fresh.status, 200);
  assert.ok(Date.parse(fresh.body.collected_at) > Date.parse(h.collected_at), 'read again');
  assertProblem(await t.request('GET', '/api/host/info?refresh=yes', { key: admin.key }), 400, 'query.refresh');
});

test('status and host info need system:read; db-stats, db-cleanup and dev/info need an administrator', async () => {
  const viewer = await t.user('viewer', ['system:read']);
  const noSystem = await t.user('operator', ['monitors:read']);
  for (const path of ['/api/system/status', '/api/host/info']) {
    assert.equal((await t.request('GET', path, { key: viewer.key })).status, 200, path);
    assert.equal((await t.request('GET', path, { cookie: viewer.cookie })).status, 200, path);
    assertProblem(await t.request('GET', path, { key: noSystem.key }), 403);
    assertProblem(await t.request('GET', path, {}), 401);
  }
  const op = await t.user('operator', ['system:write']);
  for (const [method, path] of [['GET', '/api/system/db-stats'], ['POST', '/api/system/db-cleanup'], ['GET', '/api/dev/info']] as const) {
    assertProblem(await t.request(method, path, { key: viewer.key }), 403);
    assertProblem(await t.request(method, path, { cookie: op.cookie }), 403);
    assertProblem(await t.request(method, path, { key: op.key }), 403);
    assertProblem(await t.request(method, path, {}), 401);
  }
});

test('GET /api/system/db-stats: files, tables, memory, checkpoint and retention', async () => {
  // Something in the tables: a monitor.
  const m = await t.request('POST', '/api/monitors', { key: admin.key, body: { name: 'loopback tcp', target: '127.0.0.1:9', check_type: 'tcp', interval: 60 } });
  assert.equal(m.status, 201, m.text);
  const r = await t.request('GET', '/api/system/db-stats', { key: admin.key });
  assert.equal(r.status, 200, r.text);
  const s = r.body;
  assert.ok(s.files.journal_bytes > 0);
  assert.equal(s.files.total_bytes, s.files.snapshot_bytes + s.files.journal_bytes + s.files.segment_bytes);
  assert.equal(s.database.bytes, s.database.page_count * s.database.page_size);
  assert.ok(s.memory.database_bytes > 0 && s.memory.process_rss_bytes > s.memory.database_bytes);
  const monitors = s.tables.find((x: { name: string }) => x.name === 'monitors');
  assert.equal(monitors.rows, 1);
  assert.ok(monitors.bytes_estimate > 20);
  const users = s.tables.find((x: { name: string }) => x.name === 'users');
  assert.ok(users.rows >= 1);
  assert.equal(s.retention.raw_results_hours, 24);
  assert.equal(s.retention.hour_rollups_days, 2);
  assert.equal(s.cleanup.running, false);
  assert.ok(s.checkpoint.due_at_journal_bytes > 0);
});

test('POST /api/system/db-cleanup: retention, compaction and a checkpoint, answered with what it freed; one at a time', async () => {
  const before = (await t.request('GET', '/api/system/db-stats', { key: admin.key })).body;
  assert.ok(before.files.journal_bytes > 16);
  // Two at once: one runs, the other is refused with 409 (not queued: the first one's answer covers it).
  const [a, b] = await Promise.all([
    t.request('POST', '/api/system/db-cleanup', { key: admin.key }),
    t.request('POST', '/api/system/db-cleanup', { key: admin.key }),
  ]);
  const ok = [a, b].filter((x) => x.status === 200);
  const refused = [a, b].filter((x) => x.status === 409);
  assert.equal(ok.length, 1, `${a.status} ${a.text} / ${b.status} ${b.text}`);
  assert.equal(refused.length, 1);
  assertProblem(refused[0]!, 409);
  assert.equal(refused[0]!.body.code, 'cleanup_running');
  const res = ok[0]!.body;
  assert.ok(res.checkpoint.journal_bytes_before > res.checkpoint.journal_bytes_after, JSON.stringify(res.checkpoint));
  assert.ok(res.checkpoint.snapshot_bytes_after > 0);
  assert.equal(typeof res.retention.results, 'number');
  assert.equal(res.freed_bytes,
    res.checkpoint.journal_bytes_before + res.checkpoint.snapshot_bytes_before + res.segments.bytes_before -
    (res.checkpoint.journal_bytes_after + res.checkpoint.snapshot_bytes_after + res.segments.bytes_after));
  assert.equal(res.compaction.performed, true);
  assert.match(res.compaction.detail, /^VACUUM: the database went from \d+ to \d+ bytes$/);
  const after = (await t.request('GET', '/api/system/db-stats', { key: admin.key })).body;
  assert.ok(after.checkpoint.last_at);
  assert.deepEqual(after.cleanup.last, res);
  // Afterwards another one runs.
  assert.equal((await t.request('POST', '/api/system/db-cleanup', { key: admin.key })).status, 200);
  const audit = await t.request('GET', '/api/audit-log?action=system.db_cleanup', { key: admin.key });
  assert.equal(audit.status, 200, audit.text);
});

test('GET /api/dev/info: versions, uptime, memory, event loop, store and jobs', async () => {
  const r = await t.request('GET', '/api/dev/info', { key: admin.key });
  assert.equal(r.status, 200, r.text);
  const d = r.body;
  assert.equal(d.node, process.version);
  assert.equal(d.pid, process.pid);
  assert.ok(d.version);
  assert.ok(d.memory.rss_bytes > 0 && d.memory.heap_used_bytes > 0);
  assert.ok(d.event_loop_delay.max_ms >= d.event_loop_delay.p50_ms);
  assert.ok(d.store.last_lsn > 0);
  assert.ok(Array.isArray(d.jobs.running));
});
