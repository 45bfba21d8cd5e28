// Data hooks for pages: load an API resource and keep it fresh.
import { api } from './api.js';
import { useCallback, useEffect, useRef, useState } from './html.js';
import { useMonitorChanges } from './live.js';

/**
 * Loads GET `path` (with `query`) and reloads it when the path or query change, when monitor state
 * changes (`live: true`) and every `every` seconds while the tab is visible. Earlier data stays on
 * screen while a reload runs, so live updates do not flicker. `path` null skips loading.
 * @returns {{data: any, error: import('./api.js').ApiError | null, loading: boolean, reload: () => void}}
 */
export function useApi(path, { query, live = false, every = 0 } = {}) {
  const [state, setState] = useState({ data: undefined, error: null, loading: !!path });
  const [tick, setTick] = useState(0);
  const changes = useMonitorChanges(live);
  const key = path ? path + JSON.stringify(query ?? {}) : null;
  const liveKey = live ? changes : 0;
  const lastKey = useRef(key);

  useEffect(() => {
    if (!path) { setState({ data: undefined, error: null, loading: false }); return undefined; }
    const ctl = new AbortController();
    // A different resource starts from empty; a refresh of the same one keeps what is shown.
    const fresh = lastKey.current !== key;
    lastKey.current = key;
    setState((s) => (fresh ? { data: undefined, error: null, loading: true } : { ...s, loading: true }));
    api.get(path, query, { signal: ctl.signal }).then(
      (data) => setState({ data, error: null, loading: false }),
      (error) => { if (error?.name !== 'AbortError') setState((s) => ({ data: s.data, error, loading: false })); },
    );
    return () => ctl.abort();
  }, [key, liveKey, tick]);

  useInterval(() => setTick((t) => t + 1), every ? every * 1000 : 0);

  const reload = useCallback(() => setTick((t) => t + 1), []);
  return { ...state, reload };
}

/** Runs fn every ms milliseconds while the tab is visible (0 turns it off). */
export function useInterval(fn, ms) {
  const saved = useRef(fn);
  saved.current = fn;
  useEffect(() => {
    if (!ms) return undefined;
    const id = setInterval(() => { if (!document.hidden) saved.current(); }, ms);
    return () => clearInterval(id);
  }, [ms]);
}

/** Calls `reload` whenever `value` changes after the first render (what the data depends on moved on). */
export function useReloadOn(value, reload) {
  const seen = useRef(value);
  useEffect(() => {
    if (seen.current === value) return;
    seen.current = value;
    reload();
  }, [value]);
}

/** `value`, but only after it stopped changing for `ms` milliseconds (search boxes). */
export function useDebounced(value, ms = 250) {
  const [v, setV] = useState(value);
  useEffect(() => {
    const id = setTimeout(() => setV(value), ms);
    return () => clearTimeout(id);
  }, [value, ms]);
  return v;
}
