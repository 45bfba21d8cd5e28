// SSH enrichment's platform parsers on the samples of test/fixtures/ssh/<platform>/ (hand-written after the
// vendors' documented formats, see its README; Linux's are the lab's real output), the script and marker
// machinery of enrich-ssh/ssh.ts (the POSIX script run through a real local `sh`), and platform detection.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { capFacts, emptyFacts, FACT_LIMITS, PLATFORMS } from '../../src/modules/v1sion/enrich-ssh/facts.js';
import { PLATFORM_DEFS, platformFromBanner, platformFromVersion, type Sections } from '../../src/modules/v1sion/enrich-ssh/platforms/index.js';
import { lldpOf, servicesOf } from '../../src/modules/v1sion/enrich-ssh/platforms/linux.js';
import { duration, mac, terseRows } from '../../src/modules/v1sion/enrich-ssh/platforms/text.js';
import {
  cleanTerminal, cliError, fingerprintOf, keyProblem, keyTypeOf, MarkerParser, posixScript, routerosScript,
} from '../../src/modules/v1sion/enrich-ssh/ssh.js';

const FIXTURES = new URL('../fixtures/ssh/', import.meta.url).pathname;

function sections(platform: string, extra: Record<string, string> = {}): Sections {
  const dir = join(FIXTURES, platform);
  const out: Sections = {};
  for (const f of readdirSync(dir).filter((x) => x.endsWith('.txt'))) {
    out[f.replace(/\.txt$/, '')] = { text: readFileSync(join(dir, f), 'utf8'), ok: true, error: null, truncated: false, ms: 1 };
  }
  for (const [k, v] of Object.entries(extra)) out[k] = { text: v, ok: true, error: null, truncated: false, ms: 1 };
  return out;
}
const parse = (platform: keyof typeof PLATFORM_DEFS, extra?: Record<string, string>) => PLATFORM_DEFS[platform].parse(sections(platform, extra));

test('every platform has a parser, a fixed command list and samples for each of its commands', () => {
  for (const name of PLATFORMS) {
    const p = PLATFORM_DEFS[name];
    assert.equal(p.name, name);
    assert.ok(p.commands.length >= 4, `${name} commands`);
    assert.equal(new Set(p.commands.map((c) => c.name)).size, p.commands.length, `${name}: unique section names`);
    for (const c of p.commands) {
      assert.match(c.name, /^\w+$/);
      const sample = join(FIXTURES, name, `${c.name}.txt`);
      if (name !== 'linux' || !c.optional || !/^(dmi|dt)_/.test(c.name)) assert.ok(existsSync(sample), `${name}: a sample for ${c.command}`);
    }
    // Nothing that writes: no configure, set (other than the CLI's own screen settings), delete, reload, copy.
    for (const c of [...(p.preamble ?? []), ...p.commands.map((x) => x.command)]) {
      assert.doesNotMatch(c, /\b(conf(igure)?|write|delete|reload|reboot|copy|erase|clear|request|commit|remove|add|edit)\b/i, `${name}: ${c}`);
      if (/^set /.test(c)) assert.match(c, /^set cli screen-(length|width) 0$/, `${name}: ${c}`);
    }
    const empty = p.parse({});
    assert.deepEqual(empty.interfaces, [], `${name} parses nothing into nothing`);
  }
});

