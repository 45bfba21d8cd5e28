// Small pieces shared by the monitor and inventory pages: a search box, a group of toggle buttons
// (filters, time ranges), figure tiles and breadcrumbs; their stylesheet also holds a few layout
// helpers those pages use (grid-3, select-sm, btn-danger-ghost, spin, clip-2).
import { html } from '../lib/html.js';
import { loadStylesheet } from '../lib/stylesheet.js';
import { Icon } from './icons.js';

await loadStylesheet(new URL('./controls.css', import.meta.url).pathname);

/** A search input with its icon; `label` names it for assistive technology. Extra props go to the input. */
export function SearchBox({ value, onInput, label, placeholder, class: cls = '', ...rest }) {
  return html`<div class=${`search-box ${cls}`}>
    <${Icon} name="search" size=${16} />
    <input type="search" value=${value} placeholder=${placeholder} aria-label=${label} onInput=${(e) => onInput(e.currentTarget.value)} ...${rest} />
  </div>`;
}

/** Toggle buttons of which one is pressed. options: [{value, label}] */
export function ButtonGroup({ label, options, value, onChange }) {
  return html`<div class="btn-group" role="group" aria-label=${label}>
    ${options.map((o) => html`<button key=${o.value} type="button" class="btn btn-sm" aria-pressed=${o.value === value ? 'true' : 'false'}
      onClick=${() => onChange(o.value)}>${o.label}</button>`)}
  </div>`;
}

/** Figures in a row of tiles. tiles: [{label, value, sub?, tone?: 'warn'|'bad'|'ok'}] */
export function StatTiles({ tiles }) {
  return html`<div class="stat-tiles">
    ${tiles.map((t, i) => html`<div key=${i} class=${`stat${t.tone ? ` stat-${t.tone}` : ''}`}>
      <div class="stat-label">${t.label}</div><div class="stat-value">${t.value}</div>${t.sub ? html`<div class="stat-sub">${t.sub}</div>` : null}
    </div>`)}
  </div>`;
}

/** "Monitors / web": links to the levels above, then the current one. items: [{href?, label}] */
export function Crumbs({ items }) {
  return html`<span class="crumbs">${items.map((c, i) => html`${i ? html`<span class="crumb-sep" aria-hidden="true">/</span>` : null}${c.href
    ? html`<a href=${c.href}>${c.label}</a>` : html`<span class=${c.mono ? 'mono' : ''}>${c.label}</span>`}`)}</span>`;
}
