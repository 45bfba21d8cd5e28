// One SSH connection to one device, over ssh2, with every way it can go wrong turned into a clear SshProblem
// rather than a hang:
//
// - The host key is checked in ssh2's hostVerifier: no pin yet is trust on first use (the caller stores the
//   key after the login) unless `firstKey: 'refuse'` (host_key_unpinned); a pin that differs refuses the
//   connection before any credential is sent, with both fingerprints (host_key_changed).
// - The socket is ours, so the server's SSH ident is seen as it arrives: a port that sends nothing, or sends
//   its ident and then stalls (no key exchange), fails after `bannerMs`; ssh2 alone would only report a
//   'close' much later. A connection closed before the login without an error is a failure that says so.
// - The session opens the channels; the commands' transports are script.ts (script, RouterOS) and cli.ts
//   (interactive shell). The whole device has a deadline; the job's abort signal destroys the socket at once.
import { Socket } from 'node:net';
import { StringDecoder } from 'node:string_decoder';
import type { Client, ClientChannel, ConnectConfig } from 'ssh2';
import type { Platform, Sections } from '../platforms/index.js';
import { runShell } from './cli.js';
import { fingerprintOf, keyTypeOf } from './keys.js';
import { printable, problemOf, seconds, SshProblem } from './problems.js';
import { runMarked } from './script.js';
import { ssh2 } from './ssh2.js';
import type { HostKey, SshLimits, SshLogin } from './types.js';

/** Host key check: null pin = trust on first use; a different key is refused before any credential is sent. */
interface Verify { pinned: string | null; seen: HostKey | null; mismatch: boolean; unpinned: boolean }

export interface OpenOptions {
  limits: SshLimits;
  pinned: string | null;
  /**
   * With no pin: `trust` pins whatever key the host presents (trust on first use); `refuse` stops after the key
   * exchange, before any credential is sent (a password goes only to a host whose key an administrator pinned).
   */
  firstKey?: 'trust' | 'refuse';
  signal: AbortSignal;
}

export class SshSession {
  /** The server's SSH ident line (`SSH-2.0-OpenSSH_9.2p1 Debian-2+deb12u3`). */
  ident: string | null = null;
  hostKey: HostKey | null = null;
  private closed = false;
  private readonly onAbort = () => this.destroy();

  private constructor(private readonly client: Client, readonly login: SshLogin, private readonly opts: OpenOptions) {}

  get isClosed(): boolean { return this.closed; }

  /** Connects and logs in; rejects with an SshProblem. */
  static async open(login: SshLogin, opts: OpenOptions): Promise<SshSession> {
    const client = new (await ssh2()).Client();
    const session = new SshSession(client, login, opts);
    return session.connect();
  }

