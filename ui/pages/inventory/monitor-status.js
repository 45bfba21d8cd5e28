// A monitor's status as the inventory shows it, in the monitor pages' own words and colours
// (pages/monitors/glance.js): "Failing 1 of 3" in the failing colour for failed checks below the
// threshold, "Degraded · Slow" for a slow answer. An endpoint's `watch` summary reads the same way:
// the API gives it the worst monitor's status, degraded_reason, failing_streak and failure_threshold.
import { html } from '../../lib/html.js';
import { StatusBadge } from '../../components/badge.js';
import { reasonHint, reasonText, shownStatus, statusLabel } from '../monitors/glance.js';

/** `m`: a monitor (or a `watch` summary) with status, degraded_reason, failing_streak, failure_threshold. */
export function MonitorStatus({ m }) {
  const reason = reasonText(m);
  return html`<span class="monitor-status"><${StatusBadge} status=${shownStatus(m)} label=${statusLabel(m)} title=${reasonHint(m) ?? undefined} />${
    reason ? html` <span class="muted small">· ${reason}</span>` : null}</span>`;
}
