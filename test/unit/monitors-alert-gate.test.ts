// The alert gate (monitors/alert-gate): its rules as tables, the decision and its remembered holds as a
// sequence of events, and every consumer of monitor events: a consumer that alerts on an event the
// gate held fails here, and so does a new consumer nobody listed.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { EventBus } from '../../src/core/events.js';
import type { Tx } from '../../src/core/store/types.js';
import { dependencyHold } from '../../src/modules/monitors/alert-gate/dependency.js';
import { AlertGate, type AlertDecision, type GateEvent } from '../../src/modules/monitors/alert-gate/gate.js';
import { GATE_RULES } from '../../src/modules/monitors/alert-gate/rules.js';
import type { DependencyNode, MonitorBusEvent, MonitorCertificateEvent, MonitorChangeEvent } from '../../src/modules/monitors/contracts.js';
import type { LiveMonitor } from '../../src/modules/monitors/live.js';
import { bridgeBusToController } from '../../src/modules/system/hivemind/bus-bridge.js';
import type { HivemindService } from '../../src/modules/system/hivemind/service.js';
import { Alerter } from '../../src/modules/webhooks/alerter.js';
import type { Dispatcher } from '../../src/modules/webhooks/dispatcher.js';
import type { Outbox } from '../../src/modules/webhooks/outbox.js';
import type { AppContext } from '../../src/core/context.js';

const node = (name: string, status: DependencyNode['status'], fail_streak = 0): DependencyNode =>
  ({ id: name, name, status, fail_streak, held: false });

describe('the dependency rule', () => {
  test('no ancestors, or all fine: no hold', () => {
    assert.equal(dependencyHold([]), null);
    assert.equal(dependencyHold([node('sw', 'up'), node('gw', 'degraded')]), null, 'slow is not failing');
  });
  test('an ancestor down: suppressed under the farthest one down', () => {
    const h = dependencyHold([node('sw', 'down', 3), node('gw', 'down', 3), node('isp', 'up')]);
    assert.equal(h?.state, 'suppressed');
    assert.equal(h?.by?.name, 'gw');
    assert.equal(h?.reason, 'gw is down');
  });
  test('an ancestor failing below its threshold: pending', () => assert.equal(dependencyHold([node('sw', 'degraded', 1)])?.state, 'pending'));
  test('paused ancestors hold nothing back', () => assert.equal(dependencyHold([node('sw', 'paused')]), null));
});

/** A transaction that records statements and runs its commit hooks when asked. */
function fakeTx() {
  const runs: string[] = [];
  const hooks: (() => void)[] = [];
  const tx = { run: (sql: string) => { runs.push(sql.trim().split(/\s+/)[0]!); return { changes: 1 }; }, onCommit: (f: () => void) => hooks.push(f) };
  return { tx: tx as unknown as Tx, runs, commit: () => { for (const f of hooks.splice(0)) f(); } };
}

function monitor(status: LiveMonitor['row']['status'] = 'up'): LiveMonitor {
  return { row: { pk: 1, id: 'child', name: 'child', status } as LiveMonitor['row'], tags: [], hold: null } as unknown as LiveMonitor;
}

