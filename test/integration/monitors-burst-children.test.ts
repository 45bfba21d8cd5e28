// A burst of monitor creation must not multiply child processes: 200 ping monitors created through the
// API as fast as it takes them (targets on loopback), while the service's children are sampled from
// /proc. New monitors' first checks join shared fping batches (scheduler.ts, SOON_GRID_MS) and core/exec.ts
// runs at most MAX_CHILDREN programs at once; before, each new monitor's first check ran an fping of its
// own and 200 monitors in 1.8 s had 140 running together.
import assert from 'node:assert/strict';
import { readdir, readFile, rm, mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { MAX_CHILDREN } from '../../src/core/exec.js';
import { freePort } from '../helpers/net.js';
import { spawnService } from '../helpers/service-process.js';

const MONITORS = 200;

/** The pids of a process's children, from every thread's /proc children list. */
async function children(pid: number): Promise<number[]> {
  const out: number[] = [];
  for (const task of await readdir(`/proc/${pid}/task`).catch(() => [])) {
    const text = await readFile(`/proc/${pid}/task/${task}/children`, 'utf8').catch(() => '');
    for (const p of text.trim().split(/\s+/)) if (p) out.push(Number(p));
  }
  return out;
}

test(`creating ${MONITORS} ping monitors at once keeps the service's child processes at most ${MAX_CHILDREN}`, { timeout: 180_000 }, async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'netprobe-burst-'));
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const svc = spawnService({ NETPROBE_DATA_DIR: dir, NETPROBE_PORT: String(port) }, { maxLifeMs: 170_000 });
  t.after(async () => { svc.proc.kill('SIGTERM'); await svc.exited; await rm(dir, { recursive: true, force: true }); });
  for (let i = 0; ; i++) {
    try { if ((await fetch(`${base}/api/version`)).ok) break; } catch { /* not up yet */ }
    assert.ok(i < 1200, `the service did not start:\n${svc.tail()}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  const json = { 'content-type': 'application/json' };
  const creds = { username: 'burst', password: 'burst password 123' };
  assert.equal((await fetch(`${base}/api/setup/bootstrap`, { method: 'POST', headers: json, body: JSON.stringify(creds) })).status, 201);
  const login = await fetch(`${base}/api/auth/login`, { method: 'POST', headers: { ...json, origin: base }, body: JSON.stringify(creds) });
  const cookie = login.headers.get('set-cookie')!.split(';')[0]!;
  const made = await fetch(`${base}/api/api-keys`, { method: 'POST', headers: { ...json, cookie, origin: base },
    body: JSON.stringify({ name: 'burst', scopes: ['monitors:write'] }) });
  const key = ((await made.json()) as { key: string }).key;

  let most = 0, sampling = true;
  const sampler = (async () => {
    while (sampling) {
      most = Math.max(most, (await children(svc.proc.pid!)).length);
      await new Promise((r) => setTimeout(r, 10));
    }
  })();
  let next = 0;
  const create = async () => {
    for (let i = next++; i < MONITORS; i = next++) {
      const r = await fetch(`${base}/api/monitors`, { method: 'POST', headers: { ...json, 'x-api-key': key },
        body: JSON.stringify({ name: `burst-${i}`, check_type: 'ping', target: `127.0.${Math.floor(i / 250)}.${(i % 250) + 1}` }) });
      assert.equal(r.status, 201, await r.text());
    }
  };
  const t0 = Date.now();
  await Promise.all(Array.from({ length: 8 }, create));
  const createdMs = Date.now() - t0;
  await new Promise((r) => setTimeout(r, 6000)); // every first check (3 packets, 1 s apart) has run
  sampling = false;
  await sampler;

  const list = (await (await fetch(`${base}/api/monitors`, { headers: { 'x-api-key': key } })).json()) as { monitors: { status: string }[] };
  const checked = list.monitors.filter((m) => m.status !== 'unknown').length;
  t.diagnostic(`${MONITORS} monitors created in ${createdMs} ms; at most ${most} child processes at once; ${checked} checked`);
  assert.ok(most > 0, 'the first checks ran fping');
  assert.ok(most <= MAX_CHILDREN, `${most} child processes at once (at most ${MAX_CHILDREN})`);
  assert.equal(checked, MONITORS, 'every new monitor had its first check');
});
