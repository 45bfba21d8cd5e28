// Tabs that are links (each tab has its own URL, so reload and back work): a labelled navigation
// with the current tab marked by aria-current.
import { html } from '../lib/html.js';
import { Icon } from './icons.js';

/** tabs: [{href, label, icon?}]; `active` is the href of the current tab. */
export function Tabs({ tabs, active, label = 'Sections' }) {
  return html`<nav class="tabs" aria-label=${label}>
    ${tabs.map((t) => html`<a key=${t.href} href=${t.href} class="tab" aria-current=${t.href === active ? 'page' : undefined}>
      ${t.icon ? html`<${Icon} name=${t.icon} size=${16} />` : null}${t.label}</a>`)}
  </nav>`;
}
