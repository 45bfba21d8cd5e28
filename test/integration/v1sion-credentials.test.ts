// Discovery credentials: an ordered list of references to inventory credentials. GET shows secrets only
// as {set: true} and posts back unchanged; an inline entry becomes a vault credential (admin only, 423
// while the vault is locked); nothing secret is stored or shown outside the vault.
import assert from 'node:assert/strict';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { assertProblem, startTestApp, type TestApp } from '../helpers/harness.js';

let t: TestApp;
let key: string;
const api = (method: string, path: string, body?: unknown, k = key) => t.request(method, path, { key: k, body });
const PASSPHRASE = 'correct horse battery staple';
const COMMUNITY = 'c0mmunity-that-must-not-leak';

before(async () => {
  t = await startTestApp();
  key = (await t.admin()).key;
  assert.equal((await api('POST', '/api/brain/vault/setup', { passphrase: PASSPHRASE })).status, 200);
});
after(() => t?.close());

test('empty at first; references in order; GET posts back unchanged', async () => {
  assert.deepEqual((await api('GET', '/api/v1sion/credentials')).body, { credentials: [] });
  const a = (await api('POST', '/api/brain/credentials', { scope: ['127.0.0.0/8'], name: 'lab v2c', kind: 'snmp_v2c', community: 'public-a' })).body;
  const b = (await api('POST', '/api/brain/credentials', { scope: ['127.0.0.0/8'],
    name: 'lab v3', kind: 'snmp_v3', username: 'ops', snmpv3_level: 'authPriv', snmpv3_auth_protocol: 'sha',
    snmpv3_priv_protocol: 'aes', snmpv3_auth_key: 'authkey123', snmpv3_priv_key: 'privkey123',
  })).body;
  assert.ok(a.id && b.id);
  const saved = await api('POST', '/api/v1sion/credentials', { credentials: [{ credential_id: b.short_id }, { credential_id: a.id }] });
  assert.equal(saved.status, 200, saved.text);
  assert.deepEqual(saved.body.credentials.map((c: { credential_id: string }) => c.credential_id), [b.id, a.id]);
  assert.deepEqual(saved.body.credentials[1].community, { set: true });
  assert.doesNotMatch(saved.text, /public-a|authkey123|privkey123/);

  const got = await api('GET', '/api/v1sion/credentials');
  assert.deepEqual(got.body, saved.body);
  const again = await api('POST', '/api/v1sion/credentials', got.body);
  assert.equal(again.status, 200, again.text);
  assert.deepEqual(again.body, got.body, 'round trip');
});

test('an inline entry becomes a vault credential (admin); its secret is never shown or stored here', async () => {
  const before = (await api('GET', '/api/v1sion/credentials')).body.credentials;
  const r = await api('POST', '/api/v1sion/credentials', {
    credentials: [...before, { kind: 'snmp_v2c', name: 'inline', community: COMMUNITY }],
  });
  assert.equal(r.status, 200, r.text);
  const made = r.body.credentials.at(-1);
  assert.equal(made.name, 'inline');
  assert.deepEqual(made.community, { set: true });
  assert.equal((await api('GET', `/api/brain/credentials/${made.id}`)).status, 200);
  assert.doesNotMatch(r.text, new RegExp(COMMUNITY));
  // Only the vault holds it: not in the discovery table, the log, or the journal as clear text.
  const rows = t.service.app.store.all('SELECT * FROM v1sion_credentials');
  assert.doesNotMatch(JSON.stringify(rows), new RegExp(COMMUNITY));
  assert.doesNotMatch(t.logs.join('\n'), new RegExp(COMMUNITY));
  await t.service.app.store.flush();
  for (const f of await readdir(t.dataDir)) {
    if (!f.startsWith('netprobe.')) continue;
    assert.ok(!(await readFile(join(t.dataDir, f))).includes(COMMUNITY), `${f} holds the community in clear`);
  }
});

test('refusals: unknown references, other kinds, non-admins storing secrets, a locked vault', async () => {
  const list = (await api('GET', '/api/v1sion/credentials')).body.credentials;
  const ssh = (await api('POST', '/api/brain/credentials', { scope: ['127.0.0.0/8'], name: 'ssh', kind: 'ssh_password', username: 'u', password: 'pw-123456' })).body;
  assertProblem(await api('POST', '/api/v1sion/credentials', { credentials: [{ credential_id: 'CR-9999' }] }), 400, 'credentials.0.credential_id');
  assertProblem(await api('POST', '/api/v1sion/credentials', { credentials: [{ credential_id: ssh.id }] }), 400, 'credentials.0.credential_id');
  assertProblem(await api('POST', '/api/v1sion/credentials', { credentials: [{ kind: 'http_basic', username: 'x' }] }), 400, 'credentials.0.kind');
  assertProblem(await api('POST', '/api/v1sion/credentials', { credentials: [{ kind: 'snmp_v3', name: 'no user' }] }), 400, 'credentials.0.username');
  assertProblem(await api('POST', '/api/v1sion/credentials', {}), 400, 'credentials');
  // The first inline entry is stored before the second fails: it is removed again.
  assertProblem(await api('POST', '/api/v1sion/credentials', {
    credentials: [{ kind: 'snmp_v2c', name: 'half-made', community: 'z-123' }, { kind: 'snmp_v3', name: 'no user either' }],
  }), 400, 'credentials.1.username');
  const names = (await api('GET', '/api/brain/credentials?limit=500')).body.items.map((c: { name: string }) => c.name);
  assert.ok(!names.includes('half-made'), names.join(', '));

  const operator = await t.user('operator', ['v1sion:write']);
  assertProblem(await api('POST', '/api/v1sion/credentials', { credentials: [{ kind: 'snmp_v2c', community: 'x' }] }, operator.key), 403);
  const byOperator = await api('POST', '/api/v1sion/credentials', { credentials: list }, operator.key);
  assert.equal(byOperator.status, 200, 'an operator may reorder references');

  assert.equal((await api('POST', '/api/brain/vault/lock')).status, 200);
  try {
    assertProblem(await api('POST', '/api/v1sion/credentials', { credentials: [{ kind: 'snmp_v2c', community: 'y' }] }), 423);
  } finally {
    assert.equal((await api('POST', '/api/brain/vault/unlock', { passphrase: PASSPHRASE })).status, 200);
  }
  // Nothing changed by the refusals.
  assert.deepEqual((await api('GET', '/api/v1sion/credentials')).body.credentials, list);
});

test('a deleted credential drops out of the list', async () => {
  const list = (await api('GET', '/api/v1sion/credentials')).body.credentials;
  const first = list[0];
  assert.equal((await api('DELETE', `/api/brain/credentials/${first.id}?detach=true`)).status, 204);
  const after = (await api('GET', '/api/v1sion/credentials')).body.credentials;
  assert.deepEqual(after.map((c: { id: string }) => c.id), list.slice(1).map((c: { id: string }) => c.id));
});
