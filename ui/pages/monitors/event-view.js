// How a monitor event reads: "Up → Down · connection refused", "Paused by ada", "Edited by ada:
// interval, target". Shared by the event log and the monitor page.
import { duration, humanize } from '../../lib/format.js';
import { html } from '../../lib/html.js';
import { EVENT_KIND_LABELS, EVENT_KINDS, EVENT_MARK } from '../../lib/vocabulary.js';

export { EVENT_KINDS };
export const kindLabel = (k) => EVENT_KIND_LABELS[k] ?? humanize(k);

/** The status an event leaves the monitor in, for its colour mark. */
export const eventMark = (e) => e.to_status ?? EVENT_MARK[e.kind] ?? 'unknown';

/** "alert held: switch is down" when the alert gate held the event's alert back (details.alert_held_by). */
const heldNote = (e) => (e.details?.alert_held_by ? ` · alert held: ${e.details.alert_held_by.reason}` : '');

/** The event in words, without the monitor's name. */
export function eventText(e) {
  const by = e.actor ? ` by ${e.actor}` : '';
  const msg = e.message ? ` · ${e.message}` : '';
  switch (e.kind) {
    case 'status_change':
      return html`${humanize(e.from_status ?? 'unknown')} → <strong>${humanize(e.to_status ?? '')}</strong>${msg}${heldNote(e)}`;
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
      return html`${humanize(e.from_status ?? 'unknown')} → <strong>${humanize(e.to_status ?? '')}</strong>${e.message ? ` · ${e.message}` : ''}${by ? ` · ${by}` : ''}${heldNote(e)}`;
    case 'updated':
      return parts(Object.keys(e.details?.changes ?? {}).map(humanize).join(', '), by);
    case 'incident_closed':
      return parts(e.details?.duration !== undefined ? `after ${duration(e.details.duration)}` : '', e.message);
    default:
      return parts(e.message, by) || '—';
  }
}
