// Self-update as the service sees it (docs/update.md): it lists and checks the source itself (git ls-remote),
// keeps the source's credential, and asks the root helper for the update through a request file; it never
// installs anything itself (it cannot write /opt/netprobe, and must not be the parent of its own updater).
import { randomUUID } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { readdir, stat, statfs } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { basename, dirname, join } from 'node:path';
import type { AppContext, RequestCtx } from '../../../core/context.js';
import { conflict, HttpError, notFound, unavailable } from '../../../core/errors.js';
import { streamJob } from '../../../core/http/sse.js';
import type { JobControl } from '../../../core/jobs.js';
import { packageRoot } from '../../../core/paths.js';
import { JOURNAL_FILE, SNAPSHOT_FILE } from '../../../core/store/index.js';
import { CredentialStore } from './credentials.js';
import { lsRemote, tagMessage, type RemoteOptions, type RemoteRefs } from './git-remote.js';
import {
  helperInstalled, readProgress, readStatus, requestPending, withdrawRequest, writeRequest,
  type HelperStatus, type UpdateRequest,
} from './helper-link.js';
import { compareVersions, parseVersion, tagVersion } from './version.js';

export const UPDATE_JOB = 'update';
/** The pinned release key: root's directory, not /etc/netprobe (which the service may write). */
export const ALLOWED_SIGNERS_FILE = '/etc/netprobe-update/allowed_signers';
/** How long a request may wait for the helper to pick it up before the job says the path unit is not running. */
const PICKUP_TIMEOUT_MS = 60_000;
const POLL_MS = 250;

export interface CheckResult {
  checked_at: string;
  url: string;
  channel: string;
  tip: string;
  tag: string | null;
  version: string | null;
  running_version: string;
  update_available: boolean;
  downgrade: boolean;
  detail: string;
  changes: { source: 'tag_message' | 'none'; text: string | null; note: string };
  signature: string;
}

interface LastRequest { id: string; requested_at: string; requested_by: string | null; job_id: string; channel: string }
interface LastCheck { at: string; ok: boolean; error?: string; result?: CheckResult }

const sleep = (ms: number, signal: AbortSignal) => new Promise<void>((resolve) => {
  const t = setTimeout(done, ms);
  signal.addEventListener('abort', done, { once: true });
  function done() { clearTimeout(t); signal.removeEventListener('abort', done); resolve(); }
});

/** The running release: release.json (written by ./build.sh publish) or, in a checkout, .git's HEAD. */
function runningCommit(root: string): string | null {
  try {
    const r = JSON.parse(readFileSync(join(root, 'release.json'), 'utf8')) as { commit?: unknown };
    if (typeof r.commit === 'string' && /^[0-9a-f]{40,64}$/.test(r.commit)) return r.commit;
  } catch { /* not a published release */ }
  try {
    const head = readFileSync(join(root, '.git', 'HEAD'), 'utf8').trim();
    if (/^[0-9a-f]{40,64}$/.test(head)) return head;
    const ref = /^ref: (refs\/\S+)$/.exec(head)?.[1];
    if (!ref) return null;
    const loose = join(root, '.git', ref);
    if (existsSync(loose)) return readFileSync(loose, 'utf8').trim();
    const packed = readFileSync(join(root, '.git', 'packed-refs'), 'utf8');
    return new RegExp(`^([0-9a-f]{40,64}) ${ref.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`, 'm').exec(packed)?.[1] ?? null;
  } catch {
    return null;
  }
}

export class UpdateService {
  readonly credentials: CredentialStore;
  private readonly root = packageRoot();
  private readonly commit: string | null;

  constructor(private readonly app: AppContext) {
    this.credentials = new CredentialStore(app.config.dataDir);
    this.commit = runningCommit(this.root);
  }

  private get cfg() { return this.app.config.get().update; }
  private get dataDir() { return this.app.config.dataDir; }

