// A tiny observable value shared across components (session, toasts, dialogs), and the hook that
// re-renders a component when it changes.
import { useEffect, useState } from './html.js';

/** @template T @param {T} initial */
export function createStore(initial) {
  let value = initial;
  const subs = new Set();
  return {
    get: () => value,
    /** @param {T | ((old: T) => T)} next */
    set(next) {
      value = typeof next === 'function' ? next(value) : next;
      for (const fn of [...subs]) fn(value);
    },
    subscribe(fn) { subs.add(fn); return () => subs.delete(fn); },
  };
}

/** The store's current value; the component re-renders when it changes. */
export function useStore(store) {
  const [value, setValue] = useState(store.get());
  useEffect(() => {
    setValue(store.get());
    return store.subscribe(setValue);
  }, [store]);
  return value;
}
