// Whether a webhook gets an alert, from when it last got alerts about the same subject. Pure.
//
// - cooldown: after a delivery of type T about subject S to a webhook, further T alerts about S are not
//   sent to it until `cooldown` seconds have passed.
// - A recovery (monitor_up) resolves problems: it is sent, whatever the cooldown, when the webhook got a
//   problem alert (monitor_down, monitor_degraded, test_failure) about the subject after the last
//   recovery it got. When the webhook was told of no problem (it was held back, or suppressed by
//   cooldown) the recovery is not sent either, so a receiver never sees "up" without its "down". A
//   webhook that subscribes to no problem type gets recoveries under the plain cooldown rule.

export type RouteDecision = 'queued' | 'cooldown' | 'no_problem_sent';

export interface CooldownInput {
  alertType: string;
  recovery: boolean;
  /** Seconds. */
  cooldown: number;
  /** The webhook's subscribed types. */
  subscribed: readonly string[];
  /** Types that are problems a recovery resolves. */
  problemTypes: readonly string[];
  /** When the webhook last got each alert type about this subject (epoch ms). */
  lastAt: ReadonlyMap<string, number>;
  now: number;
}

export function decide(i: CooldownInput): RouteDecision {
  if (i.recovery) {
    const upAt = i.lastAt.get(i.alertType) ?? -Infinity;
    const problemAt = Math.max(-Infinity, ...i.problemTypes.map((t) => i.lastAt.get(t) ?? -Infinity));
    if (problemAt > upAt) return 'queued';
    if (i.problemTypes.some((t) => i.subscribed.includes(t))) return 'no_problem_sent';
  }
  const last = i.lastAt.get(i.alertType);
  if (last !== undefined && i.now < last + i.cooldown * 1000) return 'cooldown';
  return 'queued';
}
