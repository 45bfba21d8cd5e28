// Prints the service's cold-start time, its resident memory when idle, and the latency of one fsynced
// API write (median and p99 over 1,000 writes). Runs the compiled service (./build.sh bundle or
// `npm run build` first); falls back to tsx, which it says, since tsx inflates both.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { unitEnvironment, unitNodeFlags } from '../test/helpers/unit-node.js';

const compiled = join(process.cwd(), 'dist/src/main.js');
const useDist = existsSync(compiled);
// With systemd/netprobe.service's node flags and environment (test/helpers/unit-node.ts).
const args = [...unitNodeFlags(), ...(useDist ? [compiled] : ['--import', 'tsx', 'src/main.ts'])];

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => { const p = (s.address() as any).port; s.close(() => resolve(p)); });
  });
}

async function rssKb(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+)/.exec(status)![1]);
}

const pct = (xs: number[], p: number) => { const s = [...xs].sort((a, b) => a - b); return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]!; };

async function main() {
  const dir = await mkdtemp(join(tmpdir(), 'netprobe-bench-'));
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const t0 = performance.now();
  const child = spawn(process.execPath, args, {
    env: { ...process.env, ...unitEnvironment(), NETPROBE_DATA_DIR: dir, NETPROBE_PORT: String(port) }, stdio: ['ignore', 'ignore', 'inherit'],
  });
  try {
    for (;;) {
      try { if ((await fetch(base + '/api/version')).ok) break; } catch { /* not up yet */ }
      await new Promise((r) => setTimeout(r, 10));
      if (performance.now() - t0 > 60_000) throw new Error('service did not start');
    }
    const coldMs = performance.now() - t0;
    await new Promise((r) => setTimeout(r, 5000));
    const idleRss = await rssKb(child.pid!);

    const code = (await readFile(join(dir, 'initial-admin-password'), 'utf8')).trim();
    const json = { 'content-type': 'application/json' };
    const boot = await fetch(base + '/api/setup/bootstrap', { method: 'POST', headers: json, body: JSON.stringify({ setup_code: code, username: 'bench', password: 'bench password 123' }) });
    if (boot.status !== 201) throw new Error(`bootstrap ${boot.status}`);
    const login = await fetch(base + '/api/auth/login', { method: 'POST', headers: { ...json, origin: base }, body: JSON.stringify({ username: 'bench', password: 'bench password 123' }) });
    const cookie = login.headers.get('set-cookie')!.split(';')[0]!;
    const k = await (await fetch(base + '/api/api-keys', { method: 'POST', headers: { ...json, cookie, origin: base }, body: JSON.stringify({ name: 'bench', scopes: ['admin'] }) })).json();
    const key = (k as { key: string }).key;

    // One fsynced write per request: creating an API key (no password hashing on this path).
    const lat: number[] = [];
    for (let i = 0; i < 1000; i++) {
      const s = performance.now();
      const r = await fetch(base + '/api/api-keys', { method: 'POST', headers: { ...json, 'x-api-key': key }, body: JSON.stringify({ name: `k${i}`, scopes: ['monitors:read'] }) });
      await r.arrayBuffer();
      if (r.status !== 201) throw new Error(`write ${i}: ${r.status}`);
      lat.push(performance.now() - s);
    }
    const afterRss = await rssKb(child.pid!);
    console.log(`service (${useDist ? 'compiled dist/' : 'tsx, not compiled: figures inflated'})`);
    console.log(`  cold start to first answer   ${coldMs.toFixed(0)} ms`);
    console.log(`  idle resident memory         ${(idleRss / 1024).toFixed(1)} MiB`);
    console.log(`  fsynced API write (1,000)    median ${pct(lat, 50).toFixed(2)} ms, p99 ${pct(lat, 99).toFixed(2)} ms`);
    console.log(`  resident memory after writes ${(afterRss / 1024).toFixed(1)} MiB`);
  } finally {
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
    await rm(dir, { recursive: true, force: true });
  }
}

main().catch((e) => { console.error(e); process.exit(1); });
