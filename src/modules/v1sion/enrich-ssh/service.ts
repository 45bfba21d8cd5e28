// SSH enrichment as a job: log in to SSH targets (or to addresses of a saved session's nodes), run each
// platform's fixed read-only commands, and store what was learned on the targets and on the session's
// nodes. One SSE message per target as it finishes; at most `ssh_concurrency` devices at once and
// `max_concurrent_enrichments` jobs (429 beyond). Secrets are read from the vault when the request comes
// (423 while it is locked, 400 for a key the SSH library cannot read) and again just before each login,
// and live only for that login.
import { randomUUID } from 'node:crypto';
import { lookup } from 'node:dns/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { isIP } from 'node:net';
import type { Actor } from '../../../core/audit/types.js';
import type { AppContext } from '../../../core/context.js';
import { HttpError, invalid, notFound, tooMany, type FieldError } from '../../../core/errors.js';
import { streamJob } from '../../../core/http/sse.js';
import { canonicalIp, parseCidr, cidrContains, parseIp } from '../../../core/ip.js';
import type { JobControl } from '../../../core/jobs.js';
import { brainServicesOf, recordCredentialUse } from '../../brain/index.js';
import { pool } from '../scan/pool.js';
import type { Session } from '../schemas.js';
import type { SessionService } from '../sessions/service.js';
import { checkAllowed, type SshTargetService, type TargetError, type TargetRow } from '../ssh-targets/service.js';
import { collect } from './collect.js';
import { summarise, type Facts, type FactsSummary, type TargetPlatform } from './facts.js';
import { keyProblem, SshProblem, type SshLogin } from './ssh.js';

export const ENRICH_JOB = 'v1sion.enrich';
const ACTIVE = new Set(['queued', 'running']);
/** Targets in one request, at most. */
export const MAX_TARGETS = 256;
/** Finished jobs whose per-target results stay readable (GET /api/v1sion/enrich-ssh/:job_id). */
const KEPT_JOBS = 50;

export interface EnrichRequest {
  targets?: string[] | undefined;
  session_id?: string | undefined;
  addresses?: string[] | undefined;
  credential_id?: string | undefined;
  port?: number | undefined;
  platform?: TargetPlatform | undefined;
}

export interface TargetOutcome {
  target_id: string;
  name: string;
  host: string;
  port: number;
  state: 'ok' | 'failed' | 'cancelled';
  error: TargetError | null;
  summary: FactsSummary | null;
  /** Session nodes that got the facts. */
  nodes: string[];
  duration_ms: number;
}

interface Planned { row: TargetRow; created: boolean; field: string }

interface JobState {
  session_id: string | null;
  targets: { id: string; name: string; host: string; port: number; created: boolean }[];
  results: TargetOutcome[];
}

export class EnrichService {
  private readonly busy = new Set<string>();
  private readonly states = new Map<string, JobState>();

  constructor(private readonly app: AppContext, private readonly targets: SshTargetService, private readonly sessions: SessionService) {}

  private settings() { return this.app.config.get().discovery; }

