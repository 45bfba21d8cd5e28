// SSH enrichment sends a stored password only where it may go: within the credential's scope, and only to a
// host whose key is pinned (the login answers keyboard-interactive prompts with the password, so a host that
// merely asks receives it). The outside review's exploit: an operator adds an SSH target at a host of their
// choice with a password credential and starts an enrichment. The fake device (ssh2's server on loopback)
// records every password offered to it.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { PLATFORM_DEFS } from '../../src/modules/v1sion/enrich-ssh/platforms/index.js';
import { startFakeCli, type FakeCli } from '../helpers/fake-cli-ssh.js';
import { assertProblem, startTestApp, type TestApp } from '../helpers/harness.js';

const PASSWORD = 'Scoped-Ssh-Secret-51f0';
const IOS = new URL('../fixtures/ssh/cisco_ios/', import.meta.url).pathname;
const outputs = Object.fromEntries(PLATFORM_DEFS.cisco_ios.commands.map((c) => [c.command, readFileSync(join(IOS, `${c.name}.txt`), 'utf8')]));

describe('SSH: a password goes only within its scope and to a pinned key', () => {
  let t: TestApp;
  let fake: FakeCli;
  let admin: string;
  let operator: string;
  const cred: Record<string, string> = {};
  const as = (key: string) => (method: string, path: string, body?: unknown) => t.request(method, path, { key, body });

  /** Starts an enrichment and waits for its end; the one target's outcome. */
  const enrich = async (key: string, targetId: string) => {
    const r = await as(key)('POST', '/api/v1sion/enrich-ssh', { targets: [targetId] });
    assert.equal(r.status, 202, r.text);
    for (;;) {
      const s = await as(key)('GET', `/api/v1sion/enrich-ssh/${r.body.job_id}`);
      if (!['queued', 'running'].includes(s.body.state)) return s.body.results[0];
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  };

  before(async () => {
    fake = await startFakeCli({ username: 'netops', password: PASSWORD, hostname: 'access-sw1', outputs });
    t = await startTestApp();
    admin = (await t.admin()).key;
    operator = (await t.user('operator', ['v1sion:write', 'brain:read'])).key;
    assert.equal((await as(admin)('POST', '/api/brain/vault/setup', { passphrase: 'correct horse battery staple' })).status, 200);
    for (const [name, scope] of [['here', ['127.0.0.1']], ['elsewhere', ['127.0.0.5']]] as const) {
      const c = await as(admin)('POST', '/api/brain/credentials', { name, kind: 'ssh_password', username: 'netops', password: PASSWORD, scope });
      assert.equal(c.status, 201, c.text);
      cred[name] = c.body.id;
    }
  });
  after(async () => {
    await t.close();
    await fake.close();
  });

  test('a target outside the credential\'s scope is refused with a 403, and nothing connects', async () => {
    const target = await as(operator)('POST', '/api/v1sion/ssh-targets', {
      name: 'theirs', host: '127.0.0.1', port: fake.port, credential_id: cred.elsewhere,
    });
    assert.equal(target.status, 201, target.text);
    const r = await as(operator)('POST', '/api/v1sion/enrich-ssh', { targets: [target.body.id] });
    assertProblem(r, 403);
    assert.equal(r.body.code, 'credential_out_of_scope');
    assert.match(r.body.detail, /may not be sent to 127\.0\.0\.1 over SSH/);
    assert.equal(fake.connections, 0);
    assert.deepEqual(fake.passwords, []);
    assert.equal((await as(operator)('DELETE', `/api/v1sion/ssh-targets/${target.body.id}`)).status, 204);
  });

  test('an operator\'s enrichment sends no password to an unpinned key; an administrator pins it, then it logs in', async () => {
    const target = await as(operator)('POST', '/api/v1sion/ssh-targets', {
      name: 'access-sw1', host: '127.0.0.1', port: fake.port, credential_id: cred.here,
    });
    assert.equal(target.status, 201, target.text);
    const first = await enrich(operator, target.body.id);
    assert.equal(first.state, 'failed', JSON.stringify(first));
    assert.equal(first.error.code, 'host_key_unpinned');
    assert.equal(first.error.presented, fake.fingerprint);
    assert.equal(fake.connections, 1, 'the key exchange happened');
    assert.deepEqual(fake.passwords, [], 'no password was offered');
    assert.equal((await as(operator)('GET', `/api/v1sion/ssh-targets/${target.body.id}`)).body.host_key, null);

    // Nor may an operator pin a key of their choice in advance: on POST or PUT, host_key is an administrator's.
    const early = await as(operator)('POST', '/api/v1sion/ssh-targets', {
      name: 'pinned by me', host: '127.0.0.1', port: fake.port + 1, credential_id: cred.here, host_key: fake.fingerprint,
    });
    assertProblem(early, 403, 'host_key');
    assertProblem(await as(operator)('PUT', `/api/v1sion/ssh-targets/${target.body.id}`, { host_key: fake.fingerprint }), 403, 'host_key');

    const pin = (key: string, body: unknown) => as(key)('PUT', `/api/v1sion/ssh-targets/${target.body.id}/host-key`, body);
    assertProblem(await pin(operator, { fingerprint: fake.fingerprint }), 403);
    assertProblem(await pin(admin, { fingerprint: 'SHA256:short' }), 400, 'fingerprint');
    const pinned = await pin(admin, { fingerprint: fake.fingerprint });
    assert.equal(pinned.status, 200, pinned.text);
    assert.equal(pinned.body.host_key, fake.fingerprint);
    assert.equal(pinned.body.host_key_type, 'ecdsa-sha2-nistp256');
    const audit = await as(admin)('GET', '/api/audit-log?action=v1sion.ssh_host_key_pin');
    assert.ok(audit.body.items.some((e: { details?: { fingerprint?: string } }) => e.details?.fingerprint === fake.fingerprint), audit.text);

    const second = await enrich(operator, target.body.id);
    assert.equal(second.state, 'ok', JSON.stringify(second));
    assert.deepEqual(fake.passwords, [PASSWORD]);

    // Another key pinned: clear it first.
    assertProblem(await pin(admin, { fingerprint: `SHA256:${'A'.repeat(43)}` }), 409);
  });

  test('an administrator\'s enrichment pins the key it meets (trust on first use), as before', async () => {
    const target = await as(admin)('POST', '/api/v1sion/ssh-targets', {
      name: 'access-sw1 again', host: '127.0.0.1', port: fake.port, credential_id: cred.here,
    });
    assert.equal(target.status, 201, target.text);
    await fake.restart(); // a new key
    const r = await enrich(admin, target.body.id);
    assert.equal(r.state, 'ok', JSON.stringify(r));
    assert.equal((await as(admin)('GET', `/api/v1sion/ssh-targets/${target.body.id}`)).body.host_key, fake.fingerprint);
  });
});
