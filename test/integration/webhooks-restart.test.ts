// The outbox is durable: deliveries waiting for a retry, or in flight when the service stops, are
// delivered after a restart (in-process, with the harness), and so is an alert raised just before the
// service process is killed with SIGKILL (a real child process running src/main.ts).
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { ManualClock } from '../../src/core/clock.js';
import { raiseAlert } from '../../src/modules/webhooks/index.js';
import { startTestApp, type TestApp } from '../helpers/harness.js';
import { freePort } from '../helpers/net.js';
import { spawnService, type ServiceProgram } from '../helpers/service-process.js';
import { Receiver } from '../helpers/webhook-receiver.js';

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

async function until(what: string, ok: () => boolean | Promise<boolean>, ms = 20_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await ok())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(20);
  }
}

test('deliveries waiting for a retry or in flight at shutdown are delivered after a restart', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'netprobe-webhooks-restart-'));
  const slow = await Receiver.start();
  const failing = await Receiver.start();
  let t: TestApp | undefined;
  try {
    const clock1 = new ManualClock(Date.parse('2026-03-01T10:00:00Z'));
    const first: TestApp = await startTestApp({ dataDir: dir, clock: clock1 });
    t = first;
    const admin = await first.admin();
    for (const [name, rx] of [['slow', slow], ['failing', failing]] as const) {
      const r = await first.request('POST', '/api/webhooks', { key: admin.key, body: { name, url: `${rx.url}/hook` } });
      assert.equal(r.status, 201, r.text);
    }
    slow.plan.push({ status: 200, delayMs: 60_000 }); // still in flight when the service stops
    failing.plan.push({ status: 503 }); // waits for its retry in 10 s
    const m = { id: randomUUID(), name: 'edge router', target: '192.0.2.1', check_type: 'ping', tags: [] };
    const alert = await raiseAlert(first.service.app, {
      type: 'monitor_down', subject: `monitor/${m.id}`, monitor: m, title: 'DOWN: edge router', message: 'edge router is down', occurred_at: clock1.iso(),
    });
    await slow.waitFor(1);
    await failing.waitFor(1);
    await until('the failed attempt to be logged', async () =>
      (await first.request('GET', '/api/dev/webhooks/recent', { key: admin.key })).body.items.some((a: any) => a.outcome === 'retry'));
    await first.close({ keepData: true }); // aborts the slow attempt; both deliveries stay in the outbox
    t = undefined;

    slow.plan.length = 0;
    const clock2 = new ManualClock(Date.parse('2026-03-01T10:01:00Z'));
    const second: TestApp = await startTestApp({ dataDir: dir, clock: clock2 });
    t = second;
    const [s1, s2] = await slow.waitFor(2);
    const [f1, f2] = await failing.waitFor(2);
    for (const [a, b] of [[s1!, s2!], [f1!, f2!]]) {
      assert.equal(b.json.alert.id, alert.id, 'the same alert');
      assert.equal(b.headers['x-netprobe-delivery'], a.headers['x-netprobe-delivery'], 'the same delivery');
    }
    const cookie = await second.login(admin.username, admin.password);
    await until('both deliveries to be logged as delivered', async () => {
      const log = (await second.request('GET', '/api/dev/webhooks/recent', { cookie })).body.items;
      return log.filter((a: any) => a.outcome === 'delivered').length === 2;
    });
    const hooks = (await second.request('GET', '/api/webhooks', { cookie })).body.items;
    assert.deepEqual(hooks.map((h: any) => h.pending_deliveries), [0, 0]);
  } finally {
    await t?.close();
    await slow.close();
    await failing.close();
    await rm(dir, { recursive: true, force: true });
  }
});

// ---- SIGKILL -------------------------------------------------------------------------------------------

