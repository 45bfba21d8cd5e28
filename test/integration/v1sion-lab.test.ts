// The discovery test lab itself (docs/lab.md), checked from the root namespace where the service runs:
// the lan holds the promised 16 live hosts (7 SNMP agents); fping finds those that answer ICMP and not
// the two silent ones, which still answer TCP and ARP; each SNMP agent answers with its own identity
// and only its own credentials, and the project's identify() makes of it what the lab says; both switches
// serve BRIDGE-MIB from their real forwarding tables, sw2 CDP rows naming its real neighbour; the switches'
// snmpd serves LLDP neighbours through lldpd; sshd answers and takes both its users; the lab resolver
// has PTR records; the refusal range is refused locally and the rest of the lab's /20 is dropped.
// Then stop() leaves nothing behind; two labs coexist; a lab whose owner was killed is cleaned up.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, readdirSync } from 'node:fs';
import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { connect } from 'node:net';
import { promises as dnsp } from 'node:dns';
import { createSocket } from 'node:dgram';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { run } from '../../src/core/exec.js';
import { createSnmpClient } from '../../src/modules/snmp/client.js';
import type { SnmpTarget } from '../../src/modules/snmp/contracts.js';
import { identify } from '../../src/modules/snmp/identify.js';
import { OidStore } from '../../src/modules/snmp/oids/oid-store.js';
import { isRunning } from '../../scripts/lab/procs.js';
import { LAB_ROOT } from '../../scripts/lab/slots.js';
import { labSkipReason, startLab, type Lab, type LabHost, type LabSnmp } from '../helpers/lab.js';

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

/** First bytes a TCP server sends (an HTTP request is sent to any port but 22), or the connect error's code. */
function firstBytes(host: string, port: number, timeoutMs = 5000): Promise<string> {
  return new Promise((resolve) => {
    const s = connect({ host, port, timeout: timeoutMs });
    s.once('data', (d) => { resolve(d.toString()); s.destroy(); });
    s.once('error', (e: NodeJS.ErrnoException) => resolve(`error ${e.code}`));
    s.once('timeout', () => { resolve('timeout'); s.destroy(); });
    if (port !== 22) s.write(`GET / HTTP/1.0\r\nHost: ${host}\r\n\r\n`);
  });
}

/** snmpget/snmpwalk arguments for a credential. */
function credentialArgs(c: Pick<LabSnmp, 'version' | 'community' | 'v3'>): string[] {
  if (c.version === 'v3') {
    const v3 = c.v3!;
    return ['-v3', '-u', v3.username, '-l', 'authPriv', '-a', 'SHA', '-A', v3.auth_key, '-x', 'AES', '-X', v3.priv_key];
  }
  return ['-v2c', '-c', c.community!];
}

/** `snmpwalk -On -Oq` output as OID (without the leading dot) -> value. */
function walkMap(out: string): Map<string, string> {
  const m = new Map<string, string>();
  for (const line of out.trim().split('\n')) {
    const i = line.indexOf(' ');
    if (line.startsWith('.') && i > 0) m.set(line.slice(1, i), line.slice(i + 1).replace(/^"|"$/g, '').trim());
  }
  return m;
}

/** Rows of a table column: index (the OID after the column) -> value. */
function column(walk: Map<string, string>, col: string): Map<string, string> {
  const rows = new Map<string, string>();
  for (const [oid, v] of walk) if (oid.startsWith(`${col}.`)) rows.set(oid.slice(col.length + 1), v);
  return rows;
}

