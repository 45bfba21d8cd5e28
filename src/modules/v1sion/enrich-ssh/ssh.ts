// One SSH connection to one device, over ssh2 (pure JavaScript), with every way it can go wrong turned into
// a clear SshProblem rather than a hang:
//
// - The host key is checked in ssh2's hostVerifier: no pin yet is trust on first use (the caller stores the
//   key after the login), a pin that differs refuses the connection before any credential is sent, with both
//   fingerprints.
// - The socket is ours, so the server's SSH ident is seen as it arrives: a port that sends nothing, or sends
//   its ident and then stalls (no key exchange), fails after `bannerMs`; ssh2 alone would only report a
//   'close' much later. A connection closed before the login without an error is a failure that says so.
// - Commands travel in one of three fixed ways (platforms/types.ts): a POSIX script on `sh -s`'s input with
//   section markers (one exec channel for all commands: about 3x faster than one channel per command, and
//   one session of the server's MaxSessions), a RouterOS console script with the same markers, or an
//   interactive CLI shell delimited by its prompt. The markers carry a random nonce, so output that merely
//   looks like a marker cannot end a section.
// - Output is capped per command and per device; a command that outruns its timeout is cut off; the whole
//   device has a deadline; the job's abort signal destroys the socket at once.
import { createHash, randomBytes } from 'node:crypto';
import { Socket } from 'node:net';
import { StringDecoder } from 'node:string_decoder';
import type { Client, ClientChannel, ConnectConfig } from 'ssh2';

/** ssh2 costs about 14 MiB of memory once loaded: it is loaded when a key or a device first needs it. */
let ssh2Module: Promise<typeof import('ssh2')> | undefined;
const ssh2 = () => (ssh2Module ??= import('ssh2').then((m) => ((m as { default?: typeof import('ssh2') }).default ?? m)));
import type { Platform, PlatformCommand, Section, Sections } from './platforms/index.js';

export interface SshLogin {
  host: string;
  port: number;
  username: string;
  password?: string | undefined;
  privateKey?: string | undefined;
  passphrase?: string | undefined;
}

export interface SshLimits {
  /** TCP connect, key exchange and login together (ssh2's readyTimeout). */
  connectMs: number;
  /** From the TCP connection: the server's SSH ident and the key exchange must be done within it. */
  bannerMs: number;
  /** One command. */
  commandMs: number;
  /** All output of one device, in bytes; one command gets at most a quarter of it (and at least 64 KiB). */
  maxBytes: number;
}

export interface HostKey { type: string; fingerprint: string }

export type SshProblemCode =
  | 'host_key_changed' | 'host_key_unpinned' | 'auth_failed' | 'refused' | 'unreachable' | 'timeout' | 'no_banner'
  | 'banner_stalled' | 'closed'
  | 'protocol' | 'channel_refused' | 'cancelled' | 'key_unusable';

export class SshProblem extends Error {
  constructor(readonly code: SshProblemCode, message: string, readonly details: Record<string, unknown> = {}) {
    super(message);
    this.name = 'SshProblem';
  }
}

/** The OpenSSH-style fingerprint of a host key blob: `SHA256:` and unpadded base64. */
export function fingerprintOf(keyBlob: Buffer): string {
  return `SHA256:${createHash('sha256').update(keyBlob).digest('base64').replace(/=+$/, '')}`;
}

/** The key type named at the start of an SSH public key blob (`ssh-ed25519`, `rsa-sha2-512`, ...). */
export function keyTypeOf(keyBlob: Buffer): string {
  if (keyBlob.length < 4) return 'unknown';
  const len = keyBlob.readUInt32BE(0);
  if (len <= 0 || len > 64 || keyBlob.length < 4 + len) return 'unknown';
  return keyBlob.subarray(4, 4 + len).toString('latin1');
}

const PKCS8 = /-----BEGIN (ENCRYPTED )?PRIVATE KEY-----/;

