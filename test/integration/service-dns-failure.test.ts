// Host names that do not resolve, through the real resolver path: the service runs as a program
// (src/main.ts) in a private mount namespace whose /etc/resolv.conf is a file of this test, and is
// asked over its API to reach names that do not resolve. (a) The resolver is Debian's dnsmasq on a
// loopback address, answering NXDOMAIN for every name; (b) the resolver is a loopback address where
// nothing listens (getaddrinfo: EAI_AGAIN). Every path must give a clear answer naming the host and
// leave the process running: an SNMP walk (that used to end the process with ERR_SOCKET_BAD_PORT), a
// template run, live device cards read by a viewer (identification, and a pinned vendor's cards), http,
// tcp, ping and dns monitors (down, naming the host), and a webhook test to a URL whose host does not
// resolve. Packets go to loopback only: DNS to the addresses below, nothing else resolves.
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createSocket } from 'node:dgram';
import dns from 'node:dns';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { which } from '../../src/core/exec.js';
import { freePort } from '../helpers/net.js';
import { spawnService, type ServiceProgram } from '../helpers/service-process.js';

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
const ADMIN = { username: 'root-admin', password: 'correct horse battery staple' };
/** Gives node its own /etc/resolv.conf ($0), then execs it in place: the child's pid stays the service's. */
const WRAP = ['unshare', '--mount', '--propagation', 'private', '--', 'sh', '-c', 'mount --bind "$0" /etc/resolv.conf && exec "$@"'];

