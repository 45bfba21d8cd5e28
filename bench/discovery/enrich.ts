// SSH enrichment of the lab's SSH host(s) (docs/lab.md: `ssh`, Debian's sshd, users labpass and labkey), through
// the running service's API: for each way of logging in, the wall time from POST /api/v1sion/enrich-ssh to the
// stream's final message and the service's CPU (its process and children, from /proc) over it; then, in this
// process, the transport itself: the Linux command list as one exec channel with section markers against one
// exec channel per command (the "3x faster", measured again here).
//
// bench/discovery.ts calls benchEnrichment() while its lab and service run, after setting up the vault:
//
//   const figures = await benchEnrichment({ base: svc.base, key, pid: svc.pid, lab, runs: RUNS });
//   console.log(formatEnrichment(figures));
//
// Alone (the lab and the service in this process, so CPU is this process's):
//
//   sudo node --import tsx bench/discovery/enrich.ts [--runs 5]
//
// Every packet goes to the lab's SSH host. Benches print, never fail on time.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { labDown, labUp, type LabInfo } from '../../scripts/lab/lab.js';
import { PLATFORM_DEFS } from '../../src/modules/v1sion/enrich-ssh/platforms/index.js';
import { SshSession } from '../../src/modules/v1sion/enrich-ssh/ssh.js';
import { cpuTimes } from '../monitors/proc.js';

/** `mean` too: /proc counts CPU in 10 ms ticks, so a median of a few runs is coarse. */
export interface Spread { min: number; median: number; max: number; mean: number }

export interface EnrichRow {
  /** e.g. "ssh (10.77.0.22), password, platform auto". */
  what: string;
  host: string;
  runs: number;
  /** POST to the final SSE message. */
  wall_ms: Spread;
  /** The service's CPU (process + children) over that time. */
  cpu_ms: Spread;
  /** What the collector itself reports (facts.duration_ms: login to last command). */
  device_ms: Spread;
  /** Set when the row could not be measured. */
  skipped?: string;
}

export interface ChannelRow { what: string; runs: number; wall_ms: Spread; cpu_ms: Spread }

export interface EnrichFigures { rows: EnrichRow[]; channels: ChannelRow[]; commands: number }

export interface EnrichBenchOptions {
  /** The service's base URL and an admin API key. */
  base: string;
  key: string;
  /** The service's process id (its CPU is read from /proc/<pid>/stat). */
  pid: number;
  lab: LabInfo;
  runs?: number;
  /** Passphrase to set the vault up with when it is not set up yet (bench/discovery.ts has set it up). */
  vaultPassphrase?: string;
}

const spread = (xs: number[]): Spread => {
  const s = [...xs].sort((a, b) => a - b);
  const r = (v: number) => Math.round(v * 10) / 10;
  if (!s.length) return { min: NaN, median: NaN, max: NaN, mean: NaN };
  return { min: r(s[0]!), median: r(s[Math.floor(s.length / 2)]!), max: r(s[s.length - 1]!), mean: r(s.reduce((a, b) => a + b, 0) / s.length) };
};

async function serviceCpu(pid: number): Promise<number> {
  const c = await cpuTimes(pid);
  if (!c) throw new Error(`process ${pid} is gone`);
  return c.self + c.children;
}