/** Why ssh2 cannot use a private key (PKCS#8, unparseable, wrong passphrase), or null when it can. */
export async function keyProblem(privateKey: string, passphrase?: string): Promise<string | null> {
  if (PKCS8.test(privateKey)) {
    return 'the private key is in PKCS#8 format ("BEGIN PRIVATE KEY"), which the SSH library (ssh2) does not read. ' +
      'Convert it to the OpenSSH format with `ssh-keygen -p -f <keyfile>` (or to PEM with `ssh-keygen -p -m PEM -f <keyfile>` ' +
      'for RSA and ECDSA keys) and store the converted key in the credential';
  }
  const parsed = (await ssh2()).utils.parseKey(privateKey, passphrase);
  if (parsed instanceof Error) {
    const m = parsed.message;
    if (/passphrase/i.test(m)) return passphrase ? 'the key\'s passphrase is wrong' : 'the key is encrypted: store its passphrase in the credential';
    return `the SSH library cannot read the private key (${m}); use an OpenSSH-format key (ssh-keygen writes one)`;
  }
  return null;
}

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
    if (platform.transport === 'shell') return this.runShell(platform);
    return this.runMarked(platform);
  }

  // ---- script and RouterOS: one exec channel, section markers ------------------------------------------

  private async runMarked(platform: Platform): Promise<{ sections: Sections; warnings: string[] }> {
    const { limits } = this.opts;
    const nonce = randomBytes(8).toString('hex');
    const perCommand = sectionCap(limits.maxBytes);
    let command: string;
    let stdin: string | null = null;
    if (platform.transport === 'script') {
      command = 'sh -s';
      stdin = posixScript(platform.commands, nonce, Math.max(1, Math.ceil(limits.commandMs / 1000)));
    } else {
      command = routerosScript(platform.commands, nonce);
    }
    const ch = await this.channel((cb) => this.client.exec(command, cb));
    const parser = new MarkerParser(nonce, perCommand);
    const warnings: string[] = [];
    await new Promise<void>((resolve) => {
      const dec = new StringDecoder('utf8');
      let total = 0;
      let stopped = false;
      const stop = (why: string) => { if (!stopped) { stopped = true; warnings.push(why); ch.close(); } };
      // The remote `timeout` ends a slow command; this is the backstop (and the only limit for RouterOS).
      const watchdog = setInterval(() => {
        const since = Date.now() - parser.lastMarkerAt;
        if (since > limits.commandMs + 2000) {
          stop(`${parser.current ?? 'the next command'} gave no result within ${seconds(limits.commandMs)}; the rest was not run`);
        }
      }, 250);
      ch.on('data', (d: Buffer) => {
        if (stopped) return;
        total += d.length;
        if (total > limits.maxBytes) { stop(`the output passed ${Math.round(limits.maxBytes / 1024)} KiB; the rest was not read`); return; }
        parser.push(dec.write(d));
      });
      ch.stderr.on('data', () => { /* stderr of `sh` itself; each command's is in its section */ });
      ch.on('close', () => { clearInterval(watchdog); parser.push(dec.end()); parser.end(); resolve(); });
      if (stdin !== null) ch.end(stdin);
      else ch.end();
    });
    if (!parser.done && !warnings.length) warnings.push('the device ended the command script early');
    return { sections: parser.sections(platform.commands), warnings };
  }

  // ---- shell: the CLI's prompt delimits each command's output --------------------------------------------

  private async runShell(platform: Platform): Promise<{ sections: Sections; warnings: string[] }> {
    const { limits } = this.opts;
    const ch = await this.channel((cb) => this.client.shell({ term: 'vt100', cols: 511, rows: 1000, width: 0, height: 0 }, cb));
    const cli = new Cli(ch, sectionCap(limits.maxBytes), limits.maxBytes);
    const sections: Sections = {};
    const warnings: string[] = [];
    try {
      const prompt = await cli.prompt(limits.commandMs);
      if (!prompt) {
        throw new SshProblem('protocol', `${this.login.host}:${this.login.port} showed no CLI prompt within ${seconds(limits.commandMs)}`);
      }
      for (const line of platform.preamble ?? []) await cli.run(line, prompt, limits.commandMs);
      for (const c of platform.commands) {
        const started = Date.now();
        const r = await cli.run(c.command, prompt, limits.commandMs);
        const ms = Date.now() - started;
        if (r.timedOut) {
          const error = `no prompt within ${seconds(limits.commandMs)}`;
          sections[c.name] = { text: r.text, ok: false, error, truncated: r.truncated, ms };
          if (!(await cli.interrupt(prompt))) { warnings.push(`${c.command} did not finish; the rest was not run`); break; }
          continue;
        }
        const error = cliError(r.text);
        sections[c.name] = { text: r.text, ok: !error, error, truncated: r.truncated, ms };
        if (cli.overLimit) { warnings.push(`the output passed ${Math.round(limits.maxBytes / 1024)} KiB; the rest was not run`); break; }
      }
      cli.send('exit\n');
    } finally {
      ch.close();
    }
    return { sections, warnings };
  }
}

