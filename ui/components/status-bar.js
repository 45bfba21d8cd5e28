// A status bar: a row of segments, each coloured by the worst status it saw (down, degraded, up,
// paused; grey where nothing is known), with the times and the breakdown in each segment's tooltip.
// The bar as a whole is an image whose name says the same in words (colour is never the only cue).
import { html } from '../lib/html.js';
import { loadStylesheet } from '../lib/stylesheet.js';

await loadStylesheet(new URL('./status-bar.css', import.meta.url).pathname);

const tf = new Intl.DateTimeFormat(undefined, { hour: '2-digit', minute: '2-digit' });

/**
 * @param {{
 *   segments: {from: number, to: number, status: string, parts: Record<string, number>}[],
 *   label: string, describe: (parts: Record<string, number>) => string, compact?: boolean, axis?: [string, string],
 * }} props `axis` labels the two ends (e.g. ['24 h ago', 'now'])
 */
export function StatusBar({ segments, label, describe, compact = false, axis }) {
  return html`<div class=${`sbar-wrap${compact ? ' sbar-compact' : ''}`}>
    <div class="sbar" role="img" aria-label=${label}>
      ${segments.map((s) => html`<span key=${s.from} class=${`sbar-seg sbar-${s.status}`}
        title=${`${tf.format(s.from)}–${tf.format(s.to)}: ${describe(s.parts)}`}></span>`)}
    </div>
    ${axis ? html`<div class="sbar-axis" aria-hidden="true"><span>${axis[0]}</span><span>${axis[1]}</span></div>` : null}
  </div>`;
}
