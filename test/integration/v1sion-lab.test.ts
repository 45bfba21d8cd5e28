// The discovery test lab itself (docs/lab.md), checked from the root namespace where the service runs:
// fping finds the hosts that answer ICMP and not the silent one, which still answers TCP; the
// switches' snmpd serves their identity and, through lldpd's AgentX, LLDP neighbours; sshd answers
// and takes both its users; the lab resolver has PTR records; the refusal range is refused locally.
// Then stop() leaves nothing behind; two labs coexist; a lab whose owner was killed is cleaned up.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, readdirSync } from 'node:fs';
import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { connect } from 'node:net';
import { promises as dnsp } from 'node:dns';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { run } from '../../src/core/exec.js';
import { isRunning } from '../../scripts/lab/procs.js';
import { LAB_ROOT } from '../../scripts/lab/slots.js';
import { labSkipReason, startLab, type Lab } from '../helpers/lab.js';

const SNMP_ENV = { MIBS: '' };
const LLDP_REM = '1.0.8802.1.1.2.1.4.1.1';
const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** lldpRemTable rows from `snmpwalk -On -Oq`, keyed by LocalPortNum.RemIndex (TimeMark changes between reads). */
function remRows(walk: string): Map<string, Map<number, string>> {
  const rows = new Map<string, Map<number, string>>();
  for (const line of walk.trim().split('\n')) {
    const m = /^\.1\.0\.8802\.1\.1\.2\.1\.4\.1\.1\.(\d+)\.\d+\.(\d+\.\d+) (.*)$/.exec(line);
    if (!m) continue;
    if (!rows.has(m[2]!)) rows.set(m[2]!, new Map());
    rows.get(m[2]!)!.set(Number(m[1]), m[3]!.replace(/^"|"$/g, '').trim());
  }
  return rows;
}

/** The lldpRemTable row whose lldpRemSysName is `name`. */
function neighbour(rows: Map<string, Map<number, string>>, name: string): Map<number, string> {
  const found = [...rows.values()].filter((r) => r.get(9) === name);
  assert.equal(found.length, 1, `one neighbour named ${name} in ${JSON.stringify([...rows.values()].map((r) => r.get(9)))}`);
  return found[0]!;
}

/** First bytes a TCP server sends, or the connect error's code. */
function firstBytes(host: string, port: number): Promise<string> {
  return new Promise((resolve) => {
    const s = connect({ host, port, timeout: 5000 });
    s.once('data', (d) => { resolve(d.toString()); s.destroy(); });
    s.once('error', (e: NodeJS.ErrnoException) => resolve(`error ${e.code}`));
    s.once('timeout', () => { resolve('timeout'); s.destroy(); });
    if (port === 80) s.write(`GET / HTTP/1.0\r\nHost: ${host}\r\n\r\n`);
  });
}

/** What a lab leaves on the system, to compare after stop(). */
async function traces(lab: Lab): Promise<{ namespaces: string[]; pids: number[] }> {
  const list = (await run('ip', ['netns', 'list'])).stdout;
  const namespaces = list.split('\n').map((l) => l.split(' ')[0]!).filter((n) => n.startsWith(`npl${lab.slot}-`));
  const pids: number[] = [];
  for (const ns of namespaces) pids.push(...(await run('ip', ['netns', 'pids', ns])).stdout.split('\n').filter(Boolean).map(Number));
  return { namespaces, pids };
}

async function assertGone(lab: Lab, pids: number[]): Promise<void> {
  const t = await traces(lab);
  assert.deepEqual(t.namespaces, [], 'namespaces left');
  assert.deepEqual(pids.filter(isRunning), [], 'processes left');
  assert.notEqual((await run('ip', ['link', 'show', 'dev', lab.probe.ifname])).code, 0, 'root veth left');
  assert.equal((await run('ip', ['route', 'show', 'exact', lab.range])).stdout.trim(), '', 'lab route left');
  assert.equal(existsSync(lab.dir), false, 'lab directory left');
}

const skip = labSkipReason();

