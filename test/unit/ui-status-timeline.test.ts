// The monitor list's 24-hour status bars are rebuilt in the browser from the event log
// (ui/pages/monitors/timeline.js, plain functions without DOM): segments take the worst status they
// saw, nothing before creation or a history clear is invented, and the window lines up with the clock.
import assert from 'node:assert/strict';
import { test } from 'node:test';
// @ts-expect-error plain browser JavaScript without type declarations
import { barWindow, describeParts, statusChanges, statusSegments, summarize } from '../../ui/pages/monitors/timeline.js';

const H = 3_600_000;
const T0 = Date.UTC(2026, 0, 10, 12, 0, 0);
const at = (ms: number) => new Date(ms).toISOString();
let seq = 0;
const ev = (t: number, kind: string, from: string | null, to: string | null, monitor = 'm1') =>
  ({ id: ++seq, at: at(t), kind, monitor_id: monitor, from_status: from, to_status: to });

test('the window ends at the segment boundary after now and spans 24 hours', () => {
  const w = barWindow(T0 + 10 * 60_000, 24);
  assert.equal(w.to, T0 + H);
  assert.equal(w.from, T0 + H - 24 * H);
  assert.equal(w.size, H);
  assert.equal(barWindow(T0, 48).size, H / 2);
});

test('an old monitor without events has held its current status all along', () => {
  const now = T0 + 30 * 60_000;
  const w = barWindow(now, 24);
  const segs = statusSegments({ id: 'm1', status: 'up', created_at: at(T0 - 100 * H) }, [], w, now);
  assert.equal(segs.length, 24);
  assert.ok(segs.every((s: any) => s.status === 'up'));
  assert.equal(summarize(segs), 'Last 24 hours: no downtime');
});

test('a short outage colours its hour down; before creation there is no data', () => {
  const now = T0 + 30 * 60_000;
  const w = barWindow(now, 24);
  const created = T0 - 5 * H;
  const events = [
    ev(created, 'created', null, 'unknown'),
    ev(created + 1000, 'status_change', 'unknown', 'up'),
    ev(T0 - 2 * H + 10 * 60_000, 'status_change', 'up', 'down'),
    ev(T0 - 2 * H + 13 * 60_000, 'incident_opened', null, null),
    ev(T0 - 2 * H + 15 * 60_000, 'status_change', 'down', 'up'),
    ev(T0 - 2 * H + 20 * 60_000, 'status_change', 'up', 'down', 'other'),
  ];
  const segs = statusSegments({ id: 'm1', status: 'up', created_at: at(created) }, statusChanges(events, 'm1'), w, now);
  const byHour = (t: number) => segs.find((s: any) => s.from <= t && t < s.to);
  assert.equal(byHour(T0 - 10 * H)!.status, 'none', 'before creation');
  assert.equal(byHour(T0 - 4 * H)!.status, 'up');
  const outage = byHour(T0 - 2 * H)!;
  assert.equal(outage.status, 'down');
  assert.equal(outage.parts.down, 5 * 60_000);
  assert.equal(outage.parts.up, 55 * 60_000);
  assert.equal(describeParts(outage.parts), 'Down 5 min, up 55 min');
  assert.equal(byHour(T0 + 1000)!.parts.up, 30 * 60_000, 'the current hour counts only up to now');
  assert.equal(summarize(segs), 'Last 24 hours: down 5 min');
});

test('a pause shows paused, and nothing is claimed before the time history was cleared', () => {
  const now = T0;
  const w = barWindow(now, 24);
  const events = [ev(T0 - 3 * H, 'paused', 'up', 'paused'), ev(T0 - H, 'resumed', 'paused', 'unknown'), ev(T0 - H + 1000, 'status_change', 'unknown', 'up')];
  const monitor = { id: 'm1', status: 'up', created_at: at(T0 - 100 * H) };
  const segs = statusSegments(monitor, statusChanges(events, 'm1'), w, now);
  assert.equal(segs.find((s: any) => s.from === T0 - 2 * H)!.status, 'paused');
  assert.equal(segs.find((s: any) => s.from === T0 - 5 * H)!.status, 'up', 'before the pause: the status it was paused from');
  const cleared = statusSegments(monitor, statusChanges(events, 'm1'), w, now, T0 - 2 * H);
  assert.equal(cleared.find((s: any) => s.from === T0 - 5 * H)!.status, 'none');
  assert.equal(cleared.find((s: any) => s.from === T0 - 2 * H)!.status, 'paused', 'the status at the cut comes from the next change');
});
