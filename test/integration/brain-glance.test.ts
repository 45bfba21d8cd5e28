// The inventory reads right at a glance: where a credential is used (endpoints, discovery's list, SSH
// targets, SNMP templates and device cards; uses in modules the caller may not read counted, not named;
// no secret in any answer), and what a subnet holds (addresses in numeric order with their endpoints,
// the gateway and DHCP ranges marked, utilisation of the usable addresses). Also the public session
// probe the web app starts with (GET /api/auth/session): 200 signed in or not, nothing about others.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { assertProblem, startTestApp, type RequestOptions, type TestApp, type TestResponse } from '../helpers/harness.js';

let t: TestApp;
let key: string;
const seen: string[] = [];
const COMMUNITY = 'glance-community-8d1f';
const SSH_PASSWORD = 'glance-ssh-password-77c2';

async function api(method: string, path: string, body?: unknown, opts: RequestOptions = {}): Promise<TestResponse> {
  const r = await t.request(method, path, { key, body, ...opts });
  seen.push(r.text);
  return r;
}

before(async () => {
  t = await startTestApp();
  key = (await t.admin()).key;
  assert.equal((await api('POST', '/api/brain/vault/setup', { passphrase: 'Glance-Vault-Passphrase-42' })).status, 200);
});
after(async () => { await t?.close(); });

test('a credential lists where it is used, by name, without secrets', async () => {
  const snmp = await api('POST', '/api/brain/credentials', { scope: ['127.0.0.0/8'], name: 'core v2c', kind: 'snmp_v2c', community: COMMUNITY });
  assert.equal(snmp.status, 201, snmp.text);
  const ssh = await api('POST', '/api/brain/credentials', { scope: ['127.0.0.0/8'], name: 'ops ssh', kind: 'ssh_password', username: 'ops', password: SSH_PASSWORD });
  assert.equal(ssh.status, 201, ssh.text);
  const idle = await api('POST', '/api/brain/credentials', { scope: ['127.0.0.0/8'], name: 'spare', kind: 'snmp_v1', community: COMMUNITY });

  const none = await api('GET', `/api/brain/credentials/${idle.body.short_id}/usage`);
  assert.equal(none.status, 200, none.text);
  assert.deepEqual(none.body, { items: [], total: 0, hidden: 0 });

  const ep = await api('POST', '/api/brain/endpoints', { name: 'core-sw1', ip_addresses: ['10.9.0.2'], credential_id: snmp.body.short_id });
  assert.equal(ep.status, 201, ep.text);
  const tpl = await api('POST', '/api/snmp/templates', { name: 'core system', target: '127.0.0.1', credential_id: snmp.body.id, oids: ['system'] });
  assert.equal(tpl.status, 201, tpl.text);
  const cards = await api('PUT', '/api/snmp/device-cards/edge-router', { target: '127.0.0.1', credential_id: snmp.body.short_id });
  assert.equal(cards.status, 200, cards.text);
  const disc = await api('POST', '/api/v1sion/credentials', { credentials: [{ credential_id: idle.body.id }, { credential_id: snmp.body.id }] });
  assert.equal(disc.status, 200, disc.text);
  const target = await api('POST', '/api/v1sion/ssh-targets', { name: 'bastion', host: '127.0.0.1', port: 2222, credential_id: ssh.body.id });
  assert.equal(target.status, 201, target.text);

  const r = await api('GET', `/api/brain/credentials/${snmp.body.id}/usage`);
  assert.equal(r.status, 200, r.text);
  assert.deepEqual(r.body.items.map((u: any) => [u.kind, u.name, u.short_id, u.detail]), [
    ['endpoint', 'core-sw1', ep.body.short_id, '10.9.0.2'],
    ['discovery', 'Discovery credentials', null, '2 of 2 tried by scans'],
    ['snmp_template', 'core system', null, '127.0.0.1'],
    ['snmp_device', 'edge-router', null, '127.0.0.1'],
  ]);
  assert.equal(r.body.total, 4);
  assert.equal(r.body.hidden, 0);
  assert.equal(r.body.items[0].id, ep.body.id);
  assert.equal(r.body.items[2].id, tpl.body.id);

  const s = await api('GET', `/api/brain/credentials/${ssh.body.short_id}/usage`);
  assert.deepEqual(s.body.items.map((u: any) => [u.kind, u.id, u.name, u.detail]), [['ssh_target', target.body.id, 'bastion', '127.0.0.1:2222']]);

  // A key that may read the inventory but not discovery or SNMP sees the endpoint, and a count of the rest.
  const viewer = await t.user('viewer', ['brain:read']);
  const limited = await api('GET', `/api/brain/credentials/${snmp.body.id}/usage`, undefined, { key: viewer.key });
  assert.equal(limited.status, 200, limited.text);
  assert.deepEqual(limited.body.items.map((u: any) => u.kind), ['endpoint']);
  assert.equal(limited.body.hidden, 3);
  // Without brain:read, nothing.
  const noBrain = await t.user('viewer', ['snmp:read']);
  assertProblem(await api('GET', `/api/brain/credentials/${snmp.body.id}/usage`, undefined, { key: noBrain.key }), 403);
  assertProblem(await api('GET', '/api/brain/credentials/CR-999/usage'), 404);

  // A deleted template no longer counts.
  assert.equal((await api('DELETE', `/api/snmp/templates/${tpl.body.id}`)).status, 204);
  const after = await api('GET', `/api/brain/credentials/${snmp.body.id}/usage`);
  assert.deepEqual(after.body.items.map((u: any) => u.kind), ['endpoint', 'discovery', 'snmp_device']);

  for (const text of seen) {
    assert.ok(!text.includes(COMMUNITY) && !text.includes(SSH_PASSWORD), 'no secret in any answer');
  }
});