const macOfIndex = (index: string) => index.split('.').map((n) => Number(n).toString(16).padStart(2, '0')).join(':');

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
  const lanHosts = () => lab.hosts.filter((h) => h.subnet === 'lan');
  const walk = async (host: string, oid: string, args = credentialArgs({ version: 'v2c', community: lab.snmp.community })) => {
    const r = await run('snmpwalk', [...args, '-On', '-Oq', '-t', '2', '-r', '1', sw(host), oid], { env: SNMP_ENV, timeoutMs: 20_000 });
    assert.equal(r.code, 0, `${host} ${oid}: ${r.stderr}`);
    return walkMap(r.stdout);
  };

  before(async () => {
    const t0 = Date.now();
    lab = await startLab();
    console.log(`# lab slot ${lab.slot} up in ${Date.now() - t0} ms (${lab.hosts.length} hosts, corpus: ${lab.corpus.skip || 'served'})`);
  });
  after(async () => { await lab?.stop(); });

  test('the lan holds 16 live hosts besides the probe, 7 of them SNMP agents; lab.liveIn() lists them', () => {
    const lan = lab.liveIn('lan');
    assert.equal(lan.filter((a) => a.host !== 'probe').length, 16, JSON.stringify(lan));
    assert.equal(lanHosts().filter((h) => h.snmp).length, 7);
    assert.equal(lanHosts().filter((h) => !h.icmp).length, 2);
    assert.deepEqual(lab.liveIn('far').map((a) => a.host).sort(), ['router', 'srv']);
    assert.equal(lab.liveIn('corp').length, 1 + lab.corpus.agents.length);
    for (const s of lab.subnets) assert.ok(!lab.liveIn(s.name).some((a) => a.address === s.silent.first || a.address === s.silent.last));
  });

  test('fping of the lab subnet finds the hosts that answer ICMP, not the silent ones', async () => {
    const lan = lab.subnets.find((s) => s.name === 'lan')!.cidr;
    const r = await run('fping', ['-a', '-r1', '-t500', '-i1', '-g', lan], { timeoutMs: 20_000 });
    const alive = r.stdout.trim().split('\n').sort();
    const expected = lab.liveIn('lan').filter((a) => a.icmp).map((a) => a.address).sort();
    assert.deepEqual(alive, expected, r.stderr);
    assert.ok(!alive.includes(lab.host('silent').addresses[0]!));
    // Behind the router too.
    const behind = [lab.host('srv').addresses[0]!, ...lab.liveIn('corp').map((a) => a.address)];
    const far = await run('fping', ['-a', '-r1', '-t500', ...behind]);
    assert.deepEqual(far.stdout.trim().split('\n').sort(), behind.sort(), far.stderr);
  });

  test('the ICMP-silent hosts answer neither fping nor ping, but TCP and ARP', async () => {
    const silent = lanHosts().filter((h) => !h.icmp);
    assert.deepEqual(silent.map((h) => h.name).sort(), ['silent', 'tcponly']);
    for (const h of silent) {
      const address = h.addresses[0]!;
      const f = await run('fping', ['-r0', '-t300', address]);
      assert.match(f.stdout, /is unreachable/, `${h.name}: ${f.stdout}${f.stderr}`);
      assert.equal(h.tcp.length > 0, true);
      for (const port of h.tcp) assert.match(await firstBytes(address, port), new RegExp(`netprobe lab ${h.name}`), `${h.name}:${port}`);
      // One datagram makes the kernel ARP for it: the neighbour table then holds the host's own MAC.
      const sock = createSocket('udp4');
      await new Promise<void>((resolve) => sock.send(Buffer.from('x'), 9, address, () => resolve()));
      sock.close();
      let entry: { lladdr?: string; state?: string[] } | undefined;
      for (let i = 0; i < 40 && !entry?.lladdr; i++) {
        await new Promise((r) => setTimeout(r, 25));
        entry = JSON.parse((await run('ip', ['-j', 'neigh', 'show', address, 'dev', lab.probe.ifname])).stdout)[0];
      }
      assert.equal(entry?.lladdr, h.mac, `${h.name} in the neighbour table: ${JSON.stringify(entry)}`);
    }
    assert.match(await firstBytes(lab.host('srv').addresses[0]!, 80), /netprobe lab srv/);
  });

  test('each SNMP agent answers with its own identity, and only to its own credentials', async () => {
    const { community, community2, v3 } = lab.snmp;
    const credentials: Pick<LabSnmp, 'version' | 'community' | 'v3'>[] = [
      { version: 'v2c', community }, { version: 'v2c', community: community2 }, { version: 'v3', v3 }];
    const agents = lab.hosts.filter((h): h is LabHost & { snmp: LabSnmp } => h.snmp !== null);
    assert.deepEqual(agents.map((h) => h.name), lab.snmp.agents);
    const sysName = '1.3.6.1.2.1.1.5.0';
    const sysObjectID = '1.3.6.1.2.1.1.2.0';
    const get = (h: LabHost, c: Pick<LabSnmp, 'version' | 'community' | 'v3'>, timeout: string) =>
      run('snmpget', [...credentialArgs(c), '-On', '-Oqv', '-t', timeout, '-r', '0', h.addresses[0]!, sysObjectID, sysName], { env: SNMP_ENV });
    await Promise.all(agents.map(async (h) => {
      const own = await get(h, h.snmp, '2');
      assert.equal(own.code, 0, `${h.name}: ${own.stderr}`);
      const [objectId, name] = own.stdout.trim().split('\n');
      assert.equal(objectId, `.${h.snmp.sys.objectId}`, h.name);
      if (h.snmp.sys.name === null) assert.match(name!, /No Such Object/, h.name);
      else assert.equal(name!.replace(/^"|"$/g, ''), h.snmp.sys.name, h.name);
      for (const other of credentials) {
        const same = other.version === h.snmp.version && (other.version === 'v3' || other.community === h.snmp.community);
        if (same) continue;
        const r = await get(h, other, '0.4');
        assert.notEqual(r.code, 0, `${h.name} answered ${other.version} ${other.community ?? other.v3?.username}: ${r.stdout}`);
      }
    }));
    assert.equal(lab.host('v3only').snmp!.version, 'v3', 'the v3-only host takes no community at all');
  });

  test('identify() makes of each SNMP agent what the lab says it is', async () => {
    const client = createSnmpClient();
    const store = OidStore.load();
    const agents = lab.hosts.filter((h) => h.snmp?.expect);
    assert.ok(agents.length >= 7, 'every lan agent has an expectation');
    await Promise.all(agents.map(async (h) => {
      const s = h.snmp!;
      const target: SnmpTarget = { host: h.addresses[0]!, version: s.version, timeout_ms: 2000, retries: 1,
        ...(s.version === 'v3' ? { v3: s.v3 } : { community: s.community }) };
      const id = await identify(client, target, store, () => Date.now());
      const { vendor_key, variant, kind, os, model, serial, version, firmware, manufacturer } = id;
      assert.deepEqual({ vendor_key, variant, kind, os, model, serial, version, firmware, manufacturer }, s.expect, h.name);
      assert.equal(id.sys.descr?.trim(), s.sys.descr.trim(), `${h.name} sysDescr`);
    }));
  });

  test('corp: one simulated agent per recording of the shared corpus, or a reason why not', (t) => {
    if (lab.corpus.skip) {
      assert.deepEqual(lab.corpus.agents, []);
      t.skip(lab.corpus.skip);
      return;
    }
    const files = readdirSync(lab.corpus.dir).filter((f) => f.endsWith('.snmprec'));
    assert.equal(lab.corpus.agents.length, files.length);
    for (const name of lab.corpus.agents) {
      const h = lab.host(name);
      assert.equal(h.subnet, 'corp');
      assert.equal(h.snmp?.agent, 'simulator');
      assert.ok(h.snmp?.recording?.startsWith(lab.corpus.dir));
    }
  });

  // Each switch's BRIDGE-MIB, from its real forwarding table: every lan host on the port that leads to it (its
  // own cable, else the uplink: sw1's swp2 to sw2, sw2's swp1 to sw1). sw2's table is what places plain3, the
  // printer and plain5 on its swp6-8 in a scan (issue 35 §5: their monitors get sw2's as parent).
  for (const [sw, uplink] of [['sw1', 'swp2'], ['sw2', 'swp1']] as const) {
    test(`${sw} serves BRIDGE-MIB from its real forwarding table: every lan host on the port that leads to it`, async () => {
      // Traffic to every lan address first, so that every host has sent a frame (an ARP reply at least).
      await run('fping', ['-r0', '-t300', '-i1', ...lab.liveIn('lan').map((a) => a.address)]);
      await new Promise((r) => setTimeout(r, 600)); // past bridge-mib's refresh interval
      const bridge = await walk(sw, '1.3.6.1.2.1.17');
      const ifName = column(await walk(sw, '1.3.6.1.2.1.31.1.1.1.1'), '1.3.6.1.2.1.31.1.1.1.1');
      const self = lab.host(sw);
      assert.equal(bridge.get('1.3.6.1.2.1.17.1.1.0')!.toLowerCase().replace(/ /g, ':'), self.mac, 'dot1dBaseBridgeAddress');
      const ports = lab.cables.flat().filter((e) => e.host === sw).map((e) => e.ifname);
      assert.equal(bridge.get('1.3.6.1.2.1.17.1.2.0'), String(ports.length), 'dot1dBaseNumPorts');

      // dot1dBasePortIfIndex: bridge port -> ifIndex -> ifName, and never port = ifIndex.
      const portIfIndex = column(bridge, '1.3.6.1.2.1.17.1.4.1.2');
      assert.equal(portIfIndex.size, ports.length);
      const portName = new Map<string, string>();
      for (const [port, ifIndex] of portIfIndex) {
        assert.notEqual(port, ifIndex, 'a bridge port number equal to its ifIndex');
        assert.ok(ifName.has(ifIndex), `ifIndex ${ifIndex} of bridge port ${port} is not in IF-MIB`);
        portName.set(port, ifName.get(ifIndex)!);
      }
      assert.deepEqual([...portName.values()].sort(), [...ports].sort());

      // The port of the switch that leads to each lan host, from the cabling.
      const portTo = (host: string) => {
        const c = lab.cables.find(([a, b]) => (a.host === sw && b.host === host) || (b.host === sw && a.host === host));
        return c ? (c[0].host === sw ? c[0] : c[1]).ifname : uplink;
      };
      const fdbPort = column(bridge, '1.3.6.1.2.1.17.4.3.1.2');
      const fdbStatus = column(bridge, '1.3.6.1.2.1.17.4.3.1.3');
      const learned = new Map([...fdbPort].map(([index, port]) => [macOfIndex(index), { port, status: fdbStatus.get(index) }]));
      // A host's answers to the probe cross the switch unless the host is on the probe's side of it (sw2's
      // swp1: sw1's hosts answer the probe through sw1 alone), so those must be learned; the probe is learned
      // from its ARP broadcasts and its pings. Any other row is on the port that leads to its host too.
      const hosts = [{ name: 'probe', mac: lab.probe.mac }, ...lanHosts().filter((h) => h.name !== sw)];
      const must = hosts.filter((h) => h.name === 'probe' || portTo(h.name) !== portTo('probe'));
      assert.ok(must.length >= (sw === 'sw1' ? 16 : 8), must.map((h) => h.name).join());
      for (const h of hosts) {
        const row = learned.get(h.mac);
        if (!row && !must.includes(h)) continue;
        assert.ok(row, `${h.name} (${h.mac}) is not in ${sw}'s forwarding table`);
        assert.equal(portName.get(row.port), portTo(h.name), `${h.name} on the wrong port`);
        assert.equal(row.status, '3', `${h.name} learned`);
      }
      // The real table says the same.
      const real = JSON.parse((await lab.exec(sw, 'bridge', ['-j', 'fdb', 'show', 'br', 'br0'])).stdout) as { mac: string; ifname: string }[];
      for (const h of must) assert.equal(real.find((e) => e.mac === h.mac)?.ifname, portTo(h.name), `bridge fdb: ${h.name}`);
    });
  }

  test('sw2 serves a CDP cache row naming its real neighbour on swp3: the router, its address and port', async () => {
    const cdp = await walk('sw2', '1.3.6.1.4.1.9.9.23.1.2.1.1');
    const ifName = column(await walk('sw2', '1.3.6.1.2.1.31.1.1.1.1'), '1.3.6.1.2.1.31.1.1.1.1');
    const ifIndex = [...ifName].find(([, name]) => name === 'swp3')![0];
    const col = (n: number) => cdp.get(`1.3.6.1.4.1.9.9.23.1.2.1.1.${n}.${ifIndex}.1`);
    const router = lab.host('router').addresses[0]!;
    assert.equal(col(3), '1');
    assert.equal(col(4), router.split('.').map((n) => Number(n).toString(16).padStart(2, '0').toUpperCase()).join(' '));
    assert.equal(col(6), 'router');
    assert.equal(col(7), 'eth0');
    assert.equal(col(8), 'Linux');
    assert.equal(col(9), '00 00 00 01', 'capabilities: router');
    assert.equal(new Set([...cdp.keys()].map((k) => k.split('.').slice(-2).join('.'))).size, 1, 'one neighbour row');
    // The row matches the cabling: sw2's swp3 is cabled to the router's eth0.
    assert.ok(lab.cables.some(([a, b]) => a.host === 'sw2' && a.ifname === 'swp3' && b.host === 'router' && b.ifname === 'eth0'));
  });

  test('snmpd serves each switch identity and LLDP neighbours through lldpd', async () => {
    const c = lab.snmp.community;
    const get = await run('snmpget', ['-v2c', '-c', c, '-On', '-Oqv', sw('sw1'), '1.3.6.1.2.1.1.1.0', '1.3.6.1.2.1.1.5.0',
      '1.3.6.1.2.1.47.1.1.1.1.11.1'], { env: SNMP_ENV });
    assert.equal(get.code, 0, get.stderr);
    assert.deepEqual(get.stdout.trim().split('\n'), [`"netprobe lab switch sw1 (Linux bridge, lldpd, Net-SNMP)"`, '"sw1"',
      `"NPL${lab.slot}SW1"`]);

    const lldpWalk = async (host: string) => {
      const r = await run('snmpwalk', ['-v2c', '-c', c, '-On', '-Oq', sw(host), LLDP_REM], { env: SNMP_ENV });
      assert.equal(r.code, 0, r.stderr);
      return remRows(r.stdout);
    };
    // Rows are found by name, not counted: an lldpd running on this machine itself shows up on sw1's swp1.
    const sw2 = neighbour(await lldpWalk('sw1'), 'sw2');
    assert.equal(sw2.get(6), '5', 'port ID subtype ifName');
    assert.equal(sw2.get(7), 'swp1', 'sw2\'s port cabled to sw1');
    // Chassis ID (subtype 4, MAC) is one of sw2's interface MACs: 02:4e:50:<slot>:<sw2's host byte>:xx.
    const sw2Mac = lab.host('sw2').mac.split(':').slice(0, 5).join(' ').toUpperCase();
    assert.equal(sw2.get(4), '4');
    assert.ok(sw2.get(5)!.startsWith(sw2Mac), `chassis ${sw2.get(5)} is not sw2's (${sw2Mac} ...)`);
    const onSw2 = await lldpWalk('sw2');
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
    assert.deepEqual(await r.reverse(lab.host('access-sw1').addresses[0]!), [`access-sw1.${lab.domain}`]);
    for (const name of lab.corpus.agents.slice(0, 2)) assert.deepEqual(await r.reverse(lab.host(name).addresses[0]!), [`${name}.${lab.domain}`]);
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

  test('the rest of the lab\'s /20 goes into the lab and meets a fast silence: no answer, no ICMP error', async () => {
    const outside = lab.outside.first.replace(/\.0$/, '.1');
    const route = JSON.parse((await run('ip', ['-j', 'route', 'get', outside])).stdout);
    assert.equal(route[0].dev, lab.probe.ifname);
    assert.equal(route[0].gateway, lab.host('router').addresses[0]);
    const f = await run('fping', ['-r0', '-t300', outside, lab.outside.last]);
    assert.match(f.stdout, /is unreachable[\s\S]*is unreachable/);
    assert.doesNotMatch(f.stderr, /ICMP/, 'the router sends no ICMP error for the rest of the range');
    assert.equal(await firstBytes(outside, 80, 800), 'timeout');
    // And the silent range of a subnet: nothing there, on the lan nobody answers ARP either.
    const lanSilent = lab.subnets.find((s) => s.name === 'lan')!.silent.first;
    assert.match((await run('fping', ['-r0', '-t300', lanSilent])).stdout, /is unreachable/);
  });

  test('stop() leaves no namespace, veth, route, directory or process; a second stop() is harmless', async () => {
    const before = await traces(lab);
    assert.deepEqual(before.namespaces.sort(), [...lab.namespaces].sort());
    assert.ok(before.pids.length >= 12, `lab processes: ${before.pids}`);
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
  test('two labs in one process get their own slots and both work; one without the corpus has the same lan', async () => {
    const [a, b] = await Promise.all([startLab(), startLab({ corpus: false })]);
    try {
      assert.notEqual(a.slot, b.slot);
      assert.notEqual(a.range, b.range);
      for (const lab of [a, b]) {
        const r = await run('fping', ['-a', '-r1', '-t500', lab.host('sw1').addresses[0]!, lab.host('srv').addresses[0]!]);
        assert.equal(r.stdout.trim().split('\n').length, 2, `${lab.range}: ${r.stdout}${r.stderr}`);
        // The same simulated agent in each lab, on its own address and community, each with its own BRIDGE-MIB.
        const sim = await run('snmpget', ['-v2c', '-c', lab.snmp.community, '-Oqv', '-t', '2', '-r', '1', lab.host('access-sw1').addresses[0]!,
          '1.3.6.1.2.1.1.5.0'], { env: SNMP_ENV });
        assert.equal(sim.stdout.trim().replace(/"/g, ''), 'access-sw1', `${lab.range}: ${sim.stderr}`);
        const ports = await run('snmpget', ['-v2c', '-c', lab.snmp.community, '-Oqv', '-t', '2', '-r', '1', lab.host('sw1').addresses[0]!,
          '1.3.6.1.2.1.17.1.2.0'], { env: SNMP_ENV });
        assert.equal(ports.stdout.trim(), String(lab.cables.flat().filter((e) => e.host === 'sw1').length), `${lab.range}: ${ports.stderr}`);
      }
      assert.ok(b.corpus.skip, 'a lab started without the corpus says so');
      assert.deepEqual(b.corpus.agents, []);
      assert.deepEqual(b.liveIn('corp').map((x) => x.host), ['router']);
      assert.equal(b.liveIn('lan').length, a.liveIn('lan').length);
      assert.equal(b.hosts.filter((h) => h.subnet === 'lan' && h.snmp).length, 7);
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
