// Short notices after an action ("Webhook saved"), shown by the shell's <Toasts/> and gone after a while.
// Toasts do not stack for the same event: each has a key (by default its tone and text; pass `{key}` to
// name an event whose wording changes, e.g. `monitor:<id>:status`), and a repeat refreshes the toast on
// screen (new text, its timer started again, a count of repeats) instead of adding another.
import { createStore } from './store.js';

/** @typedef {{id: number, key: string, tone: 'ok'|'error'|'info', text: string, count: number}} Toast */

export const toasts = createStore(/** @type {Toast[]} */ ([]));
let seq = 0;
const timers = new Map();

/** At most this many toasts at once; the oldest goes first. */
const MAX = 4;

function schedule(id, ms) {
  clearTimeout(timers.get(id));
  timers.set(id, setTimeout(() => dismissToast(id), ms));
}

function push(tone, text, ms, key) {
  const k = key ?? `${tone}:${text}`;
  const same = toasts.get().find((t) => t.key === k);
  if (same) {
    toasts.set((list) => list.map((t) => (t.id === same.id ? { ...t, tone, text, count: t.count + 1 } : t)));
    schedule(same.id, ms);
    return same.id;
  }
  const id = ++seq;
  const list = [...toasts.get(), { id, key: k, tone, text, count: 1 }];
  for (const old of list.slice(0, Math.max(0, list.length - MAX))) { clearTimeout(timers.get(old.id)); timers.delete(old.id); }
  toasts.set(list.slice(-MAX));
  schedule(id, ms);
  return id;
}

export const dismissToast = (id) => {
  clearTimeout(timers.get(id));
  timers.delete(id);
  toasts.set((list) => list.filter((t) => t.id !== id));
};

/** The text of an ApiError (its detail), an Error or a plain message. */
const errorText = (err) => (typeof err === 'string' ? err : err?.detail ?? err?.message ?? String(err));

export const toast = {
  /** @param {string} text @param {{key?: string}} [opts] */
  ok: (text, opts) => push('ok', text, 4000, opts?.key),
  /** @param {string} text @param {{key?: string}} [opts] */
  info: (text, opts) => push('info', text, 5000, opts?.key),
  /** An ApiError (its detail) or a plain message. @param {unknown} err @param {{key?: string}} [opts] */
  error: (err, opts) => push('error', errorText(err), 8000, opts?.key),
};
