// The degrade() hooks (checks/degrade.ts, CheckDefinition.degrade): the default slow rule every type
// without a hook gets, and ping's loss rule, applied to an `up` report the way runPrepared applies them.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { CHECK_TYPES, CHECKS, readsThreshold } from '../../src/modules/monitors/checks/index.js';
import { decideDegraded, degradeWhenSlow } from '../../src/modules/monitors/checks/degrade.js';
import { degradeOnLoss, pingResult } from '../../src/modules/monitors/checks/ping.js';
import { pathResult, type Hop } from '../../src/modules/monitors/checks/path.js';
import type { RunReport } from '../../src/modules/monitors/checks/types.js';
import { degradedReason } from '../../src/modules/monitors/schemas.js';

const none = { degraded_ms: null, max_loss_pct: null };

describe('the default degrade(): slower than degraded_ms', () => {
  const up = { status: 'up' as const, response_time_ms: 150, message: 'connected', details: {} };

  test('slower than the threshold is degraded, the threshold (not the time) in the message', () => {
    assert.deepEqual(degradeWhenSlow(up, { ...none, degraded_ms: 100 }),
      { ...up, status: 'degraded', message: 'connected; slower than 100 ms' });
  });

  test('at the threshold, without one, or without a time it stays up', () => {
    assert.equal(degradeWhenSlow(up, { ...none, degraded_ms: 150 }).status, 'up');
    assert.equal(degradeWhenSlow(up, none).status, 'up');
    assert.equal(degradeWhenSlow({ ...up, response_time_ms: null }, { ...none, degraded_ms: 1 }).status, 'up');
  });

  test('http, tcp and dns have no hook of their own: the default decides for them', () => {
    for (const type of CHECK_TYPES.filter((t) => t !== 'ping' && t !== 'path')) {
      assert.equal(CHECKS[type].degrade, undefined, type);
      assert.equal(decideDegraded(CHECKS[type], up, { ...none, degraded_ms: 100 }).status, 'degraded', type);
    }
  });

  test('a down report is never degraded, whatever the thresholds', () => {
    const down: RunReport = { status: 'down', response_time_ms: 900, message: 'HTTP 500', details: { loss_pct: 50 } };
    for (const type of CHECK_TYPES) assert.equal(decideDegraded(CHECKS[type], down, { degraded_ms: 1, max_loss_pct: 0 }), down);
  });
});

describe("ping's degrade(): loss above max_loss_pct", () => {
  const s = { count: 4, packet_size: 56, per_packet_timeout_ms: 1000 };
  const fping = { sent: 4, received: 3, loss_pct: 25, rtt_min_ms: 1, rtt_avg_ms: 2, rtt_max_ms: 3, error: null, icmp_error: null };
  const lossy = pingResult('h', fping, s);
  const clean = pingResult('h', { ...fping, received: 4, loss_pct: 0 }, s);

  test('run() reports partial loss as up: degraded is the hook\'s to decide', () => {
    assert.equal(lossy.status, 'up');
    assert.equal(lossy.message, '3/4 replies, 25% loss');
  });

  test('is the ping type\'s hook, reading max_loss_pct (which only ping monitors accept)', () => {
    assert.equal(CHECKS.ping.degrade, degradeOnLoss);
    assert.deepEqual(CHECK_TYPES.filter((t) => readsThreshold(t, 'max_loss_pct')), ['ping', 'path']);
  });

  test('loss above max_loss_pct (none set: any loss) is degraded, at or below it up', () => {
    const at = (max_loss_pct: number | null) => decideDegraded(CHECKS.ping, lossy, { degraded_ms: null, max_loss_pct });
    assert.equal(at(null).status, 'degraded');
    assert.equal(at(null).message, '3/4 replies, 25% loss (loss above 0%)');
    assert.equal(at(24.9).status, 'degraded');
    assert.equal(at(25).status, 'up');
    assert.equal(decideDegraded(CHECKS.ping, clean, none).status, 'up');
  });

  test('within the loss allowed, the slow rule still applies; loss wins when both do', () => {
    assert.equal(decideDegraded(CHECKS.ping, clean, { degraded_ms: 1, max_loss_pct: null }).message, '4/4 replies, 0% loss; slower than 1 ms');
    assert.match(decideDegraded(CHECKS.ping, lossy, { degraded_ms: 1, max_loss_pct: 0 }).message, /\(loss above 0%\)$/);
  });

  test('the API tells a loss from a slow degraded by the message', () => {
    const row = (r: { status: string; message: string }) =>
      degradedReason({ status: r.status as 'degraded', fail_streak: 0, last_message: r.message });
    assert.equal(row(decideDegraded(CHECKS.ping, lossy, none)), 'loss');
    assert.equal(row(decideDegraded(CHECKS.ping, clean, { degraded_ms: 1, max_loss_pct: null })), 'slow');
  });
});

describe("path's degrade(): loss at the destination above max_loss_pct (ping's rule)", () => {
  const s = { probe_type: 'icmp' as const, dest_port: 80, cycles: 5, max_ttl: 30, reverse_dns: false };
  const hop = (n: number, address: string, loss_pct: number): Hop => ({ hop: n, address, loss_pct, sent: 5,
    received: Math.round(5 * (1 - loss_pct / 100)), avg_ms: 1, best_ms: 0.5, worst_ms: 2 });
  const lossy = pathResult('far', '10.0.2.2', [hop(1, '10.0.1.1', 0), hop(2, '10.0.2.2', 40)], s, {});
  const lossOnTheWay = pathResult('far', '10.0.2.2', [hop(1, '10.0.1.1', 60), hop(2, '10.0.2.2', 0)], s, {});

  test('is the path type\'s hook, and run() reports the loss as up', () => {
    assert.equal(CHECKS.path.degrade, degradeOnLoss);
    assert.equal(lossy.status, 'up');
    assert.equal(lossy.message, '2 hops, 40% loss at far');
  });

  test('loss at the destination above max_loss_pct is degraded; loss only at a hop on the way is not', () => {
    assert.equal(decideDegraded(CHECKS.path, lossy, none).status, 'degraded');
    assert.equal(decideDegraded(CHECKS.path, lossy, { degraded_ms: null, max_loss_pct: 40 }).status, 'up');
    const r = decideDegraded(CHECKS.path, lossOnTheWay, none);
    assert.equal(r.status, 'up');
    assert.equal(r.message, '2 hops, 0% loss at far (loss at 1 hop on the way)');
  });
});
