// Status badges: a coloured dot and a word, never colour alone.
import { html } from '../lib/html.js';
import { STATUS_LABELS } from '../lib/vocabulary.js';

/**
 * A monitor status (up, down, degraded, paused, unknown). With `label`, a status the pages tell apart
 * (failing, maintenance: pages/monitors/glance.js `shownStatus`) in its own words ("Failing 1 of 3",
 * "Maintenance") and colour.
 */
export function StatusBadge({ status, label, title }) {
  const s = label || STATUS_LABELS[status] ? status : 'unknown';
  return html`<span class=${`badge status-${s}`} title=${title}><span class="dot" aria-hidden="true"></span>${label ?? STATUS_LABELS[s]}</span>`;
}

/** A plain label; tone is one of neutral, ok, warn, bad, failing, maintenance, info, accent. */
export function Badge({ tone = 'neutral', children, title }) {
  return html`<span class=${`badge tone-${tone}`} title=${title}>${children}</span>`;
}
