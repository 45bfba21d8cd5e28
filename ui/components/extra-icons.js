// Line icons beyond the shared set in icons.js (same 24-unit grid and stroke), for the monitor and
// inventory pages: pause, play, download, link, history, and one per inventory type (building, pin,
// server, box, app, network). Any other name is drawn by icons.js.
import { html } from '../lib/html.js';
import { Icon } from './icons.js';

const P = (d) => html`<path d=${d} />`;

const EXTRA = {
  pause: () => html`<rect x="6.5" y="5" width="3.5" height="14" rx="1" /><rect x="14" y="5" width="3.5" height="14" rx="1" />`,
  play: () => P('M7.5 5.5v13l11-6.5Z'),
  download: () => html`${P('M12 4v11M7.5 10.5 12 15l4.5-4.5')}${P('M5 19.5h14')}`,
  link: () => html`${P('M10 14a4 4 0 0 0 5.7 0l3-3a4 4 0 0 0-5.7-5.7l-1 1')}${P('M14 10a4 4 0 0 0-5.7 0l-3 3a4 4 0 0 0 5.7 5.7l1-1')}`,
  history: () => html`${P('M4.5 12a7.5 7.5 0 1 0 2.2-5.3L4.5 9')}${P('M4.5 4.5V9H9')}${P('M12 8v4.5l3 2')}`,
  building: () => html`<rect x="5" y="3.5" width="10" height="17" rx="1.5" />${P('M15 9.5h3.5a1 1 0 0 1 1 1v10H15')}${P('M8 7.5h4M8 11h4M8 14.5h4M3.5 20.5h17')}`,
  pin: () => html`${P('M12 21s-6.5-6-6.5-11a6.5 6.5 0 0 1 13 0c0 5-6.5 11-6.5 11Z')}<circle cx="12" cy="10" r="2.5" />`,
  server: () => html`<rect x="4" y="4" width="16" height="7" rx="1.5" /><rect x="4" y="13" width="16" height="7" rx="1.5" />${P('M7.5 7.5h.01M7.5 16.5h.01M11 7.5h5M11 16.5h5')}`,
  box: () => html`${P('M12 3.5 20 7.5v9L12 20.5 4 16.5v-9Z')}${P('M4 7.5l8 4 8-4M12 11.5v9')}`,
  app: () => html`<rect x="3.5" y="4.5" width="17" height="15" rx="2" />${P('M3.5 9h17')}${P('M6.5 6.8h.01M9 6.8h.01')}`,
  network: () => html`<rect x="9.5" y="3.5" width="5" height="4.5" rx="1" /><rect x="3.5" y="16" width="5" height="4.5" rx="1" /><rect x="15.5" y="16" width="5" height="4.5" rx="1" />${P('M12 8v4M6 16v-2.5a1.5 1.5 0 0 1 1.5-1.5h9a1.5 1.5 0 0 1 1.5 1.5V16')}`,
};

/** Icon with the extra names; props as Icon's (decorative unless `label`). */
export function XIcon({ name, size = 18, label, class: cls = '' }) {
  if (!EXTRA[name]) return html`<${Icon} name=${name} size=${size} label=${label} class=${cls} />`;
  return html`<svg class=${`icon ${cls}`} width=${size} height=${size} viewBox="0 0 24 24" fill="none" stroke="currentColor"
    stroke-width="1.75" stroke-linecap="round" stroke-linejoin="round" aria-hidden=${label ? undefined : 'true'}
    role=${label ? 'img' : undefined} aria-label=${label} focusable="false">${EXTRA[name]()}</svg>`;
}
