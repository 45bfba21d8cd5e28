// Subnet scans against the test lab (docs/lab.md), as a person would run them from the probe: every live
// host found (the ICMP-silent ones too), every SNMP agent identified with the credential it answers
// (one only on a second community, one SNMPv3-only), the switches' LLDP cabling with real port names,
// a CDP neighbour and forwarding-table attachments on both switches (a host behind sw2 on sw2's access
// port, not on sw1's uplink), hosts behind the router, and no secret anywhere.
// Reverse DNS goes to the lab's resolver; every packet stays in the lab.
import assert from 'node:assert/strict';
import { readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { after, before, describe, test } from 'node:test';
import { startTestApp, type TestApp } from '../helpers/harness.js';
import { assertMatchesResponse } from '../helpers/route-schema.js';
import { labSkipReason, startLab, type Lab } from '../helpers/lab.js';

const skip = labSkipReason();
/** discovery.tcp_ports by default. */
const SCANNED_PORTS = [22, 23, 53, 80, 135, 139, 443, 445, 3389, 8080, 8443];

interface Host { ip: string; alive_by: string[]; mac: string | null; hostname: string | null; open_ports: number[]; snmp: any; device_id: string;
  advertised?: any }
interface Device { id: string; name: string; addresses: string[]; kind: string; seen: string }
interface Link { from: string; to: string; from_port: string | null; to_port: string | null; source: string }

describe('subnet scans in the lab', { skip: skip ?? false }, () => {
  let lab: Lab;
  let t: TestApp;
  let dir: string;
  let key: string;
  let stored: { community2: string; v3: string };
  let result: { hosts: Host[]; devices: Device[]; links: Link[]; counts: any; warnings: string[]; state: string };
  let events: any[] = [];
  const api = (method: string, path: string, body?: unknown) => t.request(method, path, { key, body });

  before(async () => {
    lab = await startLab();
    dir = await mkdtemp(join(tmpdir(), 'netprobe-scanlab-'));
    await writeFile(join(dir, 'config.yaml'), `discovery:\n  dns_servers: [${lab.resolver}]\n`);
    t = await startTestApp({ dataDir: dir });
    key = (await t.admin()).key;
    assert.equal((await api('POST', '/api/brain/vault/setup', { passphrase: 'correct horse battery staple' })).status, 200);
    const c2 = await api('POST', '/api/brain/credentials', { scope: ['10.77.0.0/16'], name: 'second community', kind: 'snmp_v2c', community: lab.snmp.community2 });
    const v3 = await api('POST', '/api/brain/credentials', { scope: ['10.77.0.0/16'],
      name: 'lab v3', kind: 'snmp_v3', username: lab.snmp.v3.username, snmpv3_level: 'authPriv',
      snmpv3_auth_protocol: lab.snmp.v3.auth_protocol, snmpv3_auth_key: lab.snmp.v3.auth_key,
      snmpv3_priv_protocol: lab.snmp.v3.priv_protocol, snmpv3_priv_key: lab.snmp.v3.priv_key,
    });
    assert.equal(c2.status, 201, c2.text);
    assert.equal(v3.status, 201, v3.text);
    stored = { community2: c2.body.id, v3: v3.body.id };

    const lan = lab.subnets.find((s) => s.name === 'lan')!;
    const r = await api('POST', '/api/v1sion/scan', {
      subnet: lan.cidr, community: lab.snmp.community, snmp_version: '2c', credentials: [c2.body.short_id, v3.body.id],
    });
    assert.equal(r.status, 202, r.text);
    const res = await fetch(`${t.url}/api/v1sion/scan/${r.body.job_id}/stream`, { headers: { 'x-api-key': key } });
    const text = await res.text();
    events = text.split('\n\n').filter((b) => b.includes('data:'))
      .map((b) => JSON.parse(b.split('\n').filter((l) => l.startsWith('data:')).map((l) => l.slice(5).trim()).join('\n')));
    const got = await api('GET', `/api/v1sion/scan/${r.body.job_id}/result`);
    assert.equal(got.status, 200, got.text);
    result = got.body;
  });
  after(async () => {
    await t?.close();
    await lab?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  const host = (ip: string) => result.hosts.find((h) => h.ip === ip);
  const deviceOf = (name: string) => {
    const ip = lab.host(name).addresses[0]!;
    return result.devices.find((d) => d.id === host(ip)?.device_id);
  };

  test('the scan completes, streaming a host message for every live host', () => {
    assert.equal(result.state, 'completed', JSON.stringify(result.warnings));
    assert.equal(events.at(-1).type, 'completed');
    const streamed = new Set(events.filter((e) => e.type === 'host').map((e) => e.host.ip));
    assert.equal(streamed.size, result.hosts.length);
  });

  test('every live host is found, the ICMP-silent ones too; silent addresses are not', () => {
    const lan = lab.hosts.filter((h) => h.subnet === 'lan');
    assert.ok(lan.length >= 16, `the lab has ${lan.length} lan hosts`);
    for (const h of lan) {
      const found = host(h.addresses[0]!);
      assert.ok(found, `${h.name} (${h.addresses[0]}) found`);
      if (!h.icmp) assert.ok(!found.alive_by.includes('icmp') && found.alive_by.some((s) => s === 'arp' || s === 'tcp'), `${h.name} by ARP/TCP`);
      assert.equal(found.mac, h.mac, `${h.name}'s MAC`);
      for (const p of h.tcp.filter((x) => SCANNED_PORTS.includes(x))) assert.ok(found.open_ports.includes(p), `${h.name} port ${p} open`);
    }
    assert.ok(host(lab.probe.address), 'the probe itself');
    const lanHosts = result.hosts.filter((h) => h.ip.startsWith(lab.subnets.find((s) => s.name === 'lan')!.cidr.split('.').slice(0, 3).join('.') + '.'));
    assert.equal(lanHosts.length, lan.length + 1, 'nothing else answered');
  });

  test('reverse names come from the lab resolver', () => {
    assert.equal(host(lab.host('dns').addresses[0]!)?.hostname, `dns.${lab.domain}`);
  });

  test('every SNMP agent is identified with the credential it answers', () => {
    for (const h of lab.hosts.filter((x) => x.subnet === 'lan' && x.snmp)) {
      const s = host(h.addresses[0]!)?.snmp;
      assert.ok(s, `${h.name} answered SNMP: ${JSON.stringify(host(h.addresses[0]!))} ${JSON.stringify(result.warnings)}`);
      if (h.snmp!.expect) {
        assert.equal(s.vendor_key, h.snmp!.expect.vendor_key, `${h.name}'s profile`);
        assert.equal(s.model, h.snmp!.expect.model, `${h.name}'s model`);
        assert.equal(s.serial, h.snmp!.expect.serial, `${h.name}'s serial`);
      }
      assert.equal(s.sys_name, h.snmp!.sys.name, `${h.name}'s sysName`);
      const cred = s.credential;
      if (h.snmp!.version === 'v3') assert.equal(cred.credential_id, stored.v3, `${h.name} by the v3 credential`);
      else if (h.snmp!.community === lab.snmp.community2) assert.equal(cred.credential_id, stored.community2, `${h.name} by the second community`);
      else assert.deepEqual(cred, { inline: true, version: 'v2c', position: 1 }, `${h.name} by the inline community`);
      if (h.snmp!.agent === 'snmpd') assert.match(s.engine_id ?? '', /^[0-9a-f]{10,64}$/, `${h.name}'s engine ID`);
    }
  });

  test('the switches are switches (issue 35 §4): by BRIDGE-MIB, and the result says so', () => {
    const kinds = Object.fromEntries(['sw1', 'sw2', 'router', 'snmp2'].map((n) => [n, deviceOf(n)!.kind]));
    assert.deepEqual(kinds, { sw1: 'switch', sw2: 'switch', router: 'server', snmp2: 'server' });
    const evidence = (name: string) => host(lab.host(name).addresses[0]!)!.snmp!.evidence!;
    // BRIDGE-MIB comes before LLDP's bridge capability (which sw2's lldpd also sends; kind-evidence.ts).
    for (const [sw, ports] of [['sw1', 9], ['sw2', 8]] as const) {
      assert.equal(evidence(sw).kind, `BRIDGE-MIB answers (dot1dBaseNumPorts ${ports}, dot1dBaseBridgeAddress ${lab.host(sw).mac})`);
    }
    assert.match(evidence('router').kind, /^no bridging or LLDP evidence: server/);
    assert.match(evidence('sw1').manufacturer ?? '', /^enterprise 8072 \(net-snmp\)/);
    for (const h of lab.hosts.filter((x) => x.subnet === 'lan' && x.snmp?.expect)) {
      const e = host(h.addresses[0]!)!.snmp!.evidence;
      assert.ok(e?.kind && e.variant, `${h.name} says which evidence decided`);
    }
  });

  test('one device per box: the router answers on two addresses', () => {
    const router = deviceOf('router')!;
    assert.ok(router);
    for (const h of lab.hosts.filter((x) => x.snmp && x.subnet === 'lan')) {
      const d = deviceOf(h.name)!;
      assert.ok(d, `${h.name} has a device`);
      assert.equal(result.devices.filter((x) => x.id === d.id).length, 1);
      if (h.name !== 'router') assert.notEqual(d.id, router.id, `${h.name} is not merged into the router`);
    }
    assert.equal(new Set(lab.hosts.filter((x) => x.snmp && x.subnet === 'lan').map((h) => deviceOf(h.name)!.id)).size,
      lab.hosts.filter((x) => x.snmp && x.subnet === 'lan').length, 'distinct agents are distinct devices');
  });

  test('LLDP cabling between the switches, with their real port names', () => {
    const sw1 = deviceOf('sw1')!;
    const sw2 = deviceOf('sw2')!;
    const link = result.links.find((l) => l.source === 'lldp' && [l.from, l.to].sort().join() === [sw1.id, sw2.id].sort().join());
    assert.ok(link, `sw1-sw2 link in ${JSON.stringify(result.links)}`);
    const ports = link.from === sw1.id ? [link.from_port, link.to_port] : [link.to_port, link.from_port];
    assert.deepEqual(ports, ['swp2', 'swp1']);
    const ssh = deviceOf('ssh')!;
    assert.ok(result.links.some((l) => l.source === 'lldp' && l.from === sw2.id && l.to === ssh.id && l.from_port === 'swp2'), 'sw2 swp2 - ssh');
  });

  test('a CDP neighbour and forwarding-table attachments', () => {
    const sw1 = deviceOf('sw1')!;
    const sw2 = deviceOf('sw2')!;
    const router = deviceOf('router')!;
    assert.ok(result.links.some((l) => l.source === 'cdp' && l.from === sw2.id && l.to === router.id && l.from_port === 'swp3' && l.to_port === 'eth0'),
      `sw2 swp3 - router eth0 by CDP in ${JSON.stringify(result.links)}`);
    for (const [name, port] of [['dns', 'swp3'], ['silent', 'swp4']] as const) {
      const d = deviceOf(name)!;
      assert.ok(result.links.some((l) => l.source === 'fdb' && l.from === sw1.id && l.to === d.id && l.from_port === port), `${name} on sw1 ${port}`);
    }
    assert.ok(!result.links.some((l) => l.source === 'fdb' && l.from === sw1.id && l.from_port === 'swp2'), 'the uplink to sw2 attaches nobody');
    // The hosts behind sw2 are seen by both switches, on sw1's uplink and on sw2's access ports: they are
    // on sw2's ports (the edge port wins), and sw2's uplink to sw1 attaches nobody either.
    for (const [name, port] of [['plain3', 'swp6'], ['printer', 'swp7'], ['plain5', 'swp8']] as const) {
      const d = deviceOf(name)!;
      const fdb = result.links.filter((l) => l.source === 'fdb' && l.to === d.id);
      assert.deepEqual(fdb.map((l) => [l.from, l.from_port]), [[sw2.id, port]], `${name} on sw2 ${port} only: ${JSON.stringify(fdb)}`);
    }
    assert.ok(!result.links.some((l) => l.source === 'fdb' && l.from === sw2.id && l.from_port === 'swp1'), 'the uplink to sw1 attaches nobody');
  });

  test('the router\'s routes are offered for import, none written', async () => {
    const router = deviceOf('router')!;
    const far = lab.subnets.find((s) => s.name === 'far')!;
    const routes = (result as unknown as { routes: { device_id: string; destination: string; interface: string | null }[] }).routes;
    assert.ok(routes.some((r) => r.device_id === router.id && r.destination === far.cidr && r.interface === 'eth1'),
      `a route to ${far.cidr} on eth1 in ${JSON.stringify(routes)}`);
    assert.equal((await api('GET', '/api/v1sion/routes')).body.total, 0);
  });

  test('where stored credentials worked is recorded in the inventory', async () => {
    const r = await api('GET', `/api/brain/credentials/${stored.community2}/scan`);
    assert.equal(r.status, 200, r.text);
    assert.match(r.text, new RegExp(lab.host('snmp2').addresses[0]!.replace(/\./g, '\\.')));
    assert.match(r.text, /success/);
  });

  test('the printer names itself over mDNS/DNS-SD and SSDP (issue 35 §6): its services, TXT facts and UPnP description', () => {
    const printer = lab.host('printer');
    const a = host(printer.addresses[0]!)?.advertised;
    assert.ok(a, `advertised facts of the printer: ${JSON.stringify(host(printer.addresses[0]!))} ${JSON.stringify(result.warnings)}`);
    assert.equal(a.name, `Lab Printer NPL-P${lab.slot}`);
    assert.equal(a.host_name, printer.ns);
    assert.equal(a.category, 'printer');
    assert.deepEqual(a.services.map((x: { type: string }) => x.type), ['_ipp._tcp', '_http._tcp']);
    const ipp = a.services[0];
    assert.equal(ipp.port, 631);
    assert.equal(ipp.txt.ty, 'NPL LaserJet 400 M401dn');
    assert.equal(ipp.txt.usb_mdl, 'LaserJet 400 M401dn');
    // The _http._tcp instance's PTR came without SRV and TXT: the stage asked for them.
    assert.deepEqual({ port: a.services[1].port, txt: a.services[1].txt }, { port: 80, txt: { path: '/' } });
    assert.deepEqual(a.upnp, { server: 'Linux/6.1 UPnP/1.1 netprobe-lab-printer/1.0',
      location: `http://${printer.addresses[0]}:80/description.xml`, device_types: ['Printer:1'],
      friendly_name: `Lab Printer NPL-P${lab.slot}`, manufacturer: 'NPL', model_name: 'LaserJet 400 M401dn', model_number: 'M401dn',
      serial: `NPL${lab.slot}PRN` });
    // Its device is named, made and placed by it; no other lan host advertises anything.
    const d = deviceOf('printer')!;
    assert.deepEqual([d.name, d.kind, (d as unknown as { category: string }).category], [`Lab Printer NPL-P${lab.slot}`, 'host', 'printer']);
    const others = result.hosts.filter((h) => h.ip !== printer.addresses[0] && h.advertised);
    assert.deepEqual(others.map((h) => h.ip), []);
  });

  test('mDNS and SSDP were asked from the probe\'s lan address on ephemeral ports, and only on the scanned link', async () => {
    const log = await readFile(join(lab.host('printer').dir, 'advertiser.log'), 'utf8');
    const sources = [...log.matchAll(/^(mdns query|ssdp search) from ([\d.]+):(\d+)/gm)].map((m) => ({ what: m[1], ip: m[2], port: Number(m[3]) }));
    assert.ok(sources.some((x) => x.what === 'mdns query') && sources.some((x) => x.what === 'ssdp search'), log);
    for (const x of sources) {
      assert.equal(x.ip, lab.probe.address, `${x.what} from the probe's lan address`);
      assert.ok(x.port !== 5353 && x.port !== 1900 && x.port >= 1024, `${x.what} from an ephemeral port, not ${x.port}`);
    }
    assert.match(log, /mdns query from [\d.]+:\d+ id \d+: _services\._dns-sd\._udp\.local\/12\/QU/);
    assert.match(log, /ssdp search from [\d.]+:\d+ st ssdp:all mx 1/);
    assert.match(log, /http GET \/description\.xml from/);
  });

  test('hosts behind the router are found by TCP; no mDNS or SSDP is sent for a subnet off the probe\'s links', async () => {
    const logFile = join(lab.host('printer').dir, 'advertiser.log');
    const before = (await readFile(logFile, 'utf8')).length;
    const far = lab.subnets.find((s) => s.name === 'far')!;
    const r = await api('POST', '/api/v1sion/scan', { subnet: far.cidr, community: lab.snmp.community });
    assert.equal(r.status, 202, r.text);
    await t.service.app.jobs.waitFor(r.body.job_id);
    let got;
    for (let i = 0; i < 50; i++) {
      got = await api('GET', `/api/v1sion/scan/${r.body.job_id}/result`);
      if (got.status === 200) break;
      await new Promise((res) => setTimeout(res, 100));
    }
    const srv = got!.body.hosts.find((h: Host) => h.ip === lab.host('srv').addresses[0]);
    assert.ok(srv, `srv found in ${JSON.stringify(got!.body.hosts.map((h: Host) => h.ip))}`);
    assert.ok(srv.open_ports.includes(80));
    assert.equal(srv.advertised, null, 'not asked: far is no link of the probe');
    assert.equal((await readFile(logFile, 'utf8')).slice(before), '', 'the lan\'s printer heard nothing of the far scan');
  });

  test('a device by SNMP: identification, interfaces and neighbours', async () => {
    const r = await api('POST', '/api/v1sion/device/snmp', { ip: lab.host('sw1').addresses[0], community: lab.snmp.community });
    assert.equal(r.status, 200, r.text);
    assert.equal(r.body.identification.sys_name, 'sw1');
    assertMatchesResponse(t, 'POST', '/api/v1sion/device/snmp', r.body);
    assert.ok(r.body.interfaces.some((i: { name: string }) => i.name === 'swp2'));
    assert.ok(r.body.neighbours.some((n: { local_port: string; remote: { sys_name: string } }) => n.local_port === 'swp2' && n.remote.sys_name === 'sw2'));
    const wrong = await api('POST', '/api/v1sion/device/snmp', { ip: lab.host('sw1').addresses[0], community: 'not-the-community' });
    assert.equal(wrong.status, 422, wrong.text);
    const none = await api('POST', '/api/v1sion/device/snmp', { ip: lab.subnets[0]!.silent.first, community: lab.snmp.community });
    assert.ok([502, 504].includes(none.status), none.text);
  });

  test('no secret in any result, log or file', async () => {
    const secrets = [lab.snmp.community, lab.snmp.community2, lab.snmp.v3.auth_key, lab.snmp.v3.priv_key];
    const texts = [JSON.stringify(result), JSON.stringify(events), t.logs.join('\n')];
    for (const f of await readdir(join(dir, 'v1sion', 'scans'))) texts.push(gunzipSync(await readFile(join(dir, 'v1sion', 'scans', f))).toString());
    await t.service.app.store.flush();
    for (const f of await readdir(dir)) {
      if (f.endsWith('.db') || f.includes('journal')) texts.push((await readFile(join(dir, f))).toString('latin1'));
    }
    for (const s of secrets) for (const text of texts) assert.ok(!text.includes(s), 'a secret leaked');
  });
});
