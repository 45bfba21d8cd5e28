// The interface-polling pages' figures (ui/pages/snmp/polling-model.js), in Node: the device page's sort
// (names in natural order, interfaces without a value last whichever the direction), an interface's
// history as chart columns (a step without data stays a gap, never a zero), and the words for a rate
// that is missing and for small per-second and percentage figures.
import assert from 'node:assert/strict';
import { test } from 'node:test';
// @ts-expect-error plain browser JavaScript without type declarations
import { historySeries, ifLabel, perSecond, sortInterfaces, summary, utilText, whyText } from '../../ui/pages/snmp/polling-model.js';

const ifc = (if_index: number, name: string | null, in_bps: number | null, extra: Record<string, unknown> = {}) => ({
  key: if_index, if_index, name, descr: null, oper_status: 'up', gone_at: null, speed_bps: 1e9,
  now: in_bps === undefined ? null : { in_bps, out_bps: in_bps, in_util_pct: in_bps === null ? null : in_bps / 1e7, out_util_pct: null,
    in_errors_ps: 0, out_errors_ps: 0 }, ...extra,
});

test('interfaces sort by name in natural order, and by a rate with the unknown ones last in both directions', () => {
  const items = [ifc(3, 'Gi1/0/10', 5e6), ifc(1, 'Gi1/0/2', null), ifc(2, 'Gi1/0/1', 9e6), ifc(4, null, 1e6, { descr: 'eth0' })];
  assert.deepEqual(sortInterfaces(items, 'name', 'asc').map(ifLabel), ['eth0', 'Gi1/0/1', 'Gi1/0/2', 'Gi1/0/10']);
  assert.deepEqual(sortInterfaces(items, 'in', 'desc').map(ifLabel), ['Gi1/0/1', 'Gi1/0/10', 'eth0', 'Gi1/0/2']);
  assert.deepEqual(sortInterfaces(items, 'in', 'asc').map(ifLabel), ['eth0', 'Gi1/0/10', 'Gi1/0/1', 'Gi1/0/2']);
  assert.deepEqual(sortInterfaces(items, 'util', 'desc').map((i: { if_index: number }) => i.if_index), [2, 3, 4, 1]);
  // Unknown keys sort by name; the input is not changed.
  assert.deepEqual(sortInterfaces(items, 'nonsense', 'asc').map(ifLabel)[0], 'eth0');
  assert.equal(items[0]!.name, 'Gi1/0/10');
  assert.equal(ifLabel({ if_index: 7, name: null, descr: null }), 'ifIndex 7');
});

test('a history step without data stays a gap in every series; discards add up in and out', () => {
  const step = (t: string, v: number | null, extra: Record<string, unknown> = {}) => ({
    t, in_avg: v, in_max: v === null ? null : v * 2, out_avg: v, out_max: v, in_util_avg: v, in_util_max: v, out_util_avg: v, out_util_max: v,
    in_errors: v === null ? null : 0, out_errors: v === null ? null : 0.5, in_discards: v === null ? null : 1, out_discards: v === null ? null : 2,
    up_share: v === null ? null : 1, ...extra,
  });
  const x = historySeries([step('2026-12-01T00:00:00Z', 10), step('2026-12-01T00:05:00Z', null), step('2026-12-01T00:10:00Z', 0, { up_share: 0.5, out_discards: null })]);
  assert.deepEqual(x.t, [0, 300, 600].map((s) => Date.UTC(2026, 11, 1) / 1000 + s));
  assert.deepEqual(x.bps.in_avg, [10, null, 0]);
  assert.deepEqual(x.bps.in_max, [20, null, 0]);
  assert.deepEqual(x.errors.out, [0.5, null, 0.5]);
  assert.deepEqual(x.errors.discards, [3, null, 1]);
  assert.deepEqual(x.up, [100, null, 50]);
  assert.deepEqual(summary(x.bps.in_avg, x.bps.in_max), { avg: 5, max: 20, points: 2 });
  assert.deepEqual(summary([null], [null]), { avg: null, max: null, points: 0 });
});

test('missing rates and small figures read in words', () => {
  assert.match(whyText('first'), /^First poll/);
  assert.match(whyText('reset'), /reset/);
  assert.match(whyText('gap'), /missed/);
  assert.equal(whyText('something_new'), 'something new');
  assert.equal(whyText(null), null);
  assert.equal(perSecond(0), '0/s');
  assert.equal(perSecond(0.0234), '0.023/s');
  assert.equal(perSecond(2.04), '2/s');
  assert.equal(perSecond(1234.5), '1,235/s');
  assert.equal(perSecond(null), '—');
  assert.equal(utilText(42.4), '42 %');
  assert.equal(utilText(3.04), '3.0 %');
  assert.equal(utilText(0.041), '0.04 %');
  assert.equal(utilText(0), '0 %');
});