  /**
   * `admin`: the caller is an administrator, whose enrichment pins the host key a password credential meets first
   * (anyone else's sends a password only to a host whose key is pinned already).
   */
  async start(body: EnrichRequest, by: Actor, admin = false):
    Promise<{ job_id: string; session_id: string | null; targets: JobState['targets'] }> {
    const settings = this.settings();
    const active = this.app.jobs.list(ENRICH_JOB).filter((j) => ACTIVE.has(j.state)).length;
    if (active >= settings.max_concurrent_enrichments) {
      throw tooMany(`${active} SSH enrichments are running; at most ${settings.max_concurrent_enrichments} run at once. ` +
        'Try again when one has finished', 5);
    }
    const errors: FieldError[] = [];
    if (!body.targets?.length && !body.addresses?.length) {
      errors.push({ path: 'targets', message: 'give SSH target ids, or addresses of a session\'s nodes (with session_id)' });
    }
    if (body.addresses?.length && !body.session_id) {
      errors.push({ path: 'session_id', message: 'addresses are those of a session\'s nodes: give the session' });
    }
    if (errors.length) throw invalid('enrichment request', errors);
    const session = body.session_id ? this.sessionOf(body.session_id) : null;

    const planned: Planned[] = [];
    const seen = new Set<string>();
    (body.targets ?? []).forEach((id, i) => {
      const row = this.targets.row(id);
      if (!row) { errors.push({ path: `targets.${i}`, message: `no SSH target ${id}` }); return; }
      if (!seen.has(row.id)) { seen.add(row.id); planned.push({ row, created: false, field: `targets.${i}` }); }
    });

    // Addresses of the session's nodes: their target (same address and port), or a new one with credential_id.
    const port = body.port ?? 22;
    const credential = body.credential_id ? this.targets.credential(body.credential_id, 'credential_id', errors) : null;
    const toCreate: { name: string; host: string; field: string }[] = [];
    const nodeOf = new Map<string, Session['nodes'][number]>();
    for (const n of session?.nodes ?? []) for (const a of n.addresses) if (!nodeOf.has(a)) nodeOf.set(a, n);
    (body.addresses ?? []).forEach((a, i) => {
      const field = `addresses.${i}`;
      const addr = canonicalIp(a);
      if (!addr) { errors.push({ path: field, message: `"${a}" is not an IP address` }); return; }
      const node = nodeOf.get(addr);
      if (!node) { errors.push({ path: field, message: `${addr} is no address of a node of session ${session!.name}` }); return; }
      const row = this.targets.findByHost(addr, port);
      if (row) {
        if (!seen.has(row.id)) { seen.add(row.id); planned.push({ row, created: false, field }); }
        return;
      }
      if (!body.credential_id) {
        errors.push({ path: field, message: `no SSH target for ${addr} port ${port}: give credential_id to create one` });
        return;
      }
      if (toCreate.some((c) => c.host === addr)) return;
      try {
        checkAllowed(addr, this.settings().allowed_ranges, this.settings().max_prefix_v4);
      } catch (e) {
        if (e instanceof HttpError) { errors.push({ path: field, message: e.message }); return; }
        throw e;
      }
      toCreate.push({ name: node.label, host: addr, field });
    });
    if (planned.length + toCreate.length > MAX_TARGETS) {
      errors.push({ path: 'targets', message: `at most ${MAX_TARGETS} targets per enrichment` });
    }
    if (errors.length) throw invalid('enrichment request', errors);

    // The secrets must be readable now (423 while the vault is locked) and usable (400 otherwise).
    const { secrets } = brainServicesOf(this.app);
    secrets.assertUnlocked();
    for (const p of planned) {
      const problem = await this.loginProblem(p.row.credential_id);
      if (problem) errors.push({ path: p.field, message: `${p.row.name}: ${problem}` });
    }
    if (credential && toCreate.length) {
      const problem = await this.loginProblem(credential.id);
      if (problem) errors.push({ path: 'credential_id', message: problem });
    }
    if (errors.length) throw invalid('enrichment request', errors);
    // Each credential goes only where its scope allows (403 naming it and the rule); a name is checked again once resolved.
    const uses = [...planned.map((p) => ({ credential: p.row.credential_id, host: p.row.host })),
      ...toCreate.map((c) => ({ credential: credential!.id, host: c.host }))];
    for (const u of uses) {
      const refused = isIP(u.host) ? secrets.refusal(u.credential, { host: u.host, use: 'SSH' }) : null;
      if (refused) throw refused;
    }
    const taken = planned.filter((p) => this.busy.has(p.row.id));
    if (taken.length) {
      throw new HttpError(409, 'target_busy', `Another enrichment is logging in to ${taken.map((p) => p.row.name).join(', ')}; ` +
        'wait for it to finish', { errors: taken.map((p) => ({ path: p.field, message: 'being enriched by another job' })) });
    }

    if (toCreate.length) {
      const now = this.app.clock.now();
      const labels = new Map<string, number>();
      for (const c of toCreate) labels.set(c.name, (labels.get(c.name) ?? 0) + 1);
      const made = toCreate.map((c) => ({ ...c, id: randomUUID(), name: labels.get(c.name)! > 1 ? `${c.name} (${c.host})` : c.name }));
      await this.app.store.write((tx) => {
        for (const c of made) {
          this.targets.insert(tx, { name: c.name, host: c.host, port, credential_id: credential!.id, platform: body.platform ?? 'auto',
            tags: [] }, c.id, now, by);
        }
      }, 'sync');
      for (const c of made) planned.push({ row: this.targets.row(c.id)!, created: true, field: c.field });
    }

    const state: JobState = {
      session_id: session?.id ?? null,
      targets: planned.map((p) => ({ id: p.row.id, name: p.row.name, host: p.row.host, port: p.row.port, created: p.created })),
      results: [],
    };
    const ids = planned.map((p) => p.row.id);
    for (const id of ids) this.busy.add(id);
    let job;
    try {
      job = this.app.jobs.start(ENRICH_JOB, (ctl) => this.run(planned.map((p) => p.row.id), state, ctl, by, admin)
        .finally(() => { for (const id of ids) this.busy.delete(id); }), { meta: { targets: ids.length, session_id: state.session_id } });
    } catch (e) {
      for (const id of ids) this.busy.delete(id);
      throw e;
    }
    this.keep(job.id, state);
    await this.app.audit.record(by.auditEntry('v1sion.enrich_start', job.id, {
      targets: ids, session_id: state.session_id, created: state.targets.filter((t) => t.created).map((t) => t.id),
    }));
    return { job_id: job.id, session_id: state.session_id, targets: state.targets };
  }

