// Debian's dnsmasq on 127.0.0.1 and a free port, answering the records it is given and nothing else (no
// upstream, no hosts file, no cache): a real resolver for the dns check's tests, reached on loopback only.
import { spawn, type ChildProcess } from 'node:child_process';
import dns from 'node:dns';
import { freePort } from './net.js';

export interface Dnsmasq {
  port: number;
  stop(): Promise<void>;
}

async function startOn(port: number, records: string[], readyName: string, stderr: string[]): Promise<ChildProcess | null> {
  const child = spawn('dnsmasq', ['--no-daemon', '--keep-in-foreground', '--no-resolv', '--no-hosts', '--conf-file=/dev/null',
    '--listen-address=127.0.0.1', '--bind-interfaces', `--port=${port}`, '--pid-file=', '--cache-size=0', ...records],
  { stdio: ['ignore', 'ignore', 'pipe'] });
  child.stderr!.on('data', (c: Buffer) => stderr.push(c.toString()));
  const exited = new Promise<null>((r) => child.once('exit', () => r(null)));
  // Ready when it answers a query it knows.
  const ready = (async () => {
    const r = new dns.promises.Resolver({ timeout: 200, tries: 1 });
    r.setServers([`127.0.0.1:${port}`]);
    for (let i = 0; i < 50; i++) {
      try { await r.resolve4(readyName); return child; } catch { await new Promise((res) => setTimeout(res, 100)); }
      if (child.exitCode !== null) return null;
    }
    return null;
  })();
  const got = await Promise.race([ready, exited]);
  if (!got) child.kill('SIGKILL');
  return got;
}

/** dnsmasq with `records` (its options: --host-record=…, --txt-record=…), ready once `readyName` has an A record. */
export async function startDnsmasq(records: string[], readyName: string): Promise<Dnsmasq> {
  const stderr: string[] = [];
  for (let attempt = 0; attempt < 5; attempt++) {
    const port = await freePort();
    const child = await startOn(port, records, readyName, stderr); // the port may have been taken meanwhile: try another
    if (!child) continue;
    return {
      port,
      async stop() {
        if (child.exitCode !== null) return;
        const gone = new Promise((r) => child.once('exit', r));
        child.kill('SIGTERM');
        await gone;
      },
    };
  }
  throw new Error(`dnsmasq did not start: ${stderr.join('')}`);
}
