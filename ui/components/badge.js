// Status badges: a coloured dot and a word, never colour alone.
import { html } from '../lib/html.js';
import { STATUS_LABELS } from '../lib/vocabulary.js';

/** A monitor status (up, down, degraded, paused, unknown). */
export function StatusBadge({ status }) {
  const s = STATUS_LABELS[status] ? status : 'unknown';
  return html`<span class=${`badge status-${s}`}><span class="dot" aria-hidden="true"></span>${STATUS_LABELS[s]}</span>`;
}

/** A plain label; tone is one of neutral, ok, warn, bad, info, accent. */
export function Badge({ tone = 'neutral', children, title }) {
  return html`<span class=${`badge tone-${tone}`} title=${title}>${children}</span>`;
}
