// canonicalIp: one spelling per address, so that monitors' targets and discovered hosts compare equal.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { canonicalIp } from '../../src/core/net.js';

test('canonicalIp: IPv6 compressed and lower case, IPv4-mapped as IPv4, brackets and spaces dropped', () => {
  const cases: Array<[string, string | null]> = [
    ['10.0.0.1', '10.0.0.1'], [' 192.0.2.5 ', '192.0.2.5'], ['[2001:DB8::0:1]', '2001:db8::1'],
    ['2001:db8:0:0:0:0:0:1', '2001:db8::1'], ['::ffff:10.0.0.1', '10.0.0.1'], ['::FFFF:a00:1', '10.0.0.1'],
    ['0:0::1', '::1'], ['fe80::1%eth0', 'fe80::1%eth0'],
    ['010.0.0.1', null], ['10.0.0.256', null], ['localhost', null], ['', null], ['1.2.3', null], ['[10.0.0.1', null],
  ];
  for (const [input, want] of cases) assert.equal(canonicalIp(input), want, JSON.stringify(input));
});
