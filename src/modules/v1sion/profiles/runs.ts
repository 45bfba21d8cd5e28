// One run of a scan profile: each subnet scanned in turn through the scan service (the same checks as a
// person's scan: allowed ranges, size, credentials by reference with their scopes), each result merged into
// the profile's session (saved from the first result when it has none), and the run's summary stored with
// the profile. A result the same as the last merged one of that subnet (a fingerprint of what was found,
// without round-trip times) is neither kept nor merged: a quiet network costs one small row per run.
import { createHash } from 'node:crypto';
import type { Actor, AuditEntryInput } from '../../../core/audit/types.js';
import type { AppContext } from '../../../core/context.js';
import { HttpError } from '../../../core/errors.js';
import { parseCidr, type Cidr } from '../../../core/ip.js';
import type { ScanCounts, ScanResult } from '../scan/result.js';
import type { ScanService } from '../scan/service.js';
import type { SessionService } from '../sessions/service.js';
import type { LastRun } from './schemas.js';

/** What a run reads of its profile. */
export interface RunProfile {
  id: string; name: string; subnets: string[]; snmp_enabled: boolean; credentials: string[] | null; stages: string[] | null;
  session_id: string | null;
}

/** The stored summary: the API's last_run, and the fingerprint of each subnet's last merged result. */
export interface StoredRun extends LastRun { fingerprints: Record<string, string> }

export interface RunDeps {
  app: AppContext;
  scans: ScanService;
  sessions: SessionService;
  /** Resolves when no person's scan is queued or running (theirs go first). */
  clear(): Promise<void>;
  /** The scan running now for the profile (null between subnets). */
  onJob(jobId: string | null): void;
}

/** The actor a profile's scans and merges run as: the profile, never the person who created it. */
export function scheduleActor(name: string): Actor {
  const actor = `schedule: ${name}`;
  return { actor, auditEntry: (action, target = null, details = {}): AuditEntryInput => ({ action, actor, target, details }) };
}

/** What was found, without what changes every run (round-trip times, which source answered first). */
export function fingerprint(r: ScanResult): string {
  const hosts = r.hosts.map((h) => ({ ...h, rtt_ms: null, alive_by: [] }));
  return createHash('sha256').update(JSON.stringify([r.subnet, hosts, r.devices, r.links, r.routes ?? []])).digest('hex');
}

const zero = (): ScanCounts => ({ addresses: 0, live: 0, snmp: 0, devices: 0, links: 0 });
const message = (e: unknown) => (e instanceof Error ? e.message : String(e));

/**
 * Runs the profile; never throws (a failure is the summary's error). `previous` holds the fingerprints of
 * the last run. Returns the summary and the session the results went to.
 */
export async function runProfile(deps: RunDeps, p: RunProfile, trigger: LastRun['trigger'], previous: Record<string, string>):
  Promise<{ run: StoredRun; sessionId: string | null }> {
  const { app, scans, sessions } = deps;
  const by = scheduleActor(p.name);
  const run: StoredRun = {
    started_at: app.clock.iso(), finished_at: '', trigger, state: 'completed', job_ids: [], unchanged: [], counts: zero(),
    new_nodes: 0, missing_nodes: 0, updated_nodes: 0, error: null, fingerprints: {},
  };
  let sessionId = p.session_id;
  const errors: string[] = [];
  for (const subnet of p.subnets) {
    await deps.clear();
    let print = '';
    try {
      const started = await scans.start({
        subnet, snmp_enabled: p.snmp_enabled, snmp_version: '2c', ...(p.credentials ? { credentials: p.credentials } : {}),
      }, by, {
        profileId: p.id, ...(p.stages ? { stages: p.stages } : {}),
        // Kept when it differs from the last merged one, or when there is no session to hold the last one any more.
        keep: (r) => {
          print = fingerprint(r);
          return r.state !== 'completed' || print !== previous[subnet] || !sessionId || !sessions.exists(sessionId);
        },
      });
      deps.onJob(started.job_id);
      const job = await app.jobs.waitFor(started.job_id);
      deps.onJob(null);
      run.job_ids.push(started.job_id);
      const done = app.jobs.result<{ counts: ScanCounts; path: string | null }>(started.job_id);
      if (job.state !== 'completed' || !done) {
        errors.push(`${subnet}: the scan ${job.state}${job.error ? ` (${job.error})` : ''}`);
        if (job.state === 'cancelled') { run.state = 'cancelled'; break; }
        continue;
      }
      for (const k of Object.keys(run.counts) as (keyof ScanCounts)[]) run.counts[k] += done.counts[k] ?? 0;
      if (done.path === null) {
        // The same as the last merged result: the session already holds it.
        run.unchanged.push(subnet);
        run.fingerprints[subnet] = print;
        continue;
      }
      const result = await scans.results.load(started.job_id);
      if (!result) { errors.push(`${subnet}: the result was not kept`); continue; }
      sessionId = await merge(deps, p, sessionId, result, by, run);
      run.fingerprints[subnet] = print;
    } catch (e) {
      deps.onJob(null);
      errors.push(`${subnet}: ${e instanceof HttpError && e.errors?.length ? e.errors.map((x) => x.message).join('; ') : message(e)}`);
    }
  }
  // A subnet not scanned this time keeps its fingerprint only if it was unchanged: a failed one merges next time.
  if (errors.length) {
    run.error = errors.join('; ');
    if (run.state === 'completed') run.state = 'failed';
  }
  run.finished_at = app.clock.iso();
  return { run, sessionId };
}

/** Merges into the profile's session, or saves one from this result when it has none (or it was deleted). */
async function merge(deps: RunDeps, p: RunProfile, sessionId: string | null, result: ScanResult, by: Actor, run: StoredRun):
  Promise<string> {
  const { sessions } = deps;
  if (sessionId && sessions.exists(sessionId)) {
    const parsed = parseCidr(result.subnet);
    const within: Cidr[] = parsed.ok ? [parsed.cidr] : [];
    const c = await sessions.mergeResult(sessionId, result, by, { within, quiet: true });
    run.new_nodes += c.new_nodes;
    run.missing_nodes += c.missing_nodes;
    run.updated_nodes += c.updated_nodes;
    return sessionId;
  }
  const s = await sessions.create({
    name: p.name.slice(0, 200), subnets: p.subnets, scan_job_id: result.job_id, nodes: [], edges: [],
    notes: `Kept up to date by the scheduled scan "${p.name}".`,
  }, by);
  run.new_nodes += s.nodes.length;
  return s.id;
}
