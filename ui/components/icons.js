// Line icons drawn for netprobe on a 24-unit grid, stroked in the current text colour. Each entry makes
// fresh elements: Preact must not mount one element object in two places.
import { html } from '../lib/html.js';

const P = (d) => html`<path d=${d} />`;

const ICONS = {
  dashboard: () => html`<rect x="3.5" y="3.5" width="7" height="8" rx="1.5" /><rect x="13.5" y="3.5" width="7" height="5" rx="1.5" />
    <rect x="13.5" y="11.5" width="7" height="9" rx="1.5" /><rect x="3.5" y="14.5" width="7" height="6" rx="1.5" />`,
  monitors: () => P('M3 12h4l2.5-6 5 12 2.5-6h4'),
  inventory: () => html`${P('M12 3.5 20 7.5 12 11.5 4 7.5Z')}${P('M4 12l8 4 8-4')}${P('M4 16.5l8 4 8-4')}`,
  discovery: () => html`<circle cx="12" cy="12" r="8.5" /><circle cx="12" cy="12" r="4.5" />${P('M12 12 18 6')}<circle cx="12" cy="12" r="1" fill="currentColor" />`,
  snmp: () => html`<rect x="3" y="7" width="18" height="10" rx="2" />${P('M7 11v2M10 11v2M13 11v2')}<circle cx="17" cy="12" r="1" fill="currentColor" />`,
  webhooks: () => P('M13 3 5 13.5h6L10 21l8-10.5h-6Z'),
  settings: () => html`${P('M4 7h8M16 7h4M4 12h2M10 12h10M4 17h11M19 17h1')}<circle cx="14" cy="7" r="2" /><circle cx="8" cy="12" r="2" /><circle cx="17" cy="17" r="2" />`,
  user: () => html`<circle cx="12" cy="8.5" r="4" />${P('M4.5 20c.8-3.6 3.8-5.5 7.5-5.5s6.7 1.9 7.5 5.5')}`,
  logout: () => html`${P('M14 4h4a2 2 0 0 1 2 2v12a2 2 0 0 1-2 2h-4')}${P('M10 16l-4-4 4-4M6 12h10')}`,
  menu: () => P('M4 7h16M4 12h16M4 17h16'),
  close: () => P('M6 6l12 12M18 6 6 18'),
  plus: () => P('M12 5v14M5 12h14'),
  copy: () => html`<rect x="8.5" y="8.5" width="11" height="11" rx="2" />${P('M15.5 8.5V6.5a2 2 0 0 0-2-2h-7a2 2 0 0 0-2 2v7a2 2 0 0 0 2 2h2')}`,
  check: () => P('M5 12.5l4.5 4.5L19 7.5'),
  refresh: () => html`${P('M19.5 12a7.5 7.5 0 1 1-2.2-5.3')}${P('M19.5 4.5v4h-4')}`,
  trash: () => html`${P('M4.5 7h15M10 4h4M6.5 7l1 13h9l1-13')}${P('M10 11v5M14 11v5')}`,
  edit: () => html`${P('M15 5l4 4L9 19H5v-4Z')}${P('M13 7l4 4')}`,
  send: () => html`${P('M20.5 3.5 10 14')}${P('M20.5 3.5 14 20.5l-4-6.5-6.5-4Z')}`,
  alert: () => html`${P('M12 4 21 19.5H3Z')}${P('M12 10v4')}<circle cx="12" cy="16.8" r="0.6" fill="currentColor" />`,
  info: () => html`<circle cx="12" cy="12" r="8.5" />${P('M12 11v5.5')}<circle cx="12" cy="7.8" r="0.6" fill="currentColor" />`,
  search: () => html`<circle cx="10.5" cy="10.5" r="6" />${P('M15 15l5 5')}`,
  key: () => html`<circle cx="8" cy="14" r="4" />${P('M11 11l8.5-8.5M16 6l2.5 2.5M14 8l2 2')}`,
  users: () => html`<circle cx="9" cy="9" r="3.5" />${P('M2.5 19.5c.6-3 3.2-4.8 6.5-4.8s5.9 1.8 6.5 4.8')}${P('M15.5 5.7a3.5 3.5 0 0 1 0 6.6M18 14.9c1.8.6 3 2.3 3.5 4.6')}`,
  log: () => html`<rect x="4.5" y="3.5" width="15" height="17" rx="2" />${P('M8 8h8M8 12h8M8 16h5')}`,
  clock: () => html`<circle cx="12" cy="12" r="8.5" />${P('M12 7.5V12l3 2')}`,
  chevron: () => P('M9 6l6 6-6 6'),
  external: () => html`${P('M14 4h6v6M20 4l-9 9')}${P('M18 14v4a2 2 0 0 1-2 2H6a2 2 0 0 1-2-2V8a2 2 0 0 1 2-2h4')}`,
  lock: () => html`<rect x="5" y="10.5" width="14" height="10" rx="2" />${P('M8 10.5V8a4 4 0 0 1 8 0v2.5')}`,
  wrench: () => P('M14.5 3.5a5 5 0 0 0-4.6 6.9L3.8 16.5a2.4 2.4 0 0 0 3.4 3.4l6.1-6.1a5 5 0 0 0 6.9-4.6l-3 3-2.9-.5-.5-2.9Z'),
  bell: () => html`${P('M6 16.5V11a6 6 0 0 1 12 0v5.5l1.5 2h-15Z')}${P('M10 20.5a2 2 0 0 0 4 0')}`,
};

/**
 * @param {{name: keyof typeof ICONS, size?: number, label?: string, class?: string}} props
 * Decorative unless `label` is given (then it is announced as an image with that name).
 */
export function Icon({ name, size = 18, label, class: cls = '' }) {
  return html`<svg class=${`icon ${cls}`} width=${size} height=${size} viewBox="0 0 24 24" fill="none" stroke="currentColor"
    stroke-width="1.75" stroke-linecap="round" stroke-linejoin="round" aria-hidden=${label ? undefined : 'true'}
    role=${label ? 'img' : undefined} aria-label=${label} focusable="false">${ICONS[name]?.() ?? null}</svg>`;
}

/** The netprobe mark: a pulse inside a rounded square. */
export function Logo({ size = 28 }) {
  return html`<svg class="logo" width=${size} height=${size} viewBox="0 0 32 32" aria-hidden="true" focusable="false">
    <rect width="32" height="32" rx="8" fill="var(--accent)" />
    <path d="M6 17h5l2.5-6.5 5 12 2.5-5.5H26" fill="none" stroke="#fff" stroke-width="2.4" stroke-linecap="round" stroke-linejoin="round" />
  </svg>`;
}