/** Why the namespace trick cannot run here, or null. */
async function namespaceProblem(): Promise<string | null> {
  if (process.platform !== 'linux') return 'needs Linux mount namespaces';
  if (process.getuid?.() !== 0) return 'needs root: unshare --mount and mount --bind give the service its own resolv.conf';
  if (!(await which('unshare'))) return 'unshare is not installed (apt-get install util-linux)';
  const dir = await mkdtemp(join(tmpdir(), 'netprobe-dns-probe-'));
  try {
    const file = join(dir, 'resolv.conf');
    await writeFile(file, 'nameserver 127.77.0.1\n');
    const r = spawnSync(WRAP[0]!, [...WRAP.slice(1), file, 'cat', '/etc/resolv.conf'], { encoding: 'utf8', timeout: 10_000 });
    if (r.stdout === 'nameserver 127.77.0.1\n') return null;
    return `unshare/mount --bind did not work here: ${(r.stderr || r.error?.message || '').trim()}`;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** A random loopback address in 127.77/16 whose UDP port 53 nobody holds (not even through 0.0.0.0). */
async function freeDnsAddress(): Promise<string> {
  for (let i = 0; i < 20; i++) {
    const addr = `127.77.${1 + Math.floor(Math.random() * 254)}.${1 + Math.floor(Math.random() * 254)}`;
    const s = createSocket('udp4');
    const ok = await new Promise<boolean>((resolve) => { s.once('error', () => resolve(false)); s.bind(53, addr, () => resolve(true)); });
    await new Promise<void>((resolve) => { try { s.close(() => resolve()); } catch { resolve(); } });
    if (ok) return addr;
  }
  throw new Error('no free loopback address for a DNS server in 127.77/16');
}

/** dnsmasq answering NXDOMAIN for every name (`--address=/#/` with no address), on addr:53 only. */
async function startNxdomainServer(addr: string): Promise<{ proc: ChildProcess; log: () => string; stop: () => Promise<void> }> {
  const proc = spawn('dnsmasq', ['--keep-in-foreground', '--conf-file=/dev/null', '--no-resolv', '--no-hosts', '--no-poll', '--pid-file=',
    '--user=root', '--group=root', `--listen-address=${addr}`, '--bind-interfaces', '--port=53', '--address=/#/',
    '--log-facility=-', '--log-queries'], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  for (const s of [proc.stdout!, proc.stderr!]) s.on('data', (c: Buffer) => { out += c.toString('utf8'); });
  const exited = new Promise<void>((resolve) => proc.once('close', () => resolve()));
  const stop = async () => { if (proc.exitCode === null && proc.signalCode === null) proc.kill('SIGTERM'); await exited; };
  // Ready when it answers: NXDOMAIN for a name asked from here (to addr, on loopback).
  const r = new dns.promises.Resolver({ timeout: 200, tries: 1 });
  r.setServers([addr]);
  for (let i = 0; ; i++) {
    const code = await r.resolve4('ready-check').then(() => 'answered', (e: NodeJS.ErrnoException) => e.code);
    if (code === 'ENOTFOUND') break;
    if (i > 50 || proc.exitCode !== null) { await stop(); throw new Error(`dnsmasq did not answer NXDOMAIN (${code}):\n${out}`); }
    await sleep(100);
  }
  return { proc, log: () => out, stop };
}

interface Res { status: number; text: string; body: any }

/** One service in its namespace, with an admin, an operator and a viewer key. */
class Probe {
  private constructor(readonly svc: ServiceProgram, readonly base: string) {}
  admin = '';
  operator = '';
  viewer = '';

  static async start(dir: string, resolvConf: string): Promise<Probe> {
    await writeFile(join(dir, 'config.yaml'), 'server:\n  host: 127.0.0.1\n');
    const port = await freePort();
    const p = new Probe(spawnService({ NETPROBE_DATA_DIR: dir, NETPROBE_PORT: String(port) }, { wrap: [...WRAP, resolvConf] }),
      `http://127.0.0.1:${port}`);
    for (let end = Date.now() + 30_000; ;) {
      if (!p.running) throw new Error(`the service exited while starting:\n${p.svc.tail()}`);
      if (await p.call('GET', '/api/version').then((r) => r.status === 200, () => false)) break;
      if (Date.now() > end) throw new Error(`the service did not answer within 30 s:\n${p.svc.tail()}`);
      await sleep(50);
    }
    const code = (await readFile(join(dir, 'initial-admin-password'), 'utf8')).trim();
    assert.equal((await p.call('POST', '/api/setup/bootstrap', { body: { setup_code: code, ...ADMIN } })).status, 201);
    p.admin = await p.keyOf(ADMIN.username, ADMIN.password, ['admin']);
    for (const role of ['operator', 'viewer'] as const) {
      const password = `pass-${role}-long-enough`;
      const u = await p.call('POST', '/api/users', { key: p.admin, body: { username: role, password, role } });
      assert.equal(u.status, 201, u.text);
      p[role] = await p.keyOf(role, password, role === 'viewer' ? ['snmp:read'] : ['snmp:write', 'monitors:write', 'webhooks:write']);
    }
    return p;
  }

  get running(): boolean { return this.svc.proc.exitCode === null && this.svc.proc.signalCode === null; }

  async call(method: string, path: string, o: { key?: string; cookie?: string; body?: unknown } = {}): Promise<Res> {
    const headers: Record<string, string> = {};
    if (o.key) headers['x-api-key'] = o.key;
    if (o.cookie) { headers.cookie = o.cookie; headers.origin = this.base; }
    if (o.body !== undefined) headers['content-type'] = 'application/json';
    const r = await fetch(this.base + path, { method, headers, body: o.body === undefined ? undefined : JSON.stringify(o.body),
      signal: AbortSignal.timeout(30_000) }).catch(async (e: Error) => {
      await sleep(200);
      const exit = this.running ? '' : `; the service exited (${this.svc.proc.exitCode ?? this.svc.proc.signalCode})`;
      throw new Error(`${method} ${path}: ${e.message}${exit}\n${this.svc.tail(30)}`);
    });
    const text = await r.text();
    return { status: r.status, text, body: (r.headers.get('content-type') ?? '').includes('json') && text ? JSON.parse(text) : text };
  }

  private async keyOf(username: string, password: string, scopes: string[]): Promise<string> {
    const l = await fetch(`${this.base}/api/auth/login`,
      { method: 'POST', headers: { 'content-type': 'application/json', origin: this.base }, body: JSON.stringify({ username, password }) });
    assert.equal(l.status, 200, await l.text());
    const cookie = (l.headers.get('set-cookie') ?? '').split(';')[0]!;
    const k = await this.call('POST', '/api/api-keys', { cookie, body: { name: `${username}-key`, scopes } });
    assert.equal(k.status, 201, k.text);
    return k.body.key as string;
  }

  /** The process still runs and still answers. */
  async assertAlive(after: string): Promise<void> {
    await sleep(100); // an uncaught exception in a socket callback lands just after the response
    const { exitCode, signalCode } = this.svc.proc;
    assert.ok(this.running, `the service exited after ${after} (${exitCode ?? signalCode}):\n${this.svc.tail()}`);
    const v = await this.call('GET', '/api/version').catch((e: Error) => ({ status: 0, text: e.message }));
    assert.equal(v.status, 200, `GET /api/version after ${after}: ${v.text}\n${this.svc.tail()}`);
  }

  async stop(): Promise<void> {
    if (!this.running) return;
    this.svc.proc.kill('SIGTERM');
    const late = setTimeout(() => this.svc.proc.kill('SIGKILL'), 20_000);
    await this.svc.exited;
    clearTimeout(late);
  }
}

interface Expect {
  /** The SNMP problem's detail after the host name, and its dns_error. */
  snmp: RegExp;
  dnsError: string;
  /** Monitor messages per check type; each must name its host too. */
  monitors: Record<'http' | 'tcp' | 'ping' | 'dns', RegExp>;
  webhook: RegExp;
}

async function exercise(t: TestContext, p: Probe, expect: Expect): Promise<void> {
  const snmpProblem = (r: Res, host: string, what: string) => {
    assert.equal(r.status, 502, `${what}: ${r.text}`);
    assert.equal(r.body.code, 'snmp_host_not_found', `${what}: ${r.text}`);
    assert.match(r.body.detail, new RegExp(`^The host name "${host}" ${expect.snmp.source}`), what);
    assert.deepEqual([r.body.host, r.body.dns_error], [host, expect.dnsError], what);
  };

  await t.test('SNMP walk with an operator key: 502 snmp_host_not_found naming the target', async () => {
    // The request of issue 12: this ended the process with an uncaught ERR_SOCKET_BAD_PORT.
    const v1 = { target: 'typo-switch', version: 'v1', community: 'public', oids: ['system'] };
    snmpProblem(await p.call('POST', '/api/snmp/walk', { key: p.operator, body: v1 }), 'typo-switch', 'walk v1');
    await p.assertAlive('a v1 walk of typo-switch');
    const v3 = { target: 'typo-switch-3', version: 'v3', v3: { username: 'probe', level: 'noAuthNoPriv' }, oids: ['sysName'] };
    snmpProblem(await p.call('POST', '/api/snmp/walk', { key: p.operator, body: v3 }), 'typo-switch-3', 'walk v3');
    await p.assertAlive('a v3 walk of typo-switch-3');
  });

  const vault = await p.call('POST', '/api/brain/vault/setup', { key: p.admin, body: { passphrase: 'dns failure vault passphrase' } });
  assert.equal(vault.status, 200, vault.text);
  const cred = await p.call('POST', '/api/brain/credentials',
    { key: p.admin, body: { scope: ['127.0.0.0/8'], name: 'lab v2c', kind: 'snmp_v2c', community: 'public' } });
  assert.equal(cred.status, 201, cred.text);

  await t.test('template run: the walk\'s problem, stored as the last run', async () => {
    const c = await p.call('POST', '/api/snmp/templates',
      { key: p.operator, body: { name: 'typo', target: 'typo-template', credential_id: cred.body.id, oids: ['system'] } });
    assert.equal(c.status, 201, c.text);
    snmpProblem(await p.call('POST', `/api/snmp/templates/${c.body.id}/run`, { key: p.operator }), 'typo-template', 'template run');
    await p.assertAlive('a template run against typo-template');
    const last = (await p.call('GET', `/api/snmp/templates/${c.body.id}`, { key: p.viewer })).body.last_run;
    assert.equal(last.outcome, 'failure');
    assert.match(last.error, /"typo-template"/);
  });

  await t.test('device cards read live by a viewer: identification and a pinned vendor\'s cards', async () => {
    for (const [name, extra] of [['typo-device', {}], ['typo-generic', { vendor_key: 'generic' }]] as const) {
      const body = { target: name, credential_id: cred.body.id, ...extra };
      const put = await p.call('PUT', `/api/snmp/device-cards/${name}`, { key: p.operator, body });
      assert.equal(put.status, 200, put.text);
      const r = await p.call('GET', `/api/snmp/device-cards/${name}?live=true`, { key: p.viewer });
      assert.equal(r.status, 200, r.text);
      assert.deepEqual([r.body.live.attempted, r.body.live.ok, r.body.live.error_code], [true, false, 'snmp_host_not_found'], r.text);
      assert.match(r.body.live.error, new RegExp(`^The host name "${name}" ${expect.snmp.source}`));
      await p.assertAlive(`a live device card read of ${name}`);
    }
  });

  // A webhook first, so the monitors' down alerts are delivery attempts to a name that does not resolve too.
  const hook = await p.call('POST', '/api/webhooks', { key: p.operator, body: { name: 'typo hook', url: 'http://typo-hook/alert' } });
  assert.equal(hook.status, 201, hook.text);

  await t.test('http, tcp, ping and dns monitors: down, with a message naming the host', async () => {
    const monitors = [
      { check_type: 'http', target: 'http://typo-web/health', host: 'typo-web' },
      { check_type: 'tcp', target: 'typo-tcp:443', host: 'typo-tcp' },
      { check_type: 'ping', target: 'typo-ping', host: 'typo-ping' },
      { check_type: 'dns', target: 'typo-dns', host: 'typo-dns' },
    ] as const;
    const ids = new Map<string, string>();
    for (const m of monitors) {
      const r = await p.call('POST', '/api/monitors', { key: p.operator,
        body: { name: m.host, check_type: m.check_type, target: m.target, interval: 3600, timeout: 5, failure_threshold: 1 } });
      assert.equal(r.status, 201, r.text);
      ids.set(m.check_type, r.body.id);
    }
    for (const m of monitors) {
      let s: any;
      for (let end = Date.now() + 30_000; ; await sleep(50)) {
        s = (await p.call('GET', `/api/monitors/${ids.get(m.check_type)}`, { key: p.operator })).body;
        if (s.last_check !== null && s.status !== 'unknown') break;
        assert.ok(Date.now() < end, `the ${m.check_type} monitor was not checked within 30 s: ${JSON.stringify(s)}\n${p.svc.tail()}`);
      }
      assert.equal(s.status, 'down', `${m.check_type}: ${JSON.stringify(s)}`);
      assert.match(s.last_message, expect.monitors[m.check_type], m.check_type);
      assert.ok(s.last_message.includes(m.host), `${m.check_type}: "${s.last_message}" names ${m.host}`);
    }
    await p.assertAlive('the monitors\' checks');
  });

  await t.test('webhook test to a URL whose host does not resolve: a failed attempt with a clear error', async () => {
    const r = await p.call('POST', `/api/webhooks/${hook.body.id}/test`, { key: p.operator });
    assert.equal(r.status, 200, r.text);
    assert.deepEqual([r.body.ok, r.body.status_code], [false, null], r.text);
    assert.match(r.body.error, expect.webhook);
    await p.assertAlive('a webhook test to typo-hook');
    const log = (await p.call('GET', `/api/dev/webhooks/recent?webhook_id=${hook.body.id}`, { key: p.admin })).body.items as any[];
    assert.ok(log.some((a) => a.outcome === 'test'), JSON.stringify(log));
    for (const a of log) assert.match(a.error ?? '', expect.webhook, `attempt ${a.outcome}: ${JSON.stringify(a)}`);
  });
}

async function scenario(t: TestContext, label: string, nameserver: string, expect: Expect): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), `netprobe-dns-${label}-`));
  const resolvConf = join(dir, 'resolv.conf');
  await writeFile(resolvConf,
    `# ${label}: written by test/integration/service-dns-failure.test.ts\nnameserver ${nameserver}\noptions timeout:1 attempts:1\n`);
  let p: Probe | undefined;
  try {
    p = await Probe.start(dir, resolvConf);
    await exercise(t, p, expect);
    await p.assertAlive('everything');
    await p.stop();
    assert.deepEqual([p.svc.proc.exitCode, p.svc.proc.signalCode], [0, null], `a clean stop at the end:\n${p.svc.tail()}`);
  } finally {
    await p?.stop();
    await rm(dir, { recursive: true, force: true });
  }
}