describe('the discovery test lab', { skip: skip ?? false }, () => {
  let lab: Lab;
  const sw = (name: string) => lab.host(name).addresses[0]!;

  before(async () => { lab = await startLab(); });
  after(async () => { await lab?.stop(); });

  test('fping of the lab subnet finds the hosts that answer ICMP, not the silent one', async () => {
    const lan = lab.subnets.find((s) => s.name === 'lan')!.cidr;
    const r = await run('fping', ['-a', '-r1', '-t500', '-i1', '-g', lan], { timeoutMs: 20_000 });
    const alive = r.stdout.trim().split('\n').sort();
    const expected = [lab.probe.address, ...lab.hosts.filter((h) => h.role !== 'silent').flatMap((h) => h.addresses)]
      .filter((a) => a.startsWith(lan.split('.').slice(0, 3).join('.') + '.')).sort();
    assert.deepEqual(alive, expected, r.stderr);
    assert.ok(!alive.includes(lab.host('silent').addresses[0]!));
    // Behind the router too.
    const far = await run('fping', ['-a', '-r1', '-t500', lab.host('srv').addresses[0]!]);
    assert.equal(far.stdout.trim(), lab.host('srv').addresses[0]);
  });

  test('the silent host answers TCP', async () => {
    assert.match(await firstBytes(lab.host('silent').addresses[0]!, 80), /netprobe lab silent/);
    assert.match(await firstBytes(lab.host('srv').addresses[0]!, 80), /netprobe lab srv/);
  });

  test('snmpd serves each switch identity and LLDP neighbours through lldpd', async () => {
    const c = lab.snmp.community;
    const get = await run('snmpget', ['-v2c', '-c', c, '-On', '-Oqv', sw('sw1'), '1.3.6.1.2.1.1.1.0', '1.3.6.1.2.1.1.5.0',
      '1.3.6.1.2.1.47.1.1.1.1.11.1'], { env: SNMP_ENV });
    assert.equal(get.code, 0, get.stderr);
    assert.deepEqual(get.stdout.trim().split('\n'), [`"netprobe lab switch sw1 (Linux bridge, lldpd, Net-SNMP)"`, '"sw1"',
      `"NPL${lab.slot}SW1"`]);

    const walk = async (host: string) => {
      const r = await run('snmpwalk', ['-v2c', '-c', c, '-On', '-Oq', sw(host), LLDP_REM], { env: SNMP_ENV });
      assert.equal(r.code, 0, r.stderr);
      return remRows(r.stdout);
    };
    // Rows are found by name, not counted: an lldpd running on this machine itself shows up on sw1's swp1.
    const sw2 = neighbour(await walk('sw1'), 'sw2');
    assert.equal(sw2.get(6), '5', 'port ID subtype ifName');
    assert.equal(sw2.get(7), 'swp1', 'sw2\'s port cabled to sw1');
    // Chassis ID (subtype 4, MAC) is one of sw2's interface MACs: 02:4e:50:<slot>:<sw2's host byte>:xx.
    const sw2Mac = lab.host('sw2').mac.split(':').slice(0, 5).join(' ').toUpperCase();
    assert.equal(sw2.get(4), '4');
    assert.ok(sw2.get(5)!.startsWith(sw2Mac), `chassis ${sw2.get(5)} is not sw2's (${sw2Mac} ...)`);
    const onSw2 = await walk('sw2');
    assert.equal(neighbour(onSw2, 'sw1').get(7), 'swp2');
    assert.equal(neighbour(onSw2, 'ssh').get(7), 'eth0');
    const json = JSON.parse((await lab.lldpcli('sw2', ['-f', 'json', 'show', 'neighbors'])).stdout);
    assert.ok(JSON.stringify(json).includes('"sw1"'), 'lldpctl on sw2 lists sw1');
  });

  test('sshd answers with its banner and lets both users in', async () => {
    const { ssh } = lab;
    assert.match(await firstBytes(ssh.host, 22), /^SSH-2\.0-OpenSSH_/);
    const common = ['-o', 'StrictHostKeyChecking=no', '-o', 'UserKnownHostsFile=/dev/null', '-o', 'LogLevel=ERROR',
      '-o', 'ConnectTimeout=5'];
    const byKey = await run('ssh', [...common, '-o', 'BatchMode=yes', '-i', ssh.key.privateKeyPath,
      `${ssh.key.username}@${ssh.host}`, 'hostname; id -Gn; PATH=$PATH:/usr/sbin lldpcli -f keyvalue show neighbors']);
    assert.equal(byKey.code, 0, byKey.stderr);
    assert.match(byKey.stdout, /^ssh\n.*\badm\b/);
    assert.match(byKey.stdout, /chassis\.name=sw2/, 'lldpctl over SSH sees the switch');

    // A password login without sshpass: ssh asks SSH_ASKPASS when told to (OpenSSH 8.4+).
    const tmp = await mkdtemp(join(tmpdir(), 'netprobe-lab-askpass-'));
    try {
      const askpass = join(tmp, 'askpass');
      await writeFile(askpass, `#!/bin/sh\nprintf '%s\\n' '${ssh.password.password}'\n`);
      await chmod(askpass, 0o700);
      const byPassword = await run('ssh', [...common, '-o', 'PubkeyAuthentication=no', '-o', 'PreferredAuthentications=password',
        '-o', 'NumberOfPasswordPrompts=1', `${ssh.password.username}@${ssh.host}`, 'id -un'],
      { env: { SSH_ASKPASS: askpass, SSH_ASKPASS_REQUIRE: 'force', DISPLAY: 'none' } });
      assert.equal(byPassword.code, 0, byPassword.stderr);
      assert.equal(byPassword.stdout.trim(), ssh.password.username);
    } finally {
      await rm(tmp, { recursive: true, force: true });
    }
  });

  test('the lab resolver answers PTR queries for lab hosts', async () => {
    const r = new dnsp.Resolver({ timeout: 2000, tries: 1 });
    r.setServers([lab.resolver]);
    assert.deepEqual(await r.reverse(lab.ssh.host), [`ssh.${lab.domain}`]);
    assert.deepEqual(await r.reverse(lab.host('srv').addresses[0]!), [`srv.${lab.domain}`]);
    await assert.rejects(r.reverse(`${lab.range.split('.').slice(0, 3).join('.')}.99`), { code: 'ENOTFOUND' });
  });

  test('the refusal range and the rest of the lab range are refused here: nothing leaves', async () => {
    const get = await run('ip', ['route', 'get', '198.51.100.1']);
    assert.notEqual(get.code, 0);
    assert.match(get.stderr, /No route to host/);
    assert.match((await run('ip', ['route', 'show', 'match', '198.51.100.1'])).stdout, /^unreachable 198\.51\.100\.0\/24/m);
    assert.match((await run('ip', ['route', 'show', 'exact', lab.labNet])).stdout, /^unreachable 10\.77\.0\.0\/16/);
    const refused = await firstBytes('198.51.100.1', 80);
    assert.match(refused, /^error (EHOSTUNREACH|ENETUNREACH)$/);
    // A lab address is routed into the lab (not to the default route), even where nobody answers.
    const inside = (await run('ip', ['-j', 'route', 'get', lab.host('srv').addresses[0]!])).stdout;
    assert.equal(JSON.parse(inside)[0].dev, lab.probe.ifname);
  });

  test('stop() leaves no namespace, veth, route, directory or process; a second stop() is harmless', async () => {
    const before = await traces(lab);
    assert.equal(before.namespaces.length, lab.hosts.length);
    assert.ok(before.pids.length >= 8, `lab processes: ${before.pids}`);
    await lab.stop();
    await assertGone(lab, before.pids);
    await lab.stop();
    // The guard routes go with the last lab out. Another test file may hold a lab, or be between
    // removing its last slot and its guards: wait until the guards are gone or some slot is held.
    const settled = async () => {
      const guard = (await run('ip', ['route', 'show', 'exact', lab.labNet])).stdout.trim();
      const held = readdirSync(LAB_ROOT).some((n) => n.startsWith('slot-'));
      return guard === '' || held;
    };
    let ok = await settled();
    for (let i = 0; i < 40 && !ok; i++) ok = await new Promise((r) => setTimeout(r, 50)).then(settled);
    assert.ok(ok, 'guard routes left behind with no lab running');
  });
});

