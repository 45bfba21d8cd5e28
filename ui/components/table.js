// A data table. On narrow screens each row becomes a stacked card with the column names as labels,
// so nothing scrolls sideways at 375 px. Make a row's main cell a link rather than the row clickable.
import { html } from '../lib/html.js';

/**
 * @param {{
 *   columns: {key: string, label: string, render?: (row: any) => any, class?: string, hideLabel?: boolean}[],
 *   rows: any[], rowKey?: string | ((row: any) => string), caption?: string, empty?: any, rowClass?: (row: any) => string,
 *   sort?: {key: string, dir: 'asc'|'desc', onChange: (key: string) => void},
 * }} props  A column with `sort: '<key>'` gets a header button that calls sort.onChange (the page sorts the rows).
 */
export function Table({ columns, rows, rowKey = 'id', caption, empty, rowClass, sort }) {
  if (!rows.length && empty) return empty;
  const keyOf = typeof rowKey === 'function' ? rowKey : (r) => r[rowKey];
  return html`<div class="table-wrap">
    <table class="table">
      ${caption ? html`<caption class="sr-only">${caption}</caption>` : null}
      <thead><tr>${columns.map((c) => (sort && c.sort
        ? html`<th scope="col" class=${c.class} aria-sort=${sort.key === c.sort ? (sort.dir === 'desc' ? 'descending' : 'ascending') : undefined}>
            <button type="button" class="th-sort" onClick=${() => sort.onChange(c.sort)}>${c.label}<span class="th-arrow" aria-hidden="true">${
              sort.key === c.sort ? (sort.dir === 'desc' ? '▼' : '▲') : '↕'}</span></button></th>`
        : html`<th scope="col" class=${c.class}>${c.label}</th>`))}</tr></thead>
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