  private sessionOf(id: string): Session {
    try {
      return this.sessions.get(id);
    } catch (e) {
      if (e instanceof HttpError && e.status === 404) throw notFound('Session');
      throw e;
    }
  }

  private keep(jobId: string, state: JobState): void {
    this.states.set(jobId, state);
    while (this.states.size > KEPT_JOBS) this.states.delete(this.states.keys().next().value!);
  }

  /** Why a stored credential cannot log in (deleted, not SSH, no secret, an unreadable key), or null. */
  private async loginProblem(credentialId: string): Promise<string | null> {
    const errors: FieldError[] = [];
    const cred = this.targets.credential(credentialId, 'credential_id', errors);
    if (!cred) return errors[0]?.message.replace(/^no stored credential .*/, 'its credential has been deleted') ?? 'no credential';
    const plain = brainServicesOf(this.app).secrets.read(cred.id, 'held'); // only parsed here, sent nowhere
    if (cred.kind === 'ssh_key') return keyProblem(plain.ssh_private_key ?? '', plain.ssh_passphrase);
    return null;
  }

  /** The login of a target, read from the vault now for the address it goes to (403 outside the credential's scope). */
  private login(row: TargetRow, address: string): SshLogin & { kind: string } {
    const { items, secrets } = brainServicesOf(this.app);
    const found = items.findRow(row.credential_id, 'credentials');
    if (!found) throw new SshProblem('key_unusable', 'the target\'s credential has been deleted');
    const data = items.toItem(found);
    const plain = secrets.read(String(data.id), { host: row.host, address, use: 'SSH' });
    const login: SshLogin & { kind: string } = {
      host: address, port: row.port, username: String(data.username ?? ''), kind: String(data.kind),
    };
    if (data.kind === 'ssh_key') { login.privateKey = plain.ssh_private_key; login.passphrase = plain.ssh_passphrase; }
    else login.password = plain.password;
    return login;
  }

