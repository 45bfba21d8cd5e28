// SSH enrichment against the lab's real sshd (docs/lab.md): password and ed25519-key logins, enrichment of a
// session's address (a target made for it), what is stored (hostname ssh, the host's machine ID, its
// interfaces, the LLDP neighbour sw2 through lldpctl, sshd listening) on the target and the session node;
// the host key pinned on first use, a regenerated one refused with both fingerprints and pinned again after
// an administrator clears the pin; a port that sends a banner and stalls, and one that closes, fail clearly
// within the timeout; cancel ends every connection within a second; no secret anywhere. Packets go to the lab
// and to loopback only.
import assert from 'node:assert/strict';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { run } from '../../src/core/exec.js';
import { startTestApp, type TestApp } from '../helpers/harness.js';
import { labSkipReason, startLab, type Lab } from '../helpers/lab.js';

const skip = labSkipReason();
const BANNER_TIMEOUT_MS = 2000;

describe('SSH enrichment in the lab', { skip: skip ?? false }, () => {
  let lab: Lab;
  let t: TestApp;
  let dir: string;
  let key: string;
  let sshIp: string;
  const texts: string[] = [];
  const cred: Record<string, string> = {};
  let sessionId: string;
  let passTarget: string;
  let keyTarget: string;
  const api = async (method: string, path: string, body?: unknown, k = key) => {
    const r = await t.request(method, path, { key: k, body });
    texts.push(r.text);
    return r;
  };
  const stream = async (jobId: string) => {
    const res = await fetch(`${t.url}/api/v1sion/enrich-ssh/${jobId}/stream`, { headers: { 'x-api-key': key } });
    const text = await res.text();
    texts.push(text);
    return text.split('\n\n').filter((b) => b.includes('data:')).map((b) => JSON.parse(b.slice(b.indexOf('data:') + 5)));
  };
  const enrich = async (body: unknown) => {
    const r = await api('POST', '/api/v1sion/enrich-ssh', body);
    assert.equal(r.status, 202, r.text);
    const events = await stream(r.body.job_id);
    assert.equal(events.at(-1).type, 'completed', JSON.stringify(events));
    return { start: r.body, events, targets: events.filter((e) => e.type === 'target').map((e) => e.target) };
  };
  const target = async (id: string) => (await api('GET', `/api/v1sion/ssh-targets/${id}`)).body;

  before(async () => {
    lab = await startLab({ corpus: false });
    sshIp = lab.ssh.host;
    dir = await mkdtemp(join(tmpdir(), 'netprobe-enrich-lab-'));
    await writeFile(join(dir, 'config.yaml'), `discovery:\n  ssh_banner_timeout_ms: ${BANNER_TIMEOUT_MS}\n`);
    t = await startTestApp({ dataDir: dir });
    key = (await t.admin()).key;
    assert.equal((await api('POST', '/api/brain/vault/setup', { passphrase: 'correct horse battery staple' })).status, 200);
    const p = await api('POST', '/api/brain/credentials', { scope: ['10.77.0.0/16', '127.0.0.0/8'],
      name: 'lab password', kind: 'ssh_password', username: lab.ssh.password.username, password: lab.ssh.password.password,
    });
    assert.equal(p.status, 201, p.text);
    cred.pass = p.body.id;
    // An OpenSSH key has line breaks: ssh_private_key is one of the JSON guard's multi-line fields.
    const k = (await api('POST', '/api/brain/credentials', { scope: ['10.77.0.0/16', '127.0.0.0/8'],
      name: 'lab key', kind: 'ssh_key', username: lab.ssh.key.username, ssh_private_key: lab.ssh.key.privateKey,
    })).body;
    cred.key = String(k.id);
    const lan = lab.subnets.find((s) => s.name === 'lan')!;
    const s = await api('POST', '/api/v1sion/sessions', {
      name: 'lab lan', subnets: [lan.cidr], nodes: [
        { id: 'n-ssh', label: 'ssh', addresses: [sshIp], kind: 'server' },
        { id: 'n-sw2', label: 'sw2', addresses: [lab.host('sw2').addresses[0]!], kind: 'switch' },
      ],
    });
    assert.equal(s.status, 201, s.text);
    sessionId = s.body.id;
  });
  after(async () => {
    await t?.close();
    await lab?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  test('password login on a session\'s address: a target is made, facts stored on it and on the node', async (ctx) => {
    const started = Date.now();
    const { start, targets } = await enrich({ session_id: sessionId, addresses: [sshIp], credential_id: cred.pass });
    ctx.diagnostic(`password enrichment of ssh, API to final message: ${Date.now() - started} ms`);
    assert.equal(start.targets.length, 1);
    assert.equal(start.targets[0].created, true);
    assert.equal(start.targets[0].name, 'ssh', 'named after the node');
    passTarget = start.targets[0].id;
    assert.equal(targets.length, 1);
    assert.equal(targets[0].state, 'ok', JSON.stringify(targets[0]));
    assert.deepEqual(targets[0].nodes, ['n-ssh']);

    const got = await target(passTarget);
    const machineId = (await readFile(join(lab.host('ssh').dir, 'machine-id'), 'utf8')).trim();
    assert.equal(got.host_key, lab.ssh.hostKey.fingerprint, 'pinned on first use, as ssh-keygen prints it');
    assert.equal(got.host_key_type, 'ssh-ed25519');
    assert.equal(got.last_error, null);
    const f = got.facts;
    assert.deepEqual([f.platform, f.platform_source, f.hostname, f.machine_id, f.os], ['linux', 'probe', 'ssh', machineId, 'Debian GNU/Linux']);
    assert.match(f.ssh_banner, /^SSH-2\.0-OpenSSH_/);
    const eth0 = f.interfaces.find((i: any) => i.addresses.includes(`${sshIp}/24`));
    assert.ok(eth0, JSON.stringify(f.interfaces));
    assert.equal(eth0.mac, lab.host('ssh').mac);
    assert.ok(f.routes.some((r: any) => r.destination === lab.subnets.find((s) => s.name === 'lan')!.cidr));
    const sw2 = f.lldp.find((n: any) => n.system_name === 'sw2');
    assert.ok(sw2, `LLDP neighbour sw2 via lldpctl: ${JSON.stringify(f.lldp)} ${JSON.stringify(f.commands)}`);
    assert.deepEqual(sw2.management_addresses, [lab.host('sw2').addresses[0]]);
    assert.ok(f.services.some((s: any) => s.protocol === 'tcp' && s.port === 22), 'sshd listens');
    assert.ok(f.commands.find((c: any) => c.name === 'lldp').ok);

    const session = (await api('GET', `/api/v1sion/sessions/${sessionId}`)).body;
    const node = session.nodes.find((n: any) => n.id === 'n-ssh');
    assert.equal(node.facts.hostname, 'ssh');
    assert.equal(node.facts.machine_id, machineId);
    assert.equal(node.facts.ssh_target_id, passTarget);
    assert.equal(session.nodes.find((n: any) => n.id === 'n-sw2').facts, null, 'other nodes are left alone');
    const uses = await api('GET', `/api/brain/credentials/${cred.pass}/scan`);
    assert.ok(uses.text.includes('ssh') && uses.text.includes('success'), uses.text);
  });

  test('ed25519 key login; two devices in one job, one message each', async () => {
    const r = await api('POST', '/api/v1sion/ssh-targets', { name: 'ssh by key', host: sshIp, credential_id: cred.key, platform: 'linux' });
    assert.equal(r.status, 201, r.text);
    keyTarget = r.body.id;
    const { targets } = await enrich({ targets: [keyTarget, passTarget], session_id: sessionId });
    assert.equal(targets.length, 2);
    assert.ok(targets.every((x: any) => x.state === 'ok'), JSON.stringify(targets));
    const got = await target(keyTarget);
    assert.equal(got.facts.hostname, 'ssh');
    assert.equal(got.facts.platform_source, 'configured');
    assert.equal(got.host_key, lab.ssh.hostKey.fingerprint);
    assert.ok(got.facts.lldp.some((n: any) => n.system_name === 'sw2'), 'labkey is in group adm too');
  });

  test('a regenerated host key is refused with both fingerprints, until an administrator clears the pin', async () => {
    const file = join(lab.host('ssh').dir, 'ssh_host_ed25519_key');
    await rm(file, { force: true });
    await rm(`${file}.pub`, { force: true });
    assert.equal((await run('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', 'replaced', '-f', file])).code, 0);
    const fresh = (await run('ssh-keygen', ['-lf', `${file}.pub`])).stdout.split(' ')[1]!;
    assert.notEqual(fresh, lab.ssh.hostKey.fingerprint);

    const before = await target(passTarget);
    const { targets } = await enrich({ targets: [passTarget] });
    assert.equal(targets[0].state, 'failed');
    assert.equal(targets[0].error.code, 'host_key_changed');
    assert.equal(targets[0].error.pinned, lab.ssh.hostKey.fingerprint);
    assert.equal(targets[0].error.presented, fresh);
    const got = await target(passTarget);
    assert.equal(got.host_key, lab.ssh.hostKey.fingerprint);
    assert.equal(got.last_error.presented, fresh);
    assert.equal(got.last_enriched_at, before.last_enriched_at, 'the last good enrichment stays');

    const op = await t.user('operator', ['v1sion:write']);
    assert.equal((await api('DELETE', `/api/v1sion/ssh-targets/${passTarget}/host-key`, undefined, op.key)).status, 403);
    assert.equal((await api('DELETE', `/api/v1sion/ssh-targets/${passTarget}/host-key`)).status, 200);
    const again = await enrich({ targets: [passTarget] });
    assert.equal(again.targets[0].state, 'ok', JSON.stringify(again.targets[0]));
    assert.equal((await target(passTarget)).host_key, fresh);
  });

  /** A TCP server on loopback that answers each connection with `greet` (or closes at once). */
  const tinyServer = async (greet: ((s: Socket) => void)) => {
    const sockets: Socket[] = [];
    const closedAt: number[] = [];
    const srv: Server = createServer((s) => {
      sockets.push(s);
      s.resume(); // read what the client sends, so its FIN is seen
      s.on('close', () => closedAt.push(Date.now()));
      s.on('error', () => undefined);
      greet(s);
    });
    await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
    const port = (srv.address() as { port: number }).port;
    return {
      port, sockets, closedAt,
      close: () => new Promise<void>((r) => { for (const s of sockets) s.destroy(); srv.close(() => r()); }),
    };
  };

  test('a port that sends a banner and stalls fails clearly within the timeout', async () => {
    const stall = await tinyServer((s) => s.write('SSH-2.0-x\r\n'));
    try {
      const r = await api('POST', '/api/v1sion/ssh-targets', { name: 'staller', host: '127.0.0.1', port: stall.port, credential_id: cred.pass });
      const started = Date.now();
      const { targets } = await enrich({ targets: [r.body.id] });
      const took = Date.now() - started;
      assert.equal(targets[0].state, 'failed');
      assert.equal(targets[0].error.code, 'banner_stalled');
      assert.match(targets[0].error.message, /sent its SSH banner "SSH-2\.0-x" and then stalled: no key exchange within 2 s/);
      assert.ok(took < BANNER_TIMEOUT_MS + 1500, `failed after ${took} ms`);
      assert.ok(took >= BANNER_TIMEOUT_MS - 100, `not before the timeout (${took} ms)`);
      while (!stall.closedAt.length && Date.now() - started < took + 1000) await new Promise((res) => setTimeout(res, 20));
      assert.equal(stall.closedAt.length, 1, 'the connection was closed');
    } finally {
      await stall.close();
    }
  });

  test('a connection closed after the banner without an error is a failure that says so', async () => {
    const closer = await tinyServer((s) => { s.write('SSH-2.0-closer\r\n'); setTimeout(() => s.end(), 50); });
    const silent = await tinyServer(() => undefined);
    try {
      const a = await api('POST', '/api/v1sion/ssh-targets', { name: 'closer', host: '127.0.0.1', port: closer.port, credential_id: cred.pass });
      const b = await api('POST', '/api/v1sion/ssh-targets', { name: 'silent', host: '127.0.0.1', port: silent.port, credential_id: cred.pass });
      const { targets } = await enrich({ targets: [a.body.id, b.body.id] });
      const by = (id: string) => targets.find((x: any) => x.target_id === id);
      assert.equal(by(a.body.id).error.code, 'closed', JSON.stringify(by(a.body.id)));
      assert.match(by(a.body.id).error.message, /closed the connection before the login completed \(after its banner "SSH-2\.0-closer"\)/);
      assert.equal(by(b.body.id).error.code, 'no_banner');
      assert.match(by(b.body.id).error.message, /sent no SSH banner within 2 s/);
    } finally {
      await closer.close();
      await silent.close();
    }
  });

  test('cancel ends the job and every connection within a second', async () => {
    const stall = await tinyServer((s) => s.write('SSH-2.0-x\r\n'));
    try {
      const r = await api('POST', '/api/v1sion/ssh-targets', { name: 'staller 2', host: '127.0.0.1', port: stall.port, credential_id: cred.pass });
      const job = await api('POST', '/api/v1sion/enrich-ssh', { targets: [r.body.id, keyTarget] });
      assert.equal(job.status, 202, job.text);
      const events = stream(job.body.job_id);
      await new Promise((res) => setTimeout(res, 400));
      assert.equal(stall.sockets.length, 1, 'connected');
      const cancelAt = Date.now();
      const c = await api('DELETE', `/api/v1sion/enrich-ssh/${job.body.job_id}`);
      assert.equal(c.status, 200, c.text);
      const all = await events;
      assert.equal(all.at(-1).type, 'cancelled');
      while (!stall.closedAt.length && Date.now() - cancelAt < 3000) await new Promise((res) => setTimeout(res, 20));
      assert.ok(stall.closedAt.length === 1 && stall.closedAt[0]! - cancelAt < 1000,
        `the stalled connection closed ${stall.closedAt[0]! - cancelAt} ms after the cancel`);
      assert.equal((await api('DELETE', `/api/v1sion/enrich-ssh/${job.body.job_id}`)).status, 409);
      const status = await api('GET', `/api/v1sion/enrich-ssh/${job.body.job_id}`);
      assert.equal(status.body.state, 'cancelled');
      assert.equal((await target(r.body.id)).last_error, null, 'a cancelled login records no failure');
    } finally {
      await stall.close();
    }
  });

  test('no secret in any response, log line, audit entry, session or data file', async () => {
    const keyBody = lab.ssh.key.privateKey.split('\n').filter((l) => l && !l.startsWith('-----')).join('\n');
    const audit = await api('GET', '/api/audit-log?limit=500');
    assert.ok(audit.body.items.some((e: any) => e.action === 'v1sion.enrich_start'));
    const session = await api('GET', `/api/v1sion/sessions/${sessionId}`);
    const haystacks = [...texts, ...t.logs, audit.text, session.text];
    for (const f of await readdir(t.dataDir, { recursive: true })) {
      try { haystacks.push((await readFile(join(t.dataDir, f))).toString('latin1')); } catch { /* a directory */ }
    }
    for (const h of haystacks) {
      assert.ok(!h.includes(lab.ssh.password.password), 'the password leaked');
      for (const line of keyBody.split('\n')) assert.ok(!h.includes(line), 'the private key leaked');
    }
  });
});
