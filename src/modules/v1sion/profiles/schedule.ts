// When a scan profile runs next, as pure functions of its schedule, its anchor (the scheduled time the
// last run or skip stood for) and a time: every N minutes or hours on a grid from the anchor, or a cron
// in the profile's time zone (core/cron.ts). The jitter is a fixed share of the allowed spread for each
// scheduled time (from a hash of the profile and the time), so the next run shown is the one that
// happens, and a restart does not move it.
import { createHash } from 'node:crypto';
import { nextCronTime, parseCron } from '../../../core/cron.js';

export type ProfileSchedule =
  | { kind: 'interval'; every: number; unit: 'minutes' | 'hours' }
  | { kind: 'cron'; cron: string };

const MINUTE = 60_000;

/** An interval schedule's period (ms); null for a cron. */
export function periodOf(s: ProfileSchedule): number | null {
  return s.kind === 'interval' ? s.every * (s.unit === 'hours' ? 60 : 1) * MINUTE : null;
}

/** The first scheduled time strictly after `anchor`; null when a cron names none within four years. */
export function nominalAfter(s: ProfileSchedule, tz: string, anchor: number): number | null {
  return s.kind === 'interval' ? anchor + periodOf(s)! : nextCronTime(parseCron(s.cron), tz, anchor);
}

/**
 * The jitter (ms) added to the scheduled time `nominal`: up to `jitterSeconds`, and never more than half
 * the gap to the next scheduled time, so a jittered run cannot pass the next one.
 */
export function jitterOf(s: ProfileSchedule, tz: string, id: string, nominal: number, jitterSeconds: number): number {
  if (jitterSeconds <= 0) return 0;
  const next = nominalAfter(s, tz, nominal);
  const spread = Math.min(jitterSeconds * 1000, next === null ? Infinity : Math.floor((next - nominal) / 2));
  const h = createHash('sha256').update(`${id}@${nominal}`).digest().readUInt32BE(0);
  return Math.floor((h / 0x1_0000_0000) * (spread + 1));
}

/** When the profile runs next: the scheduled time after its anchor, and that time with its jitter. */
export function nextRun(s: ProfileSchedule, tz: string, id: string, anchor: number, jitterSeconds: number):
  { nominal: number; at: number } | null {
  const nominal = nominalAfter(s, tz, anchor);
  return nominal === null ? null : { nominal, at: nominal + jitterOf(s, tz, id, nominal, jitterSeconds) };
}

/**
 * The anchor a run (or skip) of the scheduled time `nominal` leaves at `now`: the latest scheduled time at
 * or before now, so a probe that was off for hours runs once when it is back, not once per missed time.
 */
export function anchorAfterRun(s: ProfileSchedule, nominal: number, now: number): number {
  const p = periodOf(s);
  if (p === null) return Math.max(nominal, now);
  return now <= nominal ? nominal : nominal + Math.floor((now - nominal) / p) * p;
}
