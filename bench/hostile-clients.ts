// What hostile clients cost the service in memory, and what another client sees meanwhile (issue item 5).
// Three shapes, one after the other, each run by bench/hostile/attack.ts in a process of its own:
// slow connections spread over six addresses, one abusive address opening connections as fast as it can,
// and a burst of 50,000 malformed requests. Throughout, a timed client on 127.0.0.1 asks for /api/version
// every 20 ms over a kept-alive connection. Figures per shape: RSS at its start, peak, at the attack's
// end, +30 s and +60 s; the timed client's p50/p99/max and failures during the attack and after it.
// The compiled service with systemd/netprobe.service's node flags and environment; loopback only,
// bounded in time (ATTACK_SECONDS per shape, the malformed burst up to 45 s, 60 s of rest after each: about
// 5 minutes in all).
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { Agent, get } from 'node:http';
import { tmpdir, loadavg } from 'node:os';
import { join } from 'node:path';
import { memory } from './monitors/proc.js';
import { ensureBuilt, startServiceProc, unitEnvironment, unitNodeFlags } from './monitors/service.js';
import { fmtMs, freePort, percentile, sleep } from './monitors/util.js';

const ATTACK_SECONDS = Number(process.env.ATTACK_SECONDS ?? 20);
/** The malformed burst stops at 50,000 requests or after this long, whichever comes first. */
const MALFORMED_SECONDS = 45;
const REST_SECONDS = 60;
const SHAPES = (process.env.SHAPES ?? 'spread,abusive,malformed').split(',');

const mibOf = (kb: number) => `${(kb / 1024).toFixed(1)} MiB`;

/** The timed client: one kept-alive connection from 127.0.0.1, a request every 20 ms, 5 s to answer. */
class TimedClient {
  private agent = new Agent({ keepAlive: true, maxSockets: 1, localAddress: '127.0.0.1' });
  private latencies: number[] = [];
  private failures = 0;
  private stopped = false;
  private done: Promise<void>;

  constructor(port: number) { this.done = this.loop(port); }

  private async loop(port: number): Promise<void> {
    while (!this.stopped) {
      const t0 = performance.now();
      const ok = await new Promise<boolean>((resolve) => {
        const req = get({ host: '127.0.0.1', port, path: '/api/version', agent: this.agent, timeout: 5000 }, (res) => {
          res.resume();
          res.on('end', () => resolve(res.statusCode === 200));
          res.on('error', () => resolve(false));
        });
        req.on('timeout', () => req.destroy());
        req.on('error', () => resolve(false));
      });
      if (ok) this.latencies.push(performance.now() - t0); else this.failures++;
      await sleep(20);
    }
  }

  /** The figures since the last take, and a fresh start. */
  take(): { n: number; p50: number; p99: number; max: number; failures: number } {
    const l = this.latencies, f = this.failures;
    this.latencies = []; this.failures = 0;
    return { n: l.length, p50: percentile(l, 50), p99: percentile(l, 99), max: l.length ? Math.max(...l) : NaN, failures: f };
  }

  async stop(): Promise<void> { this.stopped = true; await this.done; this.agent.destroy(); }
}

function attack(shape: string, port: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const seconds = shape === 'malformed' ? MALFORMED_SECONDS : ATTACK_SECONDS;
    const child = spawn(process.execPath, ['--import', 'tsx', 'bench/hostile/attack.ts', shape, String(port), String(seconds)],
      { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (c: Buffer) => { out += c.toString(); });
    const guard = setTimeout(() => child.kill('SIGKILL'), (seconds + 60) * 1000);
    child.on('close', (code) => { clearTimeout(guard); if (code === 0) resolve(out.trim()); else reject(new Error(`attack ${shape} exited ${code}`)); });
  });
}

async function main(): Promise<void> {
  ensureBuilt();
  const dir = await mkdtemp(join(tmpdir(), 'netprobe-hostile-'));
  const port = await freePort();
  const svc = await startServiceProc(dir, port, join(dir, 'service.log'));
  let peakKb = 0;
  const sampler = setInterval(() => {
    void memory(svc.pid).then((m) => { if (m) peakKb = Math.max(peakKb, m.rssKb); });
  }, 100);
  const rss = async () => (await memory(svc.pid))!.rssKb;
  const timed = new TimedClient(port);
  try {
    console.log(`hostile clients: compiled dist/, node ${unitNodeFlags().join(' ')}; environment ` +
      `${Object.entries(unitEnvironment()).map(([k, v]) => `${k}=${v}`).join(' ')}; ${ATTACK_SECONDS} s per shape, ` +
      `${REST_SECONDS} s rest after each; load average at start ${loadavg().map((x) => x.toFixed(2)).join(' ')}`);
    await sleep(10_000); // start-up settles
    timed.take();
    const startKb = await rss();
    console.log(`RSS at rest before any attack: ${mibOf(startKb)}`);
    for (const shape of SHAPES) {
      const before = await rss();
      peakKb = before;
      const counts = await attack(shape, port);
      const during = timed.take();
      const endKb = await rss();
      const peak = peakKb;
      await sleep(30_000);
      const plus30 = await rss();
      await sleep(REST_SECONDS * 1000 - 30_000);
      const plus60 = await rss();
      const after = timed.take();
      console.log(`\n${shape}: ${counts}`);
      console.log(`  RSS: start ${mibOf(before)}, peak ${mibOf(peak)}, end of attack ${mibOf(endKb)}, +30 s ${mibOf(plus30)}, ` +
        `+60 s ${mibOf(plus60)} (${plus60 - startKb >= 0 ? '+' : ''}${mibOf(plus60 - startKb)} on the first start)`);
      for (const [phase, t] of [['during', during], ['after', after]] as const) {
        console.log(`  timed client ${phase}: ${t.n} requests, p50 ${fmtMs(t.p50)}, p99 ${fmtMs(t.p99)}, max ${fmtMs(t.max)}, ` +
          `failures ${t.failures}`);
      }
    }
    console.log(`\nload average at end ${loadavg().map((x) => x.toFixed(2)).join(' ')}`);
  } finally {
    clearInterval(sampler);
    await timed.stop();
    await svc.stop();
    await rm(dir, { recursive: true, force: true });
  }
}

main().catch((e) => { console.error(e); process.exit(1); });
