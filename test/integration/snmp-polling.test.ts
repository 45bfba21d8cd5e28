// Interface polling through the real service: the project's simulator serves interfaces whose counters the
// test moves (test/helpers/if-sim.ts), the service polls them on demand (POST .../poll), and the API gives
// rates, history, renumbering, the busiest ports and alerts to a real webhook receiver. A polled device
// sends a stored credential's community: the save and every poll keep to its scope and discovery's allowed
// ranges, and a refused poll sends nothing (the simulator counts what it hears).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { assertProblem, startTestApp, type TestApp } from '../helpers/harness.js';
import { IfSim } from '../helpers/if-sim.js';
import { startSimulator, type Simulator } from '../helpers/snmp-sim.js';
import { Receiver } from '../helpers/webhook-receiver.js';

const PASSPHRASE = 'Polling-Vault-Passphrase-7';
const COMMUNITY = 'Poll-Sim-Community-33';

let t: TestApp;
let key: string;
let sim: Simulator;
let dev: IfSim;
let hook: Receiver;
const creds: Record<'sim' | 'elsewhere' | 'ssh', string> = {} as never;

const api = async (method: string, path: string, body?: unknown) => t.request(method, path, { key, body });
const port = () => sim.devices[0]!.port;

async function credential(name: string, body: Record<string, unknown>) {
  const r = await api('POST', '/api/brain/credentials', { name, ...body });
  assert.equal(r.status, 201, r.text);
  return r.body.id as string;
}

async function pollNow(id: string) {
  const r = await api('POST', `/api/snmp/polling/${id}/poll`);
  assert.equal(r.status, 200, r.text);
  return r.body as { state: { status: string; error: string | null; requests: number }; interfaces: Iface[] };
}

interface Iface {
  key: number; if_index: number; name: string; oper_status: string; watched: boolean; hc: boolean | null;
  renumbered: { from: number } | null; gone_at: string | null;
  now: { t: string; in_bps: number | null; out_bps: number | null; in_util_pct: number | null; in_errors_ps: number | null;
    why: string | null } | null;
}

/** A problem+json answer with this status (and code). */
function problem(r: Awaited<ReturnType<typeof api>>, status: number, code?: string) {
  assertProblem(r, status);
  if (code) assert.equal(r.body.code, code, r.text);
}

const byName = (ifs: Iface[], name: string) => ifs.find((i) => i.name === name && !i.gone_at)!;

before(async () => {
  dev = new IfSim({ interfaces: [
    { index: 1, name: 'ge-0/0/1', alias: 'uplink to core', speed_bps: 1e9 },
    { index: 2, name: 'ge-0/0/2', speed_bps: 1e9 },
    // A 32-bit-only interface near the wrap.
    { index: 3, name: 'fe-0/0/3', speed_bps: 100e6, hc: false, in_octets: 2n ** 32n - 1000n },
  ] });
  sim = await startSimulator([{ text: dev.text(), name: 'switch', community: COMMUNITY }]);
  dev.attach(sim.devices[0]!.recording);
  hook = await Receiver.start();
  t = await startTestApp();
  key = (await t.admin()).key;
  assert.equal((await api('POST', '/api/brain/vault/setup', { passphrase: PASSPHRASE })).status, 200);
  creds.sim = await credential('switch community', { kind: 'snmp_v2c', community: COMMUNITY, scope: ['127.0.0.1'] });
  creds.elsewhere = await credential('for 127.0.0.2 only', { kind: 'snmp_v2c', community: COMMUNITY, scope: ['127.0.0.2'] });
  creds.ssh = await credential('an ssh login', { kind: 'ssh_password', username: 'u', password: 'p4ssw0rd!', scope: ['127.0.0.1'] });
  const w = await api('POST', '/api/webhooks', { name: 'ports', url: `${hook.url}/hook`,
    alert_types: ['interface_down', 'interface_up', 'interface_utilisation', 'interface_utilisation_normal', 'interface_errors',
      'interface_errors_normal'] });
  assert.equal(w.status, 201, w.text);
});

