// "Degraded" is decided here and in the check types' own degrade() hooks, nowhere else: run() reports
// up or down, and runPrepared (checks/index.ts) passes an up result through its type's degrade(), or
// through degradeWhenSlow when the type has none.

import type { CheckDefinition, CheckResult, DegradeHook, MonitorThresholds, RunReport } from './types.js';

/** The slow rule: an `up` result slower than degradedMs is degraded; any other result is left as it is. */
export function applyDegraded(result: CheckResult, degradedMs: number | null | undefined): CheckResult {
  if (result.status !== 'up' || degradedMs == null || result.response_time_ms == null) return result;
  if (result.response_time_ms <= degradedMs) return result;
  // The threshold, not the measured time: messages stay few and stable (the time is in response_time_ms).
  return { ...result, status: 'degraded', message: `${result.message}; slower than ${degradedMs} ms` };
}

/** CheckDefinition.degrade's default: slower than the monitor's degraded_ms. */
export const degradeWhenSlow: DegradeHook = (result, monitor) => applyDegraded(result, monitor.degraded_ms);

/** The result a monitor records: run()'s, with its type's degrade() (or the default) applied when up. */
export function decideDegraded(def: Pick<CheckDefinition, 'degrade'>, result: RunReport, monitor: MonitorThresholds): CheckResult {
  if (result.status !== 'up') return result;
  return (def.degrade ?? degradeWhenSlow)(result as RunReport & { status: 'up' }, monitor);
}
