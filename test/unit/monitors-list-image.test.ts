// The list image (src/modules/monitors/list-image.ts) against the lines made afresh: after results,
// incidents, renames, monitors added and removed, an hour going by and incidents ageing out of the last
// day, its runs join exactly the lines of the registry's current order; most rebuilds splice in only the
// lines marked changed; a change that reached no mark shows within FULL_CHECK_MS.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FULL_CHECK_MS, ListImage } from '../../src/modules/monitors/list-image.js';
import { HOUR_MS } from '../../src/modules/monitors/storage/hours.js';
import { Registry, type LiveMonitor } from '../../src/modules/monitors/live.js';
import type { MonitorRow, MonitorStatus } from '../../src/modules/monitors/schemas.js';

const DAY = 86_400_000;

function row(pk: number, name: string): MonitorRow {
  return {
    pk, id: `id-${pk}`, name, target: '127.0.0.1', check_type: 'tcp', interval_s: 60, timeout_s: 10, failure_threshold: 1,
    degraded_ms: null, max_loss_pct: null, tags: '[]', settings: '{}', status: 'unknown', fail_streak: 0, last_check: null,
    last_rt: null, last_message: null, cert_valid_to: null, cert_checked_at: null, created_at: 0, updated_at: 0,
  };
}

/** A line as queries.ts makes one, reduced to what it depends on; lengths vary with the status and the name. */
function lineOf(reg: Registry) {
  return (m: LiveMonitor, now: number, hour: number): Buffer => {
    const incidents = reg.incidentsSince(m, now - DAY);
    const r = m.row;
    return Buffer.from(JSON.stringify({ pk: r.pk, name: r.name, status: r.status, t: r.last_check, hour, incidents }));
  };
}

/** The list as a writer gets it from the image: runs of at most `room` bytes, joined by commas. */
function listed(image: ListImage, reg: Registry, now: number, room: () => number): string {
  const order = reg.inOrder(), parts: string[] = [];
  for (let i = 0; i < order.length;) {
    const run = image.runOf(order, i, room(), now);
    assert.ok(run && run.next > i, `a run from item ${i}`);
    parts.push(run.bytes.subarray(run.start, run.end).toString());
    i = run.next;
  }
  return `[${parts.join(',')}]`;
}

const afresh = (reg: Registry, now: number) =>
  `[${reg.inOrder().map((m) => lineOf(reg)(m, now, Math.floor(now / HOUR_MS)).toString()).join(',')}]`;

/** A small deterministic random source (the same run every time). */
function rng(seed: number): () => number {
  let s = seed;
  return () => { s = (s * 1103515245 + 12345) % 2147483648; return s / 2147483648; };
}

test('runs join the lines of the current order after results, incidents, renames, additions and removals', () => {
  const reg = new Registry();
  for (let pk = 1; pk <= 400; pk++) reg.put(row(pk, `m ${pk % 37} ${pk}`));
  const image = new ListImage(reg, (m, now, h) => lineOf(reg)(m, now, h));
  const rand = rng(7);
  const room = () => [1, 200, 5_000, 1_000_000][Math.floor(rand() * 4)]!;
  let now = 10 * HOUR_MS + 1000, nextPk = 401;
  assert.equal(listed(image, reg, now, room), afresh(reg, now));
  const statuses: MonitorStatus[] = ['up', 'down', 'degraded', 'up'];
  for (let step = 0; step < 400; step++) {
    now += 50;
    const all = [...reg.all()];
    const m = all[Math.floor(rand() * all.length)]!;
    const what = rand();
    if (what < 0.7) { // a result (as results.ts applies one), sometimes closing an incident
      m.row.last_check = now;
      m.row.status = statuses[Math.floor(rand() * statuses.length)]!;
      if (m.row.status === 'down') m.open ??= { id: `i${step}`, m: m.row.pk, opened_at: now, closed_at: null, open_message: null,
        close_message: null, failures: 1 };
      else if (m.open) { m.open = null; m.closed.push(now); }
      reg.changed(m);
    } else if (what < 0.8) {
      reg.put({ ...m.row, name: `renamed ${step}` });
    } else if (what < 0.9) {
      reg.put(row(nextPk, `new ${nextPk++}`));
    } else {
      reg.remove(m.row.pk);
    }
    if (step % 3 === 0) assert.equal(listed(image, reg, now, room), afresh(reg, now), `after step ${step}`);
  }
  assert.equal(listed(image, reg, now, room), afresh(reg, now));
});

test('results alone splice lines in; the hour, an incident ageing out and the minute make every line again', () => {
  const reg = new Registry();
  for (let pk = 1; pk <= 2000; pk++) reg.put(row(pk, `monitor ${pk}`));
  const image = new ListImage(reg, (m, now, h) => lineOf(reg)(m, now, h));
  const room = () => 256 * 1024;
  const hourStart = 20 * HOUR_MS;
  let now = hourStart + 1000;
  listed(image, reg, now, room);
  const full0 = image.rebuilds.full;

  // 33 results between lists, as at 2,000 monitors and a list every second: partial rebuilds only.
  const all = [...reg.all()];
  const closedAt = now;
  all[5]!.closed.push(closedAt); // an incident closed now: it leaves stats_24h a day later
  reg.changed(all[5]!);
  for (let k = 0; k < 30; k++) {
    now += 1000;
    for (let j = 0; j < 33; j++) {
      const m = all[(k * 33 + j) % all.length]!;
      m.row.last_check = now;
      m.row.status = m.row.status === 'up' ? 'down' : 'up';
      reg.changed(m);
    }
    assert.equal(listed(image, reg, now, room), afresh(reg, now));
  }
  assert.equal(image.rebuilds.full, full0, 'no full rebuild for results');
  assert.equal(image.rebuilds.partial, 30);

  // A change nobody marked shows at the next full check, a minute after the last one at most.
  all[7]!.row.status = 'degraded';
  now += 1000;
  assert.notEqual(listed(image, reg, now, room), afresh(reg, now), 'an unmarked change is not seen at once');
  now = hourStart + 1000 + FULL_CHECK_MS;
  assert.equal(listed(image, reg, now, room), afresh(reg, now), 'seen at the full check');
  assert.equal(image.rebuilds.full, full0 + 1);

  // The next hour: every line again.
  now = hourStart + HOUR_MS + 10;
  assert.equal(listed(image, reg, now, room), afresh(reg, now));
  assert.equal(image.rebuilds.full, full0 + 2);

  // A day after it closed, the incident leaves stats_24h without any result of its monitor.
  now = closedAt + DAY - 5;
  assert.equal(listed(image, reg, now, room), afresh(reg, now));
  assert.match(afresh(reg, now), /"pk":6,[^}]*"incidents":1/);
  now = closedAt + DAY + 1;
  assert.equal(listed(image, reg, now, room), afresh(reg, now));
  assert.match(afresh(reg, now), /"pk":6,[^}]*"incidents":0/);
});

test('warm() makes the image before any list asks, so the first list rebuilds nothing', () => {
  const reg = new Registry();
  for (let pk = 1; pk <= 300; pk++) reg.put(row(pk, `monitor ${pk}`));
  const image = new ListImage(reg, (m, now, h) => lineOf(reg)(m, now, h));
  const now = 30 * HOUR_MS + 5000;
  image.warm(now);
  assert.deepEqual(image.rebuilds, { full: 1, partial: 0 });
  assert.equal(listed(image, reg, now + 10, () => 64 * 1024), afresh(reg, now + 10));
  assert.deepEqual(image.rebuilds, { full: 1, partial: 0 }, 'the list found the image made');
});
