// Scans as jobs: start (after checking the range, its size and the credentials), follow (SSE), read the
// result (live while it runs, from disk once kept), cancel. At most `max_concurrent_scans` run at once;
// more are refused with 429 rather than queued, so a person is never left watching a scan that has not
// started. A scan profile's run (profiles/scheduler.ts) starts here too, with the same checks, and never
// counts against that limit: a person's scan takes precedence (the scheduler waits for it instead).
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Actor } from '../../../core/audit/types.js';
import type { AppContext } from '../../../core/context.js';
import { HttpError, invalid, notFound, tooMany } from '../../../core/errors.js';
import { openSse, streamJob } from '../../../core/http/sse.js';
import { formatCidr, parseCidr } from '../../../core/ip.js';
import type { DiscoveryCredentials } from '../credentials/service.js';
import { errorText, runPipeline } from './pipeline.js';
import { checkSubnet, linksIn, localLinks, sweepAddresses } from './ranges.js';
import { resolveCredentials, type CredentialFieldValues } from './request.js';
import type { ScanResult } from './result.js';
import { ScanResults } from './results.js';
import { ScanState, type ScanPlan } from './state.js';
import { STAGES } from './stages/index.js';

export const SCAN_JOB = 'v1sion.scan';
const ACTIVE = new Set(['queued', 'running']);

export interface ScanRequest extends CredentialFieldValues { subnet: string }

/** What a scan profile's run adds to a request (profiles/scheduler.ts); a person's scan has none of it. */
export interface ScanOptions {
  /** The profile it runs for: kept apart from people's results, not audited per run (the profile is). */
  profileId?: string;
  /** The stages to run (names in scan/stages/); all without it. */
  stages?: readonly string[];
  /** Whether to keep the result: false for one identical to the profile's last (nothing is rewritten). */
  keep?: (result: ScanResult) => boolean;
}

export class ScanService {
  readonly results: ScanResults;
  private readonly live = new Map<string, ScanState>();
  /** Told of every finished scan's result, kept or not (the known devices merge each completed one). */
  private readonly finishedHooks: ((result: ScanResult, from: { profileId: string | null }) => void)[] = [];

  constructor(private readonly app: AppContext, private readonly saved: DiscoveryCredentials) {
    this.results = new ScanResults(app);
  }

  private settings() { return this.app.config.get().discovery; }

  /** Checks the request and starts the scan; the job id is the result's id. */
  async start(body: ScanRequest, by: Actor, opts: ScanOptions = {}): Promise<{ job_id: string; subnet: string }> {
    const settings = this.settings();
    // Scheduled runs never hold a person back (they run one at a time, and only while no person's scan does).
    const active = opts.profileId ? 0 : this.personsJobs().length;
    if (active >= settings.max_concurrent_scans) {
      throw tooMany(`${active} scans are running; at most ${settings.max_concurrent_scans} run at once. ` +
        'Try again when one has finished', 5);
    }
    const links = localLinks();
    const cidr = checkSubnet(body.subnet, { allowed: settings.allowed_ranges, maxPrefixV4: settings.max_prefix_v4, links });
    const addresses = sweepAddresses(cidr);
    const onLinks = linksIn(cidr, links);
    if (!addresses.length && !onLinks.length) {
      throw invalid('scan request', [{ path: 'subnet', message: 'an IPv6 prefix shorter than /120 is discovered through the ' +
        'neighbour cache of a link the probe is on, and the probe has no address in this one' }]);
    }
    const credentials = resolveCredentials(this.app, body, () => this.saved.ids());
    const subnetText = formatCidr(cidr);
    const stages = opts.stages ? STAGES.filter((s) => opts.stages!.includes(s.name)) : STAGES;
    let jobId = '';
    const job = this.app.jobs.start(SCAN_JOB, async (ctl) => {
      const plan: ScanPlan = {
        jobId, subnet: cidr, subnetText, addresses, links: onLinks, credentials, snmpEnabled: body.snmp_enabled,
        startedAt: this.app.clock.iso(), startedMs: this.app.clock.now(),
      };
      const state = new ScanState(plan);
      this.live.set(jobId, state);
      let failure: unknown;
      try {
        await runPipeline({
          app: this.app,
          settings: {
            tcpPorts: settings.tcp_ports, reverseDns: settings.reverse_dns, dnsServers: settings.dns_servers,
            snmpTiming: { timeout_ms: settings.snmp_timeout_ms, retries: settings.snmp_retries },
          },
        }, state, ctl, stages);
      } catch (e) {
        failure = e;
      }
      const result = this.finish(state, ctl.signal.aborted ? 'cancelled' : failure ? 'failed' : 'completed');
      if (failure && !ctl.signal.aborted) result.warnings.push(`scan failed: ${errorText(failure)}`);
      const keep = opts.keep?.(result) ?? true;
      try {
        if (keep) await this.results.save(result, by.actor, opts.profileId ?? null);
      } finally {
        this.live.delete(jobId);
      }
      for (const fn of this.finishedHooks) fn(result, { profileId: opts.profileId ?? null });
      this.app.bus.emit('v1sion.scan.completed', {
        job_id: jobId, subnet: subnetText, state: result.state, counts: result.counts,
        error: failure && !ctl.signal.aborted ? errorText(failure) : null, actor: by.actor,
      });
      if (failure) throw failure;
      // A result not kept (the same as the profile's last) has no path of its own.
      return { counts: result.counts, path: keep ? `/api/v1sion/scan/${jobId}/result` : null };
    }, { meta: { subnet: subnetText, ...(opts.profileId ? { profile_id: opts.profileId } : {}) } });
    jobId = job.id;
    if (!opts.profileId) {
      await this.app.audit.record(by.auditEntry('v1sion.scan_start', job.id, {
        subnet: subnetText, snmp: body.snmp_enabled, credentials: credentials.map((c) => c.label),
      }));
    }
    return { job_id: job.id, subnet: subnetText };
  }