  /** /opt/netprobe when running from /opt/netprobe/releases/<version>; null in a checkout. */
  private prefix(): string | null {
    return basename(dirname(this.root)) === 'releases' ? dirname(dirname(this.root)) : null;
  }

  private stateGet<T>(key: string): T | null {
    const row = this.app.store.get<{ value: string }>('SELECT value FROM update_state WHERE key = ?', [key]);
    if (!row) return null;
    try { return JSON.parse(row.value) as T; } catch { return null; }
  }

  private async stateSet(key: string, value: unknown): Promise<void> {
    const now = this.app.clock.iso();
    await this.app.store.write((tx) => {
      tx.run('INSERT INTO update_state (key, value, updated_at) VALUES (?, ?, ?) ' +
        'ON CONFLICT(key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at', [key, JSON.stringify(value), now]);
    }, 'sync');
  }

  /** When the last check (by hand or daily) ran, epoch ms; null before any. */
  lastCheckAt(): number | null {
    const at = this.stateGet<LastCheck>('last_check')?.at;
    return at ? Date.parse(at) : null;
  }

  /** The newest version the update_available alert was raised for (daily-check.ts). */
  alertedVersion(): string | null {
    return this.stateGet<string>('alerted_version');
  }

  setAlertedVersion(version: string): Promise<void> {
    return this.stateSet('alerted_version', version);
  }

  private requireSource(): string {
    const url = this.cfg.source_url;
    if (!url) {
      throw conflict('No update source is configured: set update.source_url (and update.channel) in the configuration first',
        'update_source_not_configured');
    }
    return url;
  }

  private async remote(url: string, signal?: AbortSignal): Promise<RemoteOptions> {
    return { url, creds: await this.credentials.forUrl(url), timeoutMs: this.cfg.git_timeout_seconds * 1000, signal };
  }

  async status() {
    await this.auditOutcome().catch((e: unknown) => this.app.log.warn('could not audit the update outcome', { err: e as Error }));
    const cfg = this.cfg;
    const creds = await this.credentials.get();
    const helper = await readStatus(this.dataDir);
    const last = this.stateGet<LastRequest>('last_request');
    const check = this.stateGet<LastCheck>('last_check');
    const prefix = this.prefix();
    const installed = prefix
      ? (await readdir(join(prefix, 'releases')).catch(() => [] as string[])).filter((n) => !n.startsWith('.')).sort()
      : [];
    const job = this.app.jobs.list(UPDATE_JOB).find((j) => j.state === 'running' || j.state === 'queued');
    const pending = requestPending(this.dataDir);
    const lastRun = UpdateService.lastRun(last, helper, pending);
    return {
      running: { version: this.app.version, commit: this.commit, release_dir: this.root, installed_releases: installed },
      source: { url: cfg.source_url, channel: cfg.channel, configured: cfg.source_url !== '', daily_check: cfg.daily_check },
      credentials: {
        set: creds !== null, username: creds?.username ?? null, set_at: creds?.set_at ?? null,
        applies_to_source: creds !== null && creds.url === cfg.source_url,
      },
      helper: {
        installed: helperInstalled(cfg.helper_unit_file), unit_file: cfg.helper_unit_file,
        release_key_pinned: existsSync(ALLOWED_SIGNERS_FILE), allowed_signers_file: ALLOWED_SIGNERS_FILE,
      },
      in_progress: pending || !!job,
      job_id: job?.id ?? null,
      last_check: check,
      last_run: lastRun,
    };
  }

