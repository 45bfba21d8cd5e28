// The program as systemd runs it (src/main.ts as the entry point): readiness and watchdog through
// systemd-notify, POST /api/restart answering 202 and then exiting with the restart status after a
// graceful stop, SIGTERM checkpointing the store and exiting 0. The notification socket is the test's.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RESTART_EXIT_CODE } from '../../src/main.js';
import { freePort } from '../helpers/net.js';
import { spawnService } from '../helpers/service-process.js';
import { notifySocket, type NotifySocket } from '../helpers/notify-socket.js';
import { assertProblem, startTestApp } from '../helpers/harness.js';


const dataDir = await mkdtemp(join(tmpdir(), 'netprobe-lifecycle-'));
const configFile = join(dataDir, 'config.yaml');
await writeFile(configFile, 'server:\n  host: 127.0.0.1\n');
const port = await freePort();
const url = `http://127.0.0.1:${port}`;
let sock: NotifySocket;
after(async () => { await sock?.close(); await rm(dataDir, { recursive: true, force: true }); });

const env = () => ({
  NOTIFY_SOCKET: sock.path, WATCHDOG_USEC: '1000000',
  NETPROBE_DATA_DIR: dataDir, NETPROBE_CONFIG: configFile, NETPROBE_PORT: String(port),
});

async function signIn(username: string, password: string): Promise<string> {
  const r = await fetch(`${url}/api/auth/login`, {
    method: 'POST', headers: { 'content-type': 'application/json', origin: url }, body: JSON.stringify({ username, password }),
  });
  assert.equal(r.status, 200, await r.text());
  return r.headers.get('set-cookie')!.split(';')[0]!;
}

test('ready after listening, watchdog pings, restart answers 202 then exits 75 after a graceful stop', async () => {
  sock = await notifySocket();
  const p = spawnService(env());
  const ready = await sock.waitFor('READY=1', 30_000);
  assert.ok(ready.includes(`STATUS=listening on 127.0.0.1:${port}`), JSON.stringify(ready));
  // Ready means listening: the first request after READY=1 is answered.
  const v = await fetch(`${url}/api/version`);
  assert.equal(v.status, 200);
  const pings = () => sock.messages.filter((m) => m.includes('WATCHDOG=1')).length;
  const t0 = Date.now();
  while (pings() < 2 && Date.now() - t0 < 10_000) await new Promise((r) => setTimeout(r, 50));
  assert.ok(pings() >= 2, `watchdog pings: ${pings()}`);

  // Loopback may create the first administrator without the setup code.
  const b = await fetch(`${url}/api/setup/bootstrap`, {
    method: 'POST', headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username: 'alice', password: 'a long enough passphrase' }),
  });
  assert.equal(b.status, 201, await b.text());
  const cookie = await signIn('alice', 'a long enough passphrase');

  const r = await fetch(`${url}/api/restart`, { method: 'POST', headers: { cookie, origin: url } });
  assert.equal(r.status, 202);
  assert.equal((await r.json() as { restarting: boolean }).restarting, true);
  const { code } = await p.exited;
  assert.equal(code, RESTART_EXIT_CODE, p.output());
  assert.match(p.output(), /stopping \(restart requested by alice\)[\s\S]*stopped; store checkpointed/);
  const stopping = await sock.waitFor('STOPPING=1');
  assert.ok(stopping.some((l) => l.startsWith('STATUS=restart requested')));
});

test('started again (as systemd would), the restart is in the audit log; SIGTERM checkpoints and exits 0', async () => {
  const before = sock.messages.length;
  const p = spawnService(env());
  const t0 = Date.now();
  while (!sock.messages.slice(before).some((m) => m.includes('READY=1'))) {
    assert.ok(Date.now() - t0 < 30_000, 'no READY=1 from the second start');
    await new Promise((r) => setTimeout(r, 50));
  }
  const cookie = await signIn('alice', 'a long enough passphrase');
  const audit = await fetch(`${url}/api/audit-log?action=system.restart`, { headers: { cookie } });
  const entries = (await audit.json() as { items: { actor: string; outcome: string; source_ip: string }[] }).items;
  assert.equal(entries.length, 1);
  assert.equal(entries[0]!.actor, 'alice');
  assert.equal(entries[0]!.outcome, 'success');

  p.proc.kill('SIGTERM');
  const { code } = await p.exited;
  assert.equal(code, 0, p.output());
  assert.match(p.output(), /stopping \(SIGTERM\)[\s\S]*stopped; store checkpointed/);
  // The checkpoint left a snapshot and an empty journal (its header only).
  assert.ok((await stat(join(dataDir, 'netprobe.db'))).size > 0);
  assert.ok((await readFile(join(dataDir, 'netprobe.journal'))).length <= 64);
});

test('embedded without a supervisor (as in the other tests), restart is refused with 503', async () => {
  const t = await startTestApp();
  try {
    const a = await t.admin();
    assertProblem(await t.request('POST', '/api/restart', { key: a.key }), 503);
    const op = await t.user('operator', ['system:write']);
    assertProblem(await t.request('POST', '/api/restart', { key: op.key }), 403);
  } finally {
    await t.close();
  }
});
