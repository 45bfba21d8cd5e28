// What a page or a list shows when there is nothing yet, while loading, and when loading failed.
import { html } from '../lib/html.js';
import { Icon } from './icons.js';

/** Nothing here yet: an icon, a title, a sentence on what to do, and optionally the action. */
export function EmptyState({ icon = 'info', title, children, action }) {
  return html`<div class="empty">
    <div class="empty-icon"><${Icon} name=${icon} size=${28} /></div>
    <h3>${title}</h3>
    ${children ? html`<div class="empty-text">${children}</div>` : null}
    ${action ? html`<div class="empty-action">${action}</div>` : null}
  </div>`;
}

export function Loading({ label = 'Loading…' }) {
  return html`<div class="loading" role="status"><span class="spinner" aria-hidden="true"></span>${label}</div>`;
}

/** A failed load: the API's detail and a retry button. */
export function ErrorState({ error, retry }) {
  return html`<div class="alert alert-error" role="alert">
    <${Icon} name="alert" />
    <div class="alert-body">
      <strong>${error?.status === 403 ? 'Not allowed' : 'Could not load this'}</strong>
      <div>${error?.detail ?? String(error)}</div>
    </div>
    ${retry ? html`<button type="button" class="btn btn-sm" onClick=${retry}>Try again</button>` : null}
  </div>`;
}