  /** The last request merged with the helper's outcome: pending while the helper has not reported on it. */
  private static lastRun(last: LastRequest | null, helper: HelperStatus | null, pending: boolean) {
    const outcome = (h: HelperStatus) => ({
      result: h.result, detail: h.detail, from: h.from, to: h.to, finished_at: h.finished_at, log_tail: h.log_tail ?? [],
    });
    if (last && helper?.request_id === last.id) {
      return {
        request_id: last.id, requested_at: last.requested_at, requested_by: last.requested_by, job_id: last.job_id, ...outcome(helper),
      };
    }
    if (last && (!helper || helper.finished_at < last.requested_at)) {
      return { request_id: last.id, requested_at: last.requested_at, requested_by: last.requested_by, job_id: last.job_id,
        result: null, detail: pending ? 'Waiting for the update helper' : 'The helper has not reported on this request',
        from: null, to: null, finished_at: null, log_tail: [] };
    }
    // A run the helper made on its own (started by hand on the probe).
    if (helper) {
      return {
        request_id: helper.request_id, requested_at: helper.started_at ?? null, requested_by: null, job_id: null, ...outcome(helper),
      };
    }
    return null;
  }

  async branches() {
    const url = this.requireSource();
    const refs = await lsRemote(await this.remote(url));
    const items = [...refs.heads].sort(([a], [b]) => a.localeCompare(b))
      .map(([name, commit]) => ({ name, commit, default: name === refs.defaultBranch, current_channel: name === this.cfg.channel }));
    return { items, total: items.length, default_branch: refs.defaultBranch, channel: this.cfg.channel };
  }

  /** The installable release at the channel's tip: the version-named annotated tag that peels to it. */
  static releaseAt(refs: RemoteRefs, tip: string): { tag: string | null; lightweight: string | null } {
    let best: { tag: string; v: NonNullable<ReturnType<typeof tagVersion>> } | null = null;
    let lightweight: string | null = null;
    for (const [tag, obj] of refs.tags) {
      const v = tagVersion(tag);
      if (!v) continue;
      const peeled = refs.peeled.get(tag);
      if (!peeled) { if (obj === tip) lightweight = tag; continue; } // a lightweight tag cannot carry a signature
      if (peeled !== tip) continue;
      if (!best || compareVersions(v, best.v) > 0) best = { tag, v };
    }
    return { tag: best?.tag ?? null, lightweight };
  }

  async check(): Promise<CheckResult> {
    const url = this.requireSource();
    const channel = this.cfg.channel;
    const at = this.app.clock.iso();
    try {
      const remote = await this.remote(url);
      const refs = await lsRemote(remote);
      const tip = refs.heads.get(channel);
      if (!tip) {
        const known = [...refs.heads.keys()].sort().slice(0, 20).join(', ') || 'none';
        throw conflict(`The source has no branch "${channel}" (update.channel); its branches: ${known}`, 'update_channel_missing');
      }
      const { tag, lightweight } = UpdateService.releaseAt(refs, tip);
      const running = parseVersion(this.app.version);
      const v = tag ? tagVersion(tag) : null;
      const cmp = v && running ? compareVersions(v, running) : 0;
      let detail: string;
      if (!tag) {
        detail = lightweight
          ? `The tip of ${channel} carries only the lightweight tag ${lightweight}, which cannot be signed: nothing to install`
          : `The tip of ${channel} carries no release tag (v<version>): nothing to install`;
      } else if (cmp > 0) detail = `${v!.raw} is newer than the running ${this.app.version}`;
      else if (cmp === 0) detail = `Up to date: ${this.app.version} is the release at the tip of ${channel}`;
      else detail = `The tip of ${channel} is ${v!.raw}, older than the running ${this.app.version} (a downgrade must be asked for)`;
      let changes: CheckResult['changes'];
      if (!tag) changes = { source: 'none', text: null, note: 'No release at the tip' };
      else if (!refs.filter) {
        changes = { source: 'none', text: null,
          note: 'git ls-remote carries no messages and this source offers no partial fetch (uploadpack.allowFilter), so the ' +
            "release's tag message cannot be read without downloading the release; the helper shows it in the log of the run" };
      } else {
        const text = await tagMessage(remote, tag);
        changes = text === null
          ? { source: 'none', text: null, note: 'The tag message could not be fetched' }
          : { source: 'tag_message', text, note: `The message of the annotated tag ${tag} (./build.sh publish writes the changes there)` };
      }
      const result: CheckResult = {
        checked_at: at, url, channel, tip, tag, version: v?.raw ?? null, running_version: this.app.version,
        update_available: !!tag && cmp > 0, downgrade: !!tag && cmp < 0, detail, changes,
        signature: 'Not verified by this check (ls-remote gives no objects): the root helper verifies the tag against the pinned ' +
          'release key before it installs anything',
      };
      await this.stateSet('last_check', { at, ok: true, result } satisfies LastCheck);
      return result;
    } catch (e) {
      const error = e instanceof Error ? e.message : String(e);
      await this.stateSet('last_check', { at, ok: false, error } satisfies LastCheck).catch(() => undefined);
      throw e;
    }
  }

