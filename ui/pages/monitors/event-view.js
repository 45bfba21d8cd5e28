// How a monitor event reads: "Up → Failing 1 of 3 · HTTP 500", "Failing 2 of 3 → Down", "Paused by ada",
// "Edited by ada: interval, target". Shared by the event log, the monitor page and the dashboard.
import { duration, humanize } from '../../lib/format.js';
import { html } from '../../lib/html.js';
import { EVENT_KIND_LABELS, EVENT_KINDS, EVENT_MARK } from '../../lib/vocabulary.js';
import { failingText } from './glance.js';

export { EVENT_KINDS };
export const kindLabel = (k) => EVENT_KIND_LABELS[k] ?? humanize(k);

/**
 * One side of a status change as the monitor pages show statuses: {key, label}. The API's `degraded`
 * reached by a failed check is failing ("Failing 1 of 3", from details.failing for the status after,
 * details.from_failing for the one before); events written before those facts were kept still tell a
 * failing `to` side by its fail_streak, without the threshold ("Failing").
 */
export function eventSide(e, which) {
  const status = which === 'to' ? e.to_status : e.from_status;
  const facts = which === 'to' ? e.details?.failing : e.details?.from_failing;
  if (status === 'degraded' && (facts || (which === 'to' && e.details?.fail_streak > 0))) {
    return { key: 'failing', label: facts ? failingText(facts.streak, facts.threshold) : 'Failing' };
  }
  return { key: status ?? 'unknown', label: humanize(status ?? 'unknown') };
}

/** The status an event leaves the monitor in, for its colour mark (failing its own). */
export const eventMark = (e) => (e.to_status ? eventSide(e, 'to').key : EVENT_MARK[e.kind] ?? 'unknown');

/** "Up → <strong>Failing 1 of 3</strong>". */
const change = (e) => html`${eventSide(e, 'from').label} → <strong>${eventSide(e, 'to').label}</strong>`;

/** "alert held: switch is down" when the alert gate held the event's alert back (details.alert_held_by). */
const heldNote = (e) => (e.details?.alert_held_by ? ` · alert held: ${e.details.alert_held_by.reason}` : '');

/** What a monitor-less event is about: a maintenance window's monitors, else every monitor. */
export function eventSubject(e) {
  const d = e.details ?? {};
  if (d.window_id) {
    if (d.applies_to === 'tags') return `Tagged ${(d.tags ?? []).join(', ')}`;
    if (d.applies_to === 'monitors') return `${d.monitor_ids?.length ?? 0} monitor${d.monitor_ids?.length === 1 ? '' : 's'}`;
  }
  return e.monitor_name ?? 'All monitors';
}

/** The event in words, without the monitor's name. */
export function eventText(e) {
  const by = e.actor ? ` by ${e.actor}` : '';
  const msg = e.message ? ` · ${e.message}` : '';
  switch (e.kind) {
    case 'status_change':
      return html`${change(e)}${msg}${heldNote(e)}`;
    case 'manual_check':
      return html`Checked now${by}: <strong>${humanize(e.details?.result ?? e.to_status ?? '')}</strong>${msg}`;
    case 'updated': {
      const fields = Object.keys(e.details?.changes ?? {});
      return html`Edited${by}${fields.length ? `: ${fields.map(humanize).join(', ')}` : ''}`;
    }
    case 'incident_closed':
      return html`Incident closed${e.details?.duration !== undefined ? ` after ${duration(e.details.duration)}` : ''}${msg}`;
    default:
      return html`${kindLabel(e.kind)}${by}${msg}`;
  }
}

/** The event's details for a table whose other column names the kind: no kind repeated. */
export function eventDetail(e) {
  const by = e.actor ? `by ${e.actor}` : '';
  const parts = (...xs) => xs.filter(Boolean).join(' · ');
  switch (e.kind) {
    case 'status_change':
    case 'manual_check':
      return html`${change(e)}${e.message ? ` · ${e.message}` : ''}${by ? ` · ${by}` : ''}${heldNote(e)}`;
    case 'updated':
      return parts(Object.keys(e.details?.changes ?? {}).map(humanize).join(', '), by);
    case 'incident_closed':
      return parts(e.details?.duration !== undefined ? `after ${duration(e.details.duration)}` : '', e.message);
    default:
      return parts(e.message, by) || '—';
  }
}
