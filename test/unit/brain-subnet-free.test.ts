// A subnet's free addresses (src/modules/brain/subnet-addresses.ts freeRanges): the usable addresses neither
// documented nor found alive, as ranges in numeric order split at DHCP range edges, worked out from the known
// addresses (an IPv6 /64 costs what its few addresses cost) and capped in what is listed, never in what is counted.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseCidr, parseIp, type Cidr, type Ip } from '../../src/core/ip.js';
import { FREE_RANGES_MAX, freeRanges } from '../../src/modules/brain/subnet-addresses.js';

const cidr = (s: string): Cidr => { const c = parseCidr(s); assert.ok(c.ok); return c.cidr; };
const ip = (s: string): Ip => parseIp(s)!;
const values = (...a: string[]) => a.map((s) => ip(s).value);
const shown = (r: ReturnType<typeof freeRanges>) => r.ranges.map((x) => `${x.start}-${x.end}${x.dhcp ? ' dhcp' : ''}`);

test('an IPv4 /28 without its network and broadcast addresses, split at a DHCP range', () => {
  const r = freeRanges(cidr('10.0.0.0/28'), values('10.0.0.1', '10.0.0.5'), [[ip('10.0.0.8'), ip('10.0.0.10')]]);
  assert.deepEqual(shown(r), ['10.0.0.2-10.0.0.4', '10.0.0.6-10.0.0.7', '10.0.0.8-10.0.0.10 dhcp', '10.0.0.11-10.0.0.14']);
  assert.equal(r.size, 12n);
  assert.equal(r.total, 4);
});

test('a /31 and a /32 have every address usable; a full block has none free', () => {
  assert.deepEqual(shown(freeRanges(cidr('10.0.0.0/31'), [], [])), ['10.0.0.0-10.0.0.1']);
  assert.deepEqual(shown(freeRanges(cidr('10.0.0.7/32'), [], [])), ['10.0.0.7-10.0.0.7']);
  const full = freeRanges(cidr('10.0.0.0/30'), values('10.0.0.1', '10.0.0.2'), []);
  assert.deepEqual([full.ranges, full.size, full.total], [[], 0n, 0]);
});

test('an IPv6 /64 with a few known addresses: a few ranges, the count exact as a bigint', () => {
  const r = freeRanges(cidr('2001:db8::/64'), values('2001:db8::1', '2001:db8::ff'), []);
  assert.deepEqual(shown(r), ['2001:db8::-2001:db8::', '2001:db8::2-2001:db8::fe', '2001:db8::100-2001:db8::ffff:ffff:ffff:ffff']);
  assert.equal(r.size, (1n << 64n) - 2n);
});

test('ranges are listed up to a cap; the count covers them all', () => {
  const taken = Array.from({ length: 1200 }, (_, i) => ip(`10.1.${Math.floor((2 * i + 1) / 256)}.${(2 * i + 1) % 256}`).value);
  const r = freeRanges(cidr('10.1.0.0/20'), taken, []);
  assert.equal(r.ranges.length, FREE_RANGES_MAX);
  assert.ok(r.total > FREE_RANGES_MAX);
  assert.equal(r.size, 4094n - 1200n);
});
