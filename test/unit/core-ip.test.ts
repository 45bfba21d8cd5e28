// IP, CIDR and MAC parsing and normalisation, containment and overlap (src/core/ip.ts).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  canonicalIp, cidrContains, cidrOverlaps, cidrSize, formatCidr, normaliseIp, normaliseMac, overlapsAny, parseCidr, parseIp,
} from '../../src/core/ip.js';

const cidr = (s: string) => {
  const r = parseCidr(s);
  assert.ok(r.ok, `${s}: ${r.ok ? '' : r.message}`);
  return r.cidr;
};

test('IPv4 addresses parse and keep their dotted form; malformed ones are refused', () => {
  assert.equal(normaliseIp('10.0.0.1'), '10.0.0.1');
  assert.equal(normaliseIp(' 192.168.1.254 '), '192.168.1.254');
  assert.equal(parseIp('255.255.255.255')?.value, 0xffffffffn);
  for (const bad of ['256.1.1.1', '10.0.0', '10.0.0.1.2', '010.0.0.1', '1.2.3.-4', 'a.b.c.d', '', '10.0.0.1/24']) {
    assert.equal(normaliseIp(bad), null, bad);
  }
});

test('IPv6 addresses are normalised to RFC 5952', () => {
  const cases: [string, string][] = [
    ['2001:0DB8:0000:0000:0000:0000:0000:0001', '2001:db8::1'],
    ['2001:db8:0:0:1:0:0:1', '2001:db8::1:0:0:1'], // first of two equal runs
    ['2001:db8:0:1:1:1:1:1', '2001:db8:0:1:1:1:1:1'], // a single zero group is not shortened
    ['2001:0:0:1:0:0:0:1', '2001:0:0:1::1'], // the longest run wins
    ['::', '::'],
    ['::1', '::1'],
    ['fe80::', 'fe80::'],
    ['0:0:0:0:0:ffff:c000:0280', '::ffff:192.0.2.128'],
    ['::ffff:192.0.2.128', '::ffff:192.0.2.128'],
    ['64:ff9b::192.0.2.33', '64:ff9b::c000:221'],
    ['FE80:0:0:0:0:0:0:ABCD', 'fe80::abcd'],
  ];
  for (const [input, want] of cases) assert.equal(normaliseIp(input), want, input);
  for (const bad of ['2001:db8::1::2', '2001:db8:::1', '1:2:3:4:5:6:7:8:9', '12345::', 'fe80::1%eth0', 'g::1', '1:2:3:4:5:6:7']) {
    assert.equal(normaliseIp(bad), null, bad);
  }
});

test('CIDRs: normalised text, host bits set is refused with the network, loose masks them', () => {
  assert.deepEqual(parseCidr('10.1.2.0/24'), { ok: true, cidr: cidr('10.1.2.0/24'), text: '10.1.2.0/24' });
  assert.equal((parseCidr('2001:DB8:0::/32') as { text: string }).text, '2001:db8::/32');
  assert.equal((parseCidr('192.0.2.7') as { text: string }).text, '192.0.2.7/32');
  const bad = parseCidr('10.1.2.5/24');
  assert.equal(bad.ok, false);
  assert.match((bad as { message: string }).message, /10\.1\.2\.0\/24/);
  assert.equal((parseCidr('10.1.2.5/24', { loose: true }) as { text: string }).text, '10.1.2.0/24');
  for (const b of ['10.0.0.0/33', '2001:db8::/129', '10.0.0.0/', '10.0.0.0/x', 'nonsense/8']) assert.equal(parseCidr(b).ok, false, b);
  assert.equal(cidrSize(cidr('10.0.0.0/24')), 256n);
  assert.equal(cidrSize(cidr('2001:db8::/64')), 1n << 64n);
  assert.equal(formatCidr(cidr('0.0.0.0/0')), '0.0.0.0/0');
});

test('containment is per family and inclusive of both ends', () => {
  const net = cidr('10.1.2.0/24');
  assert.ok(cidrContains(net, parseIp('10.1.2.0')!));
  assert.ok(cidrContains(net, parseIp('10.1.2.255')!));
  assert.ok(!cidrContains(net, parseIp('10.1.3.0')!));
  assert.ok(!cidrContains(net, parseIp('::ffff:10.1.2.1')!), 'an IPv4-mapped IPv6 address is another family');
  const v6 = cidr('2001:db8:1::/48');
  assert.ok(cidrContains(v6, parseIp('2001:db8:1:ffff::1')!));
  assert.ok(!cidrContains(v6, parseIp('2001:db8:2::1')!));
  assert.ok(cidrContains(cidr('::/0'), parseIp('::1')!));
});

test('overlap: nested, partial, disjoint, other family; overlapsAny over a session\'s networks', () => {
  assert.ok(cidrOverlaps(cidr('10.0.0.0/8'), cidr('10.1.2.0/24')));
  assert.ok(cidrOverlaps(cidr('10.1.2.0/24'), cidr('10.0.0.0/8')));
  assert.ok(cidrOverlaps(cidr('10.1.2.128/25'), cidr('10.1.2.0/24')));
  assert.ok(!cidrOverlaps(cidr('10.1.2.0/25'), cidr('10.1.2.128/25')));
  assert.ok(!cidrOverlaps(cidr('10.0.0.0/8'), cidr('::/0')));
  assert.ok(cidrOverlaps(cidr('2001:db8::/32'), cidr('2001:db8:ff::/48')));
  const subnet = cidr('192.168.10.0/24');
  assert.ok(overlapsAny(subnet, ['10.0.0.0/8', '192.168.0.0/16']));
  assert.ok(overlapsAny(subnet, ['192.168.10.77/30']), 'host bits in a session network are masked');
  assert.ok(!overlapsAny(subnet, ['192.168.11.0/24', 'garbage', '2001:db8::/32']));
  assert.ok(!overlapsAny(subnet, []));
});

test('MAC addresses: colon, hyphen, Cisco dotted and bare hex all become aa:bb:cc:dd:ee:ff', () => {
  for (const input of ['AA:BB:CC:DD:EE:FF', 'aa-bb-cc-dd-ee-ff', 'aabb.ccdd.eeff', 'AABBCCDDEEFF', ' aa:bb:cc:dd:ee:ff ']) {
    assert.equal(normaliseMac(input), 'aa:bb:cc:dd:ee:ff', input);
  }
  for (const bad of ['aa:bb:cc:dd:ee', 'aa:bb-cc:dd:ee:ff', 'aabb.ccdd.eef', 'gg:bb:cc:dd:ee:ff', 'aabbccddeeff00', '']) {
    assert.equal(normaliseMac(bad), null, bad);
  }
});

test('canonicalIp: one spelling per address (brackets dropped, IPv4-mapped as IPv4)', () => {
  const cases: Array<[string, string | null]> = [
    ['10.0.0.1', '10.0.0.1'], [' 192.0.2.5 ', '192.0.2.5'], ['[2001:DB8::0:1]', '2001:db8::1'],
    ['2001:db8:0:0:0:0:0:1', '2001:db8::1'], ['::ffff:10.0.0.1', '10.0.0.1'], ['::FFFF:a00:1', '10.0.0.1'],
    ['0:0::1', '::1'], ['fe80::1%eth0', null], ['010.0.0.1', null], ['10.0.0.256', null], ['localhost', null],
    ['', null], ['1.2.3', null], ['[10.0.0.1', null],
  ];
  for (const [input, want] of cases) assert.equal(canonicalIp(input), want, JSON.stringify(input));
});
