// dnsmasq on 127.0.0.1:<free port> with a few local records (no upstream, no system resolver), the DNS
// peer of bench/monitors.ts. Started like test/integration/monitors-check-dns.test.ts does.
import { spawn, type ChildProcess } from 'node:child_process';
import dns from 'node:dns';
import { freePort } from './util.js';

/** Names the dns monitors query (A records in 192.0.2.0/24, never resolved anywhere else). */
export const DNS_NAMES = Array.from({ length: 10 }, (_, i) => `h${i}.bench.test`);

export interface Dnsmasq { child: ChildProcess; port: number; stop(): Promise<void> }

async function startOn(port: number, stderr: string[]): Promise<ChildProcess | null> {
  const records = DNS_NAMES.map((n, i) => `--host-record=${n},192.0.2.${10 + i}`);
  const child = spawn('dnsmasq', ['--no-daemon', '--keep-in-foreground', '--no-resolv', '--no-hosts', '--conf-file=/dev/null',
    '--listen-address=127.0.0.1', '--bind-interfaces', `--port=${port}`, '--pid-file=', '--cache-size=0',
    '--local=/bench.test/', ...records], { stdio: ['ignore', 'ignore', 'pipe'] });
  child.stderr!.on('data', (c: Buffer) => stderr.push(c.toString()));
  child.on('error', (e) => stderr.push(String(e)));
  const exited = new Promise<null>((r) => child.once('exit', () => r(null)));
  const ready = (async () => {
    const r = new dns.promises.Resolver({ timeout: 200, tries: 1 });
    r.setServers([`127.0.0.1:${port}`]);
    for (let i = 0; i < 50; i++) {
      try { await r.resolve4(DNS_NAMES[0]!); return child; } catch { await new Promise((res) => setTimeout(res, 100)); }
      if (child.exitCode !== null) return null;
    }
    return null;
  })();
  const got = await Promise.race([ready, exited]);
  if (!got && child.exitCode === null) child.kill('SIGKILL');
  return got;
}

export async function startDnsmasq(): Promise<Dnsmasq> {
  const stderr: string[] = [];
  for (let attempt = 0; attempt < 5; attempt++) {
    const port = await freePort();
    const child = await startOn(port, stderr);
    if (child) {
      return {
        child, port,
        async stop() {
          if (child.exitCode !== null || child.signalCode !== null) return;
          const gone = new Promise((r) => child.once('exit', r));
          child.kill('SIGTERM');
          await gone;
        },
      };
    }
  }
  throw new Error(`dnsmasq did not start: ${stderr.join('').trim() || 'no output'}`);
}
