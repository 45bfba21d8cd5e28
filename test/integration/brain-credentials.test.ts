// Credentials through the HTTP API: admin-only writes, secrets write-only ({set: true}) and kept when an
// update omits them, 423 while the vault is locked, per-kind validation, references from endpoints,
// where discovery tried a credential, and no secret value in any response, log line, audit entry,
// history entry, the journal or the snapshot.
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { JOURNAL_FILE, SNAPSHOT_FILE } from '../../src/core/store/index.js';
import { recordCredentialUse } from '../../src/modules/brain/credentials/service.js';
import { brainServicesOf } from '../../src/modules/brain/index.js';
import { startTestApp, type RequestOptions, type TestApp, type TestResponse, assertProblem } from '../helpers/harness.js';

const PASSPHRASE = 'Credential-Test-Passphrase-77';
const COMMUNITY = 'Community-Plaintext-Kestrel-4410';
const COMMUNITY2 = 'Community-Plaintext-Osprey-9902';
const PRIV = 'Priv-Plaintext-Marten-1187';
const AUTH = 'Auth-Plaintext-Stoat-5523';

let t: TestApp;
let key: string;
const seen: string[] = [];

async function api(method: string, path: string, body?: unknown, opts: RequestOptions = {}): Promise<TestResponse> {
  const r = await t.request(method, path, { key, body, ...opts });
  seen.push(r.text);
  r.headers.forEach((v, k) => seen.push(`${k}: ${v}`));
  return r;
}


before(async () => {
  t = await startTestApp();
  key = (await t.admin()).key;
});
after(() => t.close());

test('a secret needs a set-up, unlocked vault (423); non-secret writes do not', async () => {
  assertProblem(await api('POST', '/api/brain/credentials', { name: 'early', kind: 'snmp_v2c', community: COMMUNITY }), 423);
  const plain = await api('POST', '/api/brain/credentials', { name: 'no-secret-yet', kind: 'snmp_v2c' });
  assert.equal(plain.status, 201, plain.text);
  assert.equal(plain.body.short_id.startsWith('CR-'), true);
  assert.deepEqual(plain.body.community, { set: false });
  assert.equal((await api('POST', '/api/brain/vault/setup', { passphrase: PASSPHRASE })).status, 200);
});

test('create, read, update and delete keep secrets write-only', async () => {
  const c = await api('POST', '/api/brain/credentials', { name: 'core switches', kind: 'snmp_v2c', community: COMMUNITY, tags: ['snmp'] });
  assert.equal(c.status, 201, c.text);
  assert.deepEqual(c.body.community, { set: true });
  const id = c.body.id as string;
  const secrets = brainServicesOf(t.service.app).secrets;
  assert.equal(secrets.read(id, 'held').community, COMMUNITY);

  const list = await api('GET', '/api/brain/credentials?kind=snmp_v2c');
  assert.equal(list.status, 200);
  assert.ok(list.body.items.some((i: any) => i.id === id && i.community.set === true));
  const bySid = await api('GET', `/api/brain/credentials/${c.body.short_id.toLowerCase()}`);
  assert.equal(bySid.body.id, id);

  // An update that omits the secret keeps it; one that sends it replaces it.
  const renamed = await api('PUT', `/api/brain/credentials/${id}`, { name: 'core switches (ro)' });
  assert.equal(renamed.status, 200, renamed.text);
  assert.equal(secrets.read(id, 'held').community, COMMUNITY);
  assert.equal((await api('PUT', `/api/brain/credentials/${id}`, { community: COMMUNITY2 })).status, 200);
  assert.equal(secrets.read(id, 'held').community, COMMUNITY2);

  const history = await api('GET', `/api/brain/history/credentials/${id}`);
  assert.equal(history.status, 200);
  const secretChange = history.body.items.find((h: any) => h.changes.community);
  assert.ok(secretChange, JSON.stringify(history.body.items));
  assert.deepEqual(secretChange.changes.community, { from: '(secret)', to: '(changed)' });

  // Locked: writing a secret is a 423 and changes nothing; other fields still change.
  assert.equal((await api('POST', '/api/brain/vault/lock')).status, 200);
  assertProblem(await api('PUT', `/api/brain/credentials/${id}`, { community: 'Never-Stored-Value-000' }), 423);
  assert.equal((await api('PUT', `/api/brain/credentials/${id}`, { notes: 'rotated quarterly' })).status, 200);
  assert.equal((await api('POST', '/api/brain/vault/unlock', { passphrase: PASSPHRASE })).status, 200);
  assert.equal(secrets.read(id, 'held').community, COMMUNITY2);
});

