// A stand-in for systemd's notification socket: a unix datagram socket that records every message
// sent to it. Node cannot bind AF_UNIX datagram sockets, so a few lines of Perl (perl-base is in every
// Debian) receive them. Perl's recv() takes no ancillary data, so the kernel closes the file descriptor
// systemd-notify passes along with BARRIER=1, and systemd-notify's wait for the barrier ends at once,
// as it does under systemd. (socat keeps such descriptors open, so systemd-notify would time out.)
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const RECEIVER = String.raw`
use Socket;
socket(my $s, AF_UNIX, SOCK_DGRAM, 0) or die "socket: $!";
bind($s, pack_sockaddr_un($ARGV[0])) or die "bind: $!";
$| = 1;
print "bound\n";
while (defined recv($s, my $m, 65536, 0)) { $m =~ s/\\/\\\\/g; $m =~ s/\n/\\n/g; print "$m\n"; }
`;

export interface NotifySocket {
  /** The socket's path, for NOTIFY_SOCKET. */
  path: string;
  /** Every datagram so far, each as its list of KEY=VALUE lines. */
  messages: string[][];
  /** Resolves with the first message (past or future) that has this KEY=VALUE line. */
  waitFor(line: string, timeoutMs?: number): Promise<string[]>;
  close(): Promise<void>;
}

export async function notifySocket(): Promise<NotifySocket> {
  const dir = await mkdtemp(join(tmpdir(), 'netprobe-notify-'));
  const path = join(dir, 'notify');
  const child: ChildProcess = spawn('perl', ['-e', RECEIVER, path], { stdio: ['ignore', 'pipe', 'inherit'] });
  const messages: string[][] = [];
  const waiters = new Set<{ line: string; resolve: (m: string[]) => void }>();
  let buf = '';
  let bound!: () => void;
  const isBound = new Promise<void>((resolve) => { bound = resolve; });
  child.stdout!.setEncoding('utf8');
  child.stdout!.on('data', (chunk: string) => {
    buf += chunk;
    const lines = buf.split('\n');
    buf = lines.pop()!;
    for (const raw of lines) {
      if (raw === 'bound') { bound(); continue; }
      const msg = raw.replace(/\\(n|\\)/g, (_, c: string) => (c === 'n' ? '\n' : '\\')).split('\n');
      messages.push(msg);
      for (const w of [...waiters]) if (msg.includes(w.line)) { waiters.delete(w); w.resolve(msg); }
    }
  });
  await Promise.race([
    isBound,
    new Promise((_, reject) => child.once('exit', (code) => reject(new Error(`notify receiver exited ${code}`)))),
  ]);
  await stat(path);
  return {
    path,
    messages,
    waitFor(line, timeoutMs = 10_000) {
      const seen = messages.find((m) => m.includes(line));
      if (seen) return Promise.resolve(seen);
      return new Promise((resolve, reject) => {
        const w = { line, resolve: (m: string[]) => { clearTimeout(t); resolve(m); } };
        const t = setTimeout(() => {
          waiters.delete(w);
          reject(new Error(`no "${line}" within ${timeoutMs} ms; got ${JSON.stringify(messages)}`));
        }, timeoutMs);
        waiters.add(w);
      });
    },
    async close() {
      child.kill('SIGTERM');
      await rm(dir, { recursive: true, force: true });
    },
  };
}