test('an alert raised just before a SIGKILL is delivered after the restart', { timeout: 120_000 }, async () => {
  const dir = await mkdtemp(join(tmpdir(), 'netprobe-webhooks-kill-'));
  await writeFile(join(dir, 'config.yaml'), 'server:\n  host: 127.0.0.1\n');
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const rx = await Receiver.start();
  let svc: ServiceProgram | undefined;
  const req = async (method: string, path: string, key?: string, body?: unknown) => {
    const r = await fetch(base + path, {
      method, headers: { ...(key ? { 'x-api-key': key } : {}), ...(body ? { 'content-type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
    const text = await r.text();
    return { status: r.status, text, body: text && (r.headers.get('content-type') ?? '').includes('json') ? JSON.parse(text) : text };
  };
  const start = async () => {
    svc = spawnService({ NETPROBE_DATA_DIR: dir, NETPROBE_PORT: String(port) });
    await until('the service to answer', async () => {
      try { return (await req('GET', '/api/version')).status === 200; } catch { return false; }
    }, 30_000).catch((e: Error) => { throw new Error(`${e.message}\n${svc!.tail()}`); });
  };
  try {
    await start();
    const setupCode = (await readFile(join(dir, 'initial-admin-password'), 'utf8')).trim();
    assert.equal((await req('POST', '/api/setup/bootstrap', undefined, { setup_code: setupCode, username: 'root-admin', password: 'correct horse battery staple' })).status, 201);
    const login = await fetch(`${base}/api/auth/login`, {
      method: 'POST', headers: { 'content-type': 'application/json', origin: base },
      body: JSON.stringify({ username: 'root-admin', password: 'correct horse battery staple' }),
    });
    const cookie = (login.headers.get('set-cookie') ?? '').split(';')[0]!;
    const k = await fetch(`${base}/api/api-keys`, {
      method: 'POST', headers: { 'content-type': 'application/json', cookie, origin: base }, body: JSON.stringify({ name: 'kill-test', scopes: ['admin'] }),
    });
    const key = ((await k.json()) as { key: string }).key;
    const w = await req('POST', '/api/webhooks', key, { name: 'kill', url: `${rx.url}/hook` });
    assert.equal(w.status, 201, w.text);

    // The receiver takes the first attempt and never answers: the service dies with it in flight.
    rx.plan.push({ status: 200, delayMs: 120_000 });
    const closed = await freePort();
    const m = await req('POST', '/api/monitors', key, { name: 'gone', check_type: 'tcp', target: `127.0.0.1:${closed}`, failure_threshold: 1, timeout: 2 });
    assert.equal(m.status, 201, m.text);
    const [first] = await rx.waitFor(1, 30_000);
    assert.equal(first!.json.alert.type, 'monitor_down');
    svc!.proc.kill('SIGKILL');
    await svc!.exited;

    await start();
    const [, second] = await rx.waitFor(2, 30_000);
    assert.equal(second!.json.alert.id, first!.json.alert.id, 'the alert raised before the kill');
    assert.equal(second!.headers['x-netprobe-delivery'], first!.headers['x-netprobe-delivery']);
    await until('the delivery to be logged', async () =>
      (await req('GET', '/api/dev/webhooks/recent', key)).body.items.some((a: any) => a.outcome === 'delivered'));
    await sleep(300);
    assert.equal(rx.requests.length, 2, 'no second alert: the monitor was already down before the kill');
    svc!.proc.kill('SIGTERM');
    await svc!.exited;
  } finally {
    if (svc && svc.proc.exitCode === null && svc.proc.signalCode === null) { svc.proc.kill('SIGKILL'); await svc.exited; }
    await rx.close();
    await rm(dir, { recursive: true, force: true });
  }
});

test('a Telegram webhook an earlier build stored with its chat in the URL\'s query delivers to that chat after a restart', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'netprobe-webhooks-options-'));
  const rx = await Receiver.start();
  let t: TestApp | undefined;
  try {
    const first: TestApp = await startTestApp({ dataDir: dir });
    t = first;
    const admin = await first.admin();
    const made = await first.request('POST', '/api/webhooks', { key: admin.key,
      body: { name: 'tg', type: 'telegram', url: `${rx.url}/bot123:AbC/sendMessage`, options: { chat_id: '-100777' } } });
    assert.equal(made.status, 201, made.text);
    // The row as the build before provider options wrote it: the chat in the (sealed) URL, no options.
    const app = first.service.app;
    const packed = app.secretbox.seal(`${rx.url}/bot123:AbC/sendMessage?chat_id=-100777&message_thread_id=3`);
    await app.store.write((tx) => tx.run('UPDATE webhooks SET url = ?, options = ? WHERE id = ?', [packed, '{}', made.body.id]), 'sync');
    await first.close({ keepData: true });
    t = undefined;

    const second: TestApp = await startTestApp({ dataDir: dir });
    t = second;
    const cookie = await second.login(admin.username, admin.password);
    const hook = (await second.request('GET', '/api/webhooks', { cookie })).body.items[0];
    assert.deepEqual(hook.options, { chat_id: '-100777', message_thread_id: '3' });
    assert.equal(hook.url, `${rx.url}/bot***/sendMessage`);
    const sent = await second.request('POST', `/api/webhooks/${hook.id}/test`, { cookie });
    assert.equal(sent.body.ok, true, sent.text);
    const [req] = await rx.waitFor(1);
    assert.equal(req!.path, '/bot123:AbC/sendMessage');
    assert.equal(req!.json.chat_id, -100777);
    assert.equal(req!.json.message_thread_id, 3);
  } finally {
    await t?.close();
    await rx.close();
    await rm(dir, { recursive: true, force: true });
  }
});