after(async () => {
  await t?.close();
  await sim?.stop();
  await hook?.close();
});

describe('interface polling', () => {
  let id: string;

  test('saving refuses a credential that may not go there, a non-SNMP one and an address outside the allowed ranges; nothing is sent', async () => {
    const heard = sim.devices[0]!.requests;
    problem(await api('POST', '/api/snmp/polling', { target: '127.0.0.1', port: port(), credential_id: creds.elsewhere }), 403, 'credential_out_of_scope');
    problem(await api('POST', '/api/snmp/polling', { target: '127.0.0.1', port: port(), credential_id: creds.ssh }), 400);
    problem(await api('POST', '/api/snmp/polling', { target: '192.0.2.1', credential_id: creds.sim }), 403);
    problem(await api('POST', '/api/snmp/polling', { target: '127.0.0.1', credential_id: creds.sim, interval_s: 30 }), 400);
    problem(await api('POST', '/api/snmp/polling', { target: '127.0.0.1', credential_id: creds.sim, community: 'x' }), 400);
    assert.equal(sim.devices[0]!.requests, heard);
  });

  test('a device is polled in one request train; the first poll lists interfaces without rates', async () => {
    const r = await api('POST', '/api/snmp/polling', { name: 'access switch', target: '127.0.0.1', port: port(),
      credential_id: creds.sim, error_alert_ps: 5 });
    assert.equal(r.status, 201, r.text);
    id = r.body.id;
    assert.equal(r.body.credential.id, creds.sim);
    problem(await api('POST', '/api/snmp/polling', { target: '127.0.0.1', port: port(), credential_id: creds.sim }), 409, 'already_polled');
    const first = await pollNow(id);
    assert.equal(first.state.status, 'ok', first.state.error ?? '');
    assert.ok(first.state.requests <= 4, `${first.state.requests} requests for 3 interfaces x 30 columns`);
    assert.deepEqual(first.interfaces.map((i) => i.name), ['ge-0/0/1', 'ge-0/0/2', 'fe-0/0/3']);
    assert.deepEqual(first.interfaces.map((i) => i.hc), [true, true, false]);
    const ge1 = byName(first.interfaces, 'ge-0/0/1');
    assert.equal(ge1.now?.in_bps, null);
    assert.equal(ge1.now?.why, 'first');
  });

  test('rates are the bytes sent over the time between polls, across a 32-bit wrap', async () => {
    const before = await api('GET', `/api/snmp/polling/${id}`);
    const t1 = Date.parse(byName(before.body.interfaces, 'ge-0/0/1').now!.t);
    dev.advance(1, { in_octets: 12_500_000, out_octets: 2_500_000, in_ucast: 10_000 }).advance(3, { in_octets: 3_000_000 })
      .tick(1000).publish();
    await new Promise((r) => setTimeout(r, 1000));
    const p = await pollNow(id);
    const ge1 = byName(p.interfaces, 'ge-0/0/1');
    const fe3 = byName(p.interfaces, 'fe-0/0/3');
    const s = (Date.parse(ge1.now!.t) - t1) / 1000;
    assert.ok(Math.abs(ge1.now!.in_bps! * s - 100_000_000) < 1_000_000, `in ${ge1.now!.in_bps} b/s over ${s} s`);
    assert.ok(Math.abs(ge1.now!.out_bps! * s - 20_000_000) < 200_000, `out ${ge1.now!.out_bps}`);
    assert.ok(Math.abs(fe3.now!.in_bps! * s - 24_000_000) < 240_000, `after the wrap: ${fe3.now!.in_bps}`);
    assert.equal(fe3.now!.why, null);
    assert.ok(ge1.now!.in_util_pct! > 5 && ge1.now!.in_util_pct! < 15, `utilisation ${ge1.now!.in_util_pct}`);
    // The busiest port across devices is ge-0/0/1.
    const busy = await api('GET', '/api/snmp/polling/busiest?by=bps&limit=2');
    assert.equal(busy.status, 200, busy.text);
    assert.equal(busy.body.items[0].interface.name, 'ge-0/0/1');
    // The hour view has the point.
    const h = await api('GET', `/api/snmp/polling/${id}/interfaces/${ge1.key}/history?range=hour`);
    assert.equal(h.status, 200, h.text);
    assert.ok(h.body.points.some((x: { in_avg: number | null }) => x.in_avg !== null && x.in_avg > 0), JSON.stringify(h.body.points));
    problem(await api('GET', `/api/snmp/polling/${id}/interfaces/${ge1.key}/history?range=decade`), 400);
    problem(await api('GET', `/api/snmp/polling/${id}/interfaces/999999/history`), 404);
  });

  test('a watched interface that goes down alerts, and its recovery says for how long; errors over the threshold alert', async () => {
    const ifs = (await api('GET', `/api/snmp/polling/${id}`)).body.interfaces as Iface[];
    const ge2 = byName(ifs, 'ge-0/0/2');
    const w = await api('PATCH', `/api/snmp/polling/${id}/interfaces/${ge2.key}`, { watched: true });
    assert.equal(w.status, 200, w.text);
    assert.equal(w.body.watched, true);
    dev.iface(2).oper = 2;
    dev.advance(2, { in_errors: 1000 }).tick(1000).publish();
    await new Promise((r) => setTimeout(r, 1000));
    await pollNow(id);
    const got = await hook.waitFor(2, 10_000);
    const types = got.map((g) => g.json?.alert?.type).sort();
    assert.deepEqual(types, ['interface_down', 'interface_errors'], JSON.stringify(types));
    const down = got.find((g) => g.json?.alert?.type === 'interface_down')!.json.alert;
    assert.match(down.title, /Interface down: access switch ge-0\/0\/2/);
    assert.equal(down.subject, `snmp-interface/${ge2.key}`);
    dev.iface(2).oper = 1;
    dev.tick(1000).publish();
    await new Promise((r) => setTimeout(r, 1000));
    await pollNow(id);
    const all = await hook.waitFor(4, 10_000);
    const later = all.slice(2).map((g) => g.json?.alert?.type).sort();
    assert.deepEqual(later, ['interface_errors_normal', 'interface_up']);
    assert.match(all.find((g) => g.json?.alert?.type === 'interface_up')!.json.alert.message, /up again after/);
  });

  test('a maintenance window for every monitor holds the alert; the problem still open is told when it closes', async () => {
    const ifs = (await api('GET', `/api/snmp/polling/${id}`)).body.interfaces as Iface[];
    // ge-0/0/1: ge-0/0/2 alerted a moment ago, and the webhook's cooldown would hold a second down of it.
    const ge1 = byName(ifs, 'ge-0/0/1');
    assert.equal((await api('PATCH', `/api/snmp/polling/${id}/interfaces/${ge1.key}`, { watched: true })).status, 200);
    const sent = hook.requests.length;
    const now = Date.now();
    const w = await api('POST', '/api/monitors/maintenance', { name: 'Switch firmware', applies_to: 'all',
      schedule: { kind: 'once', from: new Date(now - 1000).toISOString(), to: new Date(now + 600_000).toISOString() } });
    assert.equal(w.status, 201, w.text);
    dev.iface(1).oper = 2;
    dev.tick(1000).publish();
    await pollNow(id);
    const log = async () => ((await api('GET', '/api/webhooks/alerts?limit=50')).body.items as
      { outcome: string; alert: { type: string; subject: string; details: Record<string, any> } }[])
      .filter((a) => a.alert.subject === `snmp-interface/${ge1.key}`);
    let held;
    for (const end = Date.now() + 5000; !held && Date.now() < end; await new Promise((r) => setTimeout(r, 100))) {
      held = (await log()).find((a) => a.outcome === 'held' && a.alert.type === 'interface_down');
    }
    assert.ok(held, 'the down was not logged as held');
    assert.equal(held.alert.details.held_by.name, 'Switch firmware');
    assert.equal(hook.requests.length, sent, 'a held alert reached the webhook');
    // The window ends early with the interface still down: the down is told now, marked released.
    assert.equal((await api('POST', `/api/monitors/maintenance/${w.body.id}/end`)).status, 200);
    const got = await hook.waitFor(sent + 1, 10_000);
    const released = got[sent]!.json.alert;
    assert.equal(released.type, 'interface_down');
    assert.equal(released.details.released.name, 'Switch firmware');
    // Its recovery is told too: whoever heard "down" hears "up".
    dev.iface(1).oper = 1;
    dev.tick(1000).publish();
    await pollNow(id);
    const after = await hook.waitFor(sent + 2, 10_000);
    assert.equal(after[sent + 1]!.json.alert.type, 'interface_up');
    assert.equal((await api('DELETE', `/api/monitors/maintenance/${w.body.id}`)).status, 204);
  });

  test('an interface renumbered after a reboot keeps its key and history, and says so', async () => {
    const ifs = (await api('GET', `/api/snmp/polling/${id}`)).body.interfaces as Iface[];
    const ge2 = byName(ifs, 'ge-0/0/2');
    dev.iface(2).index = 7;
    dev.ifs.sort((a, b) => a.index - b.index);
    dev.tick(1000).publish();
    const p = await pollNow(id);
    const moved = byName(p.interfaces, 'ge-0/0/2');
    assert.equal(moved.key, ge2.key);
    assert.equal(moved.if_index, 7);
    assert.equal(moved.renumbered?.from, 2);
    assert.equal(moved.now?.why, 'discontinuity');
  });

  test('a credential whose scope no longer allows the device: the poll is refused and nothing is sent', async () => {
    const heard = sim.devices[0]!.requests;
    const ch = await api('PUT', `/api/brain/credentials/${creds.sim}`, { scope: ['127.0.0.2'] });
    assert.equal(ch.status, 200, ch.text);
    const p = await pollNow(id);
    assert.equal(p.state.status, 'refused');
    assert.match(p.state.error ?? '', /scope|allow/i);
    assert.equal(sim.devices[0]!.requests, heard, 'a refused poll sent a request');
    assert.equal((await api('PUT', `/api/brain/credentials/${creds.sim}`, { scope: ['127.0.0.1'] })).status, 200);
    assert.equal((await pollNow(id)).state.status, 'ok');
  });

  test('changes are audited, the credential lists the device, and deleting it stops polling', async () => {
    const usage = await api('GET', `/api/brain/credentials/${creds.sim}/usage`);
    assert.equal(usage.status, 200, usage.text);
    assert.ok(usage.body.items.some((u: { kind: string; id: string }) => u.kind === 'snmp_polled_device' && u.id === id), usage.text);
    const patched = await api('PATCH', `/api/snmp/polling/${id}`, { interval_s: 300, util_alert_pct: 80 });
    assert.equal(patched.status, 200, patched.text);
    assert.equal(patched.body.interval_s, 300);
    assert.equal((await api('DELETE', `/api/snmp/polling/${id}`)).status, 204);
    problem(await api('GET', `/api/snmp/polling/${id}`), 404);
    const audit = await api('GET', '/api/audit-log?limit=100');
    const actions = (audit.body.items as { action: string }[]).map((a) => a.action);
    for (const a of ['snmp.polling.create', 'snmp.polling.interface', 'snmp.polling.update', 'snmp.polling.delete']) {
      assert.ok(actions.includes(a), `${a} not audited`);
    }
  });
});