describe('linux (the lab\'s real output)', () => {
  const f = parse('linux');
  test('identity', () => {
    assert.equal(f.hostname, 'ssh');
    assert.equal(f.os, 'Debian GNU/Linux');
    assert.equal(f.os_version, '12');
    assert.match(f.machine_id ?? '', /^[0-9a-f]{32}$/);
    assert.equal(f.machine_id, readFileSync(join(FIXTURES, 'linux/machine_id.txt'), 'utf8').trim());
    assert.match(f.kernel ?? '', /^\S+ x86_64$/);
    assert.ok(f.uptime_s! > 0);
  });
  test('interfaces, routes, neighbours', () => {
    const eth0 = f.interfaces.find((i) => i.name === 'eth0')!;
    assert.equal(eth0.mac, '02:4e:50:00:04:00');
    assert.equal(eth0.state, 'up');
    assert.equal(eth0.mtu, 1500);
    assert.ok(eth0.addresses.includes('10.77.0.22/24'));
    assert.equal(f.interfaces.find((i) => i.name === 'lo')!.mac, null, 'loopback has no MAC');
    assert.deepEqual(f.routes.find((r) => r.destination === '10.77.0.0/20'), {
      destination: '10.77.0.0/20', gateway: '10.77.0.254', interface: 'eth0', protocol: 'boot', metric: null });
    assert.ok(f.routes.some((r) => r.destination === 'fe80::/64'));
    assert.ok(f.neighbours.every((n) => n.mac && n.address));
  });
  test('LLDP neighbour sw2 and listening sshd', () => {
    assert.equal(f.lldp.length, 1);
    assert.deepEqual(f.lldp[0], {
      protocol: 'lldp', local_port: 'eth0', chassis_id: '02:4e:50:00:02:01', system_name: 'sw2',
      system_description: 'netprobe lab switch sw2 (Linux bridge, lldpd, Net-SNMP)', port_id: 'swp2', port_description: 'swp2',
      management_addresses: ['10.77.0.3'], capabilities: ['bridge'], platform: null,
    });
    assert.deepEqual(f.services.map((s) => `${s.protocol}/${s.address}/${s.port}`).sort(), ['tcp/0.0.0.0/22', 'tcp/::/22']);
  });
  test('lldpctl\'s other shapes: a list of interfaces, a chassis without a name, lists and single values', () => {
    const n = lldpOf(JSON.parse(readFileSync(join(FIXTURES, 'linux/lldp_multi.txt'), 'utf8')));
    assert.equal(n.length, 2);
    assert.deepEqual(n[0]!.management_addresses, ['10.77.0.2', 'fe80::4e:50ff:fe00:100']);
    assert.deepEqual(n[0]!.capabilities, ['bridge']);
    assert.equal(n[1]!.protocol, 'cdp');
    assert.equal(n[1]!.local_port, 'eth1');
    assert.equal(n[1]!.chassis_id, 'core-rt1');
    assert.deepEqual(n[1]!.capabilities, ['router']);
    assert.deepEqual(lldpOf(null), []);
    assert.deepEqual(lldpOf({ lldp: {} }), []);
  });
  test('ss with processes (as root sees them)', () => {
    const tcp = servicesOf(readFileSync(join(FIXTURES, 'linux/ss_tcp_root.txt'), 'utf8'), 'tcp');
    assert.deepEqual(tcp.map((s) => [s.address, s.port, s.process]), [
      ['127.0.0.53', 53, 'systemd-resolve'], ['0.0.0.0', 22, 'sshd'], ['0.0.0.0', 80, 'nginx'], ['::', 22, 'sshd']]);
    const udp = servicesOf(readFileSync(join(FIXTURES, 'linux/ss_udp_root.txt'), 'utf8'), 'udp');
    assert.deepEqual(udp.map((s) => [s.address, s.port, s.process]), [['0.0.0.0', 68, 'dhclient'], ['fe80::1', 123, 'chronyd']]);
  });
});

