// A monitor's status over the last 24 hours, rebuilt from the monitor event log: every status change,
// pause, resume and creation carries the status it left the monitor in, so one request for the whole
// window serves the status bars of every monitor in the list (the API has no per-bucket history).
// Pure functions: no DOM, no requests (see status-events.js for the loading).

export const HOUR = 3_600_000;
export const WINDOW_MS = 24 * HOUR;

/** Event kinds whose to_status is the monitor's status from then on. */
export const STATUS_KINDS = new Set(['created', 'status_change', 'paused', 'resumed', 'manual_check']);

/** Which status colours a segment that saw several: a short outage must stay visible. */
export const RANK = ['down', 'degraded', 'up', 'paused', 'unknown', 'none'];

export const LABELS = { up: 'up', down: 'down', degraded: 'degraded', paused: 'paused', unknown: 'waiting for a check', none: 'no data' };

/**
 * The window of `count` equal segments ending at the segment boundary after `now` (so segments
 * line up with the clock: hours, or half hours with 48).
 * @returns {{from: number, to: number, size: number, count: number}} epoch ms
 */
export function barWindow(now, count = 24, span = WINDOW_MS) {
  const size = span / count;
  const to = Math.ceil(now / size) * size;
  return { from: to - span, to, size, count };
}

/**
 * The status changes of one monitor, oldest first: [{t, status}].
 * @param {{at: string, id: number, kind: string, monitor_id: string|null, to_status: string|null}[]} events
 */
export function statusChanges(events, monitorId) {
  return events
    .filter((e) => e.monitor_id === monitorId && STATUS_KINDS.has(e.kind) && e.to_status)
    .map((e) => ({ t: Date.parse(e.at), id: e.id, status: e.to_status, from: e.from_status }))
    .sort((a, b) => a.t - b.t || a.id - b.id);
}

/**
 * Segments of a monitor's status over a window.
 * @param {{id: string, status: string, created_at: string}} monitor the current state
 * @param {ReturnType<typeof statusChanges>} changes
 * @param {{from: number, to: number, size: number, count: number}} win from barWindow()
 * @param {number} now statuses are known up to now; later parts of the last segment are ignored
 * @param {number} [knownFrom] nothing is known before this time (history cleared, or only part of the
 *   log loaded): shown as no data
 * @returns {{from: number, to: number, status: string, parts: Record<string, number>}[]}
 */
export function statusSegments(monitor, changes, win, now, knownFrom = win.from) {
  const created = Date.parse(monitor.created_at);
  const start = Math.max(win.from, knownFrom, Number.isFinite(created) ? created : win.from);
  // The status at `start`: what the first change in the window moved away from; with no change, the
  // status now has held all along.
  const later = changes.filter((c) => c.t >= start);
  const before = changes.filter((c) => c.t < start);
  const initial = before.length ? before[before.length - 1].status : later.length ? (later[0].from ?? 'unknown') : monitor.status;
  /** [t, status] runs: status holds from t until the next run. */
  const runs = [[win.from, 'none'], [start, initial], ...later.map((c) => [c.t, c.status])];
  const end = Math.min(now, win.to);

  const segments = [];
  for (let i = 0; i < win.count; i++) {
    const a = win.from + i * win.size;
    const b = a + win.size;
    const parts = {};
    for (let r = 0; r < runs.length; r++) {
      const s = Math.max(runs[r][0], a);
      const e = Math.min(r + 1 < runs.length ? runs[r + 1][0] : end, b, end);
      if (e > s) parts[runs[r][1]] = (parts[runs[r][1]] ?? 0) + (e - s);
    }
    const status = RANK.find((k) => parts[k]) ?? 'none';
    segments.push({ from: a, to: b, status, parts });
  }
  return segments;
}

const minutes = (ms) => {
  const m = Math.round(ms / 60_000);
  if (m < 1) return 'under a minute';
  if (m < 60) return `${m} min`;
  const h = Math.floor(m / 60);
  return m % 60 ? `${h} h ${m % 60} min` : `${h} h`;
};

/** "Down 12 min, up 47 min" for one segment, worst first. */
export function describeParts(parts) {
  const list = RANK.filter((k) => parts[k] && k !== 'none').map((k) => `${LABELS[k]} ${minutes(parts[k])}`);
  return list.length ? list.join(', ').replace(/^./, (c) => c.toUpperCase()) : 'No data';
}

/** A sentence for screen readers and titles: how long the monitor was down and degraded. */
export function summarize(segments, hours = 24) {
  const total = {};
  for (const s of segments) for (const [k, v] of Object.entries(s.parts)) total[k] = (total[k] ?? 0) + v;
  const bad = ['down', 'degraded'].filter((k) => total[k]).map((k) => `${LABELS[k]} ${minutes(total[k])}`);
  if (bad.length) return `Last ${hours} hours: ${bad.join(', ')}`;
  if (total.up) return `Last ${hours} hours: no downtime`;
  if (total.paused) return `Last ${hours} hours: paused`;
  return `Last ${hours} hours: no data yet`;
}
