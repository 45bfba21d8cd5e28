// The snmp check type through the real service: against Debian's snmpd on loopback (OIDs by name, a wrong
// community) and the project's simulator serving a recording whose values the test changes (comparisons,
// "changed since the last check", the value kept as the monitor's measurement). Stored credentials only:
// a monitor refers to one, and its secret goes where the credential's scope allows, or nowhere. "Nowhere" is
// checked with a UDP listener on 127.0.0.2 that counts the datagrams it hears.
import assert from 'node:assert/strict';
import { createSocket, type Socket } from 'node:dgram';
import { after, before, describe, test } from 'node:test';
import { CHECKS } from '../../src/modules/monitors/checks/index.js';
import { compare, validateTarget } from '../../src/modules/monitors/checks/snmp.js';
import { assertProblem, startTestApp, type TestApp } from '../helpers/harness.js';
import { freeUdpPort } from '../helpers/net.js';
import { startSimulator, type Simulator } from '../helpers/snmp-sim.js';
import { startSnmpd, type Snmpd } from '../helpers/snmpd.js';

const PASSPHRASE = 'Snmp-Check-Vault-Passphrase-4';
const SIM_COMMUNITY = 'Sim-Check-Community-51';
const BATTERY = '1.3.6.1.2.1.33.1.2.4.0'; // UPS-MIB upsBatteryCapacity.0 (not in the OID store: numeric)
// A recording: a UPS battery at 87 %, a text, a 64-bit counter, and an interface that is up(1).
const RECORDING = [
  '1.3.6.1.2.1.1.1.0|4|APC Web/SNMP Management Card',
  '1.3.6.1.2.1.1.3.0|67|123456',
  '1.3.6.1.2.1.2.2.1.8.1|2|1',
  '1.3.6.1.2.1.31.1.1.1.6.1|70|9876543210',
  `${BATTERY}|2|87`,
].join('\n');

let t: TestApp;
let key: string;
let snmpd: Snmpd;
let sim: Simulator;
let listener: Socket;
let listenPort: number;
let silent: Socket;
let silentPort: number;
const heard: Buffer[] = [];
const creds: Record<'sim' | 'snmpd' | 'wrong' | 'wide' | 'ssh', { id: string; short_id: string }> = {} as never;

const api = async (method: string, path: string, body?: unknown) => t.request(method, path, { key, body });

async function credential(name: string, body: Record<string, unknown>) {
  const r = await api('POST', '/api/brain/credentials', { name, ...body });
  assert.equal(r.status, 201, r.text);
  return { id: r.body.id as string, short_id: r.body.short_id as string };
}

let made = 0;

async function monitor(target: string, settings: Record<string, unknown>, extra: Record<string, unknown> = {}) {
  const r = await api('POST', '/api/monitors', { name: `snmp ${++made} ${target}`, check_type: 'snmp', target,
    interval: 3600, timeout: 4, settings, ...extra });
  assert.equal(r.status, 201, r.text);
  return r.body.id as string;
}

async function checkNow(id: string) {
  const r = await api('POST', `/api/monitors/${id}/check`);
  assert.equal(r.status, 200, r.text);
  return r.body.result as { status: string; message: string; response_time: number | null; measurements: Record<string, number>;
    details: Record<string, unknown> };
}

/** Waits for the monitor's scheduled first check (it runs at creation) to be recorded. */
async function settled(id: string) {
  for (const end = Date.now() + 10_000; Date.now() < end; await new Promise((r) => setTimeout(r, 100))) {
    if ((await api('GET', `/api/monitors/${id}`)).body.stats.last_result) return;
  }
  assert.fail('the first check did not come');
}

