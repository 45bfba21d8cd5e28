// When a scan profile runs next (v1sion/profiles/schedule.ts): the interval's grid from the anchor, a cron
// in its time zone across a daylight-saving change, the jitter (fixed per time, within its bound and half
// the gap), and the anchor a late run leaves (one run for many missed times, the grid kept).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { anchorAfterRun, jitterOf, nextRun, nominalAfter } from '../../src/modules/v1sion/profiles/schedule.js';

const MIN = 60_000;
const T0 = Date.parse('2026-03-28T12:00:00Z');
const every15 = { kind: 'interval', every: 15, unit: 'minutes' } as const;

test('an interval runs on a grid from its anchor; hours are hours', () => {
  assert.equal(nominalAfter(every15, 'UTC', T0), T0 + 15 * MIN);
  assert.equal(nominalAfter({ kind: 'interval', every: 2, unit: 'hours' }, 'UTC', T0), T0 + 120 * MIN);
});

test('a cron runs at its local times, also across the spring change', () => {
  const cron = { kind: 'cron', cron: '0 3 * * *' } as const;
  // Berlin: 03:00 on 29 March 2026 is CEST (UTC+2), the day before CET (UTC+1).
  assert.equal(new Date(nominalAfter(cron, 'Europe/Berlin', T0)!).toISOString(), '2026-03-29T01:00:00.000Z');
  assert.equal(new Date(nominalAfter(cron, 'Europe/Berlin', Date.parse('2026-03-29T01:00:00Z'))!).toISOString(),
    '2026-03-30T01:00:00.000Z');
  assert.equal(nominalAfter({ kind: 'cron', cron: '*/15 * * * *' }, 'UTC', T0 + 1), T0 + 15 * MIN);
});

test('the jitter is the same for the same time, within its bound and half the gap', () => {
  const a = jitterOf(every15, 'UTC', 'p1', T0, 60);
  assert.equal(jitterOf(every15, 'UTC', 'p1', T0, 60), a);
  const seen = new Set<number>();
  for (let i = 0; i < 200; i++) {
    const j = jitterOf(every15, 'UTC', `p${i}`, T0, 60);
    assert.ok(j >= 0 && j <= 60_000, `${j}`);
    seen.add(Math.floor(j / 10_000));
    assert.ok(jitterOf(every15, 'UTC', `p${i}`, T0, 3600) <= 7.5 * MIN, 'never more than half the gap');
  }
  assert.ok(seen.size >= 5, 'spread over the bound');
  assert.equal(jitterOf(every15, 'UTC', 'p1', T0, 0), 0);
  const n = nextRun(every15, 'UTC', 'p1', T0, 60)!;
  assert.equal(n.nominal, T0 + 15 * MIN);
  assert.equal(n.at, n.nominal + jitterOf(every15, 'UTC', 'p1', n.nominal, 60));
});

test('a late run leaves the latest time it missed as the anchor: one run, then the grid goes on', () => {
  const due = T0 + 15 * MIN;
  assert.equal(anchorAfterRun(every15, due, due + 20_000), due);
  assert.equal(anchorAfterRun(every15, due, due + 61 * MIN), due + 60 * MIN);
  assert.equal(anchorAfterRun(every15, due, due - MIN), due, 'a skip before its time');
  const cron = { kind: 'cron', cron: '*/15 * * * *' } as const;
  assert.equal(anchorAfterRun(cron, due, due + 61 * MIN), due + 61 * MIN);
  assert.equal(nominalAfter(cron, 'UTC', due + 61 * MIN), due + 75 * MIN);
});
