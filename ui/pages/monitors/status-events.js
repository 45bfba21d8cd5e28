// Loads the monitor event log of the last 24 hours (for all monitors, or one) and keeps it current:
// when monitor state changes, only the events since the newest one held are fetched. The status bars
// are computed from it (timeline.js).
import { api } from '../../lib/api.js';
import { useEffect, useRef, useState } from '../../lib/html.js';
import { useInterval } from '../../lib/hooks.js';
import { useMonitorChanges } from '../../lib/live.js';
import { WINDOW_MS } from './timeline.js';

const PAGE = 200;
/** At most this many events are loaded for a window; older parts of the bar then show no data. */
const MAX_PAGES = 10;

/** Events since `since` (ISO), newest first, paged; `complete` false when MAX_PAGES stopped it. */
async function fetchSince(since, monitorId, signal) {
  const byId = new Map();
  let total = Infinity;
  for (let page = 0; page < MAX_PAGES && byId.size < total; page++) {
    const r = await api.get('/api/monitors/events', { since, monitor_id: monitorId, limit: PAGE, offset: page * PAGE }, { signal });
    total = r.total;
    for (const e of r.items) byId.set(e.id, e);
    if (r.items.length < PAGE) break;
  }
  return { items: [...byId.values()], complete: byId.size >= total };
}

/**
 * The event log of the last 24 hours, kept fresh. `knownFrom` is the time before which nothing is
 * known: the window's start, or later when the history was cleared or the log was too long to load.
 * @returns {{events: any[] | null, knownFrom: number, now: number, error: any}}
 */
export function useStatusEvents(monitorId) {
  const version = useMonitorChanges();
  const [state, setState] = useState({ events: null, knownFrom: 0, error: null });
  const [now, setNow] = useState(Date.now());
  const held = useRef(state);
  held.current = state;

  // The window slides: recompute the bars every minute, and drop events that left it.
  useInterval(() => setNow(Date.now()), 60_000);

  useEffect(() => {
    const ctl = new AbortController();
    const cur = held.current;
    const from = Date.now() - WINDOW_MS;
    const newest = cur.events?.reduce((m, e) => (e.id > m.id ? e : m), cur.events[0]);
    const since = new Date(newest ? Date.parse(newest.at) : from).toISOString();
    fetchSince(since, monitorId, ctl.signal).then(({ items, complete }) => {
      const merged = new Map((newest ? cur.events : []).map((e) => [e.id, e]));
      for (const e of items) merged.set(e.id, e);
      const events = [...merged.values()].filter((e) => Date.parse(e.at) >= from);
      let knownFrom = newest ? Math.max(cur.knownFrom, from) : from;
      if (!complete && items.length) knownFrom = Math.max(knownFrom, Math.min(...items.map((e) => Date.parse(e.at))));
      const cleared = events.filter((e) => e.kind === 'history_cleared').map((e) => Date.parse(e.at));
      if (cleared.length) knownFrom = Math.max(knownFrom, ...cleared);
      setState({ events, knownFrom, error: null });
      setNow(Date.now());
    }, (error) => { if (error?.name !== 'AbortError') setState((s) => ({ ...s, error })); });
    return () => ctl.abort();
  }, [version, monitorId]);

  return { ...state, now };
}