test('per-kind validation: SNMPv3 needs user and protocols; a kind takes only its own secrets', async () => {
  assertProblem(await api('POST', '/api/brain/credentials', { name: 'v3', kind: 'snmp_v3', snmpv3_level: 'authPriv' }), 400, 'username');
  assertProblem(await api('POST', '/api/brain/credentials', { name: 'v3', kind: 'snmp_v3', username: 'mon' }), 400, 'snmpv3_auth_protocol');
  assertProblem(await api('POST', '/api/brain/credentials', { name: 'wrong', kind: 'snmp_v2c', password: 'Stray-Plaintext-01' }), 400, 'password');
  assertProblem(await api('POST', '/api/brain/credentials', { name: 'k', kind: 'telnet' }), 400, 'kind');
  const v3 = await api('POST', '/api/brain/credentials', {
    name: 'v3 monitoring', kind: 'snmp_v3', username: 'monitor', snmpv3_level: 'authPriv',
    snmpv3_auth_protocol: 'sha256', snmpv3_priv_protocol: 'aes', snmpv3_auth_key: AUTH, snmpv3_priv_key: PRIV,
  });
  assert.equal(v3.status, 201, v3.text);
  assert.deepEqual([v3.body.snmpv3_auth_key, v3.body.snmpv3_priv_key], [{ set: true }, { set: true }]);
  assert.equal(v3.body.community, undefined, 'only the kind\'s own secret fields are shown');
});

test('credential writes need the admin role; reads need brain:read', async () => {
  const op = await t.user('operator', ['brain:write']);
  assertProblem(await api('POST', '/api/brain/credentials', { name: 'x', kind: 'api_token' }, { key: op.key }), 403);
  const list = await api('GET', '/api/brain/credentials', undefined, { key: op.key });
  assert.equal(list.status, 200);
  const id = list.body.items[0].id;
  assertProblem(await api('PUT', `/api/brain/credentials/${id}`, { name: 'y' }, { key: op.key }), 403);
  assertProblem(await api('DELETE', `/api/brain/credentials/${id}`, undefined, { key: op.key }), 403);
  // The generic :type route must not be a way around it, whatever the path's spelling.
  assert.equal(t.service.app.routes.match('POST', '/api/brain/credentials').route?.admin, true);
  assertProblem(await api('POST', '/api/brain/%63redentials', { name: 'x', kind: 'api_token' }, { key: op.key }), 403);
  assertProblem(await api('PUT', `/api/brain/cr%65dentials/${id}`, { name: 'y' }, { key: op.key }), 403);
  assertProblem(await api('DELETE', `/api/brain/%63redentials/${id}`, undefined, { key: op.key }), 403);
  assert.equal((await api('GET', '/api/brain/credentials', undefined, { key: op.key })).body.total, list.body.total);
  assert.equal((await api('GET', `/api/brain/credentials/${id}`, undefined, { key: op.key })).body.name, list.body.items[0].name);
});

