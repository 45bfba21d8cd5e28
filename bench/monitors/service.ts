// The compiled service as a child process (dist/src/main.js), and the few API calls the bench makes.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createWriteStream, existsSync, statSync, readdirSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { connect, type Socket } from 'node:net';
import { join } from 'node:path';
import { sleep } from './util.js';
import { unitEnvironment, unitNodeFlags } from '../../test/helpers/unit-node.js';

export { unitEnvironment, unitNodeFlags };

export const COMPILED = join(process.cwd(), 'dist/src/main.js');

function newestMtime(dir: string): number {
  let newest = 0;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    newest = Math.max(newest, e.isDirectory() ? newestMtime(p) : statSync(p).mtimeMs);
  }
  return newest;
}

/** Builds dist/ (npm run build: tsc, then scripts/bundle.mjs) when it is missing or older than src/. */
export function ensureBuilt(): 'fresh' | 'built' {
  const src = join(process.cwd(), 'src');
  if (existsSync(COMPILED) && newestMtime(join(process.cwd(), 'dist/src')) >= newestMtime(src)) return 'fresh';
  console.log('building dist/ (npm run build) ...');
  const r = spawnSync('npm', ['run', '-s', 'build'], { stdio: 'inherit' });
  if (r.status !== 0) throw new Error('npm run build failed');
  return 'built';
}

export interface ServiceProc {
  child: ChildProcess;
  pid: number;
  base: string;
  /** Wall-clock ms (Date.now) at spawn and when /api/version first answered. */
  spawnedAt: number;
  readyAt: number;
  /** Log lines seen so far (the whole log also goes to <logFile>). */
  lines: string[];
  stop(): Promise<void>;
}

/** Starts the service on dataDir/port with a default configuration; resolves once /api/version answers. */
export async function startServiceProc(dataDir: string, port: number, logFile: string, nodeArgs: string[] = [],
  extraEnv: Record<string, string> = {}): Promise<ServiceProc> {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('NETPROBE_')) env[k] = v;
  for (const [k, v] of Object.entries({ ...unitEnvironment(), ...extraEnv })) {
    if (v) env[k] = v; else delete env[k];
  }
  env.NETPROBE_DATA_DIR = dataDir;
  env.NETPROBE_PORT = String(port);
  const spawnedAt = Date.now();
  const child = spawn(process.execPath, [...unitNodeFlags(), ...nodeArgs, COMPILED], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  const log = createWriteStream(logFile, { flags: 'a' });
  const lines: string[] = [];
  let partial = '';
  const onData = (c: Buffer) => {
    log.write(c);
    const parts = (partial + c.toString()).split('\n');
    partial = parts.pop() ?? '';
    for (const l of parts) if (lines.length < 100_000) lines.push(l);
  };
  child.stdout!.on('data', onData);
  child.stderr!.on('data', onData);
  const exited = new Promise<void>((r) => child.once('exit', () => { log.end(); r(); }));
  const base = `http://127.0.0.1:${port}`;
  const proc: ServiceProc = {
    child, pid: child.pid!, base, spawnedAt, readyAt: 0, lines,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      const t = setTimeout(() => child.kill('SIGKILL'), 120_000);
      await exited;
      clearTimeout(t);
    },
  };
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new Error(`service exited (${child.exitCode ?? child.signalCode}) before answering:\n${lines.slice(-20).join('\n')}`);
    }
    try { if ((await fetch(base + '/api/version')).ok) break; } catch { /* not up yet */ }
    await sleep(20);
    if (Date.now() - spawnedAt > 300_000) { await proc.stop(); throw new Error('service did not start within 300 s'); }
  }
  proc.readyAt = Date.now();
  return proc;
}

const JSON_HEADERS = { 'content-type': 'application/json' };

