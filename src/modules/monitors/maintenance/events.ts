// The event log's lines for maintenance windows: one when an occurrence opens and one when it closes
// (on schedule, ended early, changed or deleted), so "why were there no alerts last night" has an answer
// in the log. One line per occurrence, not per monitor: a window for all of 2,000 monitors is one event.
import { iso } from '../../../core/clock.js';
import type { Tx } from '../../../core/store/types.js';
import { insertEvent } from '../events-log.js';
import { when } from './words.js';

export type EndReason = 'scheduled' | 'ended_early' | 'changed' | 'deleted';

export interface OccurrenceFacts {
  window_id: string; name: string; from: number; to: number; timezone: string;
  applies_to: 'all' | 'monitors' | 'tags'; monitor_ids: readonly string[]; tags: readonly string[];
}

const REASON_TEXT: Record<EndReason, string> = {
  scheduled: 'closed as scheduled', ended_early: 'ended early',
  changed: 'ended: the window was changed', deleted: 'ended: the window was deleted',
};

function details(o: OccurrenceFacts, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    window_id: o.window_id, window_name: o.name, from: iso(o.from), to: iso(o.to), applies_to: o.applies_to,
    ...(o.applies_to === 'monitors' ? { monitor_ids: [...o.monitor_ids] } : {}),
    ...(o.applies_to === 'tags' ? { tags: [...o.tags] } : {}),
    ...extra,
  };
}

export function startedEvent(tx: Tx, o: OccurrenceFacts): void {
  insertEvent(tx, { t: o.from, kind: 'maintenance_started', message: `${o.name}: alerts held until ${when(o.to, o.timezone, o.from)}`,
    actor: 'system (maintenance window)', details: details(o) });
}

/** `at`: when it closed (the scheduled end, or the moment it was cut). */
export function endedEvent(tx: Tx, o: OccurrenceFacts, at: number, reason: EndReason, actor?: string | null): void {
  insertEvent(tx, { t: at, kind: 'maintenance_ended', message: `${o.name}: ${REASON_TEXT[reason]}`,
    actor: actor ?? 'system (maintenance window)',
    details: details(o, { reason, ...(reason === 'scheduled' ? {} : { was_until: iso(o.to) }) }) });
}
