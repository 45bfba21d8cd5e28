// confirm({title, message, confirmLabel, danger}) resolves true or false; the shell's <ConfirmHost/>
// shows the dialog. One at a time.
import { createStore } from './store.js';

export const pendingConfirm = createStore(null);

/**
 * @param {{title: string, message?: any, confirmLabel?: string, danger?: boolean}} opts
 * @returns {Promise<boolean>}
 */
export function confirm(opts) {
  pendingConfirm.get()?.resolve(false);
  return new Promise((resolve) => {
    pendingConfirm.set({
      ...opts,
      resolve: (ok) => { pendingConfirm.set(null); resolve(ok); },
    });
  });
}