describe('labs side by side and after a crash', { skip: skip ?? false }, () => {
  test('two labs in one process get their own slots and both work', async () => {
    const [a, b] = await Promise.all([startLab(), startLab()]);
    try {
      assert.notEqual(a.slot, b.slot);
      assert.notEqual(a.range, b.range);
      for (const lab of [a, b]) {
        const r = await run('fping', ['-a', '-r1', '-t500', lab.host('sw1').addresses[0]!, lab.host('srv').addresses[0]!]);
        assert.equal(r.stdout.trim().split('\n').length, 2, `${lab.range}: ${r.stdout}${r.stderr}`);
      }
    } finally {
      await Promise.all([a.stop(), b.stop()]);
    }
  });

  test('a lab whose process was killed is cleaned up by the next start', async () => {
    const script = "import { labUp } from './scripts/lab/lab.ts'; console.log((await labUp()).slot); setInterval(() => {}, 1000);";
    const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script],
      { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
    const [line] = await Promise.race([once(child.stdout!, 'data'), once(child, 'exit').then(() => ['exited'])]);
    const slot = Number(String(line).trim());
    assert.ok(Number.isInteger(slot), `the child lab did not start: ${line}`);
    const orphans = (await run('ip', ['netns', 'pids', `npl${slot}-sw1`])).stdout.split('\n').filter(Boolean).map(Number);
    assert.ok(orphans.length > 0);
    child.kill('SIGKILL'); // no exit hook runs: its lab is left behind, as after a crash
    await once(child, 'exit');
    assert.ok(orphans.every(isRunning), 'the daemons outlive their owner (until their guard timeout)');

    const lab = await startLab();
    try {
      assert.deepEqual(orphans.filter(isRunning), [], 'the stale lab\'s daemons were killed');
      if (lab.slot !== slot) assert.equal(existsSync(join(LAB_ROOT, `slot-${slot}`)), false);
    } finally {
      await lab.stop();
    }
  });
});
