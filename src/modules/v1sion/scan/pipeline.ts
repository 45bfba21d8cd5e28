// One scan: the declared stages (scan/stages/index.ts) phase by phase, liveness, then identification
// of each live host, then neighbours and topology. Inside a phase, a stage starts as soon as the
// earlier stages that add what it needs have finished, so stages with nothing between them run at once;
// the per-host stages of a phase run together on each host, at most HOSTS_PARALLEL hosts at once.
// Every phase streams: a `phase` message when it starts, a `host` message per host once it has passed
// every per-host stage, `progress` from the stages' weights, and what the stages emit (`link`).
import { setMaxListeners } from 'node:events';
import type { AppContext } from '../../../core/context.js';
import type { JobControl } from '../../../core/jobs.js';
import { pool } from './pool.js';
import type { ScanHost } from './result.js';
import type { ScanState } from './state.js';
import { STAGES } from './stages/index.js';
import { PHASES, type Input, type Phase, type Stage, type StageContext, type StageSettings } from './stages/types.js';

const HOSTS_PARALLEL = 32;
/** A running scan never shows 100: that is its final message. */
const RUNNING_MAX = 99;

const PHASE_MESSAGES: Record<Phase, (s: ScanState) => string> = {
  liveness: (s) => `Looking for hosts in ${s.plan.subnetText} (${s.plan.addresses.length} addresses)`,
  identify: (s) => `${s.hosts.size} hosts alive; identifying them`,
  neighbours: (s) => `Reading neighbours and forwarding tables of ${s.work.agents.length} SNMP devices`,
};

export interface PipelineDeps { app: AppContext; settings: StageSettings }

/** Whether the scan has what a stage needs of the request (addresses to sweep, links, SNMP credentials). */
function hasInputs(stage: Stage, state: ScanState): boolean {
  const { plan } = state;
  const has: Record<Input, boolean> = { addresses: plan.addresses.length > 0, links: plan.links.length > 0, credentials: plan.snmpEnabled };
  return stage.needs.every((n) => !(n in has) || has[n as Input]);
}

/** Runs the scan; the state holds what was found (also when cancelled: what was found so far). */
export async function runPipeline(deps: PipelineDeps, state: ScanState, ctl: JobControl, stages: readonly Stage[] = STAGES): Promise<void> {
  const { signal } = ctl;
  // Every connect and lookup in flight listens for the cancel: hundreds at once, by design.
  setMaxListeners(4096, signal);
  const running = stages.filter((s) => hasInputs(s, state));
  const total = stages.reduce((sum, s) => sum + s.weight, 0) || 1;
  // How far each stage is (0..1); a stage the scan has no inputs for counts as done.
  const done = new Map(stages.map((s) => [s, running.includes(s) ? 0 : 1]));
  const report = () => {
    const weighted = stages.reduce((sum, s) => sum + s.weight * done.get(s)!, 0);
    ctl.progress(Math.round((weighted / total) * RUNNING_MAX), { counts: state.counts() });
  };
  const contextOf = (stage: Stage): StageContext => ({
    app: deps.app, settings: deps.settings, plan: state.plan, state, signal,
    progress: (f) => { done.set(stage, Math.min(1, Math.max(0, f))); report(); },
    emit: (type, data) => ctl.emit(type, data),
    fail: (what, e) => { if (!signal.aborted) state.result.warnings.push(`${what}: ${errorText(e)}`); },
  });

  // A host's messages go out once it has passed every per-host stage that runs.
  const perHost = running.filter((s) => s.perHost);
  const passed = new Map<string, number>();
  const hostPassed = (h: ScanHost) => {
    const n = (passed.get(h.ip) ?? 0) + 1;
    passed.set(h.ip, n);
    if (n < perHost.length || signal.aborted) return;
    report();
    ctl.emit('host', { host: h });
    deps.app.bus.emit('v1sion.device.discovered', { job_id: state.plan.jobId, subnet: state.plan.subnetText, host: h });
  };

  for (const phase of PHASES) {
    const inPhase = running.filter((s) => s.phase === phase);
    if (signal.aborted) return;
    if (!stages.some((s) => s.phase === phase)) continue;
    ctl.emit('phase', { phase, message: PHASE_MESSAGES[phase](state) });
    const hostStages = inPhase.filter((s) => s.perHost);
    const finished = new Map<Stage, Promise<void>>();
    // A stage's promise, made on first use: the earlier stages it waits for are made first, whatever the list order.
    const finishedOf = (stage: Stage): Promise<void> => {
      let p = finished.get(stage);
      if (p) return p;
      const hostGroup = hostStages.find((s) => finished.has(s));
      if (stage.perHost && hostGroup) p = finished.get(hostGroup)!;
      else if (stage.perHost) {
        p = Promise.all(hostStages.map(after)).then(() => runPerHost(hostStages, state, contextOf, done, hostPassed, signal));
      } else {
        p = after(stage).then(async () => {
          if (signal.aborted) return;
          await stage.run!(contextOf(stage));
          done.set(stage, 1);
          report();
        });
      }
      finished.set(stage, p);
      return p;
    };
    const after = (stage: Stage) => Promise.all(inPhase.slice(0, inPhase.indexOf(stage))
      .filter((s) => s.adds.products?.some((p) => stage.needs.includes(p))).map(finishedOf));
    for (const stage of inPhase) finishedOf(stage);
    await Promise.all(finished.values());
  }
  if (!signal.aborted) report();
}

/** The per-host stages of a phase together on each live host; each stage's `done` after every host. */
async function runPerHost(stages: Stage[], state: ScanState, contextOf: (s: Stage) => StageContext, done: Map<Stage, number>,
  hostPassed: (h: ScanHost) => void, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return;
  const live = state.live();
  const runs = stages.map((s) => ({ stage: s, run: s.perHost!(contextOf(s), live), hosts: 0 }));
  try {
    await pool(live, HOSTS_PARALLEL, signal, async (ip) => {
      const h = state.hosts.get(ip)!;
      await Promise.all(runs.map(async (r) => {
        await r.run.each(h);
        done.set(r.stage, ++r.hosts / live.length);
        hostPassed(h);
      }));
    });
  } finally {
    for (const r of runs) r.run.done?.();
  }
}

export function errorText(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}
