// GET /metrics (and /api/metrics): who may read it, what it holds with monitors present, Debian's
// `promtool check metrics` on the real output, and a real Prometheus server on loopback that scrapes the
// probe with the metrics token and answers a query for one of its series.
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { run, which } from '../../src/core/exec.js';
import { escapeLabel } from '../../src/modules/system/metrics/service.js';
import { assertProblem, startTestApp, type TestApp } from '../helpers/harness.js';

const TOKEN = 'metrics-token-for-tests-0123456789abcdef';
const ODD_NAME = 'edge "router" \\ café';

let t: TestApp;
let dataDir: string;
let admin: { cookie: string; key: string };
let tcp: net.Server;
let monitorId: string;

before(async () => {
  dataDir = await mkdtemp(join(os.tmpdir(), 'netprobe-metrics-'));
  await writeFile(join(dataDir, 'config.yaml'), `system:\n  metrics_token: ${TOKEN}\n`);
  t = await startTestApp({ dataDir });
  admin = await t.admin();
  tcp = net.createServer((s) => s.end());
  await new Promise<void>((r) => tcp.listen(0, '127.0.0.1', r));
  const port = (tcp.address() as net.AddressInfo).port;
  const up = await t.request('POST', '/api/monitors', {
    key: admin.key, body: { name: ODD_NAME, target: `127.0.0.1:${port}`, check_type: 'tcp', interval: 60, tags: ['core', 'lab'] },
  });
  assert.equal(up.status, 201, up.text);
  monitorId = up.body.id;
  const down = await t.request('POST', '/api/monitors', {
    key: admin.key, body: { name: 'closed port', target: '127.0.0.1:9', check_type: 'tcp', interval: 60, failure_threshold: 1 },
  });
  assert.equal(down.status, 201, down.text);
  for (const id of [monitorId, down.body.id]) {
    const c = await t.request('POST', `/api/monitors/${id}/check`, { key: admin.key });
    assert.equal(c.status, 200, c.text);
  }
});
after(async () => {
  await t.close();
  tcp.close();
  await rm(dataDir, { recursive: true, force: true });
});

const scrape = (headers: Record<string, string> = {}, path = '/metrics') => t.request('GET', path, { headers });

test('who may read the metrics: the token, a system:read key (header or bearer), a session; nobody else', async () => {
  const none = await scrape();
  assertProblem(none, 401);
  assert.match(none.headers.get('www-authenticate') ?? '', /^Bearer/);
  assertProblem(await scrape({ authorization: 'Bearer wrong-token-wrong-token-wrong' }), 401);
  assertProblem(await scrape({ authorization: 'Basic Zm9vOmJhcg==' }), 401);
  assertProblem(await scrape({ 'x-api-key': 'np_not-a-real-key' }), 401);
  assert.equal((await scrape({ authorization: `Bearer ${TOKEN}` })).status, 200);
  assert.equal((await scrape({ authorization: `bearer ${TOKEN}` }, '/api/metrics')).status, 200);

  const reader = await t.user('viewer', ['system:read']);
  const other = await t.user('operator', ['monitors:write']);
  assert.equal((await scrape({ 'x-api-key': reader.key })).status, 200);
  assert.equal((await scrape({ authorization: `Bearer ${reader.key}` })).status, 200);
  assert.equal((await t.request('GET', '/metrics', { cookie: reader.cookie })).status, 200);
  assertProblem(await scrape({ 'x-api-key': other.key }), 403);
  assertProblem(await scrape({ authorization: `Bearer ${other.key}` }), 403);
  // Anything but GET/HEAD is not a route.
  assertProblem(await t.request('POST', '/metrics', { headers: { authorization: `Bearer ${TOKEN}` }, body: {} }), 405);
});

test('the exposition holds monitors with name and tags, counters, scheduler, store, host and process', async () => {
  const r = await scrape({ authorization: `Bearer ${TOKEN}` });
  assert.equal(r.status, 200);
  assert.match(r.headers.get('content-type') ?? '', /^text\/plain; version=0\.0\.4/);
  const text: string = r.text;
  const labels = `id="${monitorId}",name="${escapeLabel(ODD_NAME)}",type="tcp",tags="core,lab"`;
  assert.ok(text.includes(`netprobe_monitor_status{${labels},status="up"} 1\n`), text.slice(0, 3000));
  assert.ok(text.includes(`netprobe_monitor_up{${labels}} 1\n`));
  assert.ok(!text.includes(`netprobe_monitor_status{${labels},status="down"}`), 'only the current status is a series');
  assert.match(text, /netprobe_monitor_up\{[^}]*name="closed port"[^}]*\} 0\n/);
  assert.match(text, new RegExp(`netprobe_monitor_response_time_seconds\\{${labels.replace(/[\\"^$.*+?()[\]{}|]/g, '\\$&')}\\} [0-9.e-]+\n`));
  assert.match(text, /netprobe_monitor_status\{[^}]*name="closed port"[^}]*status="down"\} 1\n/);
  assert.match(text, /netprobe_monitors\{status="up"\} 1\n/);
  assert.match(text, /netprobe_monitor_checks_24h\{[^}]*name="closed port"[^}]*\} [1-9]\d*\n/);
  assert.match(text, /netprobe_check_failures_total [1-9]/);
  for (const name of ['netprobe_checks_started_total', 'netprobe_scheduler_running_checks', 'netprobe_store_journal_bytes',
    'netprobe_store_snapshot_bytes', 'netprobe_store_checkpoints_total', 'process_resident_memory_bytes', 'process_cpu_seconds_total',
    'netprobe_host_memory_available_bytes', 'netprobe_data_disk_available_bytes', 'netprobe_host_load1', 'netprobe_event_loop_delay_p99_seconds']) {
    assert.match(text, new RegExp(`^# TYPE ${name} (gauge|counter)$`, 'm'), name);
    assert.match(text, new RegExp(`^${name} [0-9.e+-]+$`, 'm'), name);
  }
  // Every family is declared once.
  const types = text.match(/^# TYPE \S+/gm)!;
  assert.equal(new Set(types).size, types.length);
});

