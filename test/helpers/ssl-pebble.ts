// Debian's pebble (a test ACME server) on loopback, with its own TLS certificate from a throwaway CA
// made here with openssl, validations without the random sleep (PEBBLE_VA_NOSLEEP), every nonce
// accepted, and its DNS pointed at a server of the test (bind9's named from ssl-named.ts, or
// pebble-challtestsrv answering 127.0.0.1 for every name). Ports are chosen free at start; httpPort is
// where pebble fetches http-01 challenges: the probe's HTTP port.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm, writeFile, readFile } from 'node:fs/promises';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { which } from '../../src/core/exec.js';
import { freePort, freePorts, freeUdpPort } from './net.js';
import { openssl } from './ssl-pfx.js';

export interface Pebble {
  directoryUrl: string;
  /** The CA of pebble's own TLS certificate (what the probe must be told to trust). */
  caPem: string;
  /** pebble's management interface (roots of the certificates it issues). */
  managementUrl: string;
  /** The root that signs what pebble issues (regenerated at every pebble start). */
  issuingRoot(): Promise<string>;
  /** SIGKILL, resolved once pebble has exited (until then it may still accept a connection and reset it). */
  kill(): Promise<void>;
  stop(): Promise<void>;
}

export const havePebble = async () => !!(await which('pebble'));

async function waitForPort(port: number, proc: ChildProcess, output: () => string): Promise<void> {
  for (let i = 0; i < 200; i++) {
    if (proc.exitCode !== null) throw new Error(`exited (${proc.exitCode}): ${output()}`);
    const ok = await new Promise<boolean>((resolve) => {
      const s = connect(port, '127.0.0.1', () => { s.destroy(); resolve(true); });
      s.on('error', () => resolve(false));
    });
    if (ok) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`port ${port} never opened: ${output()}`);
}

function startProcess(cmd: string, args: string[], env: Record<string, string> = {}): { proc: ChildProcess; output: () => string } {
  const proc = spawn(cmd, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  const keep = (d: Buffer) => { out = (out + d.toString()).slice(-8000); };
  proc.stdout!.on('data', keep);
  proc.stderr!.on('data', keep);
  return { proc, output: () => out };
}

async function stopProcess(proc: ChildProcess): Promise<void> {
  if (proc.exitCode !== null || proc.signalCode !== null) return;
  const gone = new Promise<void>((resolve) => proc.once('close', () => resolve()));
  proc.kill('SIGTERM');
  const t = setTimeout(() => proc.kill('SIGKILL'), 3000);
  await gone;
  clearTimeout(t);
}

/** pebble-challtestsrv as a DNS server answering 127.0.0.1 for every name (http-01 only). */
export async function startChallTestSrv(): Promise<{ dns: string; stop(): Promise<void> }> {
  const dnsPort = await freeUdpPort();
  const mgmt = await freePort();
  const { proc, output } = startProcess('pebble-challtestsrv', ['-dns01', `127.0.0.1:${dnsPort}`, '-management', `127.0.0.1:${mgmt}`,
    '-http01', '', '-https01', '', '-tlsalpn01', '', '-defaultIPv4', '127.0.0.1', '-defaultIPv6', '']);
  await waitForPort(mgmt, proc, output);
  return { dns: `127.0.0.1:${dnsPort}`, stop: () => stopProcess(proc) };
}

export async function startPebble(opts: { httpPort: number; dnsServer: string }): Promise<Pebble> {
  const dir = await mkdtemp(join(tmpdir(), 'netprobe-pebble-'));
  await openssl(['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '2', '-subj', '/CN=pebble test CA',
    '-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,keyCertSign', '-keyout', 'ca.key', '-out', 'ca.pem'], dir);
  await openssl(['req', '-new', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-subj', '/CN=localhost',
    '-keyout', 'key.pem', '-out', 'req.csr'], dir);
  await writeFile(join(dir, 'ext'), 'subjectAltName=DNS:localhost,IP:127.0.0.1\n');
  await openssl(['x509', '-req', '-in', 'req.csr', '-CA', 'ca.pem', '-CAkey', 'ca.key', '-CAcreateserial', '-days', '2', '-extfile', 'ext', '-out', 'cert.pem'], dir);
  const [listen, management, tlsPort] = await freePorts(3); // distinct: three freePort() calls can repeat one
  await writeFile(join(dir, 'pebble.json'), JSON.stringify({
    pebble: {
      listenAddress: `127.0.0.1:${listen}`, managementListenAddress: `127.0.0.1:${management}`,
      certificate: join(dir, 'cert.pem'), privateKey: join(dir, 'key.pem'),
      httpPort: opts.httpPort, tlsPort, ocspResponderURL: '', externalAccountBindingRequired: false,
    },
  }));
  // PEBBLE_AUTHZREUSE=0 still reuses a valid authorization 1 time in 100 (its test is rand.Intn(100) > percent):
  // a test that needs a challenge orders a name this account never validated.
  const { proc, output } = startProcess('pebble', ['-config', join(dir, 'pebble.json'), '-dnsserver', opts.dnsServer],
    { PEBBLE_VA_NOSLEEP: '1', PEBBLE_WFE_NONCEREJECT: '0', PEBBLE_AUTHZREUSE: '0' });
  try { await waitForPort(listen, proc, output); } catch (e) { await rm(dir, { recursive: true, force: true }); throw new Error(`pebble: ${(e as Error).message}`); }
  const caPem = await readFile(join(dir, 'ca.pem'), 'utf8');
  return {
    directoryUrl: `https://127.0.0.1:${listen}/dir`,
    caPem,
    managementUrl: `https://127.0.0.1:${management}`,
    async issuingRoot() {
      const { request } = await import('node:https');
      return new Promise<string>((resolve, reject) => {
        request(`https://127.0.0.1:${management}/roots/0`, { ca: caPem }, (res) => {
          let b = '';
          res.on('data', (d: Buffer) => { b += d.toString(); });
          res.on('end', () => resolve(b));
        }).on('error', reject).end();
      });
    },
    async kill() {
      if (proc.exitCode !== null || proc.signalCode !== null) return;
      const exited = new Promise<void>((r) => proc.once('exit', () => r()));
      proc.kill('SIGKILL');
      await exited;
    },
    async stop() {
      await stopProcess(proc);
      await rm(dir, { recursive: true, force: true });
    },
  };
}
