// A path (MTR) check's CPU (issue 37, "What must show"): the compiled service, with the unit's node flags and
// environment, runs N path monitors to 127.0.0.1 (one hop, loopback only; mtr's default 5 probes a second
// apart) for a window, after an idle window of the same length without them; and mtr itself, timed alone.
// Prints: the service's own CPU per path check (over the idle baseline: spawning mtr, parsing its JSON, the
// route read, segments, storing the result with its details), mtr's CPU per check (mtr and mtr-packet, the
// service's waited-for children), and one mtr run's CPU measured from this process. Asserts nothing.
//
//   node --import tsx bench/path-check.ts                   (or ./build.sh bench path-check; about 2 min)
//   options: --monitors N (default 10), --window-s S (default 40), --interval-s I (default 10; the timeout is
//            9 s, mtr needs 7)
// 10 monitors every 10 s keep about 7 mtr running at once, under core/exec's 16 children. More than the 16 can
// take (30 every 10 s here) queue for a child, and the wait eats the check's budget: a quarter of those checks
// ended "mtr did not finish within 9 s". The figures of a run here are in docs/monitors.md ("Path (MTR) checks").
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cpuTimes } from './monitors/proc.js';
import { adminKey, ensureBuilt, startServiceProc } from './monitors/service.js';
import { freePort, sleep } from './monitors/util.js';

function option(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : undefined;
}
const MONITORS = Number(option('monitors') ?? 10);
const WINDOW_S = Number(option('window-s') ?? 40);
const INTERVAL_S = Number(option('interval-s') ?? 10);

/** This process's waited-for children's CPU (cutime + cstime, /proc/self/stat), ms. */
async function childrenMs(): Promise<number> {
  return (await cpuTimes(Number((await readFile('/proc/self/stat', 'utf8')).split(' ')[0])))!.children;
}

async function main(): Promise<void> {
  if (!existsSync('/usr/bin/mtr')) { console.log('path-check: mtr is not installed (apt-get install mtr-tiny): skipped'); return; }
  ensureBuilt();
  // mtr alone, as the check runs it (checks/path.ts mtrArgs at the default settings), three times.
  const alone: number[] = [];
  for (let i = 0; i < 3; i++) {
    const before = await childrenMs();
    const r = spawnSync('mtr', ['-j', '-n', '-o', 'LSRNABWV', '-c', '5', '-i', '1', '-G', '1', '-m', '30', '--', '127.0.0.1'], { encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`mtr: ${r.stderr}`);
    alone.push(await childrenMs() - before);
  }

  const dir = await mkdtemp(join(tmpdir(), 'netprobe-bench-path-'));
  const svc = await startServiceProc(dir, await freePort(), join(dir, 'service.log'));
  try {
    const key = await adminKey(svc.base, dir);
    const api = async (method: string, path: string, body?: unknown) => {
      const r = await fetch(svc.base + path, { method, headers: { 'content-type': 'application/json', 'x-api-key': key },
        body: body === undefined ? undefined : JSON.stringify(body) });
      return { status: r.status, json: await r.json() as any };
    };
    await sleep(5000); // start-up work (first retention pass, caches) out of the baseline
    const idle0 = (await cpuTimes(svc.pid))!;
    await sleep(WINDOW_S * 1000);
    const idle1 = (await cpuTimes(svc.pid))!;

    const ids: string[] = [];
    for (let i = 0; i < MONITORS; i++) {
      const m = await api('POST', '/api/monitors', { name: `path ${i}`, check_type: 'path', target: '127.0.0.1',
        interval: INTERVAL_S, timeout: Math.min(10, INTERVAL_S - 1) });
      if (m.status !== 201) throw new Error(`create: ${m.status} ${JSON.stringify(m.json)}`);
      ids.push(m.json.id);
    }
    await sleep(10_000); // the first checks (all at once) out of the window: the window sees them spread on their slots
    const t0 = Date.now();
    const busy0 = (await cpuTimes(svc.pid))!;
    await sleep(WINDOW_S * 1000);
    const busy1 = (await cpuTimes(svc.pid))!;
    const t1 = Date.now();
    let checks = 0;
    let up = 0;
    const failures = new Map<string, number>();
    for (const id of ids) {
      const r = await api('GET', `/api/monitors/${id}/results?limit=100`);
      // A check counts when it finished inside the window, and its mtr was waited for inside it.
      const inside = (r.json.items as { at: string; status: string; message: string }[]).filter((x) => { const at = Date.parse(x.at); return at >= t0 && at <= t1; });
      checks += inside.length;
      up += inside.filter((x) => x.status === 'up').length;
      for (const x of inside) {
        if (x.status !== 'up') failures.set(x.message, (failures.get(x.message) ?? 0) + 1);
      }
    }
    const idleSelf = (idle1.self - idle0.self) / WINDOW_S;
    const busySelf = (busy1.self - busy0.self) / WINDOW_S;
    const perCheck = (busySelf - idleSelf) * WINDOW_S / Math.max(1, checks);
    const mtrPer = (busy1.children - busy0.children) / Math.max(1, checks);
    const pct = (msPerS: number) => `${(msPerS / 10).toFixed(2)} % of a core`;
    console.log(`path checks: ${MONITORS} monitors to 127.0.0.1 every ${INTERVAL_S} s (5 probes, 1 s apart), ${WINDOW_S} s windows`);
    console.log(`  checks in the window       ${checks} (${up} up)`);
    for (const [m, n] of failures) console.log(`    not up: ${n} x ${m}`);
    console.log(`  service, idle              ${pct(idleSelf)}`);
    console.log(`  service, with the monitors ${pct(busySelf)}`);
    console.log(`  service CPU per check      ${perCheck.toFixed(1)} ms (over the idle baseline)`);
    console.log(`  mtr CPU per check          ${mtrPer.toFixed(1)} ms (mtr + mtr-packet, the service's children; ${(busy1.children - busy0.children).toFixed(0)} ms in all)`);
    console.log(`  mtr alone, one run         ${alone.map((x) => x.toFixed(0)).join(', ')} ms (this process's children; ticks of 10 ms)`);
    console.log(`  a minute of one monitor at 60 s: ${(perCheck + mtrPer).toFixed(1)} ms of CPU, ${((perCheck + mtrPer) / 600).toFixed(3)} % of a core`);
  } finally {
    await svc.stop();
    await rm(dir, { recursive: true, force: true });
  }
}

main().catch((e) => { console.error(e); process.exitCode = 1; });
