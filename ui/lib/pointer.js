// Whether a mouse button or finger is down on the page, and a promise of its release. A message that a
// field's blur brings (lib/form.js `check`) waits for it: pressing "Create" leaves the field before the
// button is released, and a message appearing in between would move the button away from under the
// pointer, so the release lands beside it and the click (the submit) is lost.

let down = false;
/** @type {(() => void)[]} */
let waiters = [];

function released() {
  down = false;
  const run = waiters;
  waiters = [];
  // After the click that this release makes (pointerup, mouseup and click are one task).
  if (run.length) setTimeout(() => { for (const f of run) f(); }, 0);
}

if (typeof document !== 'undefined') {
  document.addEventListener('pointerdown', () => { down = true; }, true);
  document.addEventListener('pointerup', released, true);
  document.addEventListener('pointercancel', released, true);
  // Released outside the window, or the window left while pressed: nothing is held any more.
  window.addEventListener('blur', released);
}

/** Resolves at once when nothing is pressed, else once the press is released and its click is done. */
export function pointerReleased() {
  return down ? new Promise((resolve) => { waiters.push(() => resolve(undefined)); }) : Promise.resolve();
}