describe('the gate remembers what it held and releases it', () => {
  test('held while the parent is down, released at the next failed check once it is up, recovery passes', () => {
    let parent = node('switch', 'down', 2);
    const gate = new AlertGate(GATE_RULES, () => [parent]);
    const m = monitor();
    const step = (ev: GateEvent, at: number): AlertDecision => {
      const f = fakeTx();
      const d = gate.decide(f.tx, m, ev, at);
      f.commit();
      return d;
    };
    const down = step('problem', 1000);
    assert.equal(down.send, false);
    assert.equal(!down.send && down.held_by.rule, 'dependency');
    assert.equal(m.hold?.by?.name, 'switch');
    m.row.status = 'down';
    const still = step('still_down', 2000);
    assert.equal(still.send, false, 'still held while the parent is down');
    assert.equal(!still.send && still.held_by.since, new Date(1000).toISOString(), 'held since the first hold');
    parent = node('switch', 'up');
    const released = step('still_down', 3000);
    assert.ok(released.send && released.released, 'released once the parent is up');
    assert.equal(m.hold, null);
    assert.deepEqual(step('still_down', 4000), { send: true }, 'released once only');
    assert.deepEqual(step('recovery', 5000), { send: true }, 'its down was told: so is its recovery');
  });

  test('the recovery of a held problem is held too', () => {
    const gate = new AlertGate(GATE_RULES, () => [node('switch', 'down', 2)]);
    const m = monitor();
    const f = fakeTx();
    gate.decide(f.tx, m, 'problem', 1000); f.commit();
    const g = fakeTx();
    const up = gate.decide(g.tx, m, 'recovery', 2000); g.commit();
    assert.equal(up.send, false);
    assert.equal(m.hold, null, 'the hold is over');
    assert.deepEqual(g.runs, ['DELETE']);
  });

  test('a down told before the parent fell is not remembered (nothing to release)', () => {
    const gate = new AlertGate(GATE_RULES, () => [node('switch', 'down', 2)]);
    const m = monitor('down');
    const f = fakeTx();
    assert.equal(gate.decide(f.tx, m, 'still_down', 1000).send, false);
    f.commit();
    assert.equal(m.hold, null);
    assert.deepEqual(f.runs, []);
  });

  test('a paused monitor alerts nobody, and its hold is not remembered', () => {
    const gate = new AlertGate(GATE_RULES, () => []);
    const m = monitor('paused');
    for (const ev of ['problem', 'recovery', 'certificate', 'change'] as const) {
      const f = fakeTx();
      const d = gate.decide(f.tx, m, ev, 1000);
      f.commit();
      assert.equal(!d.send && d.held_by.rule, 'paused', ev);
      assert.deepEqual(f.runs, []);
    }
    assert.equal(m.hold, null);
  });

  test('a maintenance window holds every event, before a parent down; its close releases the outage it held', () => {
    let open: { id: string; name: string; until: string } | null = { id: 'w1', name: 'Firmware', until: '2026-01-01T02:00:00.000Z' };
    const gate = new AlertGate(GATE_RULES, () => [node('switch', 'down', 2)], () => open);
    const m = monitor();
    const step = (ev: GateEvent, at: number): AlertDecision => { const f = fakeTx(); const d = gate.decide(f.tx, m, ev, at); f.commit(); return d; };
    for (const ev of ['problem', 'certificate', 'change'] as const) {
      const d = step(ev, 1000);
      assert.equal(!d.send && d.held_by.rule, 'maintenance', `${ev}: the window is asked before the parent`);
      assert.equal(!d.send && d.held_by.reason, 'Firmware (maintenance until 2026-01-01T02:00:00.000Z)');
      assert.deepEqual(!d.send && d.held_by.by, { id: 'w1', name: 'Firmware' });
    }
    m.row.status = 'down';
    assert.equal(step('still_down', 2000).send, false);
    open = null;
    const gate2 = new AlertGate(GATE_RULES, () => [], () => open);
    const f = fakeTx();
    const released = gate2.decide(f.tx, m, 'still_down', 3000);
    f.commit();
    assert.ok(released.send && released.released?.rule === 'maintenance', 'the window closed: the held down goes out');
  });

  test('a hold that does not change writes nothing', () => {
    const gate = new AlertGate(GATE_RULES, () => [node('switch', 'down', 2)]);
    const m = monitor();
    const f = fakeTx(); gate.decide(f.tx, m, 'problem', 1000); f.commit();
    const g = fakeTx(); gate.decide(g.tx, m, 'problem', 2000); g.commit();
    assert.deepEqual(f.runs, ['INSERT']);
    assert.deepEqual(g.runs, [], 'the same hold again: no write');
  });
});

// ---- every consumer of monitor events obeys the decision ---------------------------------------------

const ALERT_EVENTS = ['monitor.down', 'monitor.up', 'monitor.degraded', 'monitor.check_failed', 'monitor.certificate', 'monitor.change'] as const;

/**
 * Every file under src/ that listens to monitor events, and what it does with them. A consumer that tells
 * anybody is exercised below with held events; one that only counts facts says so.
 */
const CONSUMERS: Record<string, 'alerts' | 'counts facts'> = {
  'src/modules/webhooks/alerter.ts': 'alerts',
  'src/modules/system/hivemind/bus-bridge.ts': 'alerts',
  'src/modules/system/metrics/service.ts': 'counts facts',
};

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((f) => {
    const p = join(dir, f);
    return statSync(p).isDirectory() ? sources(p) : p.endsWith('.ts') ? [p] : [];
  });
}