before(async () => {
  [snmpd, sim] = await Promise.all([startSnmpd(), startSimulator([{ text: RECORDING, name: 'ups', community: SIM_COMMUNITY }])]);
  listenPort = await freeUdpPort();
  listener = createSocket('udp4');
  listener.on('message', (m) => heard.push(m));
  await new Promise<void>((resolve) => listener.bind(listenPort, '127.0.0.2', resolve));
  silentPort = await freeUdpPort();
  silent = createSocket('udp4');
  await new Promise<void>((resolve) => silent.bind(silentPort, '127.0.0.1', resolve));
  t = await startTestApp();
  key = (await t.admin()).key;
  assert.equal((await api('POST', '/api/brain/vault/setup', { passphrase: PASSPHRASE })).status, 200);
  creds.sim = await credential('ups sim', { kind: 'snmp_v2c', community: SIM_COMMUNITY, scope: ['127.0.0.1'] });
  creds.snmpd = await credential('snmpd', { kind: 'snmp_v2c', community: snmpd.community, scope: ['127.0.0.1'] });
  creds.wrong = await credential('wrong community', { kind: 'snmp_v2c', community: 'not-the-community', scope: ['127.0.0.1'] });
  creds.wide = await credential('loopback 2', { kind: 'snmp_v2c', community: 'Never-Leaves-The-Vault-77', scope: ['127.0.0.2'] });
  creds.ssh = await credential('an ssh login', { kind: 'ssh_password', username: 'u', password: 'p4ssw0rd!', scope: ['127.0.0.1'] });
});

after(async () => {
  listener?.close();
  silent?.close();
  await t?.close();
  await Promise.all([snmpd?.stop(), sim?.stop()]);
});

const simTarget = () => `127.0.0.1:${sim.devices[0]!.port}`;
const setSim = (oid: string, n: bigint) => { sim.devices[0]!.recording.vars.find((v) => v.oid === oid)!.num = n; };

