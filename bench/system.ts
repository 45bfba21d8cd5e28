// The cost of GET /api/system/status and GET /metrics with 1,000 monitors (issue 17: both must stay
// under 10 ms of CPU here). Starts the real service in-process on loopback with a fresh data directory,
// creates the monitors through the API (tcp checks against a loopback listener, tagged, 60 s interval),
// waits until each has been checked once, then prints for each endpoint:
//   - the handler's own work, called directly N times: CPU (user + system) and wall time per call;
//   - whole HTTP requests over loopback, N times: CPU per request of this process (the service and the
//     client together, so an upper bound of the service's share) and wall-time p50 / p99;
// and the size of the metrics text. Prints figures, asserts nothing.
//
//   node --import tsx bench/system.ts                 # 1,000 monitors, 200 requests each
//   node --import tsx bench/system.ts --monitors 2000 --requests 500
import { mkdtemp, rm } from 'node:fs/promises';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startService } from '../src/main.js';
import { Logger } from '../src/core/log.js';
import { RuntimeStats } from '../src/modules/system/runtime.js';
import { StatusService } from '../src/modules/system/status/service.js';
import { MetricsService } from '../src/modules/system/metrics/service.js';
import { monitorsServiceOf } from '../src/modules/monitors/index.js';

function option(name: string, def: number): number {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : def;
}
const MONITORS = option('monitors', 1000);
const REQUESTS = option('requests', 200);

const cpuMs = () => { const u = process.cpuUsage(); return (u.user + u.system) / 1000; };
const pct = (xs: number[], q: number) => { const s = [...xs].sort((a, b) => a - b); return s[Math.min(s.length - 1, Math.ceil(q * s.length) - 1)]!; };
const f2 = (n: number) => n.toFixed(2);

async function main(): Promise<void> {
  const dataDir = await mkdtemp(join(tmpdir(), 'netprobe-bench-system-'));
  const peer = net.createServer((s) => s.end());
  await new Promise<void>((r) => peer.listen(0, '127.0.0.1', r));
  const port = (peer.address() as net.AddressInfo).port;
  const service = await startService({ env: { NETPROBE_DATA_DIR: dataDir }, logWrite: () => {} });
  try {
    const addr = await service.listen(0, '127.0.0.1');
    const url = `http://127.0.0.1:${addr.port}`;
    const app = service.app;
    // An administrator and a key, as the tests do.
    const { readFile } = await import('node:fs/promises');
    const setup = (await readFile(join(dataDir, 'initial-admin-password'), 'utf8')).trim();
    const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
      fetch(url + path, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
    await post('/api/setup/bootstrap', { setup_code: setup, username: 'bench', password: 'bench password long enough' });
    const login = await post('/api/auth/login', { username: 'bench', password: 'bench password long enough' }, { origin: url });
    const cookie = (login.headers.get('set-cookie') ?? '').split(';')[0]!;
    const key = (await (await post('/api/api-keys', { name: 'bench', scopes: ['admin'] }, { cookie, origin: url })).json() as { key: string }).key;

    const t0 = performance.now();
    for (let i = 0; i < MONITORS; i++) {
      const r = await post('/api/monitors', { name: `bench monitor ${i}`, target: `127.0.0.1:${port}`, check_type: 'tcp', interval: 60,
        tags: [`rack-${i % 10}`, i % 2 ? 'odd' : 'even'] }, { 'x-api-key': key });
      if (r.status !== 201) throw new Error(`create monitor: ${r.status} ${await r.text()}`);
    }
    const monitors = monitorsServiceOf(app);
    while ([...monitors.registry.all()].some((m) => m.row.last_check == null)) await new Promise((r) => setTimeout(r, 250));
    console.log(`${MONITORS} monitors created and checked once in ${((performance.now() - t0) / 1000).toFixed(1)} s`);

    // The handlers' work, called directly (the same classes the module builds, on the same app).
    const status = new StatusService(dataDir, () => 1, Logger.create({ write: () => {} }));
    const runtime = new RuntimeStats();
    const metrics = new MetricsService(app, status, runtime);
    const direct = async (name: string, fn: () => Promise<unknown>) => {
      for (let i = 0; i < 20; i++) await fn(); // warm-up
      const walls: number[] = [];
      const c0 = cpuMs();
      for (let i = 0; i < REQUESTS; i++) { const w = performance.now(); await fn(); walls.push(performance.now() - w); }
      const cpu = (cpuMs() - c0) / REQUESTS;
      console.log(`${name.padEnd(28)} direct: CPU ${f2(cpu)} ms/call, wall p50 ${f2(pct(walls, 0.5))} ms, p99 ${f2(pct(walls, 0.99))} ms`);
    };
    await direct('GET /api/system/status', () => status.status());
    await direct('GET /metrics', () => metrics.render());

    const http = async (name: string, path: string) => {
      const get = async () => { const r = await fetch(url + path, { headers: { 'x-api-key': key } }); const text = await r.text(); if (r.status !== 200) throw new Error(`${path}: ${r.status}`); return text; };
      for (let i = 0; i < 20; i++) await get();
      const walls: number[] = [];
      let bytes = 0;
      const c0 = cpuMs();
      for (let i = 0; i < REQUESTS; i++) { const w = performance.now(); bytes = (await get()).length; walls.push(performance.now() - w); }
      const cpu = (cpuMs() - c0) / REQUESTS;
      console.log(`${name.padEnd(28)} HTTP:   CPU ${f2(cpu)} ms/request (service + client), wall p50 ${f2(pct(walls, 0.5))} ms, ` +
        `p99 ${f2(pct(walls, 0.99))} ms, ${(bytes / 1024).toFixed(1)} KiB`);
    };
    await http('GET /api/system/status', '/api/system/status');
    await http('GET /metrics', '/metrics');
    runtime.stop();
  } finally {
    await service.shutdown('bench end');
    peer.close();
    await rm(dataDir, { recursive: true, force: true });
  }
}

main().catch((e) => { console.error(e); process.exit(1); });
