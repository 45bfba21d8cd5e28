// Short notices after an action ("Webhook saved"), shown by the shell's <Toasts/> and gone after a while.
import { createStore } from './store.js';

export const toasts = createStore(/** @type {{id: number, tone: 'ok'|'error'|'info', text: string}[]} */ ([]));
let seq = 0;

function push(tone, text, ms) {
  const id = ++seq;
  toasts.set((list) => [...list.slice(-3), { id, tone, text }]);
  setTimeout(() => dismissToast(id), ms);
}

export const dismissToast = (id) => toasts.set((list) => list.filter((t) => t.id !== id));

export const toast = {
  ok: (text) => push('ok', text, 4000),
  info: (text) => push('info', text, 5000),
  /** An ApiError (its detail) or a plain message. */
  error: (err) => push('error', typeof err === 'string' ? err : err?.detail ?? err?.message ?? String(err), 8000),
};
