// The `script` and `routeros` transports: every command of a platform in one fixed script on one exec channel
// (about 3x faster than one channel per command, and one session of the server's MaxSessions), each command's
// output between section markers that carry a random nonce, so output that merely looks like a marker cannot
// end a section. Output is capped per command and per device; a remote `timeout` and a watchdog end slow ones.
import { randomBytes } from 'node:crypto';
import { StringDecoder } from 'node:string_decoder';
import type { ClientChannel } from 'ssh2';
import type { Platform, PlatformCommand, Section, Sections } from '../platforms/index.js';
import { seconds } from './problems.js';
import { sectionCap, type SshLimits } from './types.js';

/** The platform's commands as one marked script on one exec channel (`openExec` opens it); each command's section. */
export async function runMarked(platform: Platform, limits: SshLimits, openExec: (command: string) => Promise<ClientChannel>):
  Promise<{ sections: Sections; warnings: string[] }> {
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
  const ch = await openExec(command);
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
