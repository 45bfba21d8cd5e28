// Dialogs on the native <dialog> element (focus moves in, Escape closes, the page behind is inert),
// and the host that shows confirm() requests.
import { html, useEffect, useRef } from '../lib/html.js';
import { pendingConfirm } from '../lib/confirm.js';
import { useStore } from '../lib/store.js';
import { Icon } from './icons.js';

let seq = 0;

/**
 * A modal dialog, open while rendered. `onClose` runs on Escape, the close button and a click on the
 * backdrop. `footer` holds the buttons (a form inside can use form="id" to submit from there).
 */
export function Modal({ title, onClose, children, footer, size = 'md' }) {
  const ref = useRef(null);
  const titleId = useRef(`modal-title-${++seq}`).current;
  useEffect(() => {
    const d = ref.current;
    if (!d.open) d.showModal();
    return () => { if (d.open) d.close(); };
  }, []);
  const onCancel = (e) => { e.preventDefault(); onClose?.(); };
  const onClick = (e) => { if (e.target === ref.current) onClose?.(); };
  return html`<dialog ref=${ref} class=${`modal modal-${size}`} aria-labelledby=${titleId} onCancel=${onCancel} onClick=${onClick}>
    <div class="modal-inner">
      <header class="modal-head">
        <h2 id=${titleId}>${title}</h2>
        <button type="button" class="btn btn-icon btn-ghost" onClick=${() => onClose?.()} aria-label="Close"><${Icon} name="close" /></button>
      </header>
      <div class="modal-body">${children}</div>
      ${footer ? html`<footer class="modal-foot">${footer}</footer>` : null}
    </div>
  </dialog>`;
}

/** Renders the pending confirm() request, if any. Mounted once by the shell. */
export function ConfirmHost() {
  const req = useStore(pendingConfirm);
  if (!req) return null;
  return html`<${Modal} title=${req.title} onClose=${() => req.resolve(false)} size="sm"
    footer=${html`
      <button type="button" class="btn" onClick=${() => req.resolve(false)}>Cancel</button>
      <button type="button" class=${`btn ${req.danger ? 'btn-danger' : 'btn-primary'}`} onClick=${() => req.resolve(true)}
        autofocus>${req.confirmLabel ?? 'Confirm'}</button>`}>
    ${typeof req.message === 'string' ? html`<p>${req.message}</p>` : req.message}
  <//>`;
}
