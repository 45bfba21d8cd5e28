// A status bar: a row of segments, each coloured by its status (the caller decides: the worst it saw, or
// the one that held most of its time, with `blip` marking a shorter outage or degradation as a notch),
// grey where nothing is known, with the times and the breakdown in each segment's tooltip. The bar as a
// whole is an image whose name says the same in words (colour is never the only cue). BeatBar: one tick
// per recent check (Uptime Kuma's heartbeat bar), newest on the right.
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
      ${segments.map((s) => html`<span key=${s.from} class=${`sbar-seg sbar-${s.status}${s.blip ? ` sbar-blip sbar-blip-${s.blip}` : ''}`}
        title=${`${tf.format(s.from)}–${tf.format(s.to)}: ${describe(s.parts, s)}`}></span>`)}
    </div>
    ${axis ? html`<div class="sbar-axis" aria-hidden="true"><span>${axis[0]}</span><span>${axis[1]}</span></div>` : null}
  </div>`;
}

/**
 * The newest checks as ticks, oldest first (newest on the right).
 * @param {{beats: {tone: string, label: string, manual: boolean}[], label: string, compact?: boolean, slots?: number}} props
 *   `slots`: room for this many, the empty ones grey on the left
 */
export function BeatBar({ beats, label, compact = false, slots = 0 }) {
  const empty = Math.max(0, slots - beats.length);
  return html`<div class=${`beats${compact ? ' beats-compact' : ''}`} role="img" aria-label=${label}>
    ${Array.from({ length: empty }, (_, i) => html`<span key=${`e${i}`} class="beat beat-empty"></span>`)}
    ${beats.map((b, i) => html`<span key=${`b${i}`} class=${`beat beat-${b.tone}${b.manual ? ' beat-manual' : ''}`} title=${b.label}></span>`)}
  </div>`;
}
