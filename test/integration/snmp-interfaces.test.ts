// A device's interface table (GET /api/snmp/device-cards/:name/interfaces) read from the project's SNMP
// simulator on loopback: ifTable joined with ifXTable by index, 64-bit counters when the agent has them
// and the 32-bit ones otherwise, speed from ifHighSpeed when ifSpeed saturates, statuses as words; a
// device that cannot be read answers with the reason; an unknown device is a 404; no secret in answers.
import assert from 'node:assert/strict';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, test } from 'node:test';
import { assertProblem, startTestApp, type TestApp } from '../helpers/harness.js';
import { startSimulator, type Simulator } from '../helpers/snmp-sim.js';

const COMMUNITY = 'if-table-community-5e1';
/**
 * Three interfaces (test/fixtures/snmprec/if-table-switch.snmprec): a 1G port up with 64-bit counters, a
 * 10G uplink whose ifSpeed saturates, a shut-down port with only 32-bit counters.
 */
const RECORDING = join(dirname(fileURLToPath(import.meta.url)), '..', 'fixtures', 'snmprec', 'if-table-switch.snmprec');

let t: TestApp;
let sim: Simulator;
let key: string;
const seen: string[] = [];

before(async () => {
  sim = await startSimulator([{ name: 'if-sw1', community: COMMUNITY, file: RECORDING }]);
  t = await startTestApp();
  key = (await t.admin()).key;
  assert.equal((await t.request('POST', '/api/brain/vault/setup', { key, body: { passphrase: 'If-Table-Vault-Passphrase-9' } })).status, 200);
});
after(async () => { await t?.close(); await sim?.stop(); });

test('an endpoint\'s interfaces: names, statuses, speeds, counters', async () => {
  const dev = sim.devices[0]!;
  const cred = await t.request('POST', '/api/brain/credentials', { key, body: { scope: ['127.0.0.0/8'], name: 'if v2c', kind: 'snmp_v2c', port: dev.port, community: COMMUNITY } });
  assert.equal(cred.status, 201, cred.text);
  const ep = await t.request('POST', '/api/brain/endpoints', { key, body: { name: 'if-sw1', ip_addresses: [dev.host], credential_id: cred.body.id } });
  assert.equal(ep.status, 201, ep.text);

  const r = await t.request('GET', `/api/snmp/device-cards/${ep.body.short_id}/interfaces`, { key });
  seen.push(r.text);
  assert.equal(r.status, 200, r.text);
  assert.equal(r.body.error, undefined, r.text);
  assert.equal(r.body.total, 3);
  assert.equal(r.body.truncated, false);
  assert.ok(Date.parse(r.body.read_at) > 0);
  assert.deepEqual(r.body.credential, { id: cred.body.id, short_id: cred.body.short_id, name: 'if v2c' });
  const [a, b, c] = r.body.items;
  assert.deepEqual(a, {
    index: 1, name: 'Gi1/0/1', description: 'GigabitEthernet1/0/1', alias: 'to server rack', type: 'ethernetCsmacd',
    mac: '00:00:5e:00:53:01', admin_status: 'up', oper_status: 'up', speed_bps: 1_000_000_000,
    in_octets: 5368709120, out_octets: 1073741824, in_errors: 0, out_errors: 0, in_discards: 0, out_discards: 0, hc: true,
  });
  assert.equal(b.speed_bps, 10_000_000_000, 'ifHighSpeed when ifSpeed saturates');
  assert.equal(b.in_octets, 987654321012);
  assert.equal(b.in_errors, 17);
  assert.equal(b.out_errors, 3);
  assert.equal(b.in_discards, 1);
  assert.deepEqual([c.name, c.alias, c.admin_status, c.oper_status, c.hc, c.in_octets, c.out_octets], ['Gi1/0/3', null, 'down', 'down', false, 3000, 6000]);

  // A saved device by name reads the same way.
  const saved = await t.request('PUT', '/api/snmp/device-cards/lab-switch', { key, body: { target: dev.host, credential_id: cred.body.short_id } });
  assert.equal(saved.status, 200, saved.text);
  const byName = await t.request('GET', '/api/snmp/device-cards/lab-switch/interfaces', { key });
  assert.equal(byName.body.total, 3);
  seen.push(byName.text);
});

test('a device that cannot be read says why; an unknown one is a 404', async () => {
  const bare = await t.request('POST', '/api/brain/endpoints', { key, body: { name: 'no-cred', ip_addresses: ['127.0.0.1'] } });
  const r = await t.request('GET', `/api/snmp/device-cards/${bare.body.short_id}/interfaces`, { key });
  assert.equal(r.status, 200, r.text);
  assert.equal(r.body.error_code, 'no_credential');
  assert.deepEqual(r.body.items, []);
  assert.equal(r.body.read_at, null);

  // A wrong community is dropped by the simulator: the read times out and says so.
  const dev = sim.devices[0]!;
  const wrong = await t.request('POST', '/api/brain/credentials', { key, body: { scope: ['127.0.0.0/8'], name: 'wrong', kind: 'snmp_v2c', port: dev.port, community: 'not-it' } });
  const ep = await t.request('POST', '/api/brain/endpoints', { key, body: { name: 'wrong-cred', ip_addresses: [dev.host], credential_id: wrong.body.id } });
  const w = await t.request('GET', `/api/snmp/device-cards/${ep.body.short_id}/interfaces`, { key });
  assert.equal(w.status, 200, w.text);
  assert.equal(w.body.error_code, 'snmp_timeout', w.text);
  seen.push(r.text, w.text);

  assertProblem(await t.request('GET', '/api/snmp/device-cards/nobody-knows-me/interfaces', { key }), 404);
  for (const text of seen) assert.ok(!text.includes(COMMUNITY), 'no community in any answer');
});