async function call<T>(base: string, method: string, path: string, headers: Record<string, string>,
  body?: unknown): Promise<{ status: number; json: T }> {
  const r = await fetch(base + path,
    { method, headers: { ...JSON_HEADERS, ...headers }, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await r.text();
  return { status: r.status, json: (text ? JSON.parse(text) : null) as T };
}

/** First administrator, a session, then an API key with scopes ['admin'] (as bench/service.ts does it). */
export async function adminKey(base: string, dataDir: string): Promise<string> {
  let setupCode: string | undefined;
  try { setupCode = (await readFile(join(dataDir, 'initial-admin-password'), 'utf8')).trim(); } catch { /* loopback needs none */ }
  const creds = { username: 'bench', password: 'bench password 123' };
  const boot = await call(base, 'POST', '/api/setup/bootstrap', {}, { ...(setupCode ? { setup_code: setupCode } : {}), ...creds });
  if (boot.status !== 201) throw new Error(`bootstrap: ${boot.status} ${JSON.stringify(boot.json)}`);
  const login = await fetch(base + '/api/auth/login',
    { method: 'POST', headers: { ...JSON_HEADERS, origin: base }, body: JSON.stringify(creds) });
  await login.arrayBuffer();
  const cookie = login.headers.get('set-cookie')?.split(';')[0];
  if (login.status !== 200 || !cookie) throw new Error(`login: ${login.status}`);
  const k = await call<{ key: string }>(base, 'POST', '/api/api-keys', { cookie, origin: base }, { name: 'bench', scopes: ['admin'] });
  if (k.status !== 201) throw new Error(`api key: ${k.status} ${JSON.stringify(k.json)}`);
  return k.json.key;
}

export interface MonitorBody {
  name: string; target: string; check_type: 'http' | 'tcp' | 'dns' | 'ping'; settings?: Record<string, unknown>; tags?: string[];
  interval?: number;
}

export async function createMonitor(base: string, key: string, body: MonitorBody): Promise<{ id: string }> {
  const r = await call<{ id: string }>(base, 'POST', '/api/monitors', { 'x-api-key': key }, body);
  if (r.status !== 201) throw new Error(`create monitor ${body.name}: ${r.status} ${JSON.stringify(r.json)}`);
  return r.json;
}

export interface ListedMonitor {
  id: string; name: string; check_type: string; status: string; last_check: string | null; last_message: string | null;
  stats_24h: { checks: number; uptime_pct: number | null };
}

/** GET /api/monitors, parsed: the monitors, the response size and the time to the last body byte. */
export async function listMonitors(base: string, key: string): Promise<{ monitors: ListedMonitor[]; bytes: number; ms: number }> {
  const t0 = performance.now();
  const r = await fetch(base + '/api/monitors', { headers: { 'x-api-key': key } });
  const buf = Buffer.from(await r.arrayBuffer());
  const ms = performance.now() - t0;
  if (r.status !== 200) throw new Error(`GET /api/monitors: ${r.status} ${buf.toString().slice(0, 300)}`);
  return { monitors: (JSON.parse(buf.toString()) as { monitors: ListedMonitor[] }).monitors, bytes: buf.length, ms };
}

/**
 * GET /api/monitors timed as lightly as a client can, on one kept-alive connection as a browser polls:
 * HTTP/1.1 on a plain socket, the body counted and dropped, its end found by the chunked encoding's last
 * chunk (a JSON body holds no raw CR or LF, so no data chunk can look like it). fetch() kept and joined
 * 1.3 MiB per list and added about 2 ms of this process's own work to each; a new connection per list
 * made the back-to-back lists a test of connection set-up (800 a second).
 */
export class ListTimer {
  private sock: Socket | null = null;
  private onData: ((c: Buffer) => void) | null = null;
  constructor(private readonly base: string, private readonly key: string) {}

  private async socket(): Promise<Socket> {
    if (this.sock && !this.sock.destroyed) return this.sock;
    const { hostname, port } = new URL(this.base);
    const sock = connect({ host: hostname, port: Number(port) });
    await new Promise<void>((resolve, reject) => { sock.once('connect', resolve); sock.once('error', reject); });
    sock.on('data', (c: Buffer) => this.onData?.(c));
    sock.on('error', () => undefined);
    this.sock = sock;
    return sock;
  }

  async time(): Promise<{ bytes: number; ms: number }> {
    const sock = await this.socket();
    const { hostname } = new URL(this.base);
    return new Promise((resolve, reject) => {
      const t0 = performance.now();
      let head = '';
      let body = -1;
      let tail = '';
      const done = (e?: Error) => { this.onData = null; sock.off('close', closed); if (e) reject(e); };
      const closed = () => done(new Error('GET /api/monitors: the service closed the connection'));
      sock.once('close', closed);
      this.onData = (c: Buffer) => {
        if (body < 0) {
          head += c.toString('latin1');
          const end = head.indexOf('\r\n\r\n');
          if (end < 0) return;
          const rest = head.slice(end + 4);
          head = head.slice(0, end);
          if (!/^HTTP\/1\.1 200 /.test(head) || !/\r\ntransfer-encoding: chunked/i.test(head)) {
            sock.destroy();
            done(new Error(`GET /api/monitors: ${head.split('\r\n')[0]} (chunked expected)`));
            return;
          }
          body = rest.length;
          tail = rest.slice(-5);
        } else {
          body += c.length;
          tail = (tail + c.subarray(Math.max(0, c.length - 5)).toString('latin1')).slice(-5);
        }
        if (tail === '0\r\n\r\n') { done(); resolve({ bytes: body, ms: performance.now() - t0 }); }
      };
      sock.write(`GET /api/monitors HTTP/1.1\r\nHost: ${hostname}\r\nx-api-key: ${this.key}\r\n\r\n`);
    });
  }

  close(): void { this.sock?.destroy(); this.sock = null; }
}

/**
 * GET /api/version on its own keep-alive socket, timed to the last byte: a request that costs the service
 * next to nothing, polled next to the list, so that what the list's time owes to waiting (the event loop
 * busy with checks, the machine's other processes) shows apart from what the list itself costs.
 */
export class VersionTimer {
  private sock: Socket | null = null;
  constructor(private readonly base: string) {}

  async time(): Promise<number> {
    const { hostname, port } = new URL(this.base);
    if (!this.sock || this.sock.destroyed) {
      const sock = connect({ host: hostname, port: Number(port) });
      await new Promise<void>((resolve, reject) => { sock.once('connect', resolve); sock.once('error', reject); });
      sock.on('error', () => undefined);
      this.sock = sock;
    }
    const sock = this.sock;
    return new Promise((resolve, reject) => {
      const t0 = performance.now();
      let got = '';
      const onData = (c: Buffer) => {
        got += c.toString('latin1');
        const end = got.indexOf('\r\n\r\n');
        const length = /\r\ncontent-length: (\d+)/i.exec(got);
        if (end < 0 || !length) return;
        if (got.length - end - 4 < Number(length[1])) return;
        sock.off('data', onData);
        sock.off('close', closed);
        resolve(performance.now() - t0);
      };
      const closed = () => { sock.off('data', onData); reject(new Error('GET /api/version: the service closed the connection')); };
      sock.on('data', onData);
      sock.once('close', closed);
      sock.write(`GET /api/version HTTP/1.1\r\nHost: ${hostname}\r\n\r\n`);
    });
  }

  close(): void { this.sock?.destroy(); this.sock = null; }
}

/**
 * bench/monitors/client.ts as a child process: version() and list() time one request each from there
 * (the child's own clock, so the answer's way back over the pipe is not counted).
 */
export class ClientProc {
  private readonly child: ChildProcess;
  private readonly waiting: ((line: string) => void)[] = [];

  constructor(base: string, key: string) {
    this.child = spawn(process.execPath, ['--import', 'tsx', join(process.cwd(), 'bench/monitors/client.ts'), base, key],
      { stdio: ['pipe', 'pipe', 'inherit'] });
    let partial = '';
    this.child.stdout!.on('data', (c: Buffer) => {
      const parts = (partial + c.toString()).split('\n');
      partial = parts.pop() ?? '';
      for (const l of parts) this.waiting.shift()?.(l);
    });
    // A client that died answers every request still waiting with its exit, rather than leaving the bench hanging.
    this.child.once('exit', (code, signal) => {
      for (const w of this.waiting.splice(0)) w(JSON.stringify({ error: `the bench client exited (${code ?? signal})` }));
    });
  }

  private ask(cmd: 'version' | 'list'): Promise<{ ms: number; bytes: number }> {
    return new Promise((resolve, reject) => {
      this.waiting.push((line) => {
        const r = JSON.parse(line) as { ms: number; bytes: number; error?: string };
        if (r.error) reject(new Error(r.error)); else resolve(r);
      });
      this.child.stdin!.write(cmd + '\n');
    });
  }

  async version(): Promise<number> { return (await this.ask('version')).ms; }
  list(): Promise<{ ms: number; bytes: number }> { return this.ask('list'); }
  close(): void { this.child.stdin!.end(); }
}
