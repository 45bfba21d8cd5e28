// "Degraded" is decided here and in the check types' own degrade() hooks, nowhere else: run() reports
// up or down, and runPrepared (checks/index.ts) passes an up result through its type's degrade(), or
// through degradeWhenSlow when the type has none.

import type { CheckDefinition, CheckResult, DegradeHook, MonitorThresholds, RunReport } from './types.js';

/** CheckDefinition.degrade's default, the slow rule: an `up` result slower than the monitor's degraded_ms is degraded. */
export const degradeWhenSlow: DegradeHook = (result, monitor) => {
  const limit = monitor.degraded_ms;
  if (result.status !== 'up' || limit == null || result.response_time_ms == null || result.response_time_ms <= limit) return result;
  // The threshold, not the measured time: messages stay few and stable (the time is in response_time_ms).
  return { ...result, status: 'degraded', message: `${result.message}; slower than ${limit} ms` };
};

/** The result a monitor records: run()'s, with its type's degrade() (or the default) applied when up. */
export function decideDegraded(def: Pick<CheckDefinition, 'degrade'>, result: RunReport, monitor: MonitorThresholds): CheckResult {
  if (result.status !== 'up') return result;
  return (def.degrade ?? degradeWhenSlow)(result as RunReport & { status: 'up' }, monitor);
}
