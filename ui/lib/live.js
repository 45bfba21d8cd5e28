// Live updates of monitor state. The API has no monitor event stream, so one shared poller asks for
// the newest entry of the monitor event log (status changes, incidents, pauses, creates, deletes)
// every few seconds while the tab is visible and someone listens, and bumps a counter when it moved.
// Pages subscribe through useMonitorChanges() or useApi(path, {live: true}); when the API gains a
// stream, only this file changes.
import { request } from './api.js';
import { useEffect, useState } from './html.js';

const POLL_MS = 5000;

let version = 0;
let lastSeen;
let timer = null;
let inFlight = false;
const listeners = new Set();

async function poll() {
  clearTimeout(timer);
  timer = null;
  if (inFlight || !listeners.size || document.hidden) return;
  inFlight = true;
  try {
    const r = await request('GET', '/api/monitors/events', { query: { limit: 1 }, quiet401: true });
    const mark = `${r.items[0]?.id ?? 0}/${r.total}`;
    if (lastSeen !== undefined && mark !== lastSeen) {
      version++;
      for (const fn of [...listeners]) fn(version);
    }
    lastSeen = mark;
  } catch {
    // Offline or signed out: the pages show their own errors; keep polling quietly.
  } finally {
    inFlight = false;
    schedule();
  }
}

function schedule() {
  if (timer === null && listeners.size && !document.hidden) timer = setTimeout(poll, POLL_MS);
}

document.addEventListener('visibilitychange', () => {
  if (document.hidden) { clearTimeout(timer); timer = null; } else if (listeners.size) { clearTimeout(timer); timer = null; poll(); }
});

/** Calls fn(version) whenever monitor state changed; returns the unsubscribe function. */
export function onMonitorChange(fn) {
  listeners.add(fn);
  // The first subscriber sets the baseline at once; later ones join the running schedule.
  if (lastSeen === undefined) poll(); else schedule();
  return () => {
    listeners.delete(fn);
    if (!listeners.size) { clearTimeout(timer); timer = null; }
  };
}

/** A number that grows whenever monitor state changed: use it as an effect dependency. */
export function useMonitorChanges(enabled = true) {
  const [v, setV] = useState(version);
  useEffect(() => (enabled ? onMonitorChange(setV) : undefined), [enabled]);
  return v;
}
