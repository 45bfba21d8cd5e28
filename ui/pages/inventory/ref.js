// A reference to another record, shown as a link "EP-3 core-sw1" (or the bare id while names load,
// or when the record is gone).
import { html } from '../../lib/html.js';
import { recordHref } from './types.js';

export function RefLink({ type, id, lookup }) {
  if (!id) return html`<span class="muted">—</span>`;
  const rec = lookup?.byId.get(id);
  if (!rec) return html`<a href=${`/inventory/${type}/${encodeURIComponent(id)}`} class="mono small">${id.slice(0, 8)}…</a>`;
  return html`<a href=${recordHref(type, rec)} class="ref-link"><span class="sid">${rec.short_id}</span> ${rec.name}</a>`;
}
