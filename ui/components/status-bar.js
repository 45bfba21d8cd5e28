// A status bar: a row of segments, each coloured by its status (the caller decides: the worst it saw, or
// the worst that held a real share of its time, with `blip` marking a shorter outage or degradation as a
// notch), grey where nothing is known, with the times and the breakdown in each segment's tooltip. The
// bar as a whole is named in words (colour is never the only cue). A full-size bar can be explored: each
// segment is an image named by its breakdown, one tab stop for the bar (arrow keys, Home and End move
// between segments), and the segment pointed at, tapped or focused is written out under the bar. A
// compact bar (a list row) is one image, its segments' breakdowns in their tooltips. BeatBar: one tick
// per recent check (Uptime Kuma's heartbeat bar), newest on the right.
import { html, useRef, useState } from '../lib/html.js';
import { loadStylesheet } from '../lib/stylesheet.js';

await loadStylesheet(new URL('./status-bar.css', import.meta.url).pathname);

const tf = new Intl.DateTimeFormat(undefined, { hour: '2-digit', minute: '2-digit' });

const segClass = (s) => `sbar-seg sbar-${s.status}${s.blip ? ` sbar-blip sbar-blip-${s.blip}` : ''}`;

/**
 * @param {{
 *   segments: {from: number, to: number, status: string, parts: Record<string, number>}[],
 *   label: string, describe: (parts: Record<string, number>, segment: object) => string, compact?: boolean,
 *   axis?: [string, string],
 * }} props `axis` labels the two ends (e.g. ['24 h ago', 'now'])
 */
export function StatusBar({ segments, label, describe, compact = false, axis }) {
  // "14:00–15:00: 72 % up (43 min), 28 % down (17 min)": a segment's tooltip, name and readout.
  const texts = segments.map((s) => `${tf.format(s.from)}–${tf.format(s.to)}: ${describe(s.parts, s)}`);
  const axisRow = axis ? html`<div class="sbar-axis" aria-hidden="true"><span>${axis[0]}</span><span>${axis[1]}</span></div>` : null;
  if (compact) {
    return html`<div class="sbar-wrap sbar-compact">
      <div class="sbar" role="img" aria-label=${label}>
        ${segments.map((s, i) => html`<span key=${s.from} class=${segClass(s)} title=${texts[i]}></span>`)}
      </div>${axisRow}
    </div>`;
  }
  return html`<${ExploredBar} segments=${segments} texts=${texts} label=${label} axisRow=${axisRow} />`;
}

const KEYS = { ArrowLeft: -1, ArrowRight: 1 };

function ExploredBar({ segments, texts, label, axisRow }) {
  const last = segments.length - 1;
  const [stop, setStop] = useState(last); // the bar's one tab stop: now, until another segment is chosen
  const [shown, setShown] = useState(null); // the segment pointed at or focused
  const bar = useRef(null);
  const at = Math.min(stop, last);
  const onKeyDown = (e) => {
    const to = e.key === 'Home' ? 0 : e.key === 'End' ? last : e.key in KEYS ? at + KEYS[e.key] : null;
    if (to === null) return;
    e.preventDefault();
    const i = Math.max(0, Math.min(last, to));
    setStop(i);
    bar.current?.children[i]?.focus();
  };
  return html`<div class="sbar-wrap">
    <div class="sbar sbar-explore" role="group" aria-label=${label} ref=${bar} onKeyDown=${onKeyDown} onMouseLeave=${() => setShown(null)}>
      ${segments.map((s, i) => html`<span key=${s.from} class=${segClass(s)} role="img" aria-label=${texts[i]} title=${texts[i]}
        tabindex=${i === at ? 0 : -1} onFocus=${() => { setStop(i); setShown(i); }} onBlur=${() => setShown(null)}
        onMouseEnter=${() => setShown(i)}></span>`)}
    </div>${axisRow}
    <p class="sbar-readout" aria-hidden="true">${shown === null || !texts[shown] ? 'Point at or tap an hour for its share of up and down time.' : texts[shown]}</p>
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