/** A command's share of the device's output cap. */
function sectionCap(maxBytes: number): number {
  return Math.max(64 * 1024, Math.floor(maxBytes / 4));
}

const WORD = /^[A-Za-z0-9_./:=+-]+$/;

/**
 * The fixed POSIX script of a `script` platform: for each command, a begin marker, its stdout, its exit
 * status, the first 1,000 characters of its stderr and an end marker. Every word is a constant of the
 * platform file (checked here), so nothing needs quoting and nothing from a request can reach it.
 */
export function posixScript(commands: readonly PlatformCommand[], nonce: string, timeoutS: number): string {
  if (!/^[0-9a-f]{16}$/.test(nonce)) throw new Error('bad nonce');
  const lines = [
    `N=${nonce}`,
    `T=${Math.floor(timeoutS)}`,
    'LC_ALL=C; export LC_ALL',
    'PATH="$PATH:/usr/sbin:/sbin:/usr/bin:/bin"; export PATH',
    'if command -v timeout >/dev/null 2>&1; then t() { timeout "$T" "$@"; }; else t() { "$@"; }; fi',
    's() {',
    '  n=$1; shift',
    '  printf \'\\n@@NP %s B %s\\n\' "$N" "$n"',
    '  { e=$(t "$@" 2>&1 1>&3 3>&- </dev/null); r=$?; } 3>&1',
    '  printf \'\\n@@NP %s R %s %s\\n\' "$N" "$n" "$r"',
    '  printf \'%.1000s\' "$e"',
    '  printf \'\\n@@NP %s E %s\\n\' "$N" "$n"',
    '}',
  ];
  for (const c of commands) {
    const argv = c.argv ?? [];
    if (!/^\w+$/.test(c.name) || !argv.length || !argv.every((w) => WORD.test(w))) throw new Error(`command ${c.name} is not a fixed word list`);
    lines.push(`s ${c.name} ${argv.join(' ')}`);
  }
  lines.push('printf \'\\n@@NP %s Z\\n\' "$N"');
  return lines.join('\n') + '\n';
}

/** The fixed RouterOS console script: each command in its own block, `:do` so a failing one does not end the rest. */
export function routerosScript(commands: readonly PlatformCommand[], nonce: string): string {
  if (!/^[0-9a-f]{16}$/.test(nonce)) throw new Error('bad nonce');
  const lines = commands.map((c) => {
    if (!/^\w+$/.test(c.name) || !/^\/[a-z0-9 -]+$/.test(c.command)) throw new Error(`command ${c.name} is not a fixed print command`);
    return `{:local r 0; :put "@@NP ${nonce} B ${c.name}"; :do {${c.command}} on-error={:set r 1}; ` +
      `:put "@@NP ${nonce} R ${c.name} $r"; :put "@@NP ${nonce} E ${c.name}"}`;
  });
  lines.push(`:put "@@NP ${nonce} Z"`);
  return lines.join('\n');
}