  /**
   * `fn` gets every finished scan's result as it ends, kept or not: a scheduled run whose result matched
   * the last one is not kept, and what it saw still counts (the known devices were seen again).
   */
  onFinished(fn: (result: ScanResult, from: { profileId: string | null }) => void): void {
    this.finishedHooks.push(fn);
  }

  /** The job ids of people's scans queued or running now (not a profile's). */
  personsJobs(): string[] {
    return this.app.jobs.list(SCAN_JOB).filter((j) => ACTIVE.has(j.state) && !j.meta?.profile_id).map((j) => j.id);
  }

  private finish(state: ScanState, how: ScanResult['state']): ScanResult {
    const result = state.snapshot();
    result.state = how;
    result.finished_at = this.app.clock.iso();
    result.duration_ms = Math.max(0, this.app.clock.now() - state.plan.startedMs);
    return result;
  }

  /**
   * The kept results (newest first), without their hosts: what a person picks a scan to compare or merge
   * from; and beside them the scans running now (not kept until they end), so any browser can follow them.
   */
  list(q: { subnet?: string; limit: number; offset: number }) {
    let subnet: string | undefined;
    if (q.subnet !== undefined) {
      const c = parseCidr(q.subnet.trim());
      if (!c.ok) throw invalid('query', [{ path: 'query.subnet', message: c.message }]);
      subnet = formatCidr(c.cidr);
    }
    const { items, total } = this.results.list({ subnet, limit: q.limit, offset: q.offset });
    const running = this.app.jobs.list(SCAN_JOB).filter((j) => ACTIVE.has(j.state) && typeof j.meta?.subnet === 'string'
      && (subnet === undefined || j.meta.subnet === subnet)).map((j) => ({
      job_id: j.id, subnet: j.meta!.subnet as string, started_at: j.started_at ?? j.created_at, progress: j.progress,
    })).sort((a, b) => b.started_at.localeCompare(a.started_at));
    return {
      items: items.map((r) => ({
        job_id: r.job_id, subnet: r.subnet, state: r.state, started_at: r.started_at, finished_at: r.finished_at, counts: r.counts,
      })),
      total, running,
    };
  }

  /**
   * The probe's own subnets, where a scan reaches hosts directly: the networks of its interfaces' addresses,
   * without loopback and IPv6 link-local ones; IPv4 first. A form offers them to scan.
   */
  localSubnets() {
    const seen = new Set<string>();
    const items: { subnet: string; interface: string; address: string; family: 4 | 6 }[] = [];
    for (const l of localLinks()) {
      if (l.iface.startsWith('lo')) continue;
      const text = formatCidr(l.cidr);
      if (l.cidr.family === 6 && (text.startsWith('fe80:') || l.cidr.prefix < 64)) continue;
      if (seen.has(text)) continue;
      seen.add(text);
      items.push({ subnet: text, interface: l.iface, address: l.address, family: l.cidr.family as 4 | 6 });
    }
    items.sort((a, b) => a.family - b.family);
    return { items };
  }

  /** The result: 409 while the scan runs, the kept result after, 404 for an unknown or dropped one. */
  async result(jobId: string): Promise<ScanResult> {
    const job = this.app.jobs.get(jobId);
    const state = this.live.get(jobId);
    if (job && ACTIVE.has(job.state)) {
      throw new HttpError(409, 'scan_running', `The scan is still running (${job.progress}%); follow /api/v1sion/scan/${jobId}/stream`,
        { extra: { progress: job.progress, counts: state?.counts() } });
    }
    if (state && job) return { ...state.snapshot(), state: job.state as ScanResult['state'] }; // finishing: not yet on disk
    const kept = await this.results.load(jobId);
    if (!kept) throw notFound('Scan');
    return kept;
  }

  /** Cancels a queued or running scan; 404 when unknown, 409 when it has already finished. */
  async cancel(jobId: string, by: Actor): Promise<{ job_id: string; state: 'cancelled' }> {
    const job = this.app.jobs.get(jobId);
    if (!job && !this.results.has(jobId)) throw notFound('Scan');
    if (!job || !ACTIVE.has(job.state)) throw new HttpError(409, 'scan_finished', `The scan has already ${job?.state ?? 'finished'}`);
    this.app.jobs.cancel(jobId);
    await this.app.audit.record(by.auditEntry('v1sion.scan_cancel', jobId, { subnet: job.meta?.subnet }));
    return { job_id: jobId, state: 'cancelled' };
  }

  /** Progress as SSE; a scan kept from before a restart streams its final message only. */
  stream(req: IncomingMessage, res: ServerResponse, jobId: string): void {
    if (this.app.jobs.get(jobId)) { streamJob(req, res, this.app.jobs, jobId); return; }
    const kept = this.results.meta(jobId);
    if (!kept) throw notFound('Scan');
    const s = openSse(req, res);
    // The shape of the live final message: {result: {counts, path}}.
    s.send({ type: kept.state, progress: 100, result: { counts: kept.counts, path: `/api/v1sion/scan/${jobId}/result` } }, { id: 1 });
    s.close();
  }

  /** At start: files and rows of kept results agree again after a crash. */
  recover(): Promise<void> { return this.results.recover(); }
}