  async setCredentials(ctx: RequestCtx, body: { token?: string; username?: string; clear?: boolean }) {
    if (body.clear) {
      const had = await this.credentials.clear();
      await ctx.audit('update.credentials.clear', this.cfg.source_url || null, { had_credentials: had });
      return { set: false, username: null, set_at: null, applies_to_source: false };
    }
    const url = this.requireSource();
    const c = { url, token: body.token!, username: body.username || null, set_at: this.app.clock.iso() };
    await this.credentials.set(c);
    await ctx.audit('update.credentials.set', url, { username: c.username });
    return { set: true, username: c.username, set_at: c.set_at, applies_to_source: true };
  }

  /** Free space for the release and the database backup, before asking the helper (which checks again). */
  private async checkSpace(): Promise<void> {
    const want = this.cfg.min_free_mb * 1024 * 1024;
    let db = 0;
    for (const f of [SNAPSHOT_FILE, JOURNAL_FILE]) db += (await stat(join(this.dataDir, f)).catch(() => null))?.size ?? 0;
    const places: [string, number][] = [[this.dataDir, db + want]];
    const prefix = this.prefix();
    if (prefix) places.push([prefix, want + db]);
    for (const [dir, need] of places) {
      const s = await statfs(dir).catch(() => null);
      if (!s) continue;
      const free = s.bavail * s.bsize;
      if (free < need) {
        throw new HttpError(507, 'insufficient_storage',
          `Not enough free space in ${dir}: ${Math.floor(free / 1048576)} MiB free, ` +
          `the update needs at least ${Math.ceil(need / 1048576)} MiB ` +
          '(update.min_free_mb plus the database backup)', { extra: { free_bytes: free, needed_bytes: need } });
      }
    }
  }

  private healthUrl(): string {
    const { host, port } = this.app.config.get().server;
    const loopback = ['0.0.0.0', '127.0.0.1', '::', '::1', 'localhost', ''].includes(host);
    const h = loopback ? (host === '::1' ? '[::1]' : '127.0.0.1') : host.includes(':') ? `[${host}]` : host;
    return `http://${h}:${port}/api/version`;
  }

  async run(ctx: RequestCtx, body: { allow_downgrade?: boolean; restore_backup?: boolean }) {
    const cfg = this.cfg;
    const url = this.requireSource();
    if (!helperInstalled(cfg.helper_unit_file)) {
      throw unavailable('The update helper is not installed here (no ' + cfg.helper_unit_file + '): this is a development checkout or an ' +
        'install without the update units. Install a release with sudo scripts/install.sh, which installs and enables ' +
        'netprobe-update.path; in development, update with git pull and ./build.sh start', 'update_helper_missing',
      { unit_file: cfg.helper_unit_file });
    }
    const active = this.app.jobs.list(UPDATE_JOB).find((j) => j.state === 'running' || j.state === 'queued');
    if (active || requestPending(this.dataDir)) {
      throw conflict('An update is already in progress' + (active ? ` (job ${active.id})` : ''), 'update_in_progress');
    }
    await this.checkSpace();
    const req: UpdateRequest = {
      id: randomUUID(), url, branch: cfg.channel, requested_at: this.app.clock.iso(), requested_by: ctx.principal?.actor ?? null,
      allow_downgrade: body.allow_downgrade ?? false, restore_backup: body.restore_backup ?? false,
      health_url: this.healthUrl(), health_timeout_seconds: cfg.health_timeout_seconds, min_free_mb: cfg.min_free_mb,
    };
    await writeRequest(this.dataDir, req);
    await ctx.audit('update.run', url, {
      request_id: req.id, channel: req.branch, running_version: this.app.version,
      allow_downgrade: req.allow_downgrade, restore_backup: req.restore_backup,
    });
    const job = this.app.jobs.start(UPDATE_JOB, (ctl) => this.follow(req, ctl), { meta: { request_id: req.id, channel: req.branch } });
    await this.stateSet('last_request', {
      id: req.id, requested_at: req.requested_at, requested_by: req.requested_by, job_id: job.id, channel: req.branch,
    } satisfies LastRequest);
    return { job_id: job.id, request_id: req.id, stream: `/api/update/run/${job.id}/stream`, status: '/api/update/status' };
  }