test('host names that do not resolve: clear problems, and the service keeps running', { timeout: 240_000 }, async (t) => {
  const skip = await namespaceProblem();
  if (skip) { t.skip(skip); return; }

  await t.test('(a) a resolver that answers NXDOMAIN', async (t) => {
    if (!(await which('dnsmasq'))) { t.skip('dnsmasq is not installed (apt-get install dnsmasq-base)'); return; }
    const addr = await freeDnsAddress();
    const server = await startNxdomainServer(addr);
    try {
      await scenario(t, 'nxdomain', addr, {
        snmp: /does not resolve: DNS has no address for it \(ENOTFOUND\)$/,
        dnsError: 'ENOTFOUND',
        monitors: { http: /^host name not found \(typo-web\)$/, tcp: /^host name not found \(typo-tcp\)$/,
          ping: /^cannot ping typo-ping: Name or service not known$/, dns: /^NXDOMAIN: the name does not exist \(A typo-dns\)$/ },
        webhook: /^host name not found: typo-hook does not resolve \(ENOTFOUND\)$/,
      });
      // The answers came from this server: the service used the resolv.conf of its namespace.
      assert.match(server.log(), /query\[A\] typo-switch from /);
    } finally {
      await server.stop();
    }
  });

  await t.test('(b) no resolver at all (nothing listens where resolv.conf points): EAI_AGAIN', async (t) => {
    await scenario(t, 'eai-again', await freeDnsAddress(), {
      snmp: /could not be resolved: no DNS server answered \(EAI_AGAIN\); check the probe's DNS servers$/,
      dnsError: 'EAI_AGAIN',
      monitors: {
        http: /^host name lookup failed temporarily \(DNS server not answering\?\) \(typo-web\)$/,
        tcp: /^host name lookup failed temporarily \(DNS server not answering\?\) \(typo-tcp\)$/,
        ping: /^cannot ping typo-ping: Temporary failure in name resolution$/,
        dns: /^CONNREFUSED: could not contact the resolver \(A typo-dns\)$/,
      },
      webhook: /^host name typo-hook could not be resolved: no DNS server answered \(EAI_AGAIN\)$/,
    });
  });
});