test('the generic /api/brain/:type routes do not take credentials as their type', () => {
  const generic = t.service.app.routes.all().filter((r) => r.path === '/api/brain/:type' || r.path === '/api/brain/:type/:id');
  assert.equal(generic.length, 5);
  for (const r of generic) {
    assert.equal(r.params!.safeParse({ type: 'credentials', id: 'CR-1' }).success, false, `${r.method} ${r.path}`);
    assert.equal(r.params!.safeParse({ type: 'endpoints', id: 'EP-1' }).success, true, `${r.method} ${r.path}`);
  }
});

test('endpoints reference a management credential; deleting it is a 409 unless detached; its secrets go with it', async () => {
  const c = await api('POST', '/api/brain/credentials', { name: 'ssh ops', kind: 'ssh_password', username: 'ops', password: 'Ssh-Plaintext-Puffin-31' });
  assert.equal(c.status, 201, c.text);
  const ep = await api('POST', '/api/brain/endpoints', { hostname: 'sw1', credential_id: c.body.short_id });
  assert.equal(ep.status, 201, ep.text);
  assert.equal(ep.body.credential_id, c.body.id);
  assertProblem(await api('DELETE', `/api/brain/credentials/${c.body.id}`), 409);
  assert.equal((await api('DELETE', `/api/brain/credentials/${c.body.id}?detach=true`)).status, 204);
  assert.equal((await api('GET', `/api/brain/endpoints/${ep.body.id}`)).body.credential_id, null);
  assert.deepEqual(brainServicesOf(t.service.app).secrets.which(c.body.id), []);
});

test('GET /api/brain/credentials/:id/scan lists where discovery tried the credential', async () => {
  const c = await api('POST', '/api/brain/credentials', { name: 'scan me', kind: 'snmp_v1', community: 'Scan-Plaintext-Wren-44' });
  assert.deepEqual((await api('GET', `/api/brain/credentials/${c.body.id}/scan`)).body, { items: [], total: 0 });
  const now = Date.parse('2026-11-01T10:00:00Z');
  await t.service.app.store.write((tx) => {
    recordCredentialUse(tx, c.body.id, { target: '198.18.0.2', protocol: 'snmp', outcome: 'success' }, now);
    recordCredentialUse(tx, c.body.id, { target: '198.18.0.3', protocol: 'snmp', outcome: 'failure', detail: 'timeout' }, now + 1000);
  });
  const scan = await api('GET', `/api/brain/credentials/${c.body.short_id}/scan`);
  assert.equal(scan.body.total, 2);
  assert.deepEqual(scan.body.items[0], { target: '198.18.0.3', protocol: 'snmp', outcome: 'failure', detail: 'timeout', at: '2026-11-01T10:00:01.000Z' });
  assertProblem(await api('GET', '/api/brain/credentials/CR-999/scan'), 404);
});

test('no secret value appears in responses, history, audit, logs, the journal or the snapshot', async () => {
  const plaintexts = [PASSPHRASE, COMMUNITY, COMMUNITY2, PRIV, AUTH, 'Ssh-Plaintext-Puffin-31', 'Scan-Plaintext-Wren-44', 'Never-Stored-Value-000'];
  const audit = await api('GET', '/api/audit-log?limit=500');
  const all = await api('GET', '/api/brain/credentials?limit=500');
  for (const it of all.body.items) await api('GET', `/api/brain/history/credentials/${it.id}`);
  const journal = await readFile(join(t.dataDir, JOURNAL_FILE));
  await t.service.app.store.checkpoint();
  const snapshot = await readFile(join(t.dataDir, SNAPSHOT_FILE));
  assert.ok(audit.body.items.length > 0 && snapshot.length > 0);
  const texts = [...seen, ...t.logs].join('\n');
  for (const p of plaintexts) {
    assert.ok(!texts.includes(p), `${p} leaked into a response or log line`);
    assert.ok(!journal.includes(Buffer.from(p)), `${p} is in the journal`);
    assert.ok(!snapshot.includes(Buffer.from(p)), `${p} is in the snapshot`);
  }
});
