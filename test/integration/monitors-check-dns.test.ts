// The dns check against a real dnsmasq on 127.0.0.1 (a free port, local records only, no upstream),
// plus a "resolver" that never answers and a port nobody listens on.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import dgram from 'node:dgram';
import { runCheck } from '../../src/modules/monitors/checks/index.js';
import { validateTarget } from '../../src/modules/monitors/checks/dns.js';
import { startDnsmasq, type Dnsmasq } from '../helpers/dnsmasq.js';

/** A DNS name in wire format as dnsmasq's --dns-rr wants it: hex bytes separated by colons. */
function wireName(name: string): string[] {
  const out: string[] = [];
  for (const label of name.split('.')) {
    out.push(label.length.toString(16).padStart(2, '0'));
    for (const ch of Buffer.from(label)) out.push(ch.toString(16).padStart(2, '0'));
  }
  out.push('00');
  return out;
}
const u32 = (n: number) => n.toString(16).padStart(8, '0').match(/../g)!;

const RECORDS = [
  '--local=/test/', // answer for *.test locally only: unknown names are NXDOMAIN
  '--host-record=web.test,192.0.2.10,2001:db8::10',
  '--host-record=web.test,192.0.2.11',
  '--cname=alias.test,web.test',
  '--mx-host=test,mail.test,10',
  '--mx-host=test,backup.test,20',
  '--srv-host=_http._tcp.test,web.test,8080,1,5',
  '--txt-record=txt.test,v=spf1 -all,abc', // two character-strings: joined without a separator
  '--txt-record=txt.test,Verify=AbC123',
  '--ptr-record=10.2.0.192.in-addr.arpa,web.test',
  '--caa-record=test,0,issue,ca.example',
  `--dns-rr=test,2,${wireName('ns1.test').join(':')}`,
  `--dns-rr=test,6,${[...wireName('ns1.test'), ...wireName('hostmaster.test'), ...u32(2024010101), ...u32(3600),
    ...u32(600), ...u32(86400), ...u32(300)].join(':')}`,
];

let dnsmasq: Dnsmasq | undefined;
let port = 0;
let silent: dgram.Socket;
let silentPort = 0;
let closedPort = 0;

before(async () => {
  dnsmasq = await startDnsmasq(RECORDS, 'web.test');
  port = dnsmasq.port;
  silent = dgram.createSocket('udp4');
  silent.on('message', () => { /* swallow queries: a resolver that never answers */ });
  await new Promise<void>((r) => silent.bind(0, '127.0.0.1', r));
  silentPort = silent.address().port;
  const c = dgram.createSocket('udp4');
  await new Promise<void>((r) => c.bind(0, '127.0.0.1', r));
  closedPort = c.address().port;
  await new Promise<void>((r) => c.close(() => r()));
});

after(async () => {
  silent?.close();
  await dnsmasq?.stop();
});

const ctx = { timeout: 5 };
const at = (extra: Record<string, unknown> = {}) => ({ resolver: '127.0.0.1', port, ...extra });