export async function benchEnrichment(opts: EnrichBenchOptions): Promise<EnrichFigures> {
  const runs = Math.max(1, opts.runs ?? 3);
  const headers = { 'x-api-key': opts.key, 'content-type': 'application/json' };
  const call = async (method: string, path: string, body?: unknown) => {
    const r = await fetch(opts.base + path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    const text = await r.text();
    return { status: r.status, body: text ? JSON.parse(text) as Record<string, any> : {} };
  };
  const vault = await call('GET', '/api/brain/vault/status');
  if (vault.body.initialized === false) {
    const s = await call('POST', '/api/brain/vault/setup', { passphrase: opts.vaultPassphrase ?? 'bench passphrase long enough' });
    if (s.status !== 200) throw new Error(`vault setup: ${s.status} ${JSON.stringify(s.body)}`);
  }
  const ssh = opts.lab.ssh;
  const name = `ssh (${ssh.host})`;
  const logins: { what: string; credential: Record<string, unknown>; platform: 'auto' | 'linux' }[] = [
    { what: `${name}, password, platform auto`, platform: 'auto',
      credential: { kind: 'ssh_password', username: ssh.password.username, password: ssh.password.password } },
    { what: `${name}, password, platform linux`, platform: 'linux',
      credential: { kind: 'ssh_password', username: ssh.password.username, password: ssh.password.password } },
    { what: `${name}, ed25519 key, platform linux`, platform: 'linux',
      credential: { kind: 'ssh_key', username: ssh.key.username, ssh_private_key: ssh.key.privateKey } },
  ];
  const rows: EnrichRow[] = [];
  for (const l of logins) {
    const c = await call('POST', '/api/brain/credentials', { scope: ['10.77.0.0/16', '127.0.0.0/8'], name: `bench ${l.what}`, ...l.credential });
    if (c.status !== 201) {
      rows.push({ what: l.what, host: ssh.host, runs: 0, wall_ms: spread([]), cpu_ms: spread([]), device_ms: spread([]),
        skipped: `the credential was refused: ${c.status} ${String(c.body.detail ?? '')}` });
      continue;
    }
    const t = await call('POST', '/api/v1sion/ssh-targets', { name: `bench ${l.what}`, host: ssh.host, credential_id: c.body.id, platform: l.platform });
    if (t.status !== 201) throw new Error(`target: ${t.status} ${JSON.stringify(t.body)}`);
    const once = async () => {
      const cpu0 = await serviceCpu(opts.pid);
      const t0 = performance.now();
      const r = await call('POST', '/api/v1sion/enrich-ssh', { targets: [t.body.id] });
      if (r.status !== 202) throw new Error(`enrich: ${r.status} ${JSON.stringify(r.body)}`);
      const stream = await fetch(`${opts.base}/api/v1sion/enrich-ssh/${r.body.job_id}/stream`, { headers });
      const text = await stream.text();
      const wall = performance.now() - t0;
      const cpu = (await serviceCpu(opts.pid)) - cpu0;
      const target = text.split('\n\n').filter((b) => b.includes('"type":"target"')).map((b) => JSON.parse(b.slice(b.indexOf('data:') + 5)).target)[0];
      if (target?.state !== 'ok') throw new Error(`${l.what}: ${JSON.stringify(target?.error ?? text.slice(-300))}`);
      const facts = (await call('GET', `/api/v1sion/ssh-targets/${t.body.id}`)).body.facts as { duration_ms: number };
      return { wall, cpu, device: facts.duration_ms };
    };
    await once(); // the first login pins the host key; its write is not what is measured
    const got: { wall: number; cpu: number; device: number }[] = [];
    for (let i = 0; i < runs; i++) got.push(await once());
    rows.push({ what: l.what, host: ssh.host, runs, wall_ms: spread(got.map((g) => g.wall)), cpu_ms: spread(got.map((g) => g.cpu)),
      device_ms: spread(got.map((g) => g.device)) });
    await call('DELETE', `/api/v1sion/ssh-targets/${t.body.id}`);
    await call('DELETE', `/api/brain/credentials/${c.body.id}`);
  }
  return { rows, channels: await benchChannels(opts.lab, runs), commands: PLATFORM_DEFS.linux.commands.length };
}

/** In this process: the Linux list as one marked exec channel, and as one exec channel per command in turn. */
async function benchChannels(lab: LabInfo, runs: number): Promise<ChannelRow[]> {
  const limits = { connectMs: 10_000, bannerMs: 5000, commandMs: 15_000, maxBytes: 4 << 20 };
  const login = { host: lab.ssh.host, port: lab.ssh.port, username: lab.ssh.password.username, password: lab.ssh.password.password };
  const linux = PLATFORM_DEFS.linux;
  const one: { wall: number; cpu: number }[] = [];
  const each: { wall: number; cpu: number }[] = [];
  for (let i = 0; i <= runs; i++) {
    const session = await SshSession.open(login, { limits, pinned: null, signal: new AbortController().signal });
    try {
      let c0 = process.cpuUsage();
      let t0 = performance.now();
      await session.run(linux);
      const a = { wall: performance.now() - t0, cpu: cpuOf(process.cpuUsage(c0)) };
      c0 = process.cpuUsage();
      t0 = performance.now();
      for (const c of linux.commands) await session.exec(`PATH=$PATH:/usr/sbin:/sbin ${c.argv!.join(' ')}`, limits.commandMs, 1 << 20);
      const b = { wall: performance.now() - t0, cpu: cpuOf(process.cpuUsage(c0)) };
      if (i > 0) { one.push(a); each.push(b); } // the first round warms up
    } finally {
      session.destroy();
    }
  }
  // The login alone (TCP, key exchange, authentication): password, and the ed25519 key.
  const logins: Record<string, { wall: number; cpu: number }[]> = { password: [], 'ed25519 key': [] };
  const keyLogin = { host: lab.ssh.host, port: lab.ssh.port, username: lab.ssh.key.username, privateKey: lab.ssh.key.privateKey };
  for (let i = 0; i <= runs; i++) {
    for (const [what, l] of [['password', login], ['ed25519 key', keyLogin]] as const) {
      const c0 = process.cpuUsage();
      const t0 = performance.now();
      const session = await SshSession.open(l, { limits, pinned: null, signal: new AbortController().signal });
      const x = { wall: performance.now() - t0, cpu: cpuOf(process.cpuUsage(c0)) };
      session.destroy();
      if (i > 0) logins[what]!.push(x);
    }
  }
  const n = linux.commands.length;
  return [
    ...Object.entries(logins).map(([what, xs]) => ({ what: `login with ${what}`, runs, wall_ms: spread(xs.map((x) => x.wall)),
      cpu_ms: spread(xs.map((x) => x.cpu)) })),
    { what: `one exec channel, ${n} commands between markers`, runs, wall_ms: spread(one.map((x) => x.wall)), cpu_ms: spread(one.map((x) => x.cpu)) },
    { what: `${n} exec channels, one command each`, runs, wall_ms: spread(each.map((x) => x.wall)), cpu_ms: spread(each.map((x) => x.cpu)) },
  ];
}

const cpuOf = (u: NodeJS.CpuUsage) => (u.user + u.system) / 1000;

export function formatEnrichment(f: EnrichFigures): string {
  const s = (x: Spread) => `${x.median} ms`.padStart(10);
  const m = (x: Spread) => `${x.mean} ms`.padStart(10);
  const out = [`SSH enrichment of the lab's SSH host (${f.commands} Linux commands; medians; first login, which pins the key, not counted)`,
    `${'what'.padEnd(52)} ${'wall'.padStart(10)} ${'CPU mean'.padStart(10)} ${'device'.padStart(10)}  ` +
    '(wall: POST to the final message; CPU: the service\'s, process and children; device: login to last command)'];
  for (const r of f.rows) {
    out.push(r.skipped ? `${r.what.padEnd(52)} skipped: ${r.skipped}` : `${r.what.padEnd(52)} ${s(r.wall_ms)} ${m(r.cpu_ms)} ${s(r.device_ms)}`);
  }
  out.push(`${'ssh2 alone, in this process'.padEnd(52)} ${'wall'.padStart(10)} ${'CPU mean'.padStart(10)}`);
  for (const c of f.channels) out.push(`${c.what.padEnd(52)} ${s(c.wall_ms)} ${m(c.cpu_ms)}`);
  const a = f.channels.find((c) => c.what.startsWith('one exec'));
  const b = f.channels.find((c) => c.what.endsWith('one command each'));
  if (a && b) out.push(`one channel is ${(b.wall_ms.median / a.wall_ms.median).toFixed(1)}x faster than a channel per command`);
  return out.join('\n');
}

async function main(): Promise<void> {
  if (process.getuid?.() !== 0) throw new Error('bench/discovery/enrich needs root (the lab creates network namespaces)');
  const argv = process.argv.slice(2);
  const runs = Number(argv[argv.indexOf('--runs') + 1] ?? 5) || 5;
  const { startService } = await import('../../src/main.js');
  const lab = await labUp({ corpus: false });
  const dir = await mkdtemp(join(tmpdir(), 'netprobe-bench-enrich-'));
  const service = await startService({ env: { NETPROBE_DATA_DIR: dir }, logWrite: () => undefined });
  try {
    const addr = await service.listen(0, '127.0.0.1');
    const base = `http://127.0.0.1:${addr.port}`;
    const { readFile } = await import('node:fs/promises');
    const setupCode = (await readFile(join(dir, 'initial-admin-password'), 'utf8')).trim();
    const post = async (path: string, body: unknown, h: Record<string, string> = {}) => {
      const r = await fetch(base + path, { method: 'POST', headers: { 'content-type': 'application/json', origin: base, ...h }, body: JSON.stringify(body) });
      return { r, body: await r.json() as Record<string, any> };
    };
    await post('/api/setup/bootstrap', { setup_code: setupCode, username: 'bench-admin', password: 'bench admin password long enough' });
    const login = await post('/api/auth/login', { username: 'bench-admin', password: 'bench admin password long enough' });
    const cookie = (login.r.headers.get('set-cookie') ?? '').split(';')[0]!;
    const key = (await post('/api/api-keys', { name: 'bench', scopes: ['admin'] }, { cookie })).body.key as string;
    const figures = await benchEnrichment({ base, key, pid: process.pid, lab, runs });
    console.log(formatEnrichment(figures));
  } finally {
    await service.shutdown('bench end');
    await labDown(lab.slot);
    await rm(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  main().catch((e: unknown) => { console.error(e instanceof Error ? e.stack ?? e.message : e); process.exitCode = 1; });
}