interface Building {
  out: string[]; outBytes: number; err: string[]; rc: number | null; truncated: boolean; start: number; end: number | null;
}

/** Splits the marked output stream into sections as it arrives (bounded memory per section). */
export class MarkerParser {
  current: string | null = null;
  lastMarkerAt = Date.now();
  done = false;
  private readonly found = new Map<string, Building>();
  private part: 'out' | 'err' | null = null;
  private pending = '';
  private readonly prefix: string;

  constructor(nonce: string, private readonly sectionMax: number) {
    this.prefix = `@@NP ${nonce} `;
  }

  push(chunk: string): void {
    if (!chunk) return;
    this.pending += chunk.replace(/\r/g, '');
    let nl: number;
    while ((nl = this.pending.indexOf('\n')) >= 0) {
      this.line(this.pending.slice(0, nl));
      this.pending = this.pending.slice(nl + 1);
    }
    // A long line without a newline yet (one-line JSON): keep only what the section may hold.
    if (this.pending.length > this.sectionMax && !this.pending.startsWith('@@NP')) {
      this.text(this.pending);
      this.pending = '';
      this.joinNext = true;
    }
  }

  end(): void {
    if (this.pending) this.line(this.pending);
    this.pending = '';
  }

  /** The previous piece of a line was flushed without its newline: the next text continues it. */
  private joinNext = false;

  private line(l: string): void {
    if (l.startsWith(this.prefix)) {
      const [kind, name, rc] = l.slice(this.prefix.length).trim().split(/\s+/);
      this.lastMarkerAt = Date.now();
      this.joinNext = false;
      if (kind === 'Z') { this.done = true; this.current = null; this.part = null; return; }
      if (!name) return;
      if (kind === 'B') {
        this.current = name;
        this.part = 'out';
        this.found.set(name, { out: [], outBytes: 0, err: [], rc: null, truncated: false, start: Date.now(), end: null });
      } else if (kind === 'R' && this.current === name) {
        const b = this.found.get(name)!;
        b.rc = Number(rc);
        this.part = 'err';
      } else if (kind === 'E' && this.current === name) {
        this.found.get(name)!.end = Date.now();
        this.current = null;
        this.part = null;
      }
      return;
    }
    this.text(l, true);
  }

  private text(t: string, wholeLine = false): void {
    if (!this.current || !this.part) return;
    const b = this.found.get(this.current)!;
    const list = this.part === 'out' ? b.out : b.err;
    if (this.part === 'err') { if (list.join('\n').length < 2000) list.push(t); return; }
    if (b.outBytes >= this.sectionMax) { b.truncated = true; return; }
    const room = this.sectionMax - b.outBytes;
    const piece = t.length > room ? t.slice(0, room) : t;
    if (piece.length < t.length) b.truncated = true;
    if (this.joinNext && list.length) list[list.length - 1] += piece;
    else list.push(piece);
    b.outBytes += piece.length + 1;
    this.joinNext = !wholeLine;
  }

  /** The sections, for the given command list; one that never began is missing (not run). */
  sections(commands: readonly PlatformCommand[]): Sections {
    const out: Sections = {};
    for (const c of commands) {
      const b = this.found.get(c.name);
      if (!b) continue;
      // The newline printed before each marker ends the output's last line: one empty line too many.
      const trim = (xs: string[]) => (xs.length && xs[xs.length - 1] === '' ? xs.slice(0, -1) : xs);
      const text = trim(b.out).join('\n');
      const err = trim(b.err).join('\n').trim();
      const finished = b.end !== null;
      let error: string | null = null;
      if (!finished) error = 'did not finish';
      else if (b.rc === 124) error = 'timed out';
      else if (b.rc === 127) error = `not found${err ? `: ${firstLine(err)}` : ''}`;
      else if (b.rc !== 0) error = err ? firstLine(err) : `exit status ${b.rc}`;
      const s: Section = { text, ok: error === null, error, truncated: b.truncated, ms: b.end !== null ? b.end - b.start : null };
      out[c.name] = s;
    }
    return out;
  }
}

