// The SNMP endpoints against Debian's snmpd on loopback: walks with inline and stored credentials
// (audited, 423 while the vault is locked), validation naming fields, distinct agent errors, the OID
// store and vendor library, walk templates with their last run, and device cards read live through an
// inventory endpoint. No community or key ever shows in a response, the audit log or the log.
import assert from 'node:assert/strict';
import { createSocket } from 'node:dgram';
import { after, before, test } from 'node:test';
import { startTestApp, assertProblem, type TestApp, type TestResponse, type RequestOptions } from '../helpers/harness.js';
import { assertMatchesResponse } from '../helpers/route-schema.js';
import { freeUdpPort } from '../helpers/net.js';
import { startSnmpd, type Snmpd } from '../helpers/snmpd.js';

let t: TestApp;
let agent: Snmpd;
let key: string;
const PASSPHRASE = 'Snmp-Api-Vault-Passphrase-31';
const seen: string[] = [];

async function api(method: string, path: string, body?: unknown, opts: RequestOptions = {}): Promise<TestResponse> {
  const r = await t.request(method, path, { key, body, ...opts });
  seen.push(r.text);
  return r;
}

const v2c = () => ({ target: '127.0.0.1', port: agent.port, version: 'v2c', community: agent.community });
let v3CredId = '';
let v2CredId = '';

before(async () => {
  agent = await startSnmpd();
  t = await startTestApp();
  key = (await t.admin()).key;
  assert.equal((await api('POST', '/api/brain/vault/setup', { passphrase: PASSPHRASE })).status, 200);
  const u = agent.users.authPriv;
  const v3 = await api('POST', '/api/brain/credentials', { scope: ['127.0.0.0/8'],
    name: 'lab v3', kind: 'snmp_v3', port: agent.port, username: u.username, snmpv3_level: 'authPriv',
    snmpv3_auth_protocol: u.auth_protocol, snmpv3_auth_key: u.auth_key, snmpv3_priv_protocol: u.priv_protocol, snmpv3_priv_key: u.priv_key,
  });
  assert.equal(v3.status, 201, v3.text);
  v3CredId = v3.body.id;
  const v2 = await api('POST', '/api/brain/credentials', { scope: ['127.0.0.0/8'], name: 'lab v2c', kind: 'snmp_v2c', port: agent.port, community: agent.community });
  assert.equal(v2.status, 201, v2.text);
  v2CredId = v2.body.id;
});
after(async () => { await t?.close(); await agent?.stop(); });

test('a v2c walk of the system group by name returns named, displayed values', async () => {
  const r = await api('POST', '/api/snmp/walk', { ...v2c(), oids: ['system'] });
  assert.equal(r.status, 200, r.text);
  assert.equal(r.body.version, 'v2c');
  assert.equal(r.body.truncated, false);
  assert.equal(r.body.count, r.body.varbinds.length);
  const byName = new Map<string, any>(r.body.varbinds.map((v: any) => [v.name, v]));
  assert.equal(byName.get('sysDescr.0').type, 'OctetString');
  assert.match(byName.get('sysDescr.0').display, /Linux/);
  const up = byName.get('sysUpTime.0');
  assert.equal(up.type, 'TimeTicks');
  assert.match(up.display, /\d+:\d\d:\d\d\.\d\d/);
  assert.equal(byName.get('sysObjectID.0').value, '1.3.6.1.4.1.8072.3.2.10');
  assert.ok(r.body.varbinds.every((v: any) => v.oid.startsWith('1.3.6.1.2.1.1.')));
});

test('max_varbinds stops a walk and says so', async () => {
  const r = await api('POST', '/api/snmp/walk', { ...v2c(), oids: ['1.3.6.1.2.1'], max_varbinds: 7 });
  assert.equal(r.status, 200, r.text);
  assert.equal(r.body.count, 7);
  assert.equal(r.body.truncated, true);
});

