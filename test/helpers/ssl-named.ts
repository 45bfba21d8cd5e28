// Debian's BIND 9 (`named`) on a free loopback port, authoritative for netprobe.test: every name under it
// is 127.0.0.1 (http-01 validations reach the probe), and dynamic updates (RFC 2136) signed with a fresh
// TSIG key are allowed, as a DNS provider's or a LAN's primary server would allow them for dns-01.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { run, which } from '../../src/core/exec.js';
import { freePort } from './net.js';

export const ZONE = 'netprobe.test';

export interface Named {
  port: number;
  keyName: string;
  algorithm: 'hmac-sha256';
  secret: string;
  /** TXT values of a name, asked of this server. */
  txt(name: string): Promise<string[]>;
  stop(): Promise<void>;
}

export const haveNamed = async () => !!(await which('named')) && !!(await which('nsupdate')) && !!(await which('dig'));

export async function startNamed(): Promise<Named> {
  const dir = await mkdtemp(join(tmpdir(), 'netprobe-named-'));
  // UDP and TCP on the same number: named listens on both.
  const port = await freePort();
  const keyName = 'netprobe-acme';
  const secret = randomBytes(32).toString('base64');
  await writeFile(join(dir, 'named.conf'), `
options {
  directory "${dir}";
  pid-file "${dir}/named.pid";
  session-keyfile "${dir}/session.key";
  managed-keys-directory "${dir}";
  listen-on port ${port} { 127.0.0.1; };
  listen-on-v6 { none; };
  recursion no;
  dnssec-validation no;
  notify no;
  allow-query { 127.0.0.1; };
};
controls { };
key "${keyName}" { algorithm hmac-sha256; secret "${secret}"; };
zone "${ZONE}" { type primary; file "${dir}/zone.db"; allow-update { key "${keyName}"; }; };
`);
  await writeFile(join(dir, 'zone.db'), `$TTL 60
@ IN SOA ns.${ZONE}. hostmaster.${ZONE}. ( 1 60 60 600 60 )
@ IN NS ns.${ZONE}.
ns IN A 127.0.0.1
* IN A 127.0.0.1
`);
  const proc = spawn('named', ['-g', '-4', '-c', join(dir, 'named.conf')], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  const ready = new Promise<void>((resolve, reject) => {
    const onData = (d: Buffer) => { out = (out + d.toString()).slice(-8000); if (/running/.test(out)) resolve(); };
    proc.stdout!.on('data', onData);
    proc.stderr!.on('data', onData);
    proc.once('close', (code) => reject(new Error(`named exited (${code}): ${out}`)));
  });
  const timer = setTimeout(() => proc.kill('SIGKILL'), 20_000);
  try { await ready; } catch (e) { await rm(dir, { recursive: true, force: true }); throw e; } finally { clearTimeout(timer); }
  return {
    port, keyName, algorithm: 'hmac-sha256', secret,
    async txt(name) {
      const r = await run('dig', ['+short', '+norec', '-p', String(port), '@127.0.0.1', name, 'TXT'], { timeoutMs: 10_000 });
      return r.stdout.split('\n').filter(Boolean).map((l) => l.replace(/^"|"$/g, ''));
    },
    async stop() {
      if (proc.exitCode === null) {
        const gone = new Promise<void>((resolve) => proc.once('close', () => resolve()));
        proc.kill('SIGTERM');
        const k = setTimeout(() => proc.kill('SIGKILL'), 3000);
        await gone;
        clearTimeout(k);
      }
      await rm(dir, { recursive: true, force: true });
    },
  };
}
