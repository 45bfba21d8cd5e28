// Tailscale in netprobe's terms: up with an auth key (handed to the CLI in a 0600 file, removed at once)
// or by an interactive login (answered with the login URL, never waiting for the person to log in), down,
// and the login URL. `tailscale up` blocks until the node is Running, for ever by default: every run here
// carries --timeout, and an interactive one runs in the background while the request polls
// `status --json` for the URL tailscaled hands out (tailscaled keeps the login open after the CLI ends).
import { randomBytes } from 'node:crypto';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import type { Clock } from '../../../core/clock.js';
import { HttpError } from '../../../core/errors.js';
import { which, type RunResult } from '../../../core/exec.js';
import type { Logger } from '../../../core/log.js';
import { ActionLog, type LastError } from './action-log.js';
import { guardCutOff, TAILSCALE_RANGES } from './overlay-guard.js';
import type { Caller } from './zerotier-service.js';
import { jsonBlocks, TailscaleCli, tailscaleFailure, type TailscaleSettings, type TailscaleStatus } from './tailscale-cli.js';

export interface TailscaleServiceSettings extends TailscaleSettings {
  upTimeoutSeconds: number;
  loginSeconds: number;
  loginWaitSeconds: number;
}

export interface UpResult {
  backend_state: string;
  /** Set while the node waits for someone to log in at it (admins only see it). */
  auth_url: string | null;
  tailscale_ips: string[];
  detail: string;
}

export interface TailscaleOverview {
  provider: 'tailscale';
  installed: boolean;
  program: string;
  service_running: boolean | null;
  state: string;
  backend_state: string | null;
  online: boolean;
  needs_login: boolean;
  login_in_progress: boolean;
  tailnet: string | null;
  hostname: string | null;
  dns_name: string | null;
  assigned_addresses: string[];
  health: string[];
  version: string | null;
  last_error: LastError | null;
}

/** How often a waiting request asks tailscaled for the login URL. */
const POLL_MS = 250;
const KEY_DIR = 'oob-tmp';

export class TailscaleService {
  readonly log: ActionLog;
  readonly cli: TailscaleCli;
  private login: { done: Promise<RunResult | null>; controller: AbortController } | null = null;

  constructor(private readonly deps: { clock: Clock; dataDir: string; logger: Logger; settings: () => TailscaleServiceSettings }) {
    this.log = new ActionLog(deps.clock);
    this.cli = new TailscaleCli(deps.settings);
  }

  /** Removes auth-key files a crash may have left behind. */
  async init(): Promise<void> {
    await fs.rm(path.join(this.deps.dataDir, KEY_DIR), { recursive: true, force: true }).catch(() => undefined);
  }

  /** Ends a background login run (shutdown, down). */
  stopLogin(): void {
    this.login?.controller.abort();
    this.login = null;
  }

  async up(o: { authKey?: string; hostname?: string; reset?: boolean }): Promise<UpResult> {
    return this.log.serial(async () => {
      if (!o.authKey) return this.interactive({ hostname: o.hostname, reset: o.reset });
      this.stopLogin();
      const s = this.deps.settings();
      const file = await this.writeKeyFile(o.authKey);
      let out;
      try {
        out = await this.cli.up({ authKeyFile: file, hostname: o.hostname, reset: o.reset, timeoutSeconds: s.upTimeoutSeconds });
      } finally {
        await fs.rm(file, { force: true });
      }
      const states = out.blocks.map((b) => b.BackendState).filter((x): x is string => typeof x === 'string');
      if (states.includes('NeedsMachineAuth') && !states.includes('Running')) {
        return { backend_state: 'NeedsMachineAuth', auth_url: null, tailscale_ips: [],
          detail: 'Logged in; a tailnet administrator must now approve this machine in the admin console' };
      }
      if (out.result.code !== 0 || out.result.timed_out) {
        throw tailscaleFailure('up', out.result, (s.upTimeoutSeconds + 15) * 1000, [o.authKey]);
      }
      const st = await this.cli.status();
      return { backend_state: st.backend_state, auth_url: null, tailscale_ips: st.tailscale_ips, detail: 'Tailscale is up' };
    });
  }

  /** The login URL: tailscaled's pending one, else one from a new interactive login. */
  async loginUrl(): Promise<UpResult & { started: boolean }> {
    return this.log.serial(async () => {
      const st = await this.cli.status();
      if (st.backend_state === 'NeedsLogin' && st.auth_url) {
        return { backend_state: st.backend_state, auth_url: st.auth_url, tailscale_ips: [], started: false,
          detail: 'Open the URL to log this probe in to your tailnet' };
      }
      if (st.backend_state === 'Running') {
        return { backend_state: st.backend_state, auth_url: null, tailscale_ips: st.tailscale_ips, started: false,
          detail: 'Already logged in and running: no login URL' };
      }
      return { ...(await this.interactive({})), started: true };
    });
  }

  async down(caller: Caller): Promise<{ was_running: boolean }> {
    return this.log.serial(async () => {
      const st = await this.cli.status();
      if (st.backend_state === 'Running' || st.backend_state === 'Starting') {
        const ranges = [...TAILSCALE_RANGES, ...st.tailscale_ips];
        guardCutOff({ what: 'Tailscale', addresses: caller.addresses, ranges, confirm: caller.confirm });
      }
      this.stopLogin();
      return { was_running: await this.cli.down() };
    });
  }