describe('dns check: record types', () => {
  test('A: answers recorded, contains by default, equals', async () => {
    const r = await runCheck('dns', 'web.test', at(), ctx);
    assert.equal(r.status, 'up', r.message);
    assert.deepEqual([...(r.details.answers as string[])].sort(), ['192.0.2.10', '192.0.2.11']);
    assert.equal(r.details.resolver, `127.0.0.1:${port}`);
    assert.equal(r.details.record_type, 'A');
    assert.equal(r.message, 'A 192.0.2.10, 192.0.2.11');
    assert.equal((await runCheck('dns', 'web.test', at({ expected: '192.0.2.11', match: 'equals' }), ctx)).status, 'up');
    assert.equal((await runCheck('dns', 'web.test', at({ expected: '192.0.2.1' }), ctx)).status, 'up'); // substring
    const eq = await runCheck('dns', 'web.test', at({ expected: '192.0.2.1', match: 'equals' }), ctx);
    assert.equal(eq.status, 'down');
    assert.match(eq.message, /^no A answer equals "192\.0\.2\.1" \(got /);
  });

  test('AAAA: IPv6 compared in canonical form', async () => {
    const r = await runCheck('dns', 'web.test', at({ record_type: 'AAAA', expected: '2001:DB8:0:0::10', match: 'equals' }), ctx);
    assert.equal(r.status, 'up', r.message);
    assert.deepEqual(r.details.answers, ['2001:db8::10']);
  });

  test('CNAME, case-insensitive with a trailing dot in expected', async () => {
    const r = await runCheck('dns', 'alias.test', at({ record_type: 'CNAME', expected: 'WEB.test.', match: 'equals' }), ctx);
    assert.equal(r.status, 'up', r.message);
    assert.deepEqual(r.details.answers, ['web.test']);
  });

  test('MX as "preference exchange"', async () => {
    const r = await runCheck('dns', 'test', at({ record_type: 'MX', expected: '10 mail.test.', match: 'equals' }), ctx);
    assert.equal(r.status, 'up', r.message);
    assert.deepEqual([...(r.details.answers as string[])].sort(), ['10 mail.test', '20 backup.test']);
  });

  test('SRV as "priority weight port target"', async () => {
    const r = await runCheck('dns', '_http._tcp.test', at({ record_type: 'SRV', expected: '1 5 8080 web.test', match: 'equals' }), ctx);
    assert.equal(r.status, 'up', r.message);
  });

  test('TXT: chunks joined, case-sensitive', async () => {
    const r = await runCheck('dns', 'txt.test', at({ record_type: 'TXT', expected: 'v=spf1 -allabc', match: 'equals' }), ctx);
    assert.equal(r.status, 'up', r.message);
    assert.equal((r.details.answers as string[]).length, 2);
    assert.equal((await runCheck('dns', 'txt.test', at({ record_type: 'TXT', expected: 'Verify=AbC' }), ctx)).status, 'up');
    assert.equal((await runCheck('dns', 'txt.test', at({ record_type: 'TXT', expected: 'verify=abc' }), ctx)).status, 'down');
  });

  test('PTR of an IP address, and of an in-addr.arpa name', async () => {
    const r = await runCheck('dns', '192.0.2.10', at({ record_type: 'PTR', expected: 'web.test', match: 'equals' }), ctx);
    assert.equal(r.status, 'up', r.message);
    assert.deepEqual(r.details.answers, ['web.test']);
    assert.equal((await runCheck('dns', '10.2.0.192.in-addr.arpa', at({ record_type: 'PTR', expected: 'web' }), ctx)).status, 'up');
  });

  test('an IP target with another record type is refused up front', async () => {
    const r = await runCheck('dns', '192.0.2.10', at({ record_type: 'A' }), ctx);
    assert.equal(r.status, 'down');
    assert.match(r.message, /record_type PTR/);
  });

  test('CAA as "flags tag value"', async () => {
    const r = await runCheck('dns', 'test', at({ record_type: 'CAA', expected: '0 issue ca.example', match: 'equals' }), ctx);
    assert.equal(r.status, 'up', r.message);
  });

  test('NS and SOA', async () => {
    const ns = await runCheck('dns', 'test', at({ record_type: 'NS', expected: 'ns1.test', match: 'equals' }), ctx);
    assert.equal(ns.status, 'up', ns.message);
    const soaSettings = at({ record_type: 'SOA', expected: 'ns1.test hostmaster.test 2024010101', match: 'contains' });
    const soa = await runCheck('dns', 'test', soaSettings, ctx);
    assert.equal(soa.status, 'up', soa.message);
    assert.deepEqual(soa.details.answers, ['ns1.test hostmaster.test 2024010101 3600 600 86400 300']);
  });
});

describe('dns check: failures', () => {
  test('NXDOMAIN', async () => {
    const r = await runCheck('dns', 'nosuch.test', at(), ctx);
    assert.equal(r.status, 'down');
    assert.equal(r.message, 'NXDOMAIN: the name does not exist (A nosuch.test)');
    assert.equal(r.details.error_code, 'NXDOMAIN');
    assert.equal(r.response_time_ms, null);
  });

  test('NODATA', async () => {
    const r = await runCheck('dns', 'txt.test', at({ record_type: 'A' }), ctx);
    assert.equal(r.status, 'down');
    assert.match(r.message, /^NODATA: /);
  });

  test('REFUSED for a name outside the served zone', async () => {
    const r = await runCheck('dns', 'example.org', at(), ctx);
    assert.equal(r.status, 'down');
    assert.match(r.message, /^REFUSED: /);
  });

  test('a resolver that never answers: TIMEOUT, down within the timeout', async () => {
    const r = await runCheck('dns', 'web.test', { resolver: '127.0.0.1', port: silentPort }, { timeout: 0.6 });
    assert.equal(r.status, 'down');
    assert.equal(r.message, `TIMEOUT: no answer from 127.0.0.1:${silentPort} within 0.6 s (A web.test)`);
    assert.equal(r.details.error_code, 'TIMEOUT');
  });

  test('a port nobody listens on: down (ICMP port unreachable on loopback)', async () => {
    const r = await runCheck('dns', 'web.test', { resolver: '127.0.0.1', port: closedPort }, { timeout: 2 });
    assert.equal(r.status, 'down');
    assert.match(r.message, /^(CONNREFUSED|TIMEOUT): /);
  });

  test('abort', async () => {
    const ac = new AbortController();
    const p = runCheck('dns', 'web.test', { resolver: '127.0.0.1', port: silentPort }, { timeout: 10, signal: ac.signal });
    setTimeout(() => ac.abort(), 50);
    const r = await p;
    assert.equal(r.status, 'down');
    assert.equal(r.message, 'check aborted');
  });

  test('validateTarget', () => {
    assert.equal(validateTarget('example.com'), null);
    assert.equal(validateTarget('_sip._tcp.example.com.'), null);
    assert.equal(validateTarget('192.0.2.1'), null);
    assert.equal(validateTarget('2001:db8::1'), null);
    assert.match(validateTarget('bad name') ?? '', /not a valid DNS name/);
    assert.match(validateTarget('-x.example') ?? '', /not a valid DNS name/);
  });
});
