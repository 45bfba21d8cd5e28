// The check types as the probe describes them (GET /api/monitors/check-types): labels, icons, target
// fields and settings as JSON Schema. The monitor pages know no check type of their own; the list is
// loaded once per page load (it changes only with the probe's version) and shared by every page.
import { api } from '../../lib/api.js';
import { useEffect, useState } from '../../lib/html.js';

let loaded = null; // the list, once it came
let loading = null; // the request under way

function load() {
  loading ??= api.get('/api/monitors/check-types').then((r) => { loaded = r.items; return loaded; }, (e) => { loading = null; throw e; });
  return loading;
}

/** {data: the check types or undefined while loading, error, reload}. */
export function useCheckTypes() {
  const [state, setState] = useState({ data: loaded ?? undefined, error: null });
  const [tick, setTick] = useState(0);
  useEffect(() => {
    if (loaded) { setState({ data: loaded, error: null }); return undefined; }
    let live = true;
    load().then((data) => live && setState({ data, error: null }), (error) => live && setState({ data: undefined, error }));
    return () => { live = false; };
  }, [tick]);
  return { ...state, reload: () => setTick((t) => t + 1) };
}

/** A check type's label, or its name while the list is not there. */
export const typeLabel = (types, value) => types?.find((t) => t.type === value)?.label ?? value;