describe('cisco_ios', () => {
  const f = parse('cisco_ios');
  test('identity from show version and show inventory', () => {
    assert.deepEqual([f.hostname, f.os, f.os_version, f.model, f.serial, f.vendor],
      ['access-sw1', 'Cisco IOS', '15.2(7)E8', 'WS-C2960X-48FPD-L', 'FOC2101X0AB', 'Cisco']);
    assert.equal(f.uptime_s, 365 * 86400 + 12 * 7 * 86400 + 3 * 86400 + 4 * 3600 + 5 * 60);
    assert.equal(f.inventory.length, 3);
    assert.deepEqual(f.inventory[2], { name: 'Switch 1 - Power Supply 0', description: 'FRU Power Supply', model: 'PWR-C2-1025WAC', serial: 'DCB2101P0AB' });
  });
  test('interfaces with state, MAC, address, description', () => {
    assert.deepEqual(f.interfaces.map((i) => [i.name, i.state]), [
      ['Vlan1', 'up'], ['GigabitEthernet1/0/1', 'up'], ['GigabitEthernet1/0/2', 'down'], ['GigabitEthernet1/0/3', 'admin-down'],
      ['GigabitEthernet1/0/24', 'up']]);
    const vlan1 = f.interfaces[0]!;
    assert.deepEqual([vlan1.mac, vlan1.addresses, vlan1.description, vlan1.mtu], ['02:4e:50:0a:00:c0', ['10.77.0.40/24'], 'management', 1500]);
  });
  test('routes: default, connected, OSPF with sub-codes, a subnetted entry with two paths', () => {
    const r = (d: string) => f.routes.filter((x) => x.destination === d);
    assert.deepEqual(r('0.0.0.0/0'), [{ destination: '0.0.0.0/0', protocol: 'static', gateway: '10.77.0.254', interface: null, metric: 0 }]);
    assert.deepEqual(r('10.77.0.0/24')[0], { destination: '10.77.0.0/24', protocol: 'connected', gateway: null, interface: 'Vlan1', metric: 0 });
    assert.equal(r('10.79.0.0/16')[0]!.gateway, '10.77.0.3');
    assert.deepEqual(r('172.16.5.0/24').map((x) => [x.protocol, x.gateway, x.interface, x.metric]),
      [['eigrp', '10.77.0.5', 'Vlan1', 3072], ['eigrp', '10.77.0.6', 'Vlan1', 3072]]);
    assert.equal(f.routes.length, 7);
  });
  test('ARP (incomplete entries left out), LLDP and CDP neighbours, MAC table', () => {
    assert.deepEqual(f.neighbours.map((n) => [n.address, n.mac, n.interface]), [
      ['10.77.0.1', '02:4e:50:00:00:00', 'Vlan1'], ['10.77.0.3', '02:4e:50:00:02:01', 'Vlan1'], ['10.77.0.40', '02:4e:50:0a:00:c0', 'Vlan1']]);
    const sw2 = f.lldp.find((n) => n.system_name === 'sw2')!;
    assert.deepEqual([sw2.local_port, sw2.port_id, sw2.chassis_id, sw2.capabilities, sw2.management_addresses],
      ['Gi1/0/1', 'swp3', '024e.5000.0201', ['bridge'], ['10.77.0.3']]);
    assert.equal(sw2.system_description, 'netprobe lab switch sw2 (Linux bridge, lldpd, Net-SNMP)');
    assert.deepEqual(f.lldp.find((n) => n.system_name === 'ssh')!.management_addresses, ['10.77.0.22', 'fe80::4e:50ff:fe00:400']);
    const cdp = f.lldp.find((n) => n.protocol === 'cdp')!;
    assert.deepEqual([cdp.system_name, cdp.local_port, cdp.port_id, cdp.platform, cdp.capabilities, cdp.management_addresses],
      ['core-rt1.lab.test', 'GigabitEthernet1/0/48', 'GigabitEthernet0/0/1', 'ISR4331/K9', ['router', 'bridge', 'igmp'], ['10.77.0.254']]);
    assert.equal(f.mac_table.length, 6);
    assert.deepEqual(f.mac_table[4], { mac: '02:4e:50:00:04:00', vlan: 1, interface: 'Gi1/0/24', type: 'dynamic' });
  });
});

