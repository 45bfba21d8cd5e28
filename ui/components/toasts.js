// The toast stack (bottom right; bottom on phones). Announced politely to screen readers. A repeated
// event refreshes its toast (lib/toast.js) and shows how many times it came ("×3").
import { html } from '../lib/html.js';
import { useStore } from '../lib/store.js';
import { dismissToast, toasts } from '../lib/toast.js';
import { Icon } from './icons.js';

export function Toasts() {
  const list = useStore(toasts);
  return html`<div class="toasts" role="status" aria-live="polite">
    ${list.map((t) => html`<div key=${t.id} class=${`toast toast-${t.tone}`} data-key=${t.key}>
      <${Icon} name=${t.tone === 'ok' ? 'check' : t.tone === 'error' ? 'alert' : 'info'} />
      <span>${t.text}${t.count > 1 ? html` <span class="toast-count" title=${`${t.count} times`}>×${t.count}</span>` : null}</span>
      <button type="button" class="btn btn-icon btn-ghost btn-sm" onClick=${() => dismissToast(t.id)} aria-label="Dismiss"><${Icon} name="close" size=${14} /></button>
    </div>`)}
  </div>`;
}
