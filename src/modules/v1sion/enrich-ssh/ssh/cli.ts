// The `shell` transport: an interactive CLI (network devices) on a shell channel, each command's output
// delimited by the device's prompt; pagers (`--More--`) are answered, terminal noise is removed, a command
// that does not finish is interrupted with Ctrl-C. Output is capped per command and per device.
import { StringDecoder } from 'node:string_decoder';
import type { ClientChannel, PseudoTtyOptions } from 'ssh2';
import type { Platform, Sections } from '../platforms/index.js';
import { seconds, SshProblem } from './problems.js';
import { sectionCap, type SshLimits } from './types.js';

/** The platform's commands typed one by one into its CLI on a shell channel (`openShell` opens it). */
export async function runShell(platform: Platform, limits: SshLimits, where: string,
  openShell: (pty: PseudoTtyOptions) => Promise<ClientChannel>): Promise<{ sections: Sections; warnings: string[] }> {
  const ch = await openShell({ term: 'vt100', cols: 511, rows: 1000, width: 0, height: 0 });
  const cli = new Cli(ch, sectionCap(limits.maxBytes), limits.maxBytes);
  const sections: Sections = {};
  const warnings: string[] = [];
  try {
    const prompt = await cli.prompt(limits.commandMs);
    if (!prompt) {
      throw new SshProblem('protocol', `${where} showed no CLI prompt within ${seconds(limits.commandMs)}`);
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