describe('cisco_nxos', () => {
  const f = parse('cisco_nxos');
  test('identity', () => {
    assert.deepEqual([f.hostname, f.os, f.os_version, f.model, f.serial], ['leaf1', 'Cisco NX-OS', '9.3(8)', 'N9K-C93180YC-EX', 'FDO21120ABC']);
    assert.equal(f.uptime_s, 12 * 86400 + 3 * 3600 + 4 * 60 + 5);
  });
  test('interfaces, routes (ECMP), ARP, LLDP (one row as an object), CDP, MAC table', () => {
    assert.deepEqual(f.interfaces.find((i) => i.name === 'mgmt0')!.addresses, ['10.77.0.50/24']);
    assert.deepEqual(f.interfaces.find((i) => i.name === 'Vlan10'), {
      name: 'Vlan10', description: null, mac: '02:4e:50:00:0a:ff', state: 'up', mtu: 1500, addresses: ['10.10.0.1/24'], master: null });
    assert.equal(f.interfaces.find((i) => i.name === 'Ethernet1/1')!.description, 'server ssh');
    assert.deepEqual(f.routes.filter((r) => r.destination === '10.20.0.0/16').map((r) => [r.gateway, r.interface, r.protocol, r.metric]),
      [['10.77.0.51', 'Ethernet1/49', 'ospf', 41], ['10.77.0.52', 'Ethernet1/50', 'ospf', 41]]);
    assert.equal(f.routes.length, 4);
    assert.equal(f.neighbours.length, 2);
    assert.deepEqual(f.lldp.map((n) => [n.protocol, n.system_name, n.local_port, n.port_id]),
      [['lldp', 'spine1', 'Eth1/49', 'Ethernet1/1'], ['cdp', 'spine1', 'Ethernet1/49', 'Ethernet1/1']]);
    assert.deepEqual(f.lldp[0]!.capabilities, ['bridge', 'router']);
    assert.deepEqual(f.lldp[1]!.capabilities, ['router', 'bridge']);
    assert.deepEqual(f.mac_table[0], { mac: '02:4e:50:00:0e:05', vlan: 10, interface: 'Ethernet1/1', type: '*' });
  });
});

describe('junos', () => {
  const f = parse('junos');
  test('identity', () => {
    assert.deepEqual([f.hostname, f.os, f.os_version, f.model, f.serial], ['ex-core1', 'Junos', '21.4R3-S4.8', 'ex4300-48t', 'NW0123456789']);
    assert.ok(f.inventory.some((i) => i.name === 'Power Supply 0' && i.serial === '1EDE3210123' && i.model === '740-046873'));
  });
  test('interfaces with units, addresses and MACs; routes; ARP; LLDP; switching table', () => {
    const irb0 = f.interfaces.find((i) => i.name === 'irb.0')!;
    assert.deepEqual(irb0.addresses, ['10.77.0.60/24', 'fe80::24e:50ff:fe00:c00/64']);
    assert.equal(irb0.master, 'irb');
    assert.equal(f.interfaces.find((i) => i.name === 'ge-0/0/0')!.mac, '02:4e:50:00:0c:01');
    assert.equal(f.interfaces.find((i) => i.name === 'ge-0/0/2')!.state, 'admin-down');
    assert.deepEqual(f.interfaces.find((i) => i.name === 'lo0.0')!.addresses, ['10.255.0.1/32']);
    assert.deepEqual(f.routes.map((r) => [r.destination, r.gateway, r.interface, r.protocol]), [
      ['0.0.0.0/0', '10.77.0.254', 'irb.0', 'static'], ['10.77.0.0/24', null, 'irb.0', 'direct'], ['10.77.0.60/32', null, 'irb.0', 'local'],
      ['10.78.0.0/16', '10.77.0.3', 'irb.0', 'ospf'], ['10.255.0.1/32', null, 'lo0.0', 'direct']]);
    assert.equal(f.routes[3]!.metric, 2);
    assert.deepEqual(f.neighbours.map((n) => [n.address, n.interface]), [['10.77.0.1', 'irb.0'], ['10.77.0.22', 'irb.0']]);
    assert.deepEqual(f.lldp.map((n) => [n.local_port, n.system_name, n.port_id, n.chassis_id]), [
      ['ge-0/0/1', 'sw1', 'swp3', '02:4e:50:00:01:00'], ['ge-0/0/0', 'ssh', 'eth0', '02:4e:50:00:04:00']]);
    assert.deepEqual(f.mac_table.map((m) => [m.mac, m.interface, m.type]), [
      ['02:4e:50:00:00:00', 'ge-0/0/1.0', 'dynamic'], ['02:4e:50:00:04:00', 'ge-0/0/0.0', 'dynamic']]);
  });
});