const firstLine = (s: string) => s.split('\n').map((l) => l.trim()).find(Boolean)?.slice(0, 300) ?? s.slice(0, 300);

/** Terminal noise out: escape sequences, carriage returns, backspaced characters. */
export function cleanTerminal(s: string): string {
  /* eslint-disable no-control-regex -- terminal escape sequences and backspaces are what this removes */
  let t = s.replace(/\x1b\[[0-9;?]*[ -/]*[@-~]/g, '').replace(/\x1b[()][A-Za-z0-9]/g, '').replace(/\x1b[=>78DEHM]/g, '').replace(/\r/g, '');
  while (/[^\n\x08]\x08/.test(t)) t = t.replace(/[^\n\x08]\x08/g, '');
  return t.replace(/\x08/g, '');
  /* eslint-enable no-control-regex */
}

const PAGER = /(-+\s*More\s*-+|<--- More --->|--More--|-- MORE --.*|Press any key to continue.*)\s*$/i;
const PROMPT = /^[\w.@:/()[\]{}~ -]{1,100}[#>$%]$/;

/** The device's CLI error for a command it did not take (IOS `% Invalid input`, Junos `unknown command`), else null. */
export function cliError(text: string): string | null {
  const m = /^\s*(% ?(?:Invalid|Incomplete|Ambiguous|Unknown|Unrecognized).*|.*\bunknown command\b.*|.*\bsyntax error\b.*|Command fail\..*|Unknown action.*|command parse error.*)$/im
    .exec(text);
  return m ? m[1]!.trim().slice(0, 300) : null;
}

/** An interactive CLI on a shell channel. */
class Cli {
  private raw = '';
  private total = 0;
  overLimit = false;
  private wake: (() => void) | null = null;
  private ended = false;

  constructor(private readonly ch: ClientChannel, private readonly sectionMax: number, private readonly maxBytes: number) {
    const dec = new StringDecoder('utf8');
    ch.on('data', (d: Buffer) => {
      this.total += d.length;
      if (this.total > this.maxBytes) this.overLimit = true;
      this.raw += dec.write(d);
      // Keep a command's head and its tail (where the prompt appears), not all of an endless output.
      if (this.raw.length > this.sectionMax + 4096) {
        this.raw = this.raw.slice(0, this.sectionMax) + this.raw.slice(-4096);
        this.cut = true;
      }
      const pager = PAGER.exec(cleanTerminal(this.raw.slice(-200)));
      if (pager) { this.send(' '); this.raw = this.raw.replace(/(-+\s*More\s*-+|<--- More --->|--More--|-- MORE --[^\n]*|Press any key to continue[^\n]*)\s*$/i, ''); }
      this.wake?.();
    });
    ch.stderr?.on('data', () => { /* a CLI writes everything to stdout */ });
    ch.on('close', () => { this.ended = true; this.wake?.(); });
  }

  private cut = false;

  send(text: string): void {
    if (!this.ended) this.ch.write(text);
  }

  private async waitFor(test: () => boolean, ms: number, quietMs = 0): Promise<boolean> {
    const deadline = Date.now() + ms;
    while (Date.now() < deadline) {
      if (test()) {
        if (!quietMs) return true;
        const before = this.raw.length;
        await sleep(quietMs);
        if (this.raw.length === before && test()) return true;
        continue;
      }
      if (this.ended) return false;
      await new Promise<void>((r) => {
        const t = setTimeout(r, Math.min(200, deadline - Date.now()));
        this.wake = () => { clearTimeout(t); r(); };
      });
      this.wake = null;
    }
    return false;
  }

  private lastLine(): string {
    const lines = cleanTerminal(this.raw).split('\n');
    return lines[lines.length - 1]!.trimEnd();
  }

  /** The prompt the CLI shows once it is ready (a fresh line is asked for), or null. */
  async prompt(ms: number): Promise<string | null> {
    this.send('\n');
    const ok = await this.waitFor(() => PROMPT.test(this.lastLine()), ms, 300);
    const prompt = ok ? this.lastLine() : null;
    this.raw = '';
    return prompt;
  }

  /** Sends one command and waits for the prompt; the output is what came between the echo and the prompt. */
  async run(command: string, prompt: string, ms: number): Promise<{ text: string; timedOut: boolean; truncated: boolean }> {
    this.raw = '';
    this.cut = false;
    this.send(`${command}\n`);
    const done = () => {
      const lines = cleanTerminal(this.raw).split('\n');
      return lines.length >= 2 && lines[lines.length - 1]!.trimEnd() === prompt;
    };
    const ok = await this.waitFor(done, ms);
    const lines = cleanTerminal(this.raw).split('\n');
    this.raw = '';
    if (ok) lines.pop(); // the prompt
    lines.shift(); // the echoed command
    while (lines.length && /^\s*(\{[^}]*\})?\s*$/.test(lines[lines.length - 1]!)) lines.pop(); // Junos `{master:0}`, blank lines
    const text = lines.join('\n');
    const truncated = this.cut || text.length > this.sectionMax;
    return { text: truncated ? text.slice(0, this.sectionMax) : text, timedOut: !ok, truncated };
  }

  /** Ctrl-C after a command that did not finish: whether the prompt came back. */
  async interrupt(prompt: string): Promise<boolean> {
    this.raw = '';
    this.send('\x03');
    return this.waitFor(() => this.lastLine() === prompt, 2000);
  }
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
const seconds = (ms: number) => `${Math.round(ms / 100) / 10} s`;
const printable = (s: string) => s.slice(0, 64).replace(/[^\x20-\x7e]/g, '.');

/** ssh2's errors as problems that say what happened, with where. */
function problemOf(err: Error & { level?: string; code?: string }, where: string, login: SshLogin, limits: SshLimits,
  ident: string | null): SshProblem {
  const code = err.code ?? '';
  if (err.level === 'client-authentication') {
    const how = login.privateKey !== undefined ? 'key' : 'password';
    return new SshProblem('auth_failed', `${where} refused the login of user "${login.username}" with the stored ${how}`);
  }
  if (err.level === 'client-socket') {
    if (code === 'ECONNREFUSED') {
      return new SshProblem('refused', `${where} refused the connection (nothing listens on port ${login.port})`);
    }
    if (code === 'EHOSTUNREACH' || code === 'ENETUNREACH') return new SshProblem('unreachable', `${where} is unreachable (${code})`);
    if (code === 'ETIMEDOUT') return new SshProblem('timeout', `${where} did not answer (${code})`);
    if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return new SshProblem('unreachable', `${login.host} does not resolve (${code})`);
    if (code === 'ECONNRESET' || code === 'EPIPE') {
      return new SshProblem('closed', `${where} reset the connection${ident ? ` after its banner "${ident}"` : ''}`);
    }
    return new SshProblem('unreachable', `${where}: ${err.message}`);
  }
  if (err.level === 'client-timeout') {
    return new SshProblem('timeout', `${where} did not complete the login within ${seconds(limits.connectMs)}`);
  }
  if (/identification|protocol version/i.test(err.message)) {
    return new SshProblem('protocol', `${where} does not speak SSH (${err.message})`);
  }
  if (err.level === 'handshake') {
    return new SshProblem('protocol', `The SSH key exchange with ${where} failed: ${err.message}`);
  }
  return new SshProblem('protocol', `${where}: ${err.message}`);
}
