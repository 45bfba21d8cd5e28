// The loopback targets and reference clocks of bench/check-timing.ts, none of them node: nginx as the
// HTTP(S) server and the TCP listener (or, when nginx is not installed, python3's http.server and a python3
// accept loop), dnsmasq as the DNS server, 127.0.0.1 for ping, and bench/check-timing/reference.c compiled
// with the system's cc.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort, sleep } from '../monitors/util.js';

export const has = (program: string): boolean =>
  spawnSync('sh', ['-c', `command -v ${program}`], { stdio: 'ignore' }).status === 0;

export interface HttpTarget {
  url: string;
  port: number;
  /** The plain TCP listener for the tcp check: nginx's port, or a python3 accept loop beside http.server. */
  tcpPort: number;
  /** The same answer over TLS (a self-signed certificate), when nginx and openssl are there. */
  httpsUrl: string | null;
  server: string;
  stop(): Promise<void>;
}

/** A small 200 response ("ok\n") on 127.0.0.1:<free port>, from nginx when installed, else python3. */
export async function startHttpServer(dir: string): Promise<HttpTarget | null> {
  const port = await freePort();
  let child: ChildProcess;
  let server: string;
  let tlsPort: number | null = null;
  let tcpPort = port;
  let listener: ChildProcess | null = null;
  if (has('nginx')) {
    const conf = join(dir, 'nginx.conf');
    const cert = join(dir, 'cert.pem');
    const key = join(dir, 'key.pem');
    if (has('openssl') && spawnSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes',
      '-keyout', key, '-out', cert, '-days', '1', '-subj', '/CN=localhost'], { stdio: 'ignore' }).status === 0) tlsPort = await freePort();
    const answer = 'location / { default_type text/plain; return 200 "ok\\n"; }';
    await writeFile(conf, [
      'daemon off;', 'master_process off;', 'worker_processes 1;', `pid ${join(dir, 'nginx.pid')};`,
      `error_log ${join(dir, 'nginx-error.log')};`, 'events { worker_connections 4096; }',
      'http {', '  access_log off;',
      ...['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'].map((t) => `  ${t}_temp_path ${join(dir, t)};`),
      `  server { listen 127.0.0.1:${port}; ${answer} }`,
      ...(tlsPort ? [`  server { listen 127.0.0.1:${tlsPort} ssl; ssl_certificate ${cert}; ssl_certificate_key ${key}; ${answer} }`] : []),
      '}', '',
    ].join('\n'));
    child = spawn('nginx', ['-c', conf, '-p', dir, '-e', join(dir, 'nginx-error.log')], { stdio: 'ignore' });
    server = `nginx (${spawnSync('nginx', ['-v'], { encoding: 'utf8' }).stderr.trim().replace(/^nginx version: /, '')})`;
  } else if (has('python3')) {
    await writeFile(join(dir, 'index.html'), 'ok\n');
    child = spawn('python3', ['-m', 'http.server', String(port), '--bind', '127.0.0.1', '--directory', dir], { stdio: 'ignore' });
    server = 'python3 -m http.server (nginx is not installed: apt-get install nginx-light for a faster peer)';
    // http.server listens with a backlog of 5: a run of connects would overflow it (and wait for SYN retries).
    tcpPort = await freePort();
    listener = spawn('python3', ['-c', [
      'import socket, sys', 's = socket.socket()', 's.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)',
      `s.bind(("127.0.0.1", ${tcpPort}))`, 's.listen(4096)', 'while True: s.accept()[0].close()',
    ].join('\n')], { stdio: 'ignore' });
  } else {
    return null;
  }
  if (!(await listening(port, child)) || (listener && !(await listening(tcpPort, listener)))) {
    child.kill('SIGKILL');
    listener?.kill('SIGKILL');
    return null;
  }
  return {
    url: `http://127.0.0.1:${port}/`, port, tcpPort, httpsUrl: tlsPort ? `https://127.0.0.1:${tlsPort}/` : null, server,
    stop: async () => { await stopChild(child); if (listener) await stopChild(listener); },
  };
}

export interface DnsTarget { port: number; name: string; stop(): Promise<void> }

/** dnsmasq as bench/monitors.ts starts it (no upstream, local records only). */
export async function startDnsServer(): Promise<DnsTarget | null> {
  if (!has('dnsmasq')) return null;
  const { startDnsmasq, DNS_NAMES } = await import('../monitors/dnsmasq.js');
  const d = await startDnsmasq();
  return { port: d.port, name: DNS_NAMES[0]!, stop: () => d.stop() };
}

/** reference.c built into `dir`; null (with the reason) when there is no C compiler. */
export function buildReference(dir: string): { path: string } | { error: string } {
  if (!has('cc')) return { error: 'no C compiler (apt-get install gcc)' };
  const src = fileURLToPath(new URL('./reference.c', import.meta.url));
  const out = join(dir, 'reference');
  const r = spawnSync('cc', ['-O2', '-o', out, src], { encoding: 'utf8' });
  return r.status === 0 ? { path: out } : { error: `cc failed: ${r.stderr.trim()}` };
}

/** Runs a program to the end and returns its stdout (throws with its stderr when it fails). */
export function runTool(program: string, args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(program, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (c: Buffer) => { out += c.toString(); });
    child.stderr.on('data', (c: Buffer) => { err += c.toString(); });
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve(out) : reject(new Error(`${program} exited ${code}: ${err.trim()}`))));
  });
}

export const tempDir = (): Promise<string> => mkdtemp(join(tmpdir(), 'netprobe-check-timing-'));
export const removeDir = (dir: string): Promise<void> => rm(dir, { recursive: true, force: true });

async function listening(port: number, child: ChildProcess): Promise<boolean> {
  for (let i = 0; i < 100 && child.exitCode === null; i++) {
    const ok = await new Promise<boolean>((resolve) => {
      const s = net.connect({ host: '127.0.0.1', port }, () => { s.destroy(); resolve(true); });
      s.on('error', () => resolve(false));
    });
    if (ok) return true;
    await sleep(50);
  }
  return false;
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const gone = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  await gone;
}
