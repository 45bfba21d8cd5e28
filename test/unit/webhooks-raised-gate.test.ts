// The gate of alerts other modules raise (webhooks/raised-gate.ts): a maintenance window for every monitor
// holds them; a held problem's recovery is held with it; a recovery of a problem told before the window is
// told; a held problem still open when the window closes is due then, once; other held alerts are not.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { registerInterfaceAlerts } from '../../src/modules/snmp/polling/alert-types.js';
import { registerDiscoveryAlerts } from '../../src/modules/v1sion/devices/alert-types.js';
import { makeAlert } from '../../src/modules/webhooks/alert.js';
import { RaisedGate } from '../../src/modules/webhooks/raised-gate.js';

registerInterfaceAlerts();
registerDiscoveryAlerts();
const WINDOW = { id: 'w1', name: 'Firmware', until: '2026-12-08T02:00:00.000Z' };
let open = false;
const gate = new RaisedGate(() => (open ? WINDOW : null));
const alert = (type: string, subject: string) => makeAlert({ type, subject, title: type, message: type, occurred_at: '2026-12-08T01:00:00Z' });

test('without a window everything is sent', () => {
  open = false;
  assert.deepEqual(gate.decide(alert('interface_down', 's/1'), 0), { send: true });
  assert.deepEqual(gate.decide(alert('device_discovered', 'd/1'), 0), { send: true });
});

test('in a window: problems and others held; a recovery of a problem told before is sent, of a held one held', () => {
  open = true;
  const d = gate.decide(alert('interface_down', 's/2'), 0);
  assert.equal(d.send, false);
  assert.match(!d.send ? d.reason : '', /Firmware/);
  assert.equal(gate.decide(alert('device_missing', 'd/2'), 0).send, false);
  assert.equal(gate.decide(alert('interface_up', 's/1'), 0).send, true, 's/1 was told before the window');
  assert.equal(gate.decide(alert('interface_down', 's/3'), 0).send, false);
  const up = gate.decide(alert('interface_up', 's/3'), 0);
  assert.equal(up.send, false);
  assert.match(!up.send ? up.reason : '', /its problem was held/);
  assert.deepEqual(gate.due(0), [], 'nothing is due while the window is open');
});

test('the window closes: the held problem still open is due once; the recovered one and the others are not', () => {
  open = false;
  const due = gate.due(0);
  assert.deepEqual(due.map((x) => [x.alert.subject, x.alert.type, x.window.id]), [['s/2', 'interface_down', 'w1']]);
  assert.deepEqual(gate.due(0), []);
  // After the window, its recovery is sent (it was told on release).
  assert.equal(gate.decide(alert('interface_up', 's/2'), 0).send, true);
});