  private async run(ids: string[], state: JobState, ctl: JobControl, by: Actor, admin: boolean): Promise<unknown> {
    const settings = this.settings();
    const limits = {
      connectMs: settings.ssh_connect_timeout_ms, bannerMs: settings.ssh_banner_timeout_ms, commandMs: settings.ssh_command_timeout_ms,
      deviceMs: settings.ssh_device_timeout_ms, maxBytes: settings.ssh_output_max_kib * 1024,
    };
    ctl.emit('phase', { phase: 'enrich', message: `Logging in to ${ids.length} device${ids.length === 1 ? '' : 's'} over SSH`,
      total: ids.length });
    let done = 0;
    await pool(ids, settings.ssh_concurrency, ctl.signal, async (id) => {
      const outcome = await this.enrichOne(id, state.session_id, limits, ctl.signal, by, admin);
      if (ctl.signal.aborted) return;
      state.results.push(outcome);
      done++;
      ctl.progress(Math.round((done / ids.length) * 100), { done, total: ids.length });
      ctl.emit('target', { target: outcome });
    });
    const ok = state.results.filter((r) => r.state === 'ok').length;
    return { counts: { targets: ids.length, ok, failed: state.results.length - ok }, results: state.results };
  }

  private async enrichOne(id: string, sessionId: string | null, limits: Parameters<typeof collect>[0]['limits'],
    signal: AbortSignal, by: Actor, admin: boolean): Promise<TargetOutcome> {
    const started = Date.now();
    const row = this.targets.row(id);
    const base = { target_id: id, name: row?.name ?? id, host: row?.host ?? '', port: row?.port ?? 22 };
    if (!row) {
      return { ...base, state: 'failed', error: { code: 'not_found', message: 'the target was deleted', at: this.app.clock.iso() },
        summary: null, nodes: [], duration_ms: 0 };
    }
    let loggedIn = false;
    try {
      const address = await this.addressOf(row.host);
      const { kind, ...login } = this.login(row, address);
      const now = () => new Date(this.app.clock.now());
      // A password is answered to whoever asks for it: it goes only to a pinned key, unless an administrator pins it now.
      const firstKey = kind === 'ssh_password' && !admin ? 'refuse' : 'trust';
      const r = await collect({ login, platform: row.platform, pinned: row.host_key, firstKey, limits, signal, now });
      loggedIn = true;
      const nodes = await this.store(row, r.facts, r.hostKey, sessionId, by);
      return { ...base, state: 'ok', error: null, summary: summarise(r.facts), nodes, duration_ms: Date.now() - started };
    } catch (e) {
      const error = this.errorOf(e);
      if (signal.aborted || error.code === 'cancelled') {
        return { ...base, state: 'cancelled', error: null, summary: null, nodes: [], duration_ms: Date.now() - started };
      }
      await this.app.store.write((tx) => {
        this.targets.recordFailure(tx, row.id, error);
        if (error.code === 'auth_failed') {
          recordCredentialUse(tx, row.credential_id, { target: `${row.host}:${row.port}`, protocol: 'ssh', outcome: 'failure',
            detail: error.message }, this.app.clock.now());
        }
      }, 'sync').catch((err: unknown) => this.app.log.warn('could not record an SSH enrichment failure', { err, target: row.id }));
      this.app.log.info('SSH enrichment failed', { target: row.id, host: row.host, code: error.code, logged_in: loggedIn });
      return { ...base, state: 'failed', error, summary: null, nodes: [], duration_ms: Date.now() - started };
    }
  }

  /** The address to connect to: the target's IP, or its name resolved (once, so what was checked is what is reached). */
  private async addressOf(host: string): Promise<string> {
    const { allowed_ranges: allowed, max_prefix_v4: maxV4 } = this.settings();
    let address = host;
    if (!isIP(host)) {
      try {
        address = (await lookup(host)).address;
      } catch (e) {
        throw new SshProblem('unreachable', `${host} does not resolve (${(e as NodeJS.ErrnoException).code ?? 'lookup failed'})`);
      }
    }
    try {
      checkAllowed(canonicalIp(address) ?? address, allowed, maxV4);
    } catch (e) {
      if (e instanceof HttpError) throw new SshProblem('unreachable', e.message, { code_detail: 'range_not_allowed' });
      throw e;
    }
    return address;
  }