test('walk input is validated with the field named', async () => {
  assertProblem(await api('POST', '/api/snmp/walk', { target: '127.0.0.1', version: 'v2c', oids: ['system'] }), 400, 'community');
  assertProblem(await api('POST', '/api/snmp/walk', { ...v2c(), oids: ['noSuchThingAtAll'] }), 400, 'oids.0');
  // Two MIB modules define "linux" at different OIDs: the answer names both instead of picking one.
  const ambiguous = await api('POST', '/api/snmp/walk', { ...v2c(), oids: ['system', 'linux'] });
  assertProblem(ambiguous, 400, 'oids.1');
  assert.match(ambiguous.body.errors[0].message, /UCD-SNMP-MIB::linux, NET-SNMP-TC::linux/);
  assertProblem(await api('POST', '/api/snmp/walk', { ...v2c(), oids: [] }), 400, 'oids');
  assertProblem(await api('POST', '/api/snmp/walk', { ...v2c(), target: 'http://x/', oids: ['system'] }), 400, 'target');
  assertProblem(await api('POST', '/api/snmp/walk', { target: '127.0.0.1', version: 'v3', v3: { username: 'x', level: 'authPriv', auth_protocol: 'sha', auth_key: 'abcdefgh' }, oids: ['system'] }), 400, 'v3.priv_protocol');
  assertProblem(await api('POST', '/api/snmp/walk', { ...v2c(), timeout: 600, oids: ['system'] }), 400, 'timeout');
  const ssh = await api('POST', '/api/brain/credentials', { scope: ['127.0.0.0/8'], name: 'ssh one', kind: 'ssh_password', username: 'root', password: 'Ssh-Secret-Api-Test-1' });
  assertProblem(await api('POST', '/api/snmp/walk', { target: '127.0.0.1', credential_id: ssh.body.id, oids: ['system'] }), 400, 'credential_id');
});

test('agent failures are distinct problems, never a hang', async () => {
  const bad = await api('POST', '/api/snmp/walk', { ...v2c(), community: 'not-the-community', timeout: 0.5, retries: 0, oids: ['system'] });
  assertProblem(bad, 422);
  assert.equal(bad.body.code, 'snmp_bad_community');
  const closed = await freeUdpPort();
  const refused = await api('POST', '/api/snmp/walk', { ...v2c(), port: closed, timeout: 0.5, retries: 0, oids: ['system'] });
  assert.equal(refused.body.code, 'snmp_unreachable', refused.text);
  // A socket that reads requests and never answers: a timeout (504).
  const silent = createSocket('udp4');
  await new Promise<void>((r) => silent.bind(0, '127.0.0.1', r));
  try {
    const r = await api('POST', '/api/snmp/walk', { ...v2c(), port: silent.address().port, timeout: 0.3, retries: 0, oids: ['system'] });
    assertProblem(r, 504);
    assert.equal(r.body.code, 'snmp_timeout');
  } finally { silent.close(); }
  const u = agent.users.authPriv;
  const wrongKey = await api('POST', '/api/snmp/walk', {
    target: '127.0.0.1', port: agent.port, version: 'v3', timeout: 1, retries: 0, oids: ['system'],
    v3: { ...u, auth_key: 'definitely-the-wrong-key' },
  });
  assertProblem(wrongKey, 422);
  assert.equal(wrongKey.body.code, 'snmp_wrong_key');
});

test('a stored v3 credential walks through the vault: audited, and 423 while locked', async () => {
  const r = await api('POST', '/api/snmp/walk', { target: '127.0.0.1', credential_id: v3CredId, oids: ['sysName'] });
  assert.equal(r.status, 200, r.text);
  assert.equal(r.body.version, 'v3');
  assert.equal(r.body.varbinds[0].name, 'sysName.0');
  const audit = await api('GET', '/api/audit-log?action=snmp.walk');
  assert.ok(audit.body.items.some((e: any) => e.details?.credential_id === v3CredId && e.outcome === 'success'), audit.text);

  assert.equal((await api('POST', '/api/brain/vault/lock')).status, 200);
  try {
    assertProblem(await api('POST', '/api/snmp/walk', { target: '127.0.0.1', credential_id: v3CredId, oids: ['sysName'] }), 423);
  } finally {
    assert.equal((await api('POST', '/api/brain/vault/unlock', { passphrase: PASSPHRASE })).status, 200);
  }
  // The credential's kind decides the version; a contradicting one is refused.
  assertProblem(await api('POST', '/api/snmp/walk', { target: '127.0.0.1', credential_id: v3CredId, version: 'v2c', oids: ['system'] }), 400, 'version');
});