describe('snmp check', () => {
  test('the target is a host with an optional port; host() is the address, for status badges', () => {
    assert.equal(validateTarget('ups.lan'), null);
    assert.equal(validateTarget('10.0.0.5:1161'), null);
    assert.equal(validateTarget('[2001:db8::1]:161'), null);
    assert.equal(validateTarget('2001:db8::1'), null);
    assert.match(validateTarget('http://ups.lan')!, /host/);
    assert.equal(CHECKS.snmp.host('10.0.0.5:1161', {}), '10.0.0.5');
    assert.equal(CHECKS.snmp.host('[2001:db8::1]:161', {}), '2001:db8::1');
  });

  test('a number greater than the threshold is up, its value the measurement `value` in the monitor\'s unit', async () => {
    const id = await monitor(simTarget(), { credential_id: creds.sim.short_id, oid: BATTERY, compare: 'greater', value: '50', unit: '%' });
    const r = await checkNow(id);
    assert.equal(r.status, 'up', r.message);
    assert.equal(r.message, `${BATTERY} = 87 %, greater than 50`);
    assert.deepEqual(r.measurements, { value: 87 });
    assert.equal(typeof r.response_time, 'number');
    assert.deepEqual([r.details.type, r.details.value], ['Integer', 87]);
    // Kept with the result and listed with it.
    const results = await api('GET', `/api/monitors/${id}/results`);
    assert.deepEqual(results.body.items[0].measurements, { value: 87 });
    // The battery drains: down, still measured.
    setSim(BATTERY, 42n);
    const low = await checkNow(id);
    assert.equal(low.status, 'down');
    assert.equal(low.message, `${BATTERY} = 42 %, not greater than 50`);
    assert.deepEqual(low.measurements, { value: 42 });
    // The monitor's figures name the measurement with the unit it chose (scheduled checks count there; the
    // first one ran at creation).
    const deadline = Date.now() + 10_000;
    let m;
    do {
      m = (await api('GET', `/api/monitors/${id}`)).body;
      if (m.stats.measurements_24h[0].count > 0) break;
      await new Promise((r) => setTimeout(r, 200));
    } while (Date.now() < deadline);
    assert.deepEqual(m.stats.measurements_24h.map((x: any) => [x.name, x.unit, x.label]), [['value', '%', 'Value read']]);
    assert.equal(m.stats.measurements_24h[0].count, 1, 'the scheduled first check measured it');
    setSim(BATTERY, 87n);
  });

  test('the credential\'s page lists the monitors that read with it (by short ID or UUID), for callers who may read monitors', async () => {
    const id = await monitor(simTarget(), { credential_id: creds.sim.short_id, oid: BATTERY, compare: 'any' }, { name: 'ups by short id' });
    const usage = await api('GET', `/api/brain/credentials/${creds.sim.id}/usage`);
    assert.equal(usage.status, 200, usage.text);
    const mine = usage.body.items.find((u: { kind: string; id: string }) => u.kind === 'monitor' && u.id === id);
    assert.ok(mine, usage.text);
    assert.deepEqual([mine.name, mine.detail], ['ups by short id', '127.0.0.1']);
    // Without monitors:read the monitors are not listed.
    const { key: narrow } = await t.user('operator', ['brain:read', 'snmp:read']);
    const less = await t.request('GET', `/api/brain/credentials/${creds.sim.id}/usage`, { key: narrow });
    assert.equal(less.status, 200, less.text);
    assert.ok(!less.body.items.some((u: { kind: string }) => u.kind === 'monitor'), less.text);
  });

  test('less, equal by number or by an enumeration\'s label, not equal, contains', async () => {
    const cases: [Record<string, unknown>, string, RegExp][] = [
      [{ oid: BATTERY, compare: 'less', value: '90' }, 'up', /= 87, less than 90$/],
      [{ oid: BATTERY, compare: 'less', value: '80' }, 'down', /not less than 80$/],
      [{ oid: 'ifOperStatus.1', compare: 'equal', value: 'up' }, 'up', /^ifOperStatus\.1 = up\(1\), equals up$/],
      [{ oid: 'ifOperStatus.1', compare: 'equal', value: '2' }, 'down', /expected 2$/],
      [{ oid: 'ifOperStatus.1', compare: 'not_equal', value: 'down' }, 'up', /not down$/],
      [{ oid: 'sysDescr.0', compare: 'contains', value: 'APC' }, 'up', /^sysDescr\.0 = "APC Web\/SNMP Management Card", contains "APC"$/],
      [{ oid: 'sysDescr.0', compare: 'equal', value: 'Cisco' }, 'down', /expected Cisco$/],
      [{ oid: 'sysDescr.0', compare: 'greater', value: '1' }, 'down', /not a number \(OctetString\)/],
      [{ oid: '1.3.6.1.2.1.31.1.1.1.6.1', compare: 'greater', value: '1000' }, 'up', /= 9876543210, greater than 1000$/],
    ];
    for (const [settings, status, message] of cases) {
      const id = await monitor(simTarget(), { credential_id: creds.sim.id, ...settings });
      const r = await checkNow(id);
      assert.equal(r.status, status, `${JSON.stringify(settings)}: ${r.message}`);
      assert.match(r.message, message);
    }
  });

  test('an OID the agent does not have is down, naming it', async () => {
    const id = await monitor(simTarget(), { credential_id: creds.sim.id, oid: 'sysName.0' });
    const r = await checkNow(id);
    assert.equal(r.status, 'down');
    assert.match(r.message, /^sysName\.0: no such (object|instance) at 127\.0\.0\.1$/);
  });

  test('changed since the last check: up on the first reading and while unchanged, down on the check that sees a change', async () => {
    const id = await monitor(simTarget(), { credential_id: creds.sim.id, oid: 'ifOperStatus.1', compare: 'changed' }, { interval: 3600 });
    // The scheduled first check may have read it already: either way it is up and the value is remembered.
    const first = await checkNow(id);
    assert.equal(first.status, 'up', first.message);
    assert.match(first.message, /^ifOperStatus\.1 = up\(1\), (first reading|unchanged)/);
    assert.equal((await checkNow(id)).message, 'ifOperStatus.1 = up(1), unchanged');
    setSim('1.3.6.1.2.1.2.2.1.8.1', 2n);
    const changed = await checkNow(id);
    assert.equal(changed.status, 'down');
    assert.equal(changed.message, 'ifOperStatus.1 = down(2), changed from 1');
    assert.equal(changed.details.previous, 1);
    const again = await checkNow(id);
    assert.equal(again.status, 'up', 'the change is the new normal from the next check');
    // Another OID is another reading: an edit starts over.
    const put = await api('PUT', `/api/monitors/${id}`, { settings: { credential_id: creds.sim.id, oid: BATTERY, compare: 'changed' } });
    assert.equal(put.status, 200, put.text);
    // (The edit's own recheck may have read it first: "unchanged" then. Compared with the old OID's 1, it would be down.)
    const other = await checkNow(id);
    assert.equal(other.status, 'up', other.message);
    assert.match(other.message, /^1\.3\.6\.1\.2\.1\.33\.1\.2\.4\.0 = 87, (first reading|unchanged)/);
    setSim('1.3.6.1.2.1.2.2.1.8.1', 1n);
    // Strings compare as text.
    assert.equal(compare({ oid: '1', name: 'x', type: 'OctetString', value: 'b', display: 'b', elapsed_ms: 1 },
      { compare: 'changed', value: undefined }, 'a').up, false);
  });

  test('Debian\'s snmpd: OIDs by name from the OID store', async () => {
    const target = `127.0.0.1:${snmpd.port}`;
    const up = await checkNow(await monitor(target, { credential_id: creds.snmpd.short_id, oid: 'sysUpTime.0', compare: 'greater', value: '0' }));
    assert.equal(up.status, 'up', up.message);
    assert.equal(up.details.name, 'sysUpTime.0');
    assert.equal(up.details.type, 'TimeTicks');
    assert.ok(up.measurements.value > 0);
    const loc = await checkNow(await monitor(target, { credential_id: creds.snmpd.id, oid: 'SNMPv2-MIB::sysLocation.0', compare: 'equal',
      value: 'netprobe test agent' }));
    assert.equal(loc.status, 'up', loc.message);
    assert.deepEqual(loc.measurements, {}, 'a text is no measurement');
  });

  test('a wrong community is down with the client\'s explanation', async () => {
    const r = await checkNow(await monitor(`127.0.0.1:${snmpd.port}`, { credential_id: creds.wrong.id, oid: 'sysUpTime.0' }));
    assert.equal(r.status, 'down');
    assert.match(r.message, /answers SNMP but ignored the community/);
    assert.equal(r.details.code, 'snmp_bad_community');
  });

  test('a silent port is a timeout within the monitor\'s timeout', async () => {
    const id = await monitor(`127.0.0.1:${silentPort}`, { credential_id: creds.sim.id, oid: 'sysUpTime.0' }, { timeout: 2 });
    await settled(id); // the scheduled first check: a manual one waits for it
    const t0 = Date.now();
    const r = await checkNow(id);
    assert.equal(r.status, 'down');
    assert.match(r.message, /^No answer from the SNMP agent at 127\.0\.0\.1:\d+ \(1000 ms per attempt, 1 attempt\)/);
    assert.ok(Date.now() - t0 < 4000, `took ${Date.now() - t0} ms: ${r.message}`);
  });

  test('the settings are refused without a stored SNMP credential, or with an OID name the store does not know', async () => {
    const create = (settings: unknown, target = simTarget()) =>
      api('POST', '/api/monitors', { name: 'bad snmp', check_type: 'snmp', target, settings });
    assertProblem(await create({ oid: 'sysUpTime.0' }), 400, 'settings.credential_id');
    assertProblem(await create({ credential_id: 'CR-999', oid: 'sysUpTime.0' }), 400, 'settings.credential_id');
    const ssh = await create({ credential_id: creds.ssh.short_id, oid: 'sysUpTime.0' });
    assertProblem(ssh, 400, 'settings.credential_id');
    assert.match(ssh.text, /not SNMP/);
    assertProblem(await create({ credential_id: creds.sim.id }), 400, 'settings.oid');
    assertProblem(await create({ credential_id: creds.sim.id, oid: 'noSuchNameAnywhere.0' }), 400, 'settings.oid');
    assertProblem(await create({ credential_id: creds.sim.id, oid: 'sysUpTime.0', compare: 'greater' }), 400, 'settings.value');
    assertProblem(await create({ credential_id: creds.sim.id, oid: 'sysUpTime.0', compare: 'less', value: 'ten' }), 400, 'settings.value');
    // A community is never a setting: only a reference to the vault.
    assertProblem(await create({ credential_id: creds.sim.id, oid: 'sysUpTime.0', community: 'public' }), 400);
    assertProblem(await create({ credential_id: creds.sim.id, oid: 'sysUpTime.0' }, 'http://x'), 400, 'target');
  });

  test('a host outside the credential\'s scope is refused when saved, and at check time nothing is sent', async () => {
    const outside = `127.0.0.2:${listenPort}`;
    // Saving: 403 naming the credential's scope, on create and on an update that moves the monitor there.
    const c = await api('POST', '/api/monitors', { name: 'elsewhere', check_type: 'snmp', target: outside,
      settings: { credential_id: creds.sim.id, oid: 'sysUpTime.0' } });
    assertProblem(c, 403);
    assert.equal(c.body.code, 'credential_out_of_scope', c.text);
    const id = await monitor(simTarget(), { credential_id: creds.sim.id, oid: 'sysUpTime.0' });
    const moved = await api('PUT', `/api/monitors/${id}`, { target: outside });
    assertProblem(moved, 403);
    assert.equal(moved.body.code, 'credential_out_of_scope');
    // Checking: the scope is an administrator's to change after a monitor was saved.
    const far = await monitor(outside, { credential_id: creds.wide.id, oid: 'sysUpTime.0' }, { timeout: 2 });
    const sent = await checkNow(far); // within the scope it goes out (and the listener does not answer)
    assert.equal(sent.status, 'down');
    const reachable = heard.length;
    assert.ok(reachable > 0, 'within the scope the request is sent (the listener hears it)');
    assert.equal((await api('PUT', `/api/brain/credentials/${creds.wide.id}`, { scope: ['127.0.0.1'] })).status, 200);
    const r = await checkNow(far);
    assert.equal(r.status, 'down');
    assert.match(r.message, new RegExp(`${creds.wide.short_id} \\(loopback 2\\) may not be sent to 127\\.0\\.0\\.2`));
    assert.equal(r.details.code, 'credential_out_of_scope');
    assert.equal(r.details.refused, true);
    assert.equal(heard.length, reachable, 'nothing reached the host outside the scope');
  });

  test('a locked vault is down with the vault\'s words, and nothing read', async () => {
    const id = await monitor(simTarget(), { credential_id: creds.sim.id, oid: BATTERY });
    await settled(id);
    const before = sim.devices[0]!.requests;
    assert.equal((await api('POST', '/api/brain/vault/lock')).status, 200);
    try {
      const r = await checkNow(id);
      assert.equal(r.status, 'down');
      assert.match(r.message, /^The credential vault is locked/);
      assert.equal(r.details.code, 'vault_locked');
      assert.equal(sim.devices[0]!.requests, before);
    } finally {
      assert.equal((await api('POST', '/api/brain/vault/unlock', { passphrase: PASSPHRASE })).status, 200);
    }
    assert.equal((await checkNow(id)).status, 'up');
  });
});
