// The sd_notify client: real systemd-notify runs against a notification socket the test binds.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ManualClock } from '../../src/core/clock.js';
import { run } from '../../src/core/exec.js';
import { Logger } from '../../src/core/log.js';
import { createNotifier } from '../../src/core/notify.js';
import { notifySocket } from '../helpers/notify-socket.js';

function quietLog() {
  const lines: string[] = [];
  return { log: Logger.create({ write: (l) => lines.push(l) }).child('systemd'), lines };
}

const until = async (cond: () => boolean, ms = 10_000) => {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 20));
  }
};

test('without NOTIFY_SOCKET nothing is sent and no watchdog runs', async () => {
  const clock = new ManualClock();
  let ran = 0;
  const n = createNotifier({ env: { WATCHDOG_USEC: '1000000' }, clock, log: quietLog().log, run: (...a) => { ran++; return run(...a); } });
  assert.equal(n.active, false);
  assert.equal(n.watchdogMs, null);
  await n.ready('listening');
  clock.advance(10_000);
  await n.stopping('bye');
  assert.equal(ran, 0);
});

test('READY=1 with a status, then STOPPING=1; systemd-notify returns once the message is read', async () => {
  const sock = await notifySocket();
  try {
    const n = createNotifier({ env: { NOTIFY_SOCKET: sock.path }, clock: new ManualClock(), log: quietLog().log });
    assert.equal(n.active, true);
    assert.equal(n.watchdogMs, null, 'no WATCHDOG_USEC, no watchdog');
    await n.ready('listening on 127.0.0.1:8080');
    const ready = await sock.waitFor('READY=1');
    assert.ok(ready.includes('STATUS=listening on 127.0.0.1:8080'), JSON.stringify(ready));
    await n.stopping('SIGTERM');
    const stopping = await sock.waitFor('STOPPING=1');
    assert.ok(stopping.includes('STATUS=SIGTERM'));
  } finally {
    await sock.close();
  }
});

test('WATCHDOG=1 every half of WATCHDOG_USEC, and none after stopping', async () => {
  const sock = await notifySocket();
  try {
    const clock = new ManualClock();
    const n = createNotifier({ env: { NOTIFY_SOCKET: sock.path, WATCHDOG_USEC: '30000000' }, clock, log: quietLog().log });
    assert.equal(n.watchdogMs, 15_000);
    const pings = () => sock.messages.filter((m) => m.includes('WATCHDOG=1')).length;
    clock.advance(14_999);
    await new Promise((r) => setTimeout(r, 300));
    assert.equal(pings(), 0, 'not before half the period');
    clock.advance(1);
    await until(() => pings() === 1);
    // The next ping is scheduled once the previous one has been delivered.
    await until(() => { clock.advance(15_000); return pings() >= 3; });
    n.close();
    await new Promise((r) => setTimeout(r, 300)); // a ping already on its way still arrives
    const after = pings();
    clock.advance(60_000);
    await new Promise((r) => setTimeout(r, 300));
    assert.equal(pings(), after, 'closed: no more pings');
  } finally {
    await sock.close();
  }
});

test('a watchdog meant for another process (WATCHDOG_PID) is not ours to feed', () => {
  const env = { NOTIFY_SOCKET: '/nonexistent', WATCHDOG_USEC: '2000000', WATCHDOG_PID: String(process.pid + 1) };
  const n = createNotifier({ env, clock: new ManualClock(), log: quietLog().log });
  assert.equal(n.watchdogMs, null);
  n.close();
  assert.equal(createNotifier({ env: { ...env, WATCHDOG_PID: String(process.pid) }, clock: new ManualClock(), log: quietLog().log }).watchdogMs, 1000);
});

test('a missing systemd-notify or an unreachable socket is logged once, never thrown', async () => {
  const { log, lines } = quietLog();
  const missing = createNotifier({
    env: { NOTIFY_SOCKET: '/nonexistent/notify' }, clock: new ManualClock(), log,
    run: (_program, args, opts) => run('/nonexistent/systemd-notify', args, opts),
  });
  await missing.ready('x');
  await missing.ready('x');
  assert.equal(lines.filter((l) => l.includes('could not notify systemd')).length, 1, lines.join('\n'));
  assert.match(lines.join('\n'), /apt-get install systemd/);

  const unreachable = quietLog();
  const n = createNotifier({ env: { NOTIFY_SOCKET: '/nonexistent/notify' }, clock: new ManualClock(), log: unreachable.log });
  await n.ready('x');
  assert.match(unreachable.lines.join('\n'), /could not notify systemd.*systemd-notify exited/);
});