describe('routeros', () => {
  const f = parse('routeros');
  test('identity', () => {
    assert.deepEqual([f.hostname, f.os, f.os_version, f.model, f.serial, f.uptime_s],
      ['rb-office', 'RouterOS', '7.12.1', 'C52iG-5HaxD2HaxD', 'HD5086ABCDE', 9 * 86400 + 3 * 3600 + 4 * 60 + 5]);
  });
  test('interfaces (flags), addresses, active routes, ARP, neighbours, bridge hosts', () => {
    assert.deepEqual(f.interfaces.map((i) => [i.name, i.state, i.mac]), [
      ['ether1', 'up', '02:4e:50:00:0d:01'], ['ether2', 'up', '02:4e:50:00:0d:02'], ['ether3', 'down', '02:4e:50:00:0d:03'],
      ['wifi1', 'admin-down', '02:4e:50:00:0d:10'], ['bridge', 'up', '02:4e:50:00:0d:02']]);
    assert.equal(f.interfaces[4]!.description, 'local bridge');
    assert.deepEqual(f.interfaces.find((i) => i.name === 'bridge')!.addresses, ['192.168.88.1/24']);
    assert.deepEqual(f.interfaces.find((i) => i.name === 'ether3')!.addresses, [], 'a disabled address is left out');
    assert.deepEqual(f.routes.map((r) => [r.destination, r.gateway, r.interface, r.protocol]), [
      ['0.0.0.0/0', '10.77.0.254', 'ether1', 'static'], ['10.77.0.0/24', null, 'ether1', 'connected'],
      ['192.168.88.0/24', null, 'bridge', 'connected']]);
    assert.equal(f.neighbours.length, 2, 'an ARP entry without a MAC is left out');
    assert.deepEqual(f.lldp.map((n) => [n.protocol, n.system_name, n.local_port, n.port_id, n.capabilities.join()]), [
      ['lldp', 'sw2', 'ether1', 'swp4', 'bridge'], ['mndp', 'cap-lobby', 'bridge', 'bridge/ether1', 'bridge']]);
    assert.equal(f.lldp[1]!.platform, 'MikroTik cAPGi-5HaxD2HaxD');
    assert.deepEqual(f.mac_table.map((m) => [m.mac, m.interface]), [['02:4e:50:00:0e:05', 'ether2'], ['02:4e:50:00:0f:01', 'ether2']]);
  });
});

describe('arubaos_cx', () => {
  const f = parse('arubaos_cx');
  test('identity', () => {
    assert.deepEqual([f.hostname, f.os, f.os_version, f.model, f.serial], ['cx-access1', 'ArubaOS-CX', 'FL.10.10.1040', 'JL658A', 'SG0ZKM1234']);
    assert.equal(f.uptime_s, 3 * 7 * 86400 + 2 * 86400 + 4 * 3600 + 5 * 60);
  });
  test('interfaces, addresses, routes, ARP, LLDP, MAC table', () => {
    assert.deepEqual(f.interfaces.map((i) => [i.name, i.state, i.addresses.join()]), [
      ['1/1/1', 'up', '10.77.0.80/24'], ['1/1/2', 'down', ''], ['1/1/3', 'admin-down', ''], ['vlan20', 'up', '10.20.0.1/24']]);
    assert.equal(f.interfaces[0]!.description, 'uplink sw2');
    assert.deepEqual(f.routes.map((r) => [r.destination, r.gateway, r.interface, r.protocol]), [
      ['0.0.0.0/0', '10.77.0.254', null, 'static'], ['10.20.0.0/24', null, 'vlan20', 'connected'],
      ['10.77.0.0/24', null, '1/1/1', 'connected'], ['10.77.0.80/32', null, '1/1/1', 'local']]);
    assert.deepEqual(f.neighbours.map((n) => [n.address, n.interface, n.state]), [['10.77.0.1', '1/1/1', 'reachable'], ['10.20.0.5', 'vlan20', 'stale']]);
    assert.deepEqual(f.lldp.map((n) => [n.local_port, n.system_name, n.port_id]), [['1/1/1', 'sw2', 'swp5']]);
    assert.deepEqual(f.mac_table.map((m) => [m.vlan, m.interface]), [[1, '1/1/1'], [20, '1/1/2']]);
  });
});

