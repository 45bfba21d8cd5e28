// A data table. On narrow screens each row becomes a stacked card with the column names as labels,
// so nothing scrolls sideways at 375 px. Make a row's main cell a link rather than the row clickable.
import { html } from '../lib/html.js';

/**
 * @param {{
 *   columns: {key: string, label: string, render?: (row: any) => any, class?: string, hideLabel?: boolean}[],
 *   rows: any[], rowKey?: string | ((row: any) => string), caption?: string, empty?: any, rowClass?: (row: any) => string,
 * }} props
 */
export function Table({ columns, rows, rowKey = 'id', caption, empty, rowClass }) {
  if (!rows.length && empty) return empty;
  const keyOf = typeof rowKey === 'function' ? rowKey : (r) => r[rowKey];
  return html`<div class="table-wrap">
    <table class="table">
      ${caption ? html`<caption class="sr-only">${caption}</caption>` : null}
      <thead><tr>${columns.map((c) => html`<th scope="col" class=${c.class}>${c.label}</th>`)}</tr></thead>
      <tbody>
        ${rows.map((r) => html`<tr key=${keyOf(r)} class=${rowClass?.(r)}>
          ${columns.map((c) => html`<td class=${c.class} data-label=${c.hideLabel ? undefined : c.label}>
            ${c.render ? c.render(r) : r[c.key] ?? '—'}</td>`)}
        </tr>`)}
      </tbody>
    </table>
  </div>`;
}

/** "1–50 of 230" with previous and next buttons. */
export function Pager({ total, limit, offset, onChange }) {
  if (total <= limit && offset === 0) return null;
  const from = total ? offset + 1 : 0;
  const to = Math.min(offset + limit, total);
  return html`<nav class="pager" aria-label="Pages">
    <span class="muted">${from}–${to} of ${total}</span>
    <button type="button" class="btn btn-sm" disabled=${offset === 0} onClick=${() => onChange(Math.max(0, offset - limit))}>Previous</button>
    <button type="button" class="btn btn-sm" disabled=${to >= total} onClick=${() => onChange(offset + limit)}>Next</button>
  </nav>`;
}
