// A network device's CLI over SSH on loopback, for the shell transport of SSH enrichment: no Cisco device can
// run here. ssh2's own server with a Cisco-like ident (`SSH-2.0-Cisco-1.25`), password login, and a shell that
// echoes what is typed, shows `<hostname>#`, answers the commands it has samples for, says
// `% Invalid input detected at '^' marker.` to the others, and pages long output with ` --More-- ` (a space
// goes on) until `terminal length 0`, as IOS does. `restart()` brings it back on the same port with a new host
// key (a replaced device). Only exec is refused: IOS would run one command and close.
import { generateKeyPairSync } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import ssh2 from 'ssh2';
import { fingerprintOf } from '../../src/modules/v1sion/enrich-ssh/ssh.js';

export interface FakeCliOptions {
  username: string;
  password: string;
  hostname: string;
  /** Command line -> output (LF line ends; sent with CRLF). */
  outputs: Record<string, string>;
  /** Keep paging even after `terminal length 0` (a device whose pager the collector must answer). */
  ignoreTerminalLength?: boolean;
  pageLength?: number;
  ident?: string;
}

export interface FakeCli {
  host: '127.0.0.1';
  port: number;
  /** The host key's SHA256 fingerprint as ssh-keygen prints it. */
  fingerprint: string;
  logins: number;
  /** Connections accepted (a refused host key still connects first). */
  connections: number;
  /** Every password offered, right or wrong (a stored secret must reach only the hosts its scope allows). */
  passwords: string[];
  /** Every command line received, in order. */
  commands: string[];
  /** Pager prompts answered. */
  pages: number;
  restart(): Promise<void>;
  close(): Promise<void>;
}

/** A fresh ECDSA host key in SEC1 PEM (ssh2 reads it; it rejects PKCS#8). */
function newHostKey(): string {
  return generateKeyPairSync('ec', { namedCurve: 'prime256v1' }).privateKey.export({ type: 'sec1', format: 'pem' }).toString();
}

function fingerprintOfPem(pem: string): string {
  const k = ssh2.utils.parseKey(pem);
  if (k instanceof Error) throw k;
  return fingerprintOf((Array.isArray(k) ? k[0]! : k).getPublicSSH());
}

export async function startFakeCli(opts: FakeCliOptions): Promise<FakeCli> {
  let server: ssh2.Server | null = null;
  let hostKey = newHostKey();
  const clients = new Set<ssh2.Connection>();
  const state: FakeCli = {
    host: '127.0.0.1', port: 0, fingerprint: fingerprintOfPem(hostKey), logins: 0, connections: 0, passwords: [], commands: [], pages: 0,
    async restart() {
      await stop();
      hostKey = newHostKey();
      state.fingerprint = fingerprintOfPem(hostKey);
      await listen(state.port);
    },
    async close() { await stop(); },
  };

  const stop = () => new Promise<void>((resolve) => {
    for (const c of clients) c.end();
    clients.clear();
    if (!server) { resolve(); return; }
    server.close(() => resolve());
    server = null;
  });

  const shell = (stream: ssh2.ServerChannel) => {
    let line = '';
    let paging = true;
    let waitingForSpace: (() => void) | null = null;
    const promptText = () => `\r\n${opts.hostname}#`;
    // Each answer goes out in one write, as a device's buffered output does.
    const send = (head: string, text: string) => new Promise<void>((resolve) => {
      const lines = text.replace(/\n$/, '').split('\n');
      const page = opts.pageLength ?? 24;
      let i = 0;
      const more = (lead: string) => {
        const chunk = (paging || opts.ignoreTerminalLength) ? lines.slice(i, i + page) : lines.slice(i);
        i += chunk.length;
        const body = lead + chunk.join('\r\n') + '\r\n';
        if (i >= lines.length) { stream.write(body + promptText()); resolve(); return; }
        stream.write(body + ' --More-- ');
        waitingForSpace = () => {
          state.pages++;
          more('\b'.repeat(10) + ' '.repeat(10) + '\b'.repeat(10));
        };
      };
      more(head);
    });
    const run = async (cmd: string) => {
      state.commands.push(cmd);
      if (cmd === 'exit') { stream.write('\r\n'); stream.exit(0); stream.end(); return; }
      if (cmd === 'terminal length 0') paging = false;
      if (opts.outputs[cmd] !== undefined) { await send('\r\n', opts.outputs[cmd]!); return; }
      const known = cmd === '' || cmd === 'terminal length 0' || cmd === 'terminal width 511';
      stream.write('\r\n' + (known ? '' : '                 ^\r\n% Invalid input detected at \'^\' marker.\r\n') + promptText());
    };
    let busy = Promise.resolve();
    stream.on('data', (d: Buffer) => {
      let echo = '';
      for (const ch of d.toString('latin1')) {
        if (waitingForSpace) {
          if (ch === ' ') { const go = waitingForSpace; waitingForSpace = null; go(); }
          continue;
        }
        if (ch === '\r' || ch === '\n') {
          if (echo) { stream.write(echo); echo = ''; }
          const cmd = line.trim();
          line = '';
          busy = busy.then(() => run(cmd));
        } else if (ch === '\x03') {
          line = '';
          stream.write('^C' + promptText());
        } else {
          line += ch;
          echo += ch; // echoed as a terminal does, what came in one piece in one piece
        }
      }
      if (echo) stream.write(echo);
    });
    stream.write(`\r\n${opts.hostname} (netprobe test CLI)\r\n` + promptText());
  };

  const listen = (port: number) => new Promise<void>((resolve, reject) => {
    const srv = new ssh2.Server({ hostKeys: [hostKey], ident: opts.ident ?? 'Cisco-1.25' }, (client) => {
      clients.add(client);
      state.connections++;
      client.on('close', () => clients.delete(client));
      client.on('error', () => { /* the collector may end a connection at any point */ });
      client.on('authentication', (ctx) => {
        if (ctx.method === 'password') state.passwords.push(ctx.password);
        if (ctx.method === 'password' && ctx.username === opts.username && ctx.password === opts.password) { state.logins++; ctx.accept(); return; }
        ctx.reject(['password']);
      });
      client.on('session', (accept) => {
        const session = accept();
        session.on('pty', (ok) => ok?.());
        session.on('shell', (ok) => shell(ok()));
        session.on('exec', (_ok, reject) => reject?.());
      });
    });
    // TCP_NODELAY, as OpenSSH and network devices set it for interactive sessions (ssh2's server does not
    // expose its sockets: this is its inner net.Server). Without it every answer waits 40 ms for a delayed ACK.
    (srv as unknown as { _srv: import('node:net').Server })._srv.on('connection', (so) => so.setNoDelay(true));
    srv.once('error', reject);
    srv.listen(port, '127.0.0.1', () => {
      state.port = (srv.address() as AddressInfo).port;
      server = srv;
      resolve();
    });
  });

  await listen(0);
  return state;
}
