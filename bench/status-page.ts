// What readers of a public status page cost (issue 34 §4: "500 page loads a second with the probe's CPU
// under 20 % and no effect on check scheduling"). The compiled service with the unit's node flags, on
// loopback only:
//   1. 50 HTTP monitors against a server in this process, on one page in three groups with aliases, and 150
//      TCP monitors against a loopback port, off the page; each checked once;
//   2. the service stopped and 90 days of rollups seeded (bench/monitors/seed.ts), so every monitor's bar is
//      full, as on a probe that has run a season; the service started again, the page's monitors then checked
//      every 30 s and the others every 10 s, so that the scheduler starts about 17 checks a second whose lag
//      is measured;
//   3. a quiet phase (no readers) and then the load phase: GET /status/<slug> at LOAD_RATE a second for
//      LOAD_SECONDS, open-loop, half on kept-alive connections (16 at most) and half each on a new
//      connection, as browsers send them (Accept-Encoding: gzip, br); full page loads (200 with the body),
//      never 304s. Then a phase of revalidations (If-None-Match: 304s), as the page's meta refresh sends.
// Printed per phase: loads a second achieved, failures, latency p50/p99/max, bytes a load, the service's
// CPU (% of one core, from /proc), and the scheduling lag of the checks that started meanwhile (the
// scheduler's own record: GET /api/monitors/scheduler). Figures, never pass/fail.
//   npx tsx bench/status-page.ts            (LOAD_RATE=500 LOAD_SECONDS=20 QUIET_SECONDS=20)
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { Agent, createServer, request } from 'node:http';
import { createServer as createTcpServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { LagCollector, lagFigures } from './monitors/lag.js';
import { cpuTimes } from './monitors/proc.js';
import { seedHistory } from './monitors/seed.js';
import { adminKey, createMonitor, ensureBuilt, listMonitors, startServiceProc, type ServiceProc } from './monitors/service.js';
import { fmtMs, freePort, int, percentile, sleep } from './monitors/util.js';

const LOAD_RATE = Number(process.env.LOAD_RATE ?? 500);
const LOAD_SECONDS = Number(process.env.LOAD_SECONDS ?? 20);
const QUIET_SECONDS = Number(process.env.QUIET_SECONDS ?? 20);
const PAGE_MONITORS = 50;
const OTHER_MONITORS = 150;
const SLUG = 'bench';
/** Requests in flight at most; a request the pace asks for beyond it is counted as not sent. */
const MAX_IN_FLIGHT = 256;

interface Load { ok: boolean; status: number; ms: number; bytes: number; error?: string }

function load(port: number, agent: Agent | false, headers: Record<string, string>): Promise<Load> {
  const t0 = performance.now();
  return new Promise((resolve) => {
    const req = request({ host: '127.0.0.1', port, path: `/status/${SLUG}`, agent, headers, timeout: 10_000 }, (res) => {
      let bytes = 0;
      res.on('data', (c: Buffer) => { bytes += c.length; });
      res.on('end', () => resolve({ ok: res.statusCode === 200 || res.statusCode === 304, status: res.statusCode ?? 0,
        ms: performance.now() - t0, bytes }));
      res.on('error', (e: NodeJS.ErrnoException) => resolve({ ok: false, status: 0, ms: performance.now() - t0, bytes, error: e.code ?? e.message }));
    });
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', (e: NodeJS.ErrnoException) => resolve({ ok: false, status: 0, ms: performance.now() - t0, bytes: 0, error: e.code ?? e.message }));
    req.end();
  });
}

interface Phase {
  name: string; seconds: number; sent: number; notSent: number; done: Load[]; cpuPct: number; lag: ReturnType<typeof lagFigures>;
  /** The machine's 1-minute load average at the phase's end (other work on a shared machine shows in the lag). */
  load1: number;
}

/** Runs `seconds` of readers at `rate` a second (0: none) and measures the service meanwhile. */
async function phase(name: string, svc: ServiceProc, port: number, lag: LagCollector, seconds: number, rate: number,
  headers: Record<string, string>): Promise<Phase> {
  const keep = new Agent({ keepAlive: true, maxSockets: 16 });
  const done: Load[] = [];
  const pending = new Set<Promise<void>>();
  let sent = 0, notSent = 0;
  await lag.poll();
  const cpu0 = (await cpuTimes(svc.pid))!;
  const t0 = Date.now(), p0 = performance.now();
  const poller = setInterval(() => { lag.poll().catch((e: Error) => console.error(`lag poll: ${e.message}`)); }, 2000);
  while (performance.now() - p0 < seconds * 1000) {
    const due = Math.floor(((performance.now() - p0) / 1000) * rate);
    while (sent + notSent < due) {
      if (pending.size >= MAX_IN_FLIGHT) { notSent++; continue; }
      const agent = (sent + notSent) % 2 ? keep : false;
      sent++;
      const p = load(port, agent, headers).then((r) => { done.push(r); pending.delete(p); });
      pending.add(p);
    }
    await sleep(4);
  }
  await Promise.all(pending);
  const wall = performance.now() - p0;
  const cpu1 = (await cpuTimes(svc.pid))!;
  clearInterval(poller);
  await lag.poll();
  keep.destroy();
  return { name, seconds: wall / 1000, sent, notSent, done, cpuPct: ((cpu1.self - cpu0.self) / wall) * 100,
    lag: lagFigures(lag.samples, t0, Date.now()), load1: loadavg()[0]! };
}

function print(p: Phase): void {
  const ok = p.done.filter((d) => d.ok);
  const ms = ok.map((d) => d.ms);
  const codes = [...new Set(ok.map((d) => d.status))].join('/');
  console.log(`\n${p.name}`);
  if (p.sent) {
    console.log(`  loads          ${int(ok.length)} of ${int(p.sent)} sent (${int(p.notSent)} not sent: ${MAX_IN_FLIGHT} in flight), ` +
      `${(ok.length / p.seconds).toFixed(1)} a second, answers ${codes}, ${p.done.length - ok.length} failed`);
    const failed = p.done.filter((d) => !d.ok).map((d) => d.error ?? `HTTP ${d.status}`);
    if (failed.length) console.log(`  failures       ${[...new Set(failed)].map((f) => `${f} ×${failed.filter((x) => x === f).length}`).join(', ')}`);
    console.log(`  latency        p50 ${fmtMs(percentile(ms, 50))}  p99 ${fmtMs(percentile(ms, 99))}  max ${fmtMs(Math.max(...ms))}`);
    console.log(`  bytes a load   ${int(ok.reduce((n, d) => n + d.bytes, 0) / Math.max(1, ok.length))} (body)`);
  }
  console.log(`  probe CPU      ${p.cpuPct.toFixed(1)} % of one core over ${p.seconds.toFixed(1)} s`);
  console.log(`  check lag      ${int(p.lag.n)} checks started: p50 ${fmtMs(p.lag.p50)}  p99 ${fmtMs(p.lag.p99)}  max ${fmtMs(p.lag.max)}` +
    `  (${p.lag.over20} over 20 ms)`);
  console.log(`  machine load   ${p.load1.toFixed(2)} (1-minute average at the end, ${cpus().length} CPUs)`);
}

async function main(): Promise<void> {
  console.log(`status page bench: ${PAGE_MONITORS} monitors on the page, ${OTHER_MONITORS} others; ${LOAD_RATE} loads a second ` +
    `for ${LOAD_SECONDS} s; dist/ ${ensureBuilt()}`);
  const web = createServer((_req, res) => res.end('ok'));
  await new Promise<void>((r) => web.listen(0, '127.0.0.1', r));
  const tcp = createTcpServer((s) => s.end());
  await new Promise<void>((r) => tcp.listen(0, '127.0.0.1', r));
  const dir = await mkdtemp(join(tmpdir(), 'netprobe-bench-status-'));
  await writeFile(join(dir, 'config.yaml'), 'server:\n  host: 127.0.0.1\n');
  const port = await freePort();
  let svc: ServiceProc | null = null;
  try {
    // 1. monitors and the page
    svc = await startServiceProc(dir, port, join(dir, 'service.log'));
    const key = await adminKey(svc.base, dir);
    const webUrl = `http://127.0.0.1:${(web.address() as AddressInfo).port}`;
    const tcpTarget = `127.0.0.1:${(tcp.address() as AddressInfo).port}`;
    const page: string[] = [];
    for (let i = 0; i < PAGE_MONITORS; i++) {
      page.push((await createMonitor(svc.base, key, { name: `service-${i}`, check_type: 'http', target: `${webUrl}/s${i}` })).id);
    }
    const others: string[] = [];
    for (let i = 0; i < OTHER_MONITORS; i++) {
      others.push((await createMonitor(svc.base, key, { name: `port-${i}`, check_type: 'tcp', target: tcpTarget })).id);
    }
    const groups = ['Web', 'Mail and files', 'Network'].map((name, g) => ({
      name, monitors: page.filter((_, i) => i % 3 === g).map((id, i) => ({ id, alias: `${name} service ${i + 1}` })),
    }));
    const made = await fetch(`${svc.base}/api/monitors/status-pages`, { method: 'POST',
      headers: { 'x-api-key': key, 'content-type': 'application/json' },
      body: JSON.stringify({ slug: SLUG, title: 'Example Ltd services', description: 'Status of the services we run', groups }) });
    if (made.status !== 201) throw new Error(`create page: ${made.status} ${await made.text()}`);
    for (let waited = 0; (await listMonitors(svc.base, key)).monitors.some((m) => !m.last_check); waited += 500) {
      if (waited > 120_000) throw new Error('monitors not checked within 120 s');
      await sleep(500);
    }
    await svc.stop();

    // 2. 90 days of rollups
    const seed = await seedHistory(dir, 90);
    console.log(`seeded ${int(seed.results)} results and ${int(seed.rollups.day)} day rollups in ${(seed.ms / 1000).toFixed(1)} s`);

    // 3. readers
    svc = await startServiceProc(dir, port, join(dir, 'service.log'));
    // The seeding takes 60 s monitors; the measured run checks more often (about 17 checks a second).
    for (const [ids, interval] of [[page, 30], [others, 10]] as const) {
      for (const id of ids) {
        const r = await fetch(`${svc.base}/api/monitors/${id}`, { method: 'PUT', headers: { 'x-api-key': key, 'content-type': 'application/json' },
          body: JSON.stringify({ interval, timeout: 5 }) });
        if (r.status !== 200) throw new Error(`interval of ${id}: ${r.status} ${await r.text()}`);
      }
    }
    const plain = await fetch(`${svc.base}/status/${SLUG}`, { headers: { 'accept-encoding': 'identity' } });
    const html = await plain.text();
    const gz = await load(port, false, { 'accept-encoding': 'gzip, br' });
    console.log(`page: ${int(Buffer.byteLength(html))} bytes of HTML, ${int(gz.bytes)} as sent compressed (br); ` +
      `${(html.match(/<i class=/g) ?? []).length} day bars with data`);
    const lag = new LagCollector(svc.base, key);
    await sleep(5000); // the checks due at start-up out of the way
    console.log(`machine load average before: ${loadavg().map((x) => x.toFixed(2)).join(' ')} (${cpus().length} CPUs)`);
    print(await phase(`quiet: no readers, ${QUIET_SECONDS} s`, svc, port, lag, QUIET_SECONDS, 0, {}));
    print(await phase(`load: ${LOAD_RATE} page loads a second, half kept-alive, half on new connections`, svc, port, lag, LOAD_SECONDS,
      LOAD_RATE, { 'accept-encoding': 'gzip, br' }));
    const etag = (await fetch(`${svc.base}/status/${SLUG}`)).headers.get('etag') ?? '';
    print(await phase(`revalidation: ${LOAD_RATE} a second with If-None-Match (the meta refresh)`, svc, port, lag, Math.min(10, LOAD_SECONDS),
      LOAD_RATE, { 'accept-encoding': 'gzip, br', 'if-none-match': etag }));
    // The machine may be shared: a second quiet phase shows what its other work did to the lag meanwhile.
    print(await phase(`quiet again: no readers, ${QUIET_SECONDS} s`, svc, port, lag, QUIET_SECONDS, 0, {}));
  } finally {
    await svc?.stop();
    web.close();
    tcp.close();
    if (!process.env.KEEP) await rm(dir, { recursive: true, force: true });
  }
}

await main();
