// Pairing with a controller, end to end against Debian's mosquitto 2.0 with its dynamic-security plugin
// on loopback (test/helpers/hivemind-broker.ts plays the controller): pairing codes and their 400s, the
// broker down or refusing at pairing (nothing saved), presence and monitor states retained, commands with
// MQTT 5 request/response and their audit entries, the broker's ACLs, an outage with queued events, a
// restart of the probe, a revoked probe, unpairing, and the last will when the probe dies.
// Skips with the reason when mosquitto is not installed.
import assert from 'node:assert/strict';
import { mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { encodePairingCode } from '../../src/modules/system/hivemind/pairing-code.js';
import { assertProblem, startTestApp, type TestApp } from '../helpers/harness.js';
import { brokerMissing, makeCa, startHivemindBroker, type HivemindBroker, type ProbeAccount } from '../helpers/hivemind-broker.js';
import { freePort } from '../helpers/net.js';
import { spawnService } from '../helpers/service-process.js';

const missing = await brokerMissing();

const CONFIG = [
  'hivemind:',
  '  reconnect_max_seconds: 1',
  '  connect_timeout_seconds: 5',
  '  allowed_scan_ranges: ["127.0.0.0/30"]',
  'discovery:',
  '  reverse_dns: false',
  '',
].join('\n');

/** Polls until `pred` holds (a state reached, not a time asserted); fails naming what it waited for. */
async function until<T>(f: () => Promise<T>, pred: (v: T) => boolean, what: string, timeoutMs = 20_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  let last: T;
  for (;;) {
    last = await f();
    if (pred(last)) return last;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}; last: ${JSON.stringify(last)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function tcpServer(): Promise<{ server: Server; port: number }> {
  const server = createServer((s) => s.end());
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { server, port: (server.address() as { port: number }).port };
}

/** Every file of the data directory except the machine key, as one text (for secret searches). */
async function dataFilesText(dir: string): Promise<string> {
  let out = '';
  for (const f of await readdir(dir, { recursive: true })) {
    if (String(f).endsWith('machine.key')) continue;
    out += await readFile(join(dir, String(f)), 'latin1').catch(() => '');
  }
  return out;
}

describe('controller pairing (hivemind) against mosquitto', { skip: missing ?? false }, () => {
  let broker: HivemindBroker;
  let t: TestApp;
  let dataDir: string;
  let key: string;
  let probe: ProbeAccount;
  let tcp: { server: Server; port: number };
  let monitorId: string;
  const status = async () => (await t.request('GET', '/api/hivemind/status', { key })).body;

  before(async () => {
    broker = await startHivemindBroker();
    dataDir = await mkdtemp(join(tmpdir(), 'netprobe-hivemind-'));
    await writeFile(join(dataDir, 'config.yaml'), CONFIG);
    t = await startTestApp({ dataDir });
    key = (await t.admin()).key;
    tcp = await tcpServer();
    const m = await t.request('POST', '/api/monitors', {
      key, body: { name: 'loopback tcp', check_type: 'tcp', target: `127.0.0.1:${tcp.port}`, interval: 3600, timeout: 5, failure_threshold: 1 },
    });
    assert.equal(m.status, 201, m.text);
    monitorId = m.body.id;
  });

  after(async () => {
    await t?.close();
    tcp?.server.close();
    await broker?.close();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  test('unpaired: status says so; bad codes are 400s naming the field; unpair is 409; only an admin may pair', async () => {
    assert.deepEqual({ paired: (await status()).paired, state: (await status()).state }, { paired: false, state: 'disconnected' });
    const pair = (code: unknown) => t.request('POST', '/api/hivemind/pair', { key, body: { code } });
    assertProblem(await pair('not a code!'), 400, 'code');
    assertProblem(await pair(Buffer.from('{"v":1').toString('base64url')), 400, 'code');
    assertProblem(await pair(Buffer.from(JSON.stringify({ v: 2, url: broker.tlsUrl, id: 'p', secret: 's' })).toString('base64url')), 400, 'code.v');
    const base = { url: broker.tlsUrl, id: 'probe-x', secret: 's3cret-value', ca: broker.caPem };
    assertProblem(await pair(encodePairingCode({ ...base, ca_sha256: 'ab'.repeat(32) })), 400, 'code.ca_sha256');
    assertProblem(await pair(encodePairingCode({ ...base, id: 'a/b' })), 400, 'code.id');
    assertProblem(await pair(encodePairingCode({ ...base, ca: null })), 400, 'code.ca');
    assertProblem(await pair(encodePairingCode({ ...base, url: 'https://127.0.0.1:1' })), 400, 'code.url');
    assertProblem(await pair(encodePairingCode({ ...base, url: 'mqtts://user:pw@127.0.0.1:1' })), 400, 'code.url');
    const insecure = await pair(encodePairingCode({ ...base, url: `mqtt://127.0.0.1:${broker.plainPort}`, ca: null }));
    assertProblem(insecure, 400, 'code.url');
    assert.equal(insecure.body.code, 'insecure_broker');
    for (const r of [insecure]) assert.ok(!r.text.includes('s3cret-value'));
    assertProblem(await t.request('POST', '/api/hivemind/unpair', { key, body: {} }), 409);
    const operator = await t.user('operator', ['system:write']);
    assertProblem(await t.request('POST', '/api/hivemind/pair', { key: operator.key, body: { code: encodePairingCode(base) } }), 403);
    const viewer = await t.user('viewer', ['system:read']);
    assert.equal((await t.request('GET', '/api/hivemind/status', { key: viewer.key })).status, 200);
    assert.equal((await status()).paired, false);
  });

  test('the broker down, refusing or with another CA at pairing: 502/504, nothing saved, nothing loaded into state', async () => {
    const account = await broker.addProbe();
    const pair = (code: string) => t.request('POST', '/api/hivemind/pair', { key, body: { code } });
    const down = await pair(encodePairingCode({ url: `mqtts://127.0.0.1:${await freePort()}`, id: account.id, secret: account.secret, ca: broker.caPem }));
    assertProblem(down, 502);
    assert.equal(down.body.code, 'broker_unreachable');
    const wrongSecret = await pair(encodePairingCode({ url: broker.tlsUrl, id: account.id, secret: 'wrong-secret', ca: broker.caPem }));
    assertProblem(wrongSecret, 502);
    assert.equal(wrongSecret.body.code, 'broker_refused');
    assert.match(wrongSecret.body.detail, /Not authorized|Bad User Name or Password/i);
    const otherDir = await mkdtemp(join(tmpdir(), 'netprobe-otherca-'));
    const other = await makeCa(otherDir, 'other');
    await rm(otherDir, { recursive: true, force: true });
    const wrongCa = await pair(encodePairingCode({ url: broker.tlsUrl, id: account.id, secret: account.secret, ca: other.caPem }));
    assertProblem(wrongCa, 502);
    assert.equal(wrongCa.body.code, 'broker_tls');
    const s = await status();
    assert.equal(s.paired, false);
    const audit = await t.request('GET', '/api/audit-log?action=hivemind.pair', { key });
    assert.ok(audit.body.items.length >= 3 && audit.body.items.every((e: any) => e.outcome === 'failure'), audit.text);
    assert.ok(!audit.text.includes(account.secret) && !audit.text.includes('wrong-secret'));
  });

  test('pairs end to end: retained online status and monitor state, ping answered, secret only sealed', async () => {
    probe = await broker.addProbe();
    const r = await t.request('POST', '/api/hivemind/pair', { key, body: { code: probe.code } });
    assert.equal(r.status, 200, r.text);
    assert.equal(r.body.paired, true);
    assert.equal(r.body.probe_id, probe.id);
    assert.equal(r.body.controller_url, broker.tlsUrl);
    assert.ok(!r.text.includes(probe.secret));
    const online = await broker.waitFor((m) => m.topic === `netprobe/${probe.id}/status` && JSON.parse(m.payload).state === 'online', 'online status');
    assert.equal(JSON.parse(online.payload).version, t.service.app.version);
    const s = await until(status, (x) => x.state === 'connected', 'connected');
    assert.ok(s.connected_since);
    const retained = await broker.retained(`netprobe/${probe.id}/#`);
    assert.equal(JSON.parse(retained.get(`netprobe/${probe.id}/status`)!).state, 'online');
    const state = JSON.parse(retained.get(`netprobe/${probe.id}/monitors/${monitorId}`)!);
    assert.equal(state.name, 'loopback tcp');
    const pong = await broker.command(probe.id, 'ping');
    assert.deepEqual({ ok: pong.ok, pong: pong.result.pong, id: pong.result.probe_id }, { ok: true, pong: true, id: probe.id });
    // A response topic of the controller's choosing under the probe's prefix is honoured.
    const pong2 = await broker.command(probe.id, 'ping', {}, { responseTopic: `netprobe/${probe.id}/reply/ctl-7` });
    assert.equal(pong2.ok, true);

    const audit = await t.request('GET', '/api/audit-log?action=hivemind.pair', { key });
    assert.equal(audit.body.items[0].outcome, 'success');
    await t.service.app.store.flush();
    const files = await dataFilesText(dataDir);
    assert.ok(!files.includes(probe.secret), 'the secret is on disk in clear');
    assert.ok(!t.logs.join('\n').includes(probe.secret), 'the secret is in the log');
    assert.ok(!(await t.request('GET', '/api/audit-log', { key })).text.includes(probe.secret));
  });

  test('commands: a monitor check as the controller; unknown and out-of-range commands refused; an allowed scan reports', async () => {
    const check = await broker.command(probe.id, 'check_monitor', { monitor_id: monitorId });
    assert.equal(check.ok, true, JSON.stringify(check));
    assert.equal(check.result.status, 'up');
    const bad = await broker.command(probe.id, 'check_monitor', { monitor_id: 'nope' });
    assert.deepEqual([bad.ok, bad.error.code], [false, 'invalid_payload']);
    const unknown = await broker.command(probe.id, 'reboot');
    assert.deepEqual([unknown.ok, unknown.error.code], [false, 'unknown_command']);
    const outside = await broker.command(probe.id, 'scan', { subnet: '127.0.1.0/30' });
    assert.deepEqual([outside.ok, outside.error.code], [false, 'range_not_allowed']);

    const audit = (await t.request('GET', '/api/audit-log?action=hivemind.*&limit=50', { key })).body.items;
    const actor = `controller:${probe.id}`;
    assert.ok(audit.some((e: any) => e.action === 'hivemind.command' && e.target === 'check_monitor' && e.actor === actor && e.outcome === 'success'));
    assert.ok(audit.some((e: any) => e.action === 'hivemind.command_refused' && e.target === 'reboot' && e.actor === actor));
    assert.ok(audit.some((e: any) => e.action === 'hivemind.command' && e.target === 'scan' && e.outcome === 'failure'
      && e.details.error === 'range_not_allowed'));
    const events = await t.request('GET', `/api/monitors/${monitorId}`, { key });
    assert.equal(events.status, 200);

    const scan = await broker.command(probe.id, 'scan', { subnet: '127.0.0.1/32', snmp_enabled: false });
    assert.equal(scan.ok, true, JSON.stringify(scan));
    const done = await broker.waitFor((m) => m.topic === `netprobe/${probe.id}/events` && JSON.parse(m.payload).type === 'scan.completed'
      && JSON.parse(m.payload).job_id === scan.result.job_id, 'scan.completed', 60_000);
    assert.equal(JSON.parse(done.payload).subnet, '127.0.0.1/32');
    const started = (await t.request('GET', '/api/audit-log?action=v1sion.scan_start', { key })).body.items;
    assert.equal(started[0].actor, actor);
  });

  test('the known devices\' changes go to the controller as device.new, device.missing and device.changed', async () => {
    const device = { id: 'dev-1', name: 'printer-2f', addresses: ['10.9.0.40'], macs: ['ac:de:48:00:11:22'] };
    for (const [alert, type] of [['device_discovered', 'device.new'], ['device_missing', 'device.missing'], ['device_changed', 'device.changed']] as const) {
      t.service.app.bus.emit('v1sion.device.changed', { alert, device, change: { kind: 'moved', from: null, to: null }, text: 'x',
        job_id: 'job-1', subnet: '10.9.0.0/24' });
      const got = await broker.waitFor((m) => m.topic === `netprobe/${probe.id}/events` && JSON.parse(m.payload).type === type, type, 10_000);
      const e = JSON.parse(got.payload);
      assert.deepEqual([e.device.id, e.subnet, e.job_id, typeof e.id, typeof e.seq], ['dev-1', '10.9.0.0/24', 'job-1', 'string', 'number']);
    }
  });

  test('the broker\'s ACLs confine a probe to its own topics', async () => {
    const other = await broker.addProbe();
    const c = await broker.connectAs(other.id, other.secret);
    try {
      await assert.rejects(c.publishAsync(`netprobe/${probe.id}/status`, '{"state":"offline"}', { qos: 1, retain: true }),
        (e: any) => e.code === 135 || /not authori[sz]ed/i.test(e.message));
      const granted = await c.subscribeAsync(`netprobe/${probe.id}/#`, { qos: 1 }).catch((e: any) => e.packet?.granted ?? e.granted ?? [135]);
      const codes = Array.isArray(granted) ? granted.map((g: any) => (typeof g === 'number' ? g : g.qos)) : [];
      assert.ok(codes.every((q: number) => q >= 128), `subscription granted: ${JSON.stringify(granted)}`);
      await c.publishAsync(`netprobe/${other.id}/status`, '', { qos: 1, retain: true }); // its own topic is fine
    } finally {
      await c.endAsync();
    }
    const retained = await broker.retained(`netprobe/${probe.id}/status`);
    assert.equal(JSON.parse(retained.get(`netprobe/${probe.id}/status`)!).state, 'online');
  });

  test('a re-pairing that fails (broker down, wrong secret) leaves the pairing in force and connected', async () => {
    const account = await broker.addProbe();
    const down = await t.request('POST', '/api/hivemind/pair', {
      key, body: { code: encodePairingCode({ url: `mqtts://127.0.0.1:${await freePort()}`, id: account.id, secret: account.secret, ca: broker.caPem }) },
    });
    assertProblem(down, 502);
    const wrong = await t.request('POST', '/api/hivemind/pair', {
      key, body: { code: encodePairingCode({ url: broker.tlsUrl, id: probe.id, secret: 'not-the-secret', ca: broker.caPem }) },
    });
    assertProblem(wrong, 502); // same identity: the running connection was retired for the trial, then restored
    const s = await until(status, (x) => x.state === 'connected', 'connected again');
    assert.equal(s.probe_id, probe.id);
    assert.equal(JSON.parse((await broker.retained(`netprobe/${probe.id}/status`)).get(`netprobe/${probe.id}/status`)!).state, 'online');
  });

  test('broker down later: the status shows it, events queue, and are delivered when it is back', async () => {
    const before = broker.received.length;
    await broker.stop();
    const s = await until(status, (x) => x.state !== 'connected' && !!x.last_error, 'the lost connection');
    assert.equal(s.paired, true);
    // The monitor goes down while the broker is away: its event waits in the queue.
    await new Promise<void>((r) => tcp.server.close(() => r()));
    const checked = await t.request('POST', `/api/monitors/${monitorId}/check`, { key });
    assert.equal(checked.status, 200, checked.text);
    assert.equal(checked.body.monitor.status, 'down');
    assert.ok((await status()).queued >= 1);
    await broker.start();
    await until(status, (x) => x.state === 'connected' && x.queued === 0, 'reconnected with the queue sent');
    const ev = await broker.waitFor((m) => broker.received.indexOf(m) >= before && m.topic === `netprobe/${probe.id}/events`
      && JSON.parse(m.payload).type === 'monitor.down', 'the queued monitor.down event');
    assert.equal(JSON.parse(ev.payload).monitor.id, monitorId);
    const retained = await broker.retained(`netprobe/${probe.id}/monitors/${monitorId}`);
    assert.equal(JSON.parse(retained.get(`netprobe/${probe.id}/monitors/${monitorId}`)!).status, 'down');
  });

  test('the pairing survives a restart of the probe (offline at a clean stop, online again after)', async () => {
    const mark = broker.received.length;
    await t.close({ keepData: true });
    const off = await broker.waitFor((m) => broker.received.indexOf(m) >= mark && m.topic === `netprobe/${probe.id}/status`, 'offline at stop');
    assert.deepEqual([JSON.parse(off.payload).state, JSON.parse(off.payload).reason], ['offline', 'shutdown']);
    t = await startTestApp({ dataDir });
    // The API key made before the restart is in the database: it still works.
    const s = await until(status, (x) => x.state === 'connected', 'reconnect');
    assert.equal(s.probe_id, probe.id);
    const retained = await broker.retained(`netprobe/${probe.id}/status`);
    assert.equal(JSON.parse(retained.get(`netprobe/${probe.id}/status`)!).state, 'online');
  });

  test('unpair clears every retained message, disconnects without the will and forgets the secret', async () => {
    const mark = broker.received.length;
    const r = await t.request('POST', '/api/hivemind/unpair', { key, body: {} });
    assert.equal(r.status, 200, r.text);
    assert.deepEqual([r.body.paired, r.body.retained_cleared], [false, true]);
    assert.equal((await broker.retained(`netprobe/${probe.id}/#`)).size, 0);
    assert.ok(!broker.received.slice(mark).some((m) => m.payload.includes('connection lost')), 'the will fired on a clean unpair');
    assert.equal(t.service.app.store.get('SELECT COUNT(*) AS n FROM hivemind_pairing')!.n, 0);
    const audit = await t.request('GET', '/api/audit-log?action=hivemind.unpair', { key });
    assert.equal(audit.body.items[0].outcome, 'success');
  });

  test('re-pairing replaces the pairing; a revoked probe cannot reconnect, its status shows the refusal; unpair then needs force', async () => {
    const first = await broker.addProbe();
    assert.equal((await t.request('POST', '/api/hivemind/pair', { key, body: { code: first.code } })).status, 200);
    await broker.waitFor((m) => m.topic === `netprobe/${first.id}/status` && JSON.parse(m.payload).state === 'online', 'first online');
    // Pairing again with another identity replaces the pairing and clears what the first one retained.
    const b = await broker.addProbe();
    assert.equal((await t.request('POST', '/api/hivemind/pair', { key, body: { code: b.code } })).status, 200);
    const left = await broker.retained(`netprobe/${first.id}/#`);
    assert.equal(left.size, 0, JSON.stringify([...left]));
    assert.equal((await status()).probe_id, b.id);
    await broker.removeProbe(b.id);
    const s = await until(status, (x) => x.state === 'error' && /refused/i.test(x.last_error ?? ''), 'the refusal');
    assert.match(s.last_error, /Not authorized|Bad User Name|revoked/i);
    assertProblem(await t.request('POST', '/api/hivemind/unpair', { key, body: {} }), 409);
    assert.equal((await status()).paired, true);
    const forced = await t.request('POST', '/api/hivemind/unpair', { key, body: { force: true } });
    assert.equal(forced.status, 200, forced.text);
    assert.equal(forced.body.retained_cleared, false);
  });

  test('the last will fires when the probe (a real process) dies', async () => {
    const account = await broker.addProbe();
    assert.equal((await t.request('POST', '/api/hivemind/pair', { key, body: { code: account.code } })).status, 200);
    await until(status, (x) => x.state === 'connected', 'connected');
    await t.close({ keepData: true });
    const mark = broker.received.length;
    const port = await freePort();
    const svc = spawnService({ NETPROBE_DATA_DIR: dataDir, NETPROBE_PORT: String(port) });
    try {
      await broker.waitFor((m) => broker.received.indexOf(m) >= mark && m.topic === `netprobe/${account.id}/status`
        && JSON.parse(m.payload).state === 'online', 'online from the spawned service', 60_000);
      const rss = /VmRSS:\s+(\d+)/.exec(await readFile(`/proc/${svc.proc.pid}/status`, 'utf8'))?.[1];
      if (rss) console.log(`# RSS of a paired, connected service: ${Math.round(Number(rss) / 1024)} MiB`);
      const dead = broker.received.length;
      svc.proc.kill('SIGKILL');
      await svc.exited;
      const will = await broker.waitFor((m) => broker.received.indexOf(m) >= dead && m.topic === `netprobe/${account.id}/status`, 'the will');
      assert.deepEqual([JSON.parse(will.payload).state, JSON.parse(will.payload).reason], ['offline', 'connection lost']);
      const retained = await broker.retained(`netprobe/${account.id}/status`);
      assert.equal(JSON.parse(retained.get(`netprobe/${account.id}/status`)!).state, 'offline');
    } finally {
      if (svc.proc.exitCode === null && svc.proc.signalCode === null) svc.proc.kill('SIGKILL');
      t = await startTestApp({ dataDir });
    }
  });
});