test('a subnet lists the addresses inside it with their endpoints, and its utilisation', async () => {
  const net = await api('POST', '/api/brain/subnets', {
    cidr: '10.20.0.0/24', gateway: '10.20.0.1', dhcp_ranges: [{ start: '10.20.0.100', end: '10.20.0.149' }],
  });
  assert.equal(net.status, 201, net.text);
  const a = await api('POST', '/api/brain/endpoints', { name: 'nas', ip_addresses: ['10.20.0.10', '192.168.1.10'] });
  const b = await api('POST', '/api/brain/endpoints', { name: 'printer', ip_addresses: ['10.20.0.120'] });
  const c = await api('POST', '/api/brain/endpoints', { name: 'router', ip_addresses: ['10.20.0.1', '10.20.0.9'] });
  const d = await api('POST', '/api/brain/endpoints', { name: 'nas-standby', ip_addresses: ['10.20.0.10'] });
  await api('POST', '/api/brain/endpoints', { name: 'elsewhere', ip_addresses: ['10.21.0.5'] });
  for (const x of [a, b, c, d]) assert.equal(x.status, 201, x.text);

  const r = await api('GET', `/api/brain/subnets/${net.body.short_id}/addresses`);
  assert.equal(r.status, 200, r.text);
  assert.equal(r.body.cidr, '10.20.0.0/24');
  assert.equal(r.body.size, 254);
  assert.equal(r.body.used, 4);
  assert.equal(r.body.endpoints, 4);
  assert.equal(r.body.utilisation, 4 / 254);
  assert.equal(r.body.gateway, '10.20.0.1');
  assert.equal(r.body.dhcp_size, 50);
  assert.deepEqual(r.body.items.map((x: any) => [x.address, x.endpoints.map((e: any) => e.name), x.gateway, x.dhcp]), [
    ['10.20.0.1', ['router'], true, false],
    ['10.20.0.9', ['router'], false, false],
    ['10.20.0.10', ['nas', 'nas-standby'], false, false],
    ['10.20.0.120', ['printer'], false, true],
  ]);
  assert.equal(r.body.items[2].endpoints[0].short_id, a.body.short_id);

  const paged = await api('GET', `/api/brain/subnets/${net.body.id}/addresses?limit=2&offset=2`);
  assert.deepEqual(paged.body.items.map((x: any) => x.address), ['10.20.0.10', '10.20.0.120']);
  assert.equal(paged.body.total, 4);

  // Small blocks: a /31 has two usable addresses, a /32 one; IPv6 counts every address.
  const p2p = await api('POST', '/api/brain/subnets', { cidr: '10.30.0.0/31' });
  assert.equal((await api('GET', `/api/brain/subnets/${p2p.body.id}/addresses`)).body.size, 2);
  const v6 = await api('POST', '/api/brain/subnets', { cidr: '2001:db8:5::/120' });
  await api('POST', '/api/brain/endpoints', { name: 'v6 host', ip_addresses: ['2001:db8:5::1a'] });
  const r6 = await api('GET', `/api/brain/subnets/${v6.body.id}/addresses`);
  assert.equal(r6.body.size, 256);
  assert.deepEqual(r6.body.items.map((x: any) => x.address), ['2001:db8:5::1a']);

  assertProblem(await api('GET', '/api/brain/subnets/SN-999/addresses'), 404);
  assertProblem(await api('GET', `/api/brain/subnets/${net.body.id}/addresses?limit=0`), 400, 'query.limit');
});

test('the session probe answers 200 whether signed in or not, and only about the caller', async () => {
  const out = await t.request('GET', '/api/auth/session');
  assert.equal(out.status, 200, out.text);
  assert.deepEqual(out.body, { signed_in: false });
  const bogus = await t.request('GET', '/api/auth/session', { cookie: 'np_session=not-a-session' });
  assert.deepEqual(bogus.body, { signed_in: false });
  const admin = await t.admin();
  const me = await t.request('GET', '/api/auth/session', { cookie: admin.cookie });
  assert.equal(me.status, 200, me.text);
  assert.equal(me.body.signed_in, true);
  assert.equal(me.body.user.username, admin.username);
  assert.equal(me.body.auth, 'session');
  assert.ok(me.body.scopes.includes('admin'));
  const viaMe = await t.request('GET', '/api/me', { cookie: admin.cookie });
  assert.deepEqual({ ...me.body, signed_in: undefined }, { ...viaMe.body, signed_in: undefined });
  assert.ok(!('password_hash' in me.body.user));
});