  /**
   * The job: relays the helper's progress lines as events until its status file names this request. The
   * helper stops this service to switch releases, so a run that gets that far ends with this process; its
   * outcome is then read from GET /api/update/status (from the file the helper writes last).
   */
  private async follow(req: UpdateRequest, ctl: JobControl): Promise<unknown> {
    const deadline = Date.now() + this.cfg.run_timeout_minutes * 60_000;
    const pickupBy = Date.now() + PICKUP_TIMEOUT_MS;
    let offset = 0;
    ctl.emit('requested', { request_id: req.id, message: 'Waiting for the update helper (netprobe-update.path)' });
    while (!ctl.signal.aborted) {
      const { lines, offset: next } = await readProgress(this.dataDir, offset);
      offset = next;
      for (const l of lines) {
        if (l.request_id === req.id) ctl.progress(l.progress, { step: l.step, message: l.message, at: l.at });
      }
      const s = await readStatus(this.dataDir);
      if (s && s.request_id === req.id) {
        await this.auditOutcome();
        const outcome = { outcome: s.result, from: s.from, to: s.to, detail: s.detail, log_tail: s.log_tail ?? [] };
        if (s.result === 'updated' || s.result === 'up_to_date') return outcome;
        throw new Error(`${s.result}: ${s.detail}`);
      }
      if (Date.now() > pickupBy && requestPending(this.dataDir) && await withdrawRequest(this.dataDir, req.id)) {
        throw new Error(`The update helper did not pick up the request within ${PICKUP_TIMEOUT_MS / 1000} s: is netprobe-update.path ` +
          'active? (systemctl status netprobe-update.path); the request was withdrawn');
      }
      if (Date.now() > deadline) {
        throw new Error(`The update helper has not finished after ${this.cfg.run_timeout_minutes} minutes; GET /api/update/status ` +
          'shows its outcome when it does');
      }
      await sleep(POLL_MS, ctl.signal);
    }
    return undefined;
  }

  /** Writes the helper's latest outcome to the audit log once (at start, on status, at the end of a job). */
  async auditOutcome(): Promise<void> {
    const s: HelperStatus | null = await readStatus(this.dataDir);
    if (!s?.request_id || this.stateGet<string>('audited_outcome') === s.request_id) return;
    await this.stateSet('audited_outcome', s.request_id);
    const last = this.stateGet<LastRequest>('last_request');
    await this.app.audit.record({
      action: 'update.outcome', actor: last?.id === s.request_id ? last.requested_by : 'update helper', target: s.url ?? null,
      outcome: s.result === 'updated' || s.result === 'up_to_date' ? 'success' : 'failure',
      details: { request_id: s.request_id, result: s.result, from: s.from, to: s.to, detail: s.detail.slice(0, 500) },
    });
  }

  stream(req: IncomingMessage, res: ServerResponse, jobId: string): void {
    const job = this.app.jobs.get(jobId);
    if (!job || job.kind !== UPDATE_JOB) throw notFound('Update job');
    streamJob(req, res, this.app.jobs, jobId);
  }
}