  /** The program as configured (a name on PATH or a path). */
  program(): string { return this.deps.settings().program; }

  async status(): Promise<TailscaleOverview> {
    const s = this.deps.settings();
    const base: TailscaleOverview = {
      provider: 'tailscale', installed: false, program: s.program, service_running: null, state: 'not_installed', backend_state: null,
      online: false, needs_login: false, login_in_progress: this.login !== null, tailnet: null, hostname: null, dns_name: null,
      assigned_addresses: [], health: [], version: null, last_error: this.log.lastError,
    };
    if (!(await which(s.program))) return base;
    base.installed = true;
    try {
      const st = await this.cli.status();
      Object.assign(base, {
        service_running: true, state: st.backend_state.toLowerCase(), backend_state: st.backend_state, online: st.online,
        needs_login: st.backend_state === 'NeedsLogin', tailnet: st.tailnet, hostname: st.hostname || null,
        dns_name: st.dns_name || null, assigned_addresses: st.tailscale_ips, health: st.health, version: st.version || null,
      });
    } catch (e) {
      if (!(e instanceof HttpError)) throw e;
      base.service_running = e.code === 'tailscale_daemon_down' ? false : null;
      base.state = e.code.replace(/^tailscale_/, '');
      base.last_error = this.log.lastError ?? { at: this.deps.clock.iso(), action: 'status', code: e.code, detail: e.message };
    }
    return base;
  }

  /**
   * Starts `tailscale up --json --timeout=<login>s` in the background (unless one runs) and waits a bounded
   * time for the outcome: Running, a login URL, or a machine waiting for approval.
   */
  private async interactive(o: { hostname?: string; reset?: boolean }): Promise<UpResult> {
    const s = this.deps.settings();
    if (!this.login) {
      const controller = new AbortController();
      const done = this.cli.up({ hostname: o.hostname, reset: o.reset, timeoutSeconds: s.loginSeconds, signal: controller.signal })
        .then((r) => r.result, (e: unknown) => {
          if (e instanceof HttpError) throw e; // the program missing
          return null; // aborted
        });
      const entry = { done, controller };
      this.login = entry;
      void done.catch(() => undefined).finally(() => { if (this.login === entry) this.login = null; });
    }
    const login = this.login;
    const deadline = this.deps.clock.now() + s.loginWaitSeconds * 1000;
    for (;;) {
      // The run ending first: its output says why (an error, or Running at once for a node already logged in).
      const ended = await Promise.race([login.done, sleep(POLL_MS).then(() => undefined)]);
      if (ended !== undefined) {
        if (ended === null) throw new HttpError(409, 'login_cancelled', 'The login was stopped (tailscale down) before it completed');
        const blocks = jsonBlocks(ended.stdout);
        const url = blocks.map((b) => b.AuthURL).find((u): u is string => typeof u === 'string' && !!u);
        const last = blocks.at(-1)?.BackendState;
        if (ended.code === 0 || last === 'NeedsMachineAuth' || url) {
          const st = await this.cli.status().catch(() => null);
          return this.answer(st, url ?? null, typeof last === 'string' ? last : undefined);
        }
        throw tailscaleFailure('up', ended, s.loginSeconds * 1000);
      }
      const st = await this.cli.status();
      if ((st.backend_state === 'NeedsLogin' && st.auth_url) || st.backend_state === 'Running' || st.backend_state === 'NeedsMachineAuth') {
        return this.answer(st, null);
      }
      if (this.deps.clock.now() >= deadline) {
        throw new HttpError(504, 'login_url_pending',
          `tailscaled gave no login URL within ${s.loginWaitSeconds} s (state ${st.backend_state || 'unknown'}); ask again in a moment`);
      }
    }
  }

  private answer(st: TailscaleStatus | null, url: string | null, lastState?: string): UpResult {
    const state = st?.backend_state ?? lastState ?? 'NeedsLogin';
    const authUrl = state === 'NeedsLogin' ? (st?.auth_url || url) : null;
    const detail = state === 'Running' ? 'Tailscale is up'
      : state === 'NeedsMachineAuth' ? 'Logged in; a tailnet administrator must now approve this machine in the admin console'
        : 'Open the URL to log this probe in to your tailnet; tailscaled finishes the login on its own';
    return { backend_state: state, auth_url: authUrl || null, tailscale_ips: state === 'Running' ? st?.tailscale_ips ?? [] : [], detail };
  }

  /** The key in a fresh 0600 file in a 0700 directory of the data directory; the caller removes it. */
  private async writeKeyFile(key: string): Promise<string> {
    const dir = path.join(this.deps.dataDir, KEY_DIR);
    await fs.mkdir(dir, { recursive: true, mode: 0o700 });
    await fs.chmod(dir, 0o700);
    const file = path.join(dir, `ts-auth-${randomBytes(8).toString('hex')}`);
    const fh = await fs.open(file, 'wx', 0o600);
    try { await fh.writeFile(key + '\n'); } finally { await fh.close(); }
    return file;
  }
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms).unref());
