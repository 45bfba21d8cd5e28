// Prints what slow readers cost the service: 40 connections that each pipeline 50 requests for the
// OpenAPI document and never read (the attack of issue 12), while one well-behaved client keeps asking
// for /api/version. Figures: RSS before, at peak and after; the other client's latency p50/p99/max;
// how many attack connections the server cut. Loopback only; bounded in count and time.
// Runs the compiled service when dist/ exists (npm run build), else through tsx (says so).
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { memory } from './monitors/proc.js';
import { freePort } from '../test/helpers/net.js';
import { unitEnvironment, unitNodeFlags } from '../test/helpers/unit-node.js';

const CONNECTIONS = Number(process.env.CONNECTIONS ?? 40);
const PIPELINED = Number(process.env.PIPELINED ?? 50);
const SECONDS = Number(process.env.SECONDS_ ?? 20);

const compiled = join(process.cwd(), 'dist/src/main.js');
// With systemd/netprobe.service's node flags and environment (test/helpers/unit-node.ts).
const entry = existsSync(compiled) ? [compiled] : ['--import', 'tsx', 'src/main.ts'];
const args = [...unitNodeFlags(), ...entry];
const pct = (xs: number[], p: number) => { const s = [...xs].sort((a, b) => a - b); return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] ?? NaN; };
const mib = (kb: number) => (kb / 1024).toFixed(1);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function main() {
  const dir = await mkdtemp(join(tmpdir(), 'netprobe-bench-'));
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const child = spawn(process.execPath, args, {
    env: { ...process.env, ...unitEnvironment(), NETPROBE_DATA_DIR: dir, NETPROBE_PORT: String(port) }, stdio: ['ignore', 'ignore', 'inherit'],
  });
  const sockets: Socket[] = [];
  try {
    for (let i = 0; ; i++) {
      try { if ((await fetch(base + '/api/version')).ok) break; } catch { /* not up yet */ }
      if (i > 6000) throw new Error('service did not start');
      await sleep(10);
    }
    // Warm up: the first document build and a few requests, so "before" is the service at rest.
    for (let i = 0; i < 5; i++) await (await fetch(base + '/api/openapi.json')).arrayBuffer();
    await sleep(500);
    const before = (await memory(child.pid!))!;
    let peakKb = before.rssKb;
    let cut = 0;
    const request = `GET /api/openapi.json HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`.repeat(PIPELINED);
    for (let i = 0; i < CONNECTIONS; i++) {
      const s = connect(port, '127.0.0.1');
      s.on('error', () => undefined);
      s.on('close', () => { cut++; });
      s.pause(); // never read
      s.write(request);
      sockets.push(s);
    }
    const latencies: number[] = [];
    const end = Date.now() + SECONDS * 1000;
    const sampler = setInterval(() => {
      void memory(child.pid!).then((m) => { if (m) peakKb = Math.max(peakKb, m.rssKb); });
    }, 100);
    while (Date.now() < end) {
      const t0 = performance.now();
      const r = await fetch(base + '/api/version');
      await r.arrayBuffer();
      latencies.push(performance.now() - t0);
      await sleep(20);
    }
    clearInterval(sampler);
    // A paused socket notices the server's close only when it reads again.
    for (const s of sockets) s.resume();
    await sleep(500);
    const cutByServer = cut;
    for (const s of sockets) s.destroy();
    await sleep(1000);
    const afterMem = (await memory(child.pid!))!;
    console.log(`service: ${entry[0] === compiled ? 'compiled dist/' : 'tsx (slower, larger)'}; ` +
      `${CONNECTIONS} connections x ${PIPELINED} pipelined GET /api/openapi.json, never read, for ${SECONDS} s`);
    console.log(`RSS: before ${mib(before.rssKb)} MiB, peak ${mib(peakKb)} MiB (+${mib(peakKb - before.rssKb)}), ` +
      `after close ${mib(afterMem.rssKb)} MiB`);
    console.log(`other client, GET /api/version x ${latencies.length}: p50 ${pct(latencies, 50).toFixed(1)} ms, ` +
      `p99 ${pct(latencies, 99).toFixed(1)} ms, max ${Math.max(...latencies).toFixed(1)} ms`);
    console.log(`attack connections cut by the server (stuck responses, request timeout): ${cutByServer} of ${CONNECTIONS}`);
  } finally {
    for (const s of sockets) s.destroy();
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
    await rm(dir, { recursive: true, force: true });
  }
}

main().catch((e) => { console.error(e); process.exit(1); });
