// Tailscale through its CLI with --json (its LocalAPI is officially unstable). What the program does, from
// tailscale's cmd/tailscale/cli (1.103):
//   - `status --json`: the Status struct indented with two spaces, no trailing newline, exit 0 in every
//     backend state (NoState, NeedsLogin, NeedsMachineAuth, Stopped, Starting, Running);
//   - `up --json`: for an interactive login a first block {AuthURL, QR, BackendState} indented with tabs,
//     then it blocks until the login is done and prints {"BackendState": "Running"} (two spaces); with no
//     --timeout it waits for ever, so every `up` here carries one; `--auth-key file:<path>` keeps the key
//     out of argv;
//   - `down`: "Tailscale was already stopped." on stderr, exit 0, when it is;
//   - errors: a message on stderr, exit 1 ("failed to connect to local tailscaled", "Access denied: ...").
import { HttpError } from '../../../core/errors.js';
import { run, type RunResult } from '../../../core/exec.js';
import { withInstallHint } from './install-hints.js';
import { firstLine } from './zerotier-cli.js';

export interface TailscaleSettings { program: string; timeoutMs: number }

export interface TailscaleStatus {
  backend_state: string;
  auth_url: string;
  tailscale_ips: string[];
  hostname: string;
  dns_name: string;
  online: boolean;
  tailnet: string | null;
  magic_dns_suffix: string;
  health: string[];
  version: string;
}

export interface UpOptions {
  /** A file holding the auth key (0600, removed by the caller afterwards). */
  authKeyFile?: string;
  hostname?: string;
  reset?: boolean;
  timeoutSeconds: number;
  signal?: AbortSignal;
}

/** What `up --json` printed: the blocks in order. */
export interface UpOutput { result: RunResult; blocks: Record<string, unknown>[] }

export class TailscaleCli {
  constructor(private readonly settings: () => TailscaleSettings) {}

  async status(signal?: AbortSignal): Promise<TailscaleStatus> {
    const r = await this.call(['status', '--json'], { signal });
    if (r.code !== 0 || r.timed_out) throw tailscaleFailure('status', r, this.settings().timeoutMs);
    let j: Record<string, unknown>;
    try { j = JSON.parse(r.stdout) as Record<string, unknown>; } catch {
      throw new HttpError(502, 'tailscale_bad_output', 'tailscale status --json printed something this service cannot read');
    }
    const self = (j.Self && typeof j.Self === 'object' ? j.Self : {}) as Record<string, unknown>;
    const tailnet = (j.CurrentTailnet && typeof j.CurrentTailnet === 'object' ? j.CurrentTailnet : null) as Record<string, unknown> | null;
    return {
      backend_state: str(j.BackendState),
      auth_url: str(j.AuthURL),
      tailscale_ips: strings(j.TailscaleIPs),
      hostname: str(self.HostName),
      dns_name: str(self.DNSName),
      online: self.Online === true,
      tailnet: tailnet ? str(tailnet.Name) : null,
      magic_dns_suffix: str(j.MagicDNSSuffix),
      health: strings(j.Health),
      version: str(j.Version),
    };
  }

  /** `tailscale up --json --timeout=<n>s [...]`; resolves when it exits (its own timeout bounds it). */
  async up(o: UpOptions): Promise<UpOutput> {
    const args = ['up', '--json', `--timeout=${o.timeoutSeconds}s`];
    if (o.authKeyFile) args.push('--auth-key', `file:${o.authKeyFile}`);
    if (o.hostname !== undefined) args.push(`--hostname=${o.hostname}`);
    if (o.reset) args.push('--reset');
    // Our own kill comes well after the program's --timeout, which ends it with a clear message.
    const result = await this.call(args, { timeoutMs: (o.timeoutSeconds + 15) * 1000, signal: o.signal });
    return { result, blocks: jsonBlocks(result.stdout) };
  }

  /** True when it was running (or starting), false when it was already stopped. */
  async down(): Promise<boolean> {
    const r = await this.call(['down']);
    if (r.code !== 0 || r.timed_out) throw tailscaleFailure('down', r, this.settings().timeoutMs);
    return !/already stopped/i.test(r.stderr);
  }

  private call(args: string[], o: { timeoutMs?: number; signal?: AbortSignal } = {}): Promise<RunResult> {
    const s = this.settings();
    return run(s.program, args, { timeoutMs: o.timeoutMs ?? s.timeoutMs, signal: o.signal, maxBytes: 1024 * 1024 })
      .catch((e: unknown) => { throw withInstallHint(e, 'tailscale'); });
  }
}

/**
 * The JSON objects printed one after another (`up --json`: a tab-indented block, later two-space ones).
 * MarshalIndent puts each block's braces alone on their lines: a block runs from a line "{" to the first
 * line "}" after which it parses; anything else (a warning line) is skipped.
 */
export function jsonBlocks(text: string): Record<string, unknown>[] {
  const lines = text.split('\n');
  const out: Record<string, unknown>[] = [];
  for (let i = 0; i < lines.length; i++) {
    if (lines[i]!.trim() !== '{') continue;
    for (let j = i + 1; j < lines.length; j++) {
      if (lines[j]!.trim() !== '}') continue;
      let v: unknown;
      try { v = JSON.parse(lines.slice(i, j + 1).join('\n')); } catch { continue; }
      if (v && typeof v === 'object' && !Array.isArray(v)) out.push(v as Record<string, unknown>);
      i = j;
      break;
    }
  }
  return out;
}

/** A failed run as the error the API answers, from what the program printed on stderr. */
export function tailscaleFailure(what: string, r: RunResult, timeoutMs: number, redact: string[] = []): HttpError {
  let line = firstLine(r.stderr) || firstLine(r.stdout) || `exit code ${r.code}`;
  for (const s of redact) if (s) line = line.split(s).join('[redacted]');
  const text = r.stderr + '\n' + r.stdout;
  if (r.timed_out) {
    return new HttpError(504, 'tailscale_timeout', `tailscale ${what} did not finish within ${Math.round(timeoutMs / 1000)} s`);
  }
  if (/failed to connect to local tailscale/i.test(text)) {
    return new HttpError(503, 'tailscale_daemon_down', `The Tailscale daemon (tailscaled) is not running: ${line}`,
      { extra: { fix: 'sudo systemctl enable --now tailscaled' } });
  }
  if (/^Access denied/m.test(text)) {
    return new HttpError(503, 'tailscale_access_denied',
      `tailscaled does not let this service change its settings (${line}): make the service's user its operator`,
      { extra: { fix: 'sudo tailscale set --operator=netprobe' } });
  }
  if (/requires mentioning all/.test(text)) {
    return new HttpError(409, 'tailscale_settings_conflict',
      'Tailscale has settings made outside this service that `tailscale up` would silently drop: send "reset": true to ' +
      'reset them to their defaults, or change them with `tailscale set` on the probe');
  }
  if (/invalid key|auth ?key/i.test(text) && what === 'up') {
    return new HttpError(400, 'invalid_auth_key', `Tailscale refused the auth key: ${line}`);
  }
  if (/timeout waiting for Tailscale service to enter a Running state/.test(text)) {
    return new HttpError(504, 'tailscale_up_timeout', `Tailscale did not reach the Running state in time: ${line}`);
  }
  return new HttpError(502, 'tailscale_error', `tailscale ${what} failed: ${line}`);
}

const str = (v: unknown): string => (typeof v === 'string' ? v : '');
const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);