test('the OID store answers prefix and text filters', async () => {
  const ift = await api('GET', '/api/snmp/store?prefix=ifTable&limit=100');
  assert.equal(ift.status, 200);
  const names = ift.body.items.map((e: any) => e.name);
  for (const n of ['ifTable', 'ifEntry', 'ifDescr', 'ifOperStatus']) assert.ok(names.includes(n), n);
  assert.ok(ift.body.items.every((e: any) => e.oid.startsWith('1.3.6.1.2.1.2.2')));
  const oper = ift.body.items.find((e: any) => e.name === 'ifOperStatus');
  assert.equal(oper.enums['1'], 'up');
  const q = await api('GET', '/api/snmp/store?q=lldpRemSysName');
  assert.ok(q.body.items.some((e: any) => e.name === 'lldpRemSysName' && e.module === 'LLDP-MIB'), q.text);
  for (const m of ['SNMPv2-MIB', 'IF-MIB', 'IP-MIB', 'IP-FORWARD-MIB', 'RFC1213-MIB', 'LLDP-MIB', 'CISCO-CDP-MIB', 'BRIDGE-MIB',
    'Q-BRIDGE-MIB', 'ENTITY-MIB', 'HOST-RESOURCES-MIB', 'UCD-SNMP-MIB']) assert.ok(q.body.modules.includes(m), m);
  assert.equal((await api('GET', '/api/snmp/store?prefix=noSuchNameHere')).body.total, 0);
});

test('eight vendor profiles, generic last; vendor cards; unknown vendor is 404', async () => {
  const v = await api('GET', '/api/snmp/vendors');
  assert.equal(v.status, 200);
  assert.equal(v.body.total, 8);
  const keys = v.body.items.map((p: any) => p.key);
  assert.equal(keys.at(-1), 'generic');
  const aruba = v.body.items.find((p: any) => p.name.includes('Aruba'));
  assert.deepEqual(aruba.variants.map((x: any) => [x.key, x.fallback]), [['aos-cx', null], ['procurve', null], ['other', 'enterprise']]);
  assert.deepEqual(aruba.enterprises.map((e: any) => e.oid), ['1.3.6.1.4.1.14823', '1.3.6.1.4.1.47196'], 'the arcs Aruba owns');
  assertMatchesResponse(t, 'GET', '/api/snmp/vendors', v.body);
  // Names in profiles are shown beside their numeric OIDs.
  const rule = aruba.variants.flatMap((x: any) => x.match).find((m: any) => m.sys_object_id);
  assert.match(rule.sys_object_id[0].oid, /^1\.3\.6\.1\.4\.1\.\d+/);
  const cards = await api('GET', `/api/snmp/vendor-cards/${keys[0]}`);
  assert.equal(cards.status, 200);
  assertMatchesResponse(t, 'GET', '/api/snmp/vendor-cards/:vendor_key', cards.body);
  const cardKeys = cards.body.cards.map((c: any) => c.key);
  for (const k of ['system', 'hardware', 'cpu', 'memory', 'interfaces']) assert.ok(cardKeys.includes(k), `${keys[0]} ${k}`);
  assertProblem(await api('GET', '/api/snmp/vendor-cards/no-such-vendor'), 404);
});

test('templates: saved with a stored credential, run on demand, last run stored', async () => {
  assertProblem(await api('POST', '/api/snmp/templates', { name: 'inline', target: '127.0.0.1', community: 'public', oids: ['system'] }), 400, 'community');
  assertProblem(await api('POST', '/api/snmp/templates', { name: 'no cred', target: '127.0.0.1', oids: ['system'] }), 400, 'credential_id');
  assertProblem(await api('POST', '/api/snmp/templates', { name: 'bad oid', target: '127.0.0.1', credential_id: v2CredId, oids: ['nope.nope'] }), 400, 'oids.0');
  const c = await api('POST', '/api/snmp/templates', {
    name: 'Interfaces', target: '127.0.0.1', credential_id: v2CredId, oids: ['ifDescr', 'ifOperStatus'], options: { max_repetitions: 5 },
  });
  assert.equal(c.status, 201, c.text);
  assert.equal(c.body.version, 'v2c');
  assert.equal(c.body.port, null, 'no port: the credential\'s port is used');
  assert.equal(c.body.last_run, null);
  assertProblem(await api('POST', '/api/snmp/templates', { name: 'interfaces', target: '10.9.9.9', credential_id: v2CredId, oids: ['system'] }), 409);
  const id = c.body.id;

  const run = await api('POST', `/api/snmp/templates/${id}/run`);
  assert.equal(run.status, 200, run.text);
  assert.ok(run.body.count >= 2);
  assert.ok(run.body.varbinds.some((v: any) => v.name.startsWith('ifOperStatus.') && /\(\d\)$/.test(v.display)));
  const after1 = await api('GET', `/api/snmp/templates/${id}`);
  assert.equal(after1.body.last_run.outcome, 'success');
  assert.equal(after1.body.last_run.count, run.body.count);

  // A template's own port wins over the credential's.
  const closed = await freeUdpPort();
  const u = await api('PUT', `/api/snmp/templates/${id}`, { port: closed, options: { timeout: 0.3, retries: 0 } });
  assert.equal(u.status, 200, u.text);
  assert.equal(u.body.port, closed);
  assert.equal(u.body.name, 'Interfaces');
  const failed = await api('POST', `/api/snmp/templates/${id}/run`);
  assert.ok(failed.status >= 500, failed.text);
  const list = await api('GET', '/api/snmp/templates');
  const item = list.body.items.find((x: any) => x.id === id);
  assert.equal(item.last_run.outcome, 'failure');
  assert.ok(item.last_run.error.length > 0);
  assert.equal((await api('DELETE', `/api/snmp/templates/${id}`)).status, 204);
  assertProblem(await api('GET', `/api/snmp/templates/${id}`), 404);
  assertProblem(await api('POST', `/api/snmp/templates/${id}/run`), 404);
});