  private connect(): Promise<SshSession> {
    const { login, opts } = this;
    const where = `${login.host}:${login.port}`;
    const verify: Verify = { pinned: opts.pinned, seen: null, mismatch: false, unpinned: false };
    return new Promise<SshSession>((resolve, reject) => {
      let settled = false;
      let handshook = false;
      let lastError: Error | null = null;
      const sock = new Socket();
      // Small interactive writes (a CLI's prompt, a command line) must not wait for delayed ACKs (40 ms each).
      sock.setNoDelay(true);
      const fail = (p: SshProblem) => {
        if (settled) return;
        settled = true;
        clearTimeout(stall);
        opts.signal.removeEventListener('abort', abort);
        this.closed = true;
        sock.destroy();
        this.client.destroy();
        reject(p);
      };
      const abort = () => fail(new SshProblem('cancelled', 'cancelled'));
      if (opts.signal.aborted) { abort(); return; }
      opts.signal.addEventListener('abort', abort, { once: true });

      // The ident arrives on our socket before ssh2 parses it; keep it for messages and platform detection.
      let head = '';
      const onIdent = (chunk: Buffer) => {
        head += chunk.toString('latin1');
        const line = head.split('\n').map((l) => l.replace(/\r$/, '')).find((l, i, all) => l.startsWith('SSH-') && i < all.length - 1);
        if (line) { this.ident = line.slice(0, 255); sock.off('data', onIdent); }
        else if (head.length > 8192) sock.off('data', onIdent);
      };
      sock.on('data', onIdent);
      const stall = setTimeout(() => {
        if (handshook) return;
        if (this.ident) {
          fail(new SshProblem('banner_stalled', `${where} sent its SSH banner "${this.ident}" and then stalled: no key exchange ` +
            `within ${seconds(opts.limits.bannerMs)}`, { banner: this.ident }));
        } else if (sock.connecting) {
          fail(new SshProblem('timeout', `${where} did not accept a TCP connection within ${seconds(opts.limits.bannerMs)}`));
        } else {
          fail(new SshProblem('no_banner', `${where} accepted the connection but sent no SSH banner within ` +
            `${seconds(opts.limits.bannerMs)} (is it an SSH port?)`, { first_bytes: printable(head) }));
        }
      }, opts.limits.bannerMs);

      this.client.on('handshake', () => { handshook = true; clearTimeout(stall); });
      this.client.on('ready', () => {
        if (settled) return;
        settled = true;
        clearTimeout(stall);
        this.hostKey = verify.seen;
        opts.signal.removeEventListener('abort', abort);
        opts.signal.addEventListener('abort', this.onAbort, { once: true });
        resolve(this);
      });
      this.client.on('error', (err: Error & { level?: string; code?: string }) => {
        lastError = err;
        if (settled) return;
        if (verify.mismatch && verify.seen) {
          fail(new SshProblem('host_key_changed', `The host key of ${where} has changed: pinned ${verify.pinned}, presented ` +
            `${verify.seen.fingerprint} (${verify.seen.type}). Not connecting. If the device was really replaced or reinstalled, ` +
            'an administrator clears the pin (DELETE /api/v1sion/ssh-targets/:id/host-key) and the next login pins the new key',
          { pinned: verify.pinned, presented: verify.seen.fingerprint, presented_type: verify.seen.type }));
          return;
        }
        if (verify.unpinned && verify.seen) {
          fail(new SshProblem('host_key_unpinned', `The host key of ${where} (${verify.seen.fingerprint}, ${verify.seen.type}) is not ` +
            'pinned, and a password is sent only to a host whose key an administrator pinned. Not logging in. An administrator ' +
            'compares the fingerprint with the device\'s own and pins it (PUT /api/v1sion/ssh-targets/:id/host-key), or starts ' +
            'the enrichment, which pins the key it meets',
          { presented: verify.seen.fingerprint, presented_type: verify.seen.type }));
          return;
        }
        fail(problemOf(err, where, login, opts.limits, this.ident));
      });
      this.client.on('close', () => {
        this.closed = true;
        opts.signal.removeEventListener('abort', this.onAbort);
        if (settled) return;
        if (lastError) return; // the error handler has failed it already
        fail(new SshProblem('closed', this.ident
          ? `${where} closed the connection before the login completed (after its banner "${this.ident}")`
          : `${where} closed the connection without sending an SSH banner`, this.ident ? { banner: this.ident } : {}));
      });

      const cfg: ConnectConfig = {
        sock,
        host: login.host,
        port: login.port,
        username: login.username,
        readyTimeout: opts.limits.connectMs,
        keepaliveInterval: 0,
        hostVerifier: (key: Buffer) => {
          const seen = { type: keyTypeOf(key), fingerprint: fingerprintOf(key) };
          verify.seen = seen;
          if (verify.pinned && verify.pinned !== seen.fingerprint) { verify.mismatch = true; return false; }
          if (!verify.pinned && opts.firstKey === 'refuse') { verify.unpinned = true; return false; }
          return true;
        },
      };
      if (login.privateKey !== undefined) {
        cfg.privateKey = login.privateKey;
        if (login.passphrase) cfg.passphrase = login.passphrase;
      } else if (login.password !== undefined) {
        cfg.password = login.password;
        // Network devices often offer only keyboard-interactive: answer its prompts with the password.
        cfg.tryKeyboard = true;
        this.client.on('keyboard-interactive', (_name, _instr, _lang, prompts, finish) => {
          finish(prompts.map(() => login.password ?? ''));
        });
      }
      sock.once('error', () => { /* reported through ssh2's 'error' (level client-socket) */ });
      try {
        sock.connect(login.port, login.host); // first: ssh2 then waits for its 'connect'
        this.client.connect(cfg);
      } catch (e) {
        fail(new SshProblem('key_unusable', `Cannot log in with this credential: ${(e as Error).message}`));
      }
    });
  }

  /** Ends the connection now (idempotent). */
  destroy(): void {
    this.closed = true;
    this.opts.signal.removeEventListener('abort', this.onAbort);
    try { this.client.end(); } catch { /* already gone */ }
    this.client.destroy();
  }

  private channel(open: (cb: (err: Error | undefined, ch: ClientChannel) => void) => void): Promise<ClientChannel> {
    return new Promise((resolve, reject) => {
      if (this.closed) { reject(this.gone()); return; }
      try {
        open((err, ch) => {
          if (err) {
            reject(new SshProblem('channel_refused', `${this.login.host}:${this.login.port} refused a session channel (${err.message}); ` +
              'its limit of sessions per connection or of logins may be reached'));
          } else resolve(ch);
        });
      } catch (e) {
        reject(this.closed ? this.gone() : new SshProblem('closed', (e as Error).message));
      }
    });
  }

  private gone(): SshProblem {
    return this.opts.signal.aborted ? new SshProblem('cancelled', 'cancelled')
      : new SshProblem('closed', `${this.login.host}:${this.login.port} closed the connection`);
  }

  /** One command on its own exec channel (platform detection): its output, capped, within `timeoutMs`. */
  async exec(command: string, timeoutMs: number, maxBytes = 64 * 1024):
    Promise<{ stdout: string; code: number | null; timedOut: boolean }> {
    const ch = await this.channel((cb) => this.client.exec(command, cb));
    return new Promise((resolve) => {
      let out = '';
      let timedOut = false;
      const dec = new StringDecoder('utf8');
      const timer = setTimeout(() => { timedOut = true; ch.close(); }, timeoutMs);
      ch.on('data', (d: Buffer) => { if (out.length < maxBytes) out += dec.write(d).slice(0, maxBytes - out.length); });
      ch.stderr.on('data', (d: Buffer) => { if (out.length < maxBytes) out += d.toString('utf8').slice(0, maxBytes - out.length); });
      ch.on('close', (code: number | null) => {
        clearTimeout(timer);
        resolve({ stdout: out, code: typeof code === 'number' ? code : null, timedOut });
      });
      ch.end();
    });
  }

  /** The platform's commands through its transport; what each command gave, by section name. */
  run(platform: Platform): Promise<{ sections: Sections; warnings: string[] }> {
    const { limits } = this.opts;
    if (platform.transport === 'shell') {
      return runShell(platform, limits, `${this.login.host}:${this.login.port}`,
        (pty) => this.channel((cb) => this.client.shell(pty, cb)));
    }
    return runMarked(platform, limits, (command) => this.channel((cb) => this.client.exec(command, cb)));
  }
}