describe('fortios', () => {
  const f = parse('fortios');
  test('identity, interfaces, routes, ARP', () => {
    assert.deepEqual([f.hostname, f.os, f.os_version, f.model, f.serial], ['fw-branch1', 'FortiOS', '7.2.5 build1517', 'FortiGate-60F', 'FGT60FTK2109ABCD']);
    assert.deepEqual(f.interfaces.map((i) => [i.name, i.state, i.addresses.join()]), [
      ['dmz', 'up', '10.10.10.1/24'], ['wan1', 'up', '10.77.0.90/24'], ['wan2', 'down', '']]);
    assert.deepEqual(f.routes.map((r) => [r.destination, r.gateway, r.interface, r.protocol]), [
      ['0.0.0.0/0', '10.77.0.254', 'wan1', 'static'], ['10.10.10.0/24', null, 'dmz', 'connected'], ['10.77.0.0/24', null, 'wan1', 'connected']]);
    assert.deepEqual(f.neighbours.map((n) => [n.address, n.interface]), [['10.77.0.1', 'wan1'], ['10.10.10.5', 'dmz']]);
  });
});

describe('helpers', () => {
  test('MACs in every writing', () => {
    for (const m of ['02:4E:50:00:00:01', '024e.5000.0001', '02-4e-50-00-00-01', '024e50-000001', '024e50000001']) {
      assert.equal(mac(m), '02:4e:50:00:00:01', m);
    }
    assert.equal(mac('00:00:00:00:00:00'), null);
    assert.equal(mac('Incomplete'), null);
  });
  test('durations, terse rows', () => {
    assert.equal(duration('1w2d3h4m5s'), 9 * 86400 + 3 * 3600 + 245);
    assert.equal(duration('2 hours, 1 minute'), 7260);
    assert.equal(duration('forever'), null);
    assert.deepEqual(terseRows(' 0 interface=ether1 identity=a b c'), [{ flags: '', values: { interface: 'ether1', identity: 'a b c' } }]);
    assert.deepEqual(terseRows(' 12 XD name=x'), [{ flags: 'XD', values: { name: 'x' } }]);
  });
  test('lists are capped with a warning', () => {
    const f = emptyFacts();
    f.routes = Array.from({ length: FACT_LIMITS.routes + 5 }, (_, i) => ({ destination: `10.0.${i >> 8}.${i & 255}/32`, gateway: null, interface: null, protocol: null, metric: null }));
    capFacts(f);
    assert.equal(f.routes.length, FACT_LIMITS.routes);
    assert.match(f.warnings[0]!, /routes: 2005 entries/);
  });
  test('platform detection from the banner and from show version', () => {
    assert.equal(platformFromBanner('SSH-2.0-Cisco-1.25'), 'cisco_ios');
    assert.equal(platformFromBanner('SSH-2.0-ROSSSH'), 'routeros');
    assert.equal(platformFromBanner('SSH-2.0-OpenSSH_9.2p1 Debian-2+deb12u3'), null);
    assert.equal(platformFromVersion(readFileSync(join(FIXTURES, 'cisco_ios/version.txt'), 'utf8')), 'cisco_ios');
    assert.equal(platformFromVersion(readFileSync(join(FIXTURES, 'cisco_nxos/version.txt'), 'utf8')), 'cisco_nxos');
    assert.equal(platformFromVersion(readFileSync(join(FIXTURES, 'junos/version.txt'), 'utf8')), 'junos');
    assert.equal(platformFromVersion(readFileSync(join(FIXTURES, 'arubaos_cx/version.txt'), 'utf8')), 'arubaos_cx');
    assert.equal(platformFromVersion(readFileSync(join(FIXTURES, 'fortios/status.txt'), 'utf8')), 'fortios');
    assert.equal(platformFromVersion('% Invalid input detected'), null);
  });
  test('CLI errors and terminal noise', () => {
    assert.match(cliError('show lldp neighbors detail\n% Invalid input detected at \'^\' marker.')!, /^% Invalid input/);
    assert.match(cliError('% LLDP is not enabled') ?? 'none', /none/);
    assert.match(cliError('unknown command.')!, /unknown command/);
    assert.equal(cliError('Interface  Status\nGi1/0/1 up'), null);
    assert.equal(cleanTerminal('\x1b[1mbold\x1b[0m\r\nab\x08c --'), 'bold\nac --');
  });
  test('host key fingerprints as ssh-keygen prints them', () => {
    const blob = Buffer.concat([Buffer.from([0, 0, 0, 11]), Buffer.from('ssh-ed25519'), Buffer.from([0, 0, 0, 32]), Buffer.alloc(32, 7)]);
    assert.equal(keyTypeOf(blob), 'ssh-ed25519');
    assert.match(fingerprintOf(blob), /^SHA256:[A-Za-z0-9+/]{43}$/);
    assert.equal(keyTypeOf(Buffer.alloc(2)), 'unknown');
  });
  test('keys ssh2 cannot read are explained', async () => {
    const { generateKeyPairSync } = await import('node:crypto');
    const pkcs8 = generateKeyPairSync('ed25519').privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
    assert.match((await keyProblem(pkcs8))!, /PKCS#8.*ssh-keygen -p/);
    const ec = generateKeyPairSync('ec', { namedCurve: 'prime256v1' }).privateKey.export({ type: 'sec1', format: 'pem' }).toString();
    assert.equal(await keyProblem(ec), null);
    assert.match((await keyProblem('not a key'))!, /cannot read/);
  });
});

describe('the command scripts', () => {
  test('the POSIX script runs under a real sh: markers, exit status, stderr, a missing command, a timeout', () => {
    const nonce = '0123456789abcdef';
    const lookalike = join(mkdtempSync(join(tmpdir(), 'netprobe-marker-')), 'out.txt');
    writeFileSync(lookalike, '@@NP ffffffffffffffff E one 0\n@@NP 0123456789abcdeF Z\n');
    const commands = [
      { name: 'one', command: 'echo', argv: ['echo', 'hello'] },
      { name: 'missing_file', command: 'cat', argv: ['cat', '/nonexistent/netprobe'] },
      { name: 'no_program', command: 'x', argv: ['netprobe-no-such-program'] },
      { name: 'slow', command: 'sleep', argv: ['sleep', '5'] },
      { name: 'marker_lookalike', command: 'cat', argv: ['cat', lookalike] },
    ];
    const script = posixScript(commands, nonce, 1);
    const r = spawnSync('sh', ['-s'], { input: script, encoding: 'utf8', timeout: 10_000 });
    const p = new MarkerParser(nonce, 1024);
    p.push(r.stdout);
    p.end();
    assert.ok(p.done, r.stdout);
    const s = p.sections(commands);
    assert.deepEqual([s.one!.text, s.one!.ok], ['hello', true]);
    assert.equal(s.missing_file!.ok, false);
    assert.match(s.missing_file!.error!, /No such file/);
    assert.match(s.no_program!.error!, /not found/);
    assert.equal(s.slow!.error, 'timed out');
    assert.equal(s.marker_lookalike!.text, '@@NP ffffffffffffffff E one 0\n@@NP 0123456789abcdeF Z', 'output that looks like a marker stays output');
  });
  test('only fixed words reach a script', () => {
    assert.throws(() => posixScript([{ name: 'x', command: 'x', argv: ['cat', '/etc/passwd;reboot'] }], '0123456789abcdef', 1));
    assert.throws(() => posixScript([{ name: 'x', command: 'x', argv: ['echo', '$(id)'] }], '0123456789abcdef', 1));
    assert.throws(() => posixScript([], 'not-hex', 1));
    assert.throws(() => routerosScript([{ name: 'x', command: '/system reboot; /system identity print' }], '0123456789abcdef'));
    const ros = routerosScript(PLATFORM_DEFS.routeros.commands, '0123456789abcdef');
    assert.match(ros, /^\{:local r 0; :put "@@NP 0123456789abcdef B identity"; :do \{\/system identity print\} on-error=\{:set r 1\};/);
    assert.match(ros, /:put "@@NP 0123456789abcdef Z"$/);
  });
  test('the marker parser caps a section, joins long lines, and ignores foreign markers', () => {
    const p = new MarkerParser('00000000000000aa', 100);
    p.push('\n@@NP 00000000000000aa B big\n');
    p.push('x'.repeat(150));
    p.push('y'.repeat(150) + '\n@@NP 00000000000000bb E big\nmore\n');
    p.push('@@NP 00000000000000aa R big 0\n\n@@NP 00000000000000aa E big\n');
    const s = p.sections([{ name: 'big', command: 'big' }]).big!;
    assert.equal(s.truncated, true);
    assert.equal(s.text.length, 100);
    assert.equal(s.ok, true);
  });
});
