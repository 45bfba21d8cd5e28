// SSH targets through the API, against a Cisco-like CLI on loopback (test/helpers/fake-cli-ssh.ts; no Cisco
// device runs here): create, list, change, delete; validation naming the field; a credential that is not an
// SSH kind, or a PKCS#8 key, is a 400 naming credential_id; the host key pinned on first use, a changed one
// refused with both fingerprints, the pin cleared by an administrator only (audited) and pinned again; the
// shell transport with and without the device's pager; 423 while the vault is locked; no secret anywhere.
import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { PLATFORM_DEFS } from '../../src/modules/v1sion/enrich-ssh/platforms/index.js';
import { startFakeCli, type FakeCli } from '../helpers/fake-cli-ssh.js';
import { assertProblem, startTestApp, type TestApp } from '../helpers/harness.js';

const PASSWORD = 'fake-cli-Secret-9f3a1c';
const IOS = new URL('../fixtures/ssh/cisco_ios/', import.meta.url).pathname;
const outputs = Object.fromEntries(PLATFORM_DEFS.cisco_ios.commands.map((c) => [c.command, readFileSync(join(IOS, `${c.name}.txt`), 'utf8')]));

describe('SSH targets', () => {
  let t: TestApp;
  let key: string;
  let fake: FakeCli;
  const texts: string[] = [];
  const api = async (method: string, path: string, body?: unknown, k = key) => {
    const r = await t.request(method, path, { key: k, body });
    texts.push(r.text);
    return r;
  };
  const cred: Record<string, { id: string; short_id: string }> = {};
  const pkcs8 = generateKeyPairSync('ed25519').privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();

  /** Runs an enrichment of the targets to its end; the SSE messages and the final status. */
  const enrich = async (body: unknown) => {
    const r = await api('POST', '/api/v1sion/enrich-ssh', body);
    assert.equal(r.status, 202, r.text);
    const res = await fetch(`${t.url}/api/v1sion/enrich-ssh/${r.body.job_id}/stream`, { headers: { 'x-api-key': key } });
    const text = await res.text();
    texts.push(text);
    const events = text.split('\n\n').filter((b) => b.includes('data:')).map((b) => JSON.parse(b.slice(b.indexOf('data:') + 5)));
    const status = await api('GET', `/api/v1sion/enrich-ssh/${r.body.job_id}`);
    return { events, status: status.body, start: r.body };
  };

  before(async () => {
    fake = await startFakeCli({ username: 'netops', password: PASSWORD, hostname: 'access-sw1', outputs });
    t = await startTestApp();
    key = (await t.admin()).key;
    assert.equal((await api('POST', '/api/brain/vault/setup', { passphrase: 'correct horse battery staple' })).status, 200);
    const mk = async (name: string, body: Record<string, unknown>) => {
      const r = await api('POST', '/api/brain/credentials', { scope: ['127.0.0.0/8'], name, ...body });
      assert.equal(r.status, 201, r.text);
      cred[name] = { id: r.body.id, short_id: r.body.short_id };
    };
    await mk('cli', { kind: 'ssh_password', username: 'netops', password: PASSWORD });
    await mk('snmp', { kind: 'snmp_v2c', community: 'public-ish' });
    // A PKCS#8 key (which ssh2 cannot read) is stored like any key; using it for a target is the 400.
    await mk('pkcs8', { kind: 'ssh_key', username: 'netops', ssh_private_key: pkcs8 });
    await mk('nopass', { kind: 'ssh_password', username: 'netops' });
  });
  after(async () => {
    await t?.close();
    await fake?.close();
  });

  let target: any;

  test('create, get, list, change', async () => {
    const r = await api('POST', '/api/v1sion/ssh-targets', {
      name: 'access-sw1', host: '127.0.0.1', port: fake.port, credential_id: cred.cli!.short_id, platform: 'auto', tags: ['lab'],
    });
    assert.equal(r.status, 201, r.text);
    target = r.body;
    assert.equal(target.credential_id, cred.cli!.id, 'stored by UUID');
    assert.deepEqual(target.credential, { id: cred.cli!.id, short_id: cred.cli!.short_id, name: 'cli', kind: 'ssh_password', username: 'netops' });
    assert.deepEqual([target.host_key, target.last_enriched_at, target.last_error, target.summary, target.facts], [null, null, null, null, null]);
    const list = await api('GET', '/api/v1sion/ssh-targets?tag=lab');
    assert.equal(list.body.total, 1);
    assert.equal(list.body.items[0].facts, undefined, 'lists carry the summary, not the facts');
    assert.equal((await api('GET', '/api/v1sion/ssh-targets?q=nothing-like-it')).body.total, 0);
    const put = await api('PUT', `/api/v1sion/ssh-targets/${target.id}`, { name: 'Access switch 1', tags: ['lab', 'floor-1'] });
    assert.equal(put.status, 200, put.text);
    assert.deepEqual([put.body.name, put.body.tags, put.body.port], ['Access switch 1', ['lab', 'floor-1'], fake.port]);
    assert.deepEqual((await api('GET', `/api/v1sion/ssh-targets/${target.id}`)).body.name, 'Access switch 1');
  });

  test('invalid bodies are 400s naming the field', async () => {
    const base = { name: 'x', host: '127.0.0.1', credential_id: cred.cli!.id };
    const bad: [unknown, string][] = [
      [{ ...base, name: '' }, 'name'], [{ ...base, host: 'no spaces allowed' }, 'host'], [{ ...base, port: 70000 }, 'port'],
      [{ ...base, platform: 'windows' }, 'platform'], [{ ...base, host_key: 'MD5:aa:bb' }, 'host_key'], [{ ...base, password: 'x' }, 'password'],
      [{ ...base, tags: ['a\u0000b'] }, 'tags.0'], [{ name: 'x', host: '127.0.0.1' }, 'credential_id'],
      [{ ...base, credential_id: 'CR-999999' }, 'credential_id'],
      [{ ...base, credential_id: cred.snmp!.short_id }, 'credential_id'],
      [{ ...base, credential_id: cred.nopass!.id }, 'credential_id'],
    ];
    for (const [body, field] of bad) assertProblem(await api('POST', '/api/v1sion/ssh-targets', body), 400, field);
    const snmp = await api('POST', '/api/v1sion/ssh-targets', { ...base, credential_id: cred.snmp!.id });
    assert.match(snmp.body.errors[0].message, /snmp_v2c credential; SSH needs ssh_password or ssh_key/);
    const key8 = await api('POST', '/api/v1sion/ssh-targets', { ...base, credential_id: cred.pkcs8!.id });
    assertProblem(key8, 400, 'credential_id');
    assert.match(key8.body.errors[0].message, /PKCS#8.*ssh-keygen -p/);
    assertProblem(await api('PUT', `/api/v1sion/ssh-targets/${target.id}`, {}), 400);
    assertProblem(await api('PUT', `/api/v1sion/ssh-targets/${target.id}`, { credential_id: cred.snmp!.id }), 400, 'credential_id');
    assertProblem(await api('GET', '/api/v1sion/ssh-targets/not-a-uuid'), 404);
    assert.equal((await api('GET', `/api/v1sion/ssh-targets/${crypto.randomUUID()}`)).status, 404);
    // An address outside the allowed ranges: refused before anything is sent (the lab's refusal range).
    const far = await api('POST', '/api/v1sion/ssh-targets', { ...base, host: '198.51.100.7' });
    assert.equal(far.status, 403, far.text);
    assert.equal(far.body.code, 'range_not_allowed');
    const e1 = await api('POST', '/api/v1sion/enrich-ssh', {});
    assertProblem(e1, 400, 'targets');
    assertProblem(await api('POST', '/api/v1sion/enrich-ssh', { targets: [crypto.randomUUID()] }), 400, 'targets.0');
    assertProblem(await api('POST', '/api/v1sion/enrich-ssh', { addresses: ['10.1.1.1'] }), 400, 'session_id');
    assertProblem(await api('POST', '/api/v1sion/enrich-ssh', { targets: [target.id], command: 'reload' }), 400, 'command');
  });

  test('the first enrichment pins the host key and stores the facts; one message per target', async () => {
    const { events, status } = await enrich({ targets: [target.id] });
    assert.equal(events.at(-1).type, 'completed', JSON.stringify(events));
    const done = events.filter((e) => e.type === 'target');
    assert.equal(done.length, 1);
    assert.equal(done[0].target.state, 'ok', JSON.stringify(done[0]));
    assert.equal(done[0].progress, 100);
    assert.ok(events.every((e) => typeof e.type === 'string' && typeof e.progress === 'number'));
    assert.equal(status.results[0].summary.hostname, 'access-sw1');
    const got = (await api('GET', `/api/v1sion/ssh-targets/${target.id}`)).body;
    assert.equal(got.host_key, fake.fingerprint);
    assert.equal(got.host_key_type, 'ecdsa-sha2-nistp256');
    assert.ok(got.last_enriched_at);
    assert.equal(got.last_error, null);
    assert.deepEqual([got.facts.platform, got.facts.platform_source, got.facts.ssh_banner], ['cisco_ios', 'banner', 'SSH-2.0-Cisco-1.25']);
    assert.deepEqual([got.facts.hostname, got.facts.model, got.facts.serial, got.facts.os_version],
      ['access-sw1', 'WS-C2960X-48FPD-L', 'FOC2101X0AB', '15.2(7)E8']);
    assert.equal(got.facts.interfaces.length, 5);
    assert.ok(got.facts.lldp.some((n: any) => n.system_name === 'sw2'));
    assert.ok(got.facts.commands.every((c: any) => c.ok), JSON.stringify(got.facts.commands));
    assert.deepEqual(fake.commands.slice(1, 3), ['terminal length 0', 'terminal width 511'], 'pager off first');
    assert.ok(fake.commands.every((c) => c === '' || c === 'exit' || /^(show |terminal )/.test(c)), `only show commands: ${fake.commands}`);
    const uses = await api('GET', `/api/brain/credentials/${cred.cli!.id}/scan`);
    assert.equal(uses.status, 200, uses.text);
    assert.ok(JSON.stringify(uses.body).includes('"ssh"'), uses.text);
  });

  test('a device that keeps paging gets its --More-- answered', async () => {
    const pager = await startFakeCli({ username: 'netops', password: PASSWORD, hostname: 'access-sw1', outputs, ignoreTerminalLength: true });
    try {
      const r = await api('POST', '/api/v1sion/ssh-targets', { name: 'pager', host: '127.0.0.1', port: pager.port, credential_id: cred.cli!.id,
        platform: 'cisco_ios' });
      const { events } = await enrich({ targets: [r.body.id] });
      assert.equal(events.find((e) => e.type === 'target').target.state, 'ok');
      const got = (await api('GET', `/api/v1sion/ssh-targets/${r.body.id}`)).body;
      assert.ok(pager.pages >= 2, `pages answered: ${pager.pages}`);
      assert.equal(got.facts.interfaces.length, 5, 'the whole interface list, across pages');
      assert.equal(got.facts.routes.length, 7);
      assert.doesNotMatch(JSON.stringify(got.facts), /More--/);
      assert.equal((await api('DELETE', `/api/v1sion/ssh-targets/${r.body.id}`)).status, 204);
    } finally {
      await pager.close();
    }
  });

  test('a changed host key is refused with both fingerprints; only an administrator clears the pin', async () => {
    const pinned = fake.fingerprint;
    const before = (await api('GET', `/api/v1sion/ssh-targets/${target.id}`)).body;
    await fake.restart();
    assert.notEqual(fake.fingerprint, pinned);
    const logins = fake.logins;
    const { events } = await enrich({ targets: [target.id] });
    const out = events.find((e) => e.type === 'target').target;
    assert.equal(out.state, 'failed');
    assert.equal(out.error.code, 'host_key_changed');
    assert.equal(out.error.pinned, pinned);
    assert.equal(out.error.presented, fake.fingerprint);
    assert.ok(out.error.message.includes(pinned) && out.error.message.includes(fake.fingerprint), out.error.message);
    assert.equal(fake.logins, logins, 'no credential was offered to the changed host');
    const got = (await api('GET', `/api/v1sion/ssh-targets/${target.id}`)).body;
    assert.equal(got.host_key, pinned, 'the pin stays');
    assert.equal(got.last_error.code, 'host_key_changed');
    assert.equal(got.last_error.presented, fake.fingerprint);
    assert.deepEqual(got.facts, before.facts, 'what was learned before is kept');
    assertProblem(await api('PUT', `/api/v1sion/ssh-targets/${target.id}`, { host_key: fake.fingerprint }), 400, 'host_key');

    const op = await t.user('operator', ['v1sion:write']);
    assert.equal((await api('DELETE', `/api/v1sion/ssh-targets/${target.id}/host-key`, undefined, op.key)).status, 403);
    const cleared = await api('DELETE', `/api/v1sion/ssh-targets/${target.id}/host-key`);
    assert.equal(cleared.status, 200, cleared.text);
    assert.equal(cleared.body.host_key, null);
    const audit = await api('GET', '/api/audit-log?limit=500');
    const entry = audit.body.items.find((e: any) => e.action === 'v1sion.ssh_host_key_clear');
    assert.ok(entry, 'audited');
    assert.equal(entry.details.fingerprint, pinned, 'the audit entry names the old fingerprint');
    assert.ok(audit.body.items.some((e: any) => e.action === 'v1sion.ssh_host_key_pin'));

    const again = await enrich({ targets: [target.id] });
    assert.equal(again.events.find((e) => e.type === 'target').target.state, 'ok');
    const repinned = (await api('GET', `/api/v1sion/ssh-targets/${target.id}`)).body;
    assert.equal(repinned.host_key, fake.fingerprint);
    assert.equal(repinned.last_error, null);
  });

  test('a wrong password is a clear failure and is recorded on the credential', async () => {
    const wrong = await api('POST', '/api/brain/credentials', { scope: ['127.0.0.0/8'], name: 'wrong', kind: 'ssh_password', username: 'netops', password: 'not-it' });
    const r = await api('POST', '/api/v1sion/ssh-targets', { name: 'wrong', host: '127.0.0.1', port: fake.port, credential_id: wrong.body.id });
    const { events } = await enrich({ targets: [r.body.id] });
    const out = events.find((e) => e.type === 'target').target;
    assert.equal(out.error.code, 'auth_failed');
    assert.match(out.error.message, /refused the login of user "netops" with the stored password/);
    const uses = await api('GET', `/api/brain/credentials/${wrong.body.id}/scan`);
    assert.ok(JSON.stringify(uses.body).includes('failure'), uses.text);
    await api('DELETE', `/api/v1sion/ssh-targets/${r.body.id}`);
  });

  test('423 while the vault is locked; deleting a target', async () => {
    assert.equal((await api('POST', '/api/brain/vault/lock', {})).status, 200);
    const locked = await api('POST', '/api/v1sion/enrich-ssh', { targets: [target.id] });
    assert.equal(locked.status, 423, locked.text);
    assert.equal((await api('POST', '/api/brain/vault/unlock', { passphrase: 'correct horse battery staple' })).status, 200);
    const tmp = await api('POST', '/api/v1sion/ssh-targets', { name: 'tmp', host: 'switch-9.lab.test', credential_id: cred.cli!.id });
    assert.equal(tmp.status, 201, tmp.text);
    assert.equal(tmp.body.host, 'switch-9.lab.test');
    assert.equal((await api('DELETE', `/api/v1sion/ssh-targets/${tmp.body.id}`)).status, 204);
    assert.equal((await api('GET', `/api/v1sion/ssh-targets/${tmp.body.id}`)).status, 404);
  });

  test('no secret in any response, log line, audit entry or data file', async () => {
    const audit = await api('GET', '/api/audit-log?limit=500');
    assert.equal(audit.status, 200, audit.text);
    const keyBody = pkcs8.split('\n').filter((l) => l && !l.startsWith('-----')).join('');
    const haystacks = [...texts, ...t.logs, audit.text];
    for (const dir of [t.dataDir]) {
      for (const f of readdirSync(dir, { recursive: true }) as string[]) {
        try { haystacks.push(readFileSync(join(dir, f)).toString('latin1')); } catch { /* a directory */ }
      }
    }
    for (const h of haystacks) {
      assert.ok(!h.includes(PASSWORD), 'the password leaked');
      assert.ok(!h.includes(keyBody.slice(0, 40)), 'the private key leaked');
    }
  });
});