test('device cards: an inventory endpoint read live, then its own selection and extra OIDs', async () => {
  assertProblem(await api('GET', '/api/snmp/device-cards/nobody-knows-me'), 404);
  const ep = await api('POST', '/api/brain/endpoints', { name: 'lab-agent', ip_addresses: ['127.0.0.1'], credential_id: v3CredId });
  assert.equal(ep.status, 201, ep.text);

  const live = await api('GET', '/api/snmp/device-cards/lab-agent');
  assert.equal(live.status, 200, live.text);
  assert.equal(live.body.live.ok, true, live.text);
  assert.equal(live.body.vendor.key, 'generic');
  assert.equal(live.body.vendor.from, 'identified');
  assert.equal(live.body.port, agent.port, 'the credential\'s port when the device has none of its own');
  const system = live.body.cards.find((c: any) => c.key === 'system');
  const values = system.items.filter((i: any) => i.value !== null);
  assert.ok(values.length >= 3, JSON.stringify(system));
  assert.ok(values.every((i: any) => !Number.isNaN(Date.parse(i.read_at))));

  assertProblem(await api('PUT', '/api/snmp/device-cards/lab-agent', { cards: ['no-such-card'] }), 400, 'cards.0');
  assertProblem(await api('PUT', '/api/snmp/device-cards/lab-agent', { extra_oids: [{ oid: 'ifDescr' }] }), 400, 'extra_oids.0.oid');
  assertProblem(await api('PUT', '/api/snmp/device-cards/lab-agent', { vendor_key: 'nope' }), 400, 'vendor_key');
  const put = await api('PUT', '/api/snmp/device-cards/lab-agent', {
    cards: ['interfaces', 'system'], extra_oids: [{ oid: 'sysUpTime', label: 'Uptime' }, { oid: 'ifDescr.1' }],
  });
  assert.equal(put.status, 200, put.text);
  assert.deepEqual(put.body.selection.cards, ['interfaces', 'system']);
  assert.equal(put.body.selection.extra_oids[0].oid, 'sysUpTime.0');
  const again = await api('GET', '/api/snmp/device-cards/LAB-AGENT');
  assert.equal(again.status, 200, again.text);
  assert.deepEqual(again.body.cards.map((c: any) => c.key), ['interfaces', 'system', 'extra']);
  const extra = again.body.cards.at(-1);
  assert.equal(extra.items[0].label, 'Uptime');
  assert.ok(extra.items.every((i: any) => i.value !== null), JSON.stringify(extra));
  const offline = await api('GET', '/api/snmp/device-cards/lab-agent?live=false');
  assert.equal(offline.body.live.attempted, false);
  assert.ok(offline.body.cards.every((c: any) => c.items.every((i: any) => i.value === null)));
});

test('no community or key appears in any response, the audit log or the log', async () => {
  const audit = await api('GET', '/api/audit-log?limit=500');
  const u = agent.users.authPriv;
  const haystack = [...seen, audit.text, ...t.logs].join('\n');
  for (const s of [agent.community, u.auth_key!, u.priv_key!]) assert.ok(!haystack.includes(s), 'a secret leaked');
});