test('every listener of monitor events is a known consumer', () => {
  const listening = sources('src').filter((f) => {
    const text = readFileSync(f, 'utf8');
    return ALERT_EVENTS.some((e) => text.includes(`'${e}'`) && /\.on\(/.test(text)) && !f.includes('/monitors/');
  });
  assert.deepEqual(listening.sort(), Object.keys(CONSUMERS).sort(),
    'a new consumer of monitor events must read ev.alert (the gate\'s decision) and join CONSUMERS with a test below');
});

const hold = { rule: 'dependency', reason: 'switch is down', by: { id: 'p', name: 'switch' }, state: 'suppressed' as const, since: '2026-01-01T00:00:00.000Z' };
const held: AlertDecision = { send: false, held_by: hold };
const released: AlertDecision = { send: true, released: hold };

function event(status: MonitorBusEvent['status'], previous: MonitorBusEvent['previous_status'], alert: AlertDecision, result: 'up' | 'down' | 'degraded' = status === 'up' ? 'up' : status === 'degraded' ? 'degraded' : 'down'): MonitorBusEvent {
  return {
    monitor: { id: 'child', name: 'child', target: 'http://127.0.0.1/', check_type: 'http', tags: [] },
    previous_status: previous, status, fail_streak: 3, failure_threshold: 3,
    result: { at: '2026-01-01T00:00:00.000Z', status: result, response_time: 1, message: 'm', details: {}, manual: false, monitor_status: status === 'unknown' ? 'up' : status, in_maintenance: false, measurements: {} },
    incident: null, occurred_at: '2026-01-01T00:00:00.000Z', alert,
  };
}

function certificate(alert: AlertDecision): MonitorCertificateEvent {
  return { monitor: event('up', 'up', alert).monitor, valid_to: '2026-01-02T00:00:00.000Z', days_left: 0, cert: {}, occurred_at: '2026-01-01T00:00:00.000Z', alert };
}

function change(alert: AlertDecision): MonitorChangeEvent {
  return { monitor: event('up', 'up', alert).monitor, kind: 'route_changed', message: 'Route to x changed: a > b became a > c',
    details: { from: ['10.0.0.1', '10.0.0.2'], to: ['10.0.0.1', '10.0.0.3'] }, occurred_at: '2026-01-01T00:00:00.000Z', alert };
}

/** The events a gate may hold, each with what it is. */
function heldEvents(alert: AlertDecision): [(typeof ALERT_EVENTS)[number], MonitorBusEvent | MonitorCertificateEvent | MonitorChangeEvent][] {
  return [
    ['monitor.down', event('down', 'up', alert)],
    ['monitor.check_failed', event('down', 'up', alert)],
    ['monitor.check_failed', event('degraded', 'up', alert)],
    ['monitor.degraded', event('degraded', 'up', alert)],
    ['monitor.up', event('up', 'down', alert)],
    ['monitor.certificate', certificate(alert)],
    ['monitor.change', change(alert)],
  ];
}

function fakeApp(bus: EventBus): AppContext {
  const log = { info() {}, warn() {}, error() {}, debug() {}, child() { return log; } };
  const store = { get: () => undefined, write: async (fn: (tx: unknown) => unknown) => fn({ run() {} }) };
  return { bus, log, store, clock: { now: () => 0, iso: (t: number) => new Date(t).toISOString() } } as unknown as AppContext;
}

async function alerterSends(events: ReturnType<typeof heldEvents>): Promise<{ routed: string[]; logged: string[] }> {
  const bus = new EventBus();
  const routed: string[] = [];
  const logged: string[] = [];
  const outbox = {
    route: async (a: { type: string }) => { routed.push(a.type); return []; },
    logHeld: async (a: { type: string }) => { logged.push(a.type); },
    forgetMonitor: async () => {},
  } as unknown as Outbox;
  const alerter = new Alerter(fakeApp(bus), outbox, { kick() {} } as unknown as Dispatcher, () => ({ descendants: () => [] }));
  alerter.subscribe();
  for (const [name, ev] of events) bus.emit(name, ev as never);
  await alerter.idle();
  return { routed, logged };
}

function bridgeSends(events: ReturnType<typeof heldEvents>): { sent: string[]; states: number } {
  const bus = new EventBus();
  const sent: string[] = [];
  let states = 0;
  const svc = {
    status: () => ({ paired: true }),
    event: (type: string) => sent.push(type),
    monitorState: () => { states++; },
    monitorGone() {},
  } as unknown as HivemindService;
  const off = bridgeBusToController(fakeApp(bus), svc);
  for (const [name, ev] of events) bus.emit(name, ev as never);
  off();
  return { sent, states };
}

describe('consumers send nothing the gate held', () => {
  test('webhooks: every held event is logged as held, none routed', async () => {
    const { routed, logged } = await alerterSends(heldEvents(held));
    assert.deepEqual(routed, []);
    assert.deepEqual(logged.sort(), ['certificate_expiring', 'monitor_degraded', 'monitor_down', 'monitor_up', 'route_changed', 'test_failure']);
  });
  test('webhooks: the same events let through are routed (the test can fail)', async () => {
    const { routed } = await alerterSends(heldEvents({ send: true }));
    assert.deepEqual(routed.sort(), ['certificate_expiring', 'monitor_degraded', 'monitor_down', 'monitor_up', 'route_changed', 'test_failure']);
  });
  test('webhooks: a released down is sent as released', async () => {
    const { routed } = await alerterSends([['monitor.check_failed', event('down', 'down', released)]]);
    assert.deepEqual(routed, ['monitor_down']);
  });
  test('controller: held transitions update its state and send no event', () => {
    const { sent, states } = bridgeSends(heldEvents(held));
    assert.deepEqual(sent, []);
    assert.equal(states, 3, 'monitor states are facts: down, degraded, up');
  });
  test('controller: the same events let through are sent, and a released down too', () => {
    assert.deepEqual(bridgeSends(heldEvents({ send: true })).sent, ['monitor.down', 'monitor.degraded', 'monitor.up']);
    assert.deepEqual(bridgeSends([['monitor.check_failed', event('down', 'down', released)]]).sent, ['monitor.down']);
  });
});