  private errorOf(e: unknown): TargetError {
    const at = this.app.clock.iso();
    if (e instanceof SshProblem) return { code: e.code, message: e.message, at, ...e.details };
    if (e instanceof HttpError && e.status === 423) return { code: 'vault_locked', message: 'the vault was locked before the login', at };
    if (e instanceof HttpError) return { code: e.code, message: e.message, at };
    this.app.log.error('SSH enrichment: unexpected error', { err: e });
    return { code: 'internal', message: 'unexpected error (see the log)', at };
  }

  /** One write: the pin (trust on first use), the facts on the target and the session's nodes, the credential's use. */
  private async store(row: TargetRow, facts: Facts, key: { type: string; fingerprint: string }, sessionId: string | null,
    by: Actor): Promise<string[]> {
    let nodes: string[] = [];
    let session: Session | null = null;
    if (sessionId) {
      try { session = this.sessions.get(sessionId); } catch { session = null; } // deleted meanwhile
    }
    if (session) nodes = nodesFor(session, row.host, facts);
    await this.app.store.write((tx) => {
      this.targets.pin(tx, row.id, key, by);
      this.targets.recordSuccess(tx, row.id, facts, key);
      for (const n of nodes) this.sessions.setNodeFacts(tx, session!.id, n, { ...facts, ssh_target_id: row.id });
      recordCredentialUse(tx, row.credential_id, { target: `${row.host}:${row.port}`, protocol: 'ssh', outcome: 'success' },
        this.app.clock.now());
    }, 'sync');
    return nodes;
  }

  /** Cancels a queued or running enrichment; 404 when unknown, 409 when finished. */
  async cancel(jobId: string, by: Actor): Promise<{ job_id: string; state: 'cancelled' }> {
    const job = this.jobOf(jobId);
    if (!ACTIVE.has(job.state)) throw new HttpError(409, 'enrichment_finished', `The enrichment has already ${job.state}`);
    this.app.jobs.cancel(jobId);
    await this.app.audit.record(by.auditEntry('v1sion.enrich_cancel', jobId, { targets: job.meta?.targets }));
    return { job_id: jobId, state: 'cancelled' };
  }

  private jobOf(jobId: string) {
    const job = this.app.jobs.get(jobId);
    if (!job || job.kind !== ENRICH_JOB) throw notFound('Enrichment');
    return job;
  }

  /** The job and what each target gave so far. */
  status(jobId: string) {
    const job = this.jobOf(jobId);
    const state = this.states.get(jobId);
    return {
      job_id: job.id, state: job.state, progress: job.progress, started_at: job.started_at, finished_at: job.finished_at,
      error: job.error ?? null, session_id: state?.session_id ?? null, targets: state?.targets ?? [], results: state?.results ?? [],
    };
  }

  stream(req: IncomingMessage, res: ServerResponse, jobId: string): void {
    this.jobOf(jobId);
    streamJob(req, res, this.app.jobs, jobId);
  }
}

const isLocal = (a: string) => {
  const ip = parseIp(a);
  if (!ip) return true;
  return ['127.0.0.0/8', '::1/128', 'fe80::/10', '169.254.0.0/16'].some((c) => {
    const p = parseCidr(c);
    return p.ok && cidrContains(p.cidr, ip);
  });
};

/**
 * The session nodes a device stands for: those holding the target's address; else the one node (only when
 * exactly one) holding an address the device itself reports on its interfaces (loopback and link-local aside).
 */
export function nodesFor(session: Session, host: string, facts: Facts): string[] {
  const byHost = session.nodes.filter((n) => n.addresses.includes(host)).map((n) => n.id);
  if (byHost.length) return byHost;
  const own = new Set(facts.interfaces.flatMap((i) => i.addresses.map((c) => canonicalIp(c.split('/')[0]!) ?? ''))
    .filter((a) => a && !isLocal(a)));
  const hits = session.nodes.filter((n) => n.addresses.some((a) => own.has(a)));
  return hits.length === 1 ? [hits[0]!.id] : [];
}