test('webhook deliveries appear per webhook', async () => {
  const w = await t.request('POST', '/api/webhooks', {
    key: admin.key, body: { name: 'ops hook', url: 'http://127.0.0.1:9/hook', type: 'generic' },
  });
  assert.equal(w.status, 201, w.text);
  const text = (await scrape({ authorization: `Bearer ${TOKEN}` })).text;
  assert.match(text, new RegExp(`netprobe_webhook_pending_deliveries\\{id="${w.body.id}",name="ops hook",type="generic"\\} 0\n`));
});

test('promtool check metrics passes on the real output', async (ctx) => {
  const promtool = await which('promtool');
  if (!promtool) return ctx.skip('promtool is not installed (apt-get install prometheus)');
  const text = (await scrape({ authorization: `Bearer ${TOKEN}` })).text;
  const r = await run(promtool, ['check', 'metrics'], { input: text, timeoutMs: 20_000 });
  assert.equal(r.code, 0, `promtool: ${r.stdout}${r.stderr}`);
  assert.equal((r.stdout + r.stderr).trim(), '', 'no lint findings');
});

async function freePort(): Promise<number> {
  const s = net.createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as net.AddressInfo).port;
  await new Promise((r) => s.close(r));
  return port;
}

test('a real Prometheus server on loopback scrapes the probe with the token and answers a query', { timeout: 90_000 }, async (ctx) => {
  const prometheus = await which('prometheus');
  if (!prometheus) return ctx.skip('prometheus is not installed (apt-get install prometheus)');
  const dir = await mkdtemp(join(os.tmpdir(), 'netprobe-prom-'));
  const port = await freePort();
  const target = new URL(t.url).host;
  await writeFile(join(dir, 'token'), TOKEN);
  await writeFile(join(dir, 'prometheus.yml'), [
    'global:', '  scrape_interval: 1s', '  scrape_timeout: 1s',
    'scrape_configs:', '  - job_name: netprobe', '    metrics_path: /metrics',
    '    authorization:', `      credentials_file: ${join(dir, 'token')}`,
    '    static_configs:', `      - targets: ['${target}']`, '',
  ].join('\n'));
  let child: ChildProcess | undefined;
  let log = '';
  try {
    child = spawn(prometheus, [`--config.file=${join(dir, 'prometheus.yml')}`, `--storage.tsdb.path=${join(dir, 'data')}`,
      `--web.listen-address=127.0.0.1:${port}`, '--log.level=warn'], { stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout!.on('data', (d) => { log += d; });
    child.stderr!.on('data', (d) => { log += d; });
    const query = `netprobe_monitor_status{status="up",tags="core,lab"}`;
    const deadline = Date.now() + 60_000;
    let found: { metric: Record<string, string>; value: [number, string] } | undefined;
    let up: string | undefined;
    while (Date.now() < deadline && !found) {
      await new Promise((r) => setTimeout(r, 500));
      try {
        const res = await fetch(`http://127.0.0.1:${port}/api/v1/query?query=${encodeURIComponent(query)}`);
        if (!res.ok) continue;
        const body = await res.json() as { data: { result: { metric: Record<string, string>; value: [number, string] }[] } };
        found = body.data.result[0];
        const u = await (await fetch(`http://127.0.0.1:${port}/api/v1/query?query=up`)).json() as typeof body;
        up = u.data.result[0]?.value[1];
      } catch { /* not listening yet */ }
    }
    assert.ok(found, `no series from the scrape; prometheus said:\n${log}`);
    assert.equal(found.metric.name, ODD_NAME);
    assert.equal(found.metric.id, monitorId);
    assert.equal(found.metric.job, 'netprobe');
    assert.equal(found.value[1], '1');
    assert.equal(up, '1');
  } finally {
    if (child && child.exitCode === null) {
      const exited = new Promise((r) => child!.once('exit', r));
      child.kill('SIGTERM');
      await Promise.race([exited, new Promise((r) => setTimeout(r, 10_000))]);
      if (child.exitCode === null) child.kill('SIGKILL');
    }
    await rm(dir, { recursive: true, force: true });
  }
});
