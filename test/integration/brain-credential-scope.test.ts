// A stored credential goes only where an administrator bound it (its scope, and the inventory endpoints that
// reference it). The outside review's exploit: an operator walks a stored SNMP credential to a host of their
// choice and reads the community from the first datagram. Here "their host" is a UDP listener on 127.0.0.2 that
// records every datagram: each refusal must be a 403 naming the credential, and the listener must hear nothing.
import assert from 'node:assert/strict';
import { createSocket, type Socket } from 'node:dgram';
import { after, before, describe, test } from 'node:test';
import { startTestApp, assertProblem, type TestApp, type TestResponse } from '../helpers/harness.js';
import { freeUdpPort } from '../helpers/net.js';

const COMMUNITY = 'Scope-Secret-Community-7c1e';
const PASSPHRASE = 'Credential-Scope-Vault-Passphrase-9';

describe('credential scope', () => {
  let t: TestApp;
  let admin: string;
  let operator: string;
  let port: number;
  let listener: Socket;
  const heard: Buffer[] = [];
  const heardSecret = () => heard.some((d) => d.includes(Buffer.from(COMMUNITY)));
  let cred: { id: string; short_id: string };

  const as = (key: string) => (method: string, path: string, body?: unknown) => t.request(method, path, { key, body });

  before(async () => {
    port = await freeUdpPort();
    listener = createSocket('udp4');
    listener.on('message', (m) => heard.push(m));
    await new Promise<void>((resolve) => listener.bind(port, '127.0.0.2', resolve));
    t = await startTestApp();
    admin = (await t.admin()).key;
    operator = (await t.user('operator', ['snmp:write', 'brain:write', 'v1sion:write'])).key;
    assert.equal((await as(admin)('POST', '/api/brain/vault/setup', { passphrase: PASSPHRASE })).status, 200);
    const c = await as(admin)('POST', '/api/brain/credentials', {
      name: 'core switches', kind: 'snmp_v2c', community: COMMUNITY, port, scope: ['127.0.0.1', 'sw1.example'],
    });
    assert.equal(c.status, 201, c.text);
    cred = { id: c.body.id, short_id: c.body.short_id };
  });
  after(async () => {
    listener.close();
    await t.close();
  });

  const refused = (r: TestResponse) => {
    assertProblem(r, 403);
    assert.equal(r.body.code, 'credential_out_of_scope', r.text);
    assert.match(r.body.detail, new RegExp(`${cred.short_id} \\(core switches\\) may not be sent to 127\\.0\\.0\\.2`));
    assert.match(r.body.detail, /its scope: 127\.0\.0\.1, sw1\.example/);
    assert.equal(r.body.rule, 'credential scope');
  };

  test('the scope is validated and kept canonical', async () => {
    const bad = await as(admin)('PUT', `/api/brain/credentials/${cred.id}`, { scope: ['not a host!'] });
    assertProblem(bad, 400, 'scope.0');
    const spelled = await as(admin)('POST', '/api/brain/credentials', {
      name: 'spelling', kind: 'snmp_v1', community: 'x', scope: ['10.0.0.5/24', 'SW1.Example.', '[::1]', '10.1.2.3'],
    });
    assert.equal(spelled.status, 201, spelled.text);
    assert.deepEqual(spelled.body.scope, ['10.0.0.0/24', 'sw1.example', '::1', '10.1.2.3']);
    // Only an administrator changes a scope: the credential routes are admin-only.
    assertProblem(await as(operator)('PUT', `/api/brain/credentials/${cred.id}`, { scope: ['127.0.0.0/8'] }), 403);
  });

  test('an operator\'s walk to a host outside the scope is refused before anything is sent', async () => {
    refused(await as(operator)('POST', '/api/snmp/walk', { target: '127.0.0.2', port, credential_id: cred.short_id, oids: ['system'] }));
    refused(await as(admin)('POST', '/api/snmp/walk', { target: '127.0.0.2', port, credential_id: cred.id, oids: ['system'] }));
    // Inline communities are the caller's own, but every SNMP entry point keeps to discovery's allowed ranges.
    const far = await as(operator)('POST', '/api/snmp/walk', { target: '0.0.0.0', port, version: 'v2c', community: 'mine', oids: ['system'] });
    assertProblem(far, 403);
    assert.equal(far.body.code, 'range_not_allowed');
    assert.equal(heard.length, 0, 'nothing reached the operator\'s host');
  });

  test('templates, device cards and the device probe keep to the scope too', async () => {
    const tpl = await as(operator)('POST', '/api/snmp/templates', {
      name: 'elsewhere', target: '127.0.0.2', port, credential_id: cred.id, oids: ['system'],
    });
    assert.equal(tpl.status, 201, tpl.text);
    refused(await as(operator)('POST', `/api/snmp/templates/${tpl.body.id}/run`));
    const put = await as(operator)('PUT', '/api/snmp/device-cards/elsewhere', { target: '127.0.0.2', port, credential_id: cred.id });
    assert.equal(put.status, 200, put.text);
    const cards = await as(operator)('GET', '/api/snmp/device-cards/elsewhere?live=true');
    assert.equal(cards.body.live.error_code, 'credential_out_of_scope', cards.text);
    const ifs = await as(operator)('GET', '/api/snmp/device-cards/elsewhere/interfaces');
    assert.equal(ifs.body.error_code, 'credential_out_of_scope', ifs.text);
    refused(await as(operator)('POST', '/api/v1sion/device/snmp', { ip: '127.0.0.2', port, credentials: [cred.short_id] }));
    assert.equal(heard.length, 0, 'nothing reached the operator\'s host');
    // The credential's usage list says which uses fall outside.
    const usage = await as(operator)('GET', `/api/brain/credentials/${cred.id}/usage`);
    const mine = usage.body.items.find((u: { kind: string; id: string }) => u.kind === 'snmp_template' && u.id === tpl.body.id);
    assert.deepEqual(mine.outside_scope, ['127.0.0.2'], usage.text);
  });

  test('a scan tries a stored credential only on the hosts inside its scope', async (ctx) => {
    // The sweep sends to UDP 161: two loopback addresses of our own there (root binds it; skipped where it cannot).
    const sockets: Socket[] = [];
    const got = new Map<string, Buffer[]>([['127.0.0.9', []], ['127.0.0.10', []]]);
    try {
      for (const ip of got.keys()) {
        const s = createSocket('udp4');
        s.on('message', (m) => got.get(ip)!.push(m));
        await new Promise<void>((resolve, reject) => { s.once('error', reject); s.bind(161, ip, resolve); });
        sockets.push(s);
      }
    } catch (e) {
      ctx.skip(`UDP 161 on loopback cannot be bound here (${(e as Error).message})`);
      for (const s of sockets) s.close();
      return;
    }
    try {
      const c = await as(admin)('POST', '/api/brain/credentials', {
        name: 'scan scoped', kind: 'snmp_v2c', community: `${COMMUNITY}-scan`, scope: ['127.0.0.9'],
      });
      assert.equal(c.status, 201, c.text);
      const scan = await as(operator)('POST', '/api/v1sion/scan', { subnet: '127.0.0.8/30', credentials: [c.body.id] });
      assert.equal(scan.status, 202, scan.text);
      // The job's event stream ends with the scan.
      const events = await (await fetch(`${t.url}/api/v1sion/scan/${scan.body.job_id}/stream`, { headers: { 'x-api-key': operator } })).text();
      assert.match(events, /completed/, events.slice(-500));
      const secret = Buffer.from(`${COMMUNITY}-scan`);
      assert.ok(got.get('127.0.0.9')!.some((d) => d.includes(secret)), 'inside the scope the scan uses it');
      assert.ok(got.get('127.0.0.10')!.length > 0, 'the host outside was swept (the engine probe needs no credential)');
      assert.ok(!got.get('127.0.0.10')!.some((d) => d.includes(secret)), 'but never with the credential');
    } finally {
      for (const s of sockets) s.close();
    }
  });

  test('an endpoint that references the credential is in its scope; binding one is an administrator\'s act', async () => {
    const op = as(operator);
    const bind = await op('POST', '/api/brain/endpoints', { name: 'mine', ip_addresses: ['127.0.0.2'], credential_id: cred.short_id });
    assertProblem(bind, 403, 'credential_id');
    assert.equal(bind.body.code, 'credential_binding');
    const ep = await as(admin)('POST', '/api/brain/endpoints', { name: 'edge', ip_addresses: ['127.0.0.3'], credential_id: cred.short_id });
    assert.equal(ep.status, 201, ep.text);
    // Moving a bound endpoint, or binding an existing one, would move the secret: refused; other fields are not.
    assertProblem(await op('PUT', `/api/brain/endpoints/${ep.body.id}`, { ip_addresses: ['127.0.0.2'] }), 403, 'ip_addresses');
    assert.equal((await op('PUT', `/api/brain/endpoints/${ep.body.id}`, { vendor: 'Acme' })).status, 200);
    const free = await op('POST', '/api/brain/endpoints', { name: 'free', ip_addresses: ['127.0.0.2'] });
    assert.equal(free.status, 201, free.text);
    assertProblem(await op('PUT', `/api/brain/endpoints/${free.body.id}`, { credential_id: cred.id }), 403, 'credential_id');
    assert.equal(heard.length, 0);

    // The administrator binds the endpoint at 127.0.0.2: now the walk is allowed, and the community is sent there.
    assert.equal((await as(admin)('PUT', `/api/brain/endpoints/${free.body.id}`, { credential_id: cred.id })).status, 200);
    const walk = await op('POST', '/api/snmp/walk', {
      target: '127.0.0.2', port, credential_id: cred.id, oids: ['sysName'], timeout: 0.3, retries: 0,
    });
    assert.notEqual(walk.body.code, 'credential_out_of_scope', walk.text);
    assert.ok(heardSecret(), 'within the scope the credential is used');
  });
});
