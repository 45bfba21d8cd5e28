// A path split into LAN, ISP and internet (path-segments.ts) on synthetic paths: a home router, an ISP
// behind carrier-grade NAT, an ISP with a private core, an office with its own routers past the gateway,
// a gateway that is not on the path, no gateway known, an all-public path; and the route the probe's kernel
// picks toward an address from /proc/net/route and /proc/net/ipv6_route text (route-toward.ts).
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { parseIp } from '../../src/core/ip.js';
import { domainOf, segmentAt, segmentPath } from '../../src/modules/monitors/checks/path-segments.js';
import { routeFromTable, type RouteToward } from '../../src/modules/monitors/checks/route-toward.js';
import { pathResult, settings } from '../../src/modules/monitors/checks/path.js';

/** Hops from "address name" strings ("?" no answer). */
const path = (...h: string[]) => h.map((x) => {
  const [address, name] = x.split(' ');
  return { address: address === '?' ? null : address!, ...(name ? { name } : {}) };
});
const viaGw = (gateway: string): RouteToward => ({ kind: 'gateway', gateway, route: 'default route on eth0' });
const counts = (s: ReturnType<typeof segmentPath>) => [s.lan, s.isp, s.internet];

describe('path segments', () => {
  test('home router, names off: the gateway is the LAN, the first public hop the ISP, the rest the internet', () => {
    const s = segmentPath(path('192.168.1.1', '203.0.113.1', '203.0.113.9', '198.51.100.7', '192.0.2.10'), viaGw('192.168.1.1'), false);
    assert.deepEqual(counts(s), [1, 1, 3]);
    assert.equal(s.why.lan, 'hop 1 (192.168.1.1) is the probe\'s gateway (default route on eth0)');
    assert.equal(s.why.isp, 'hop 2 (203.0.113.1), the first public hop; reverse names are off, so the ISP is taken to end there');
    assert.deepEqual([0, 1, 2, 4].map((i) => segmentAt(s, i)), ['lan', 'isp', 'internet', 'internet']);
  });

  test('home router, names on: the ISP runs over the public hops named in its first public hop\'s domain', () => {
    const hops = path('192.168.1.1', '203.0.113.1 bras1.ispa.net', '203.0.113.9 core2.ispa.net', '?', '198.51.100.7 ae1.transit.com',
      '203.0.113.200 late.ispa.net', '192.0.2.10');
    const s = segmentPath(hops, viaGw('192.168.1.1'), true);
    assert.deepEqual(counts(s), [1, 2, 4], 'the transit hop ends the ISP: a later hop named like it is past the internet boundary');
    assert.equal(s.why.isp, 'hops 2–3 named in ispa.net, the first public hop\'s domain; hop 5 (ae1.transit.com) is outside it');
  });

  test('CGNAT ISP: shared address space and silent hops after the gateway are the ISP\'s, up to its named public hops', () => {
    const hops = path('192.168.1.1', '100.64.12.1', '?', '100.72.0.1', '203.0.113.5 cr1.ispb.co.uk', '203.0.113.77 be2.ispb.co.uk',
      '198.51.100.1 x.other.co.uk', '192.0.2.10');
    const s = segmentPath(hops, viaGw('192.168.1.1'), true);
    assert.deepEqual(counts(s), [1, 5, 2]);
    assert.equal(s.why.isp, 'hops 2–4 in shared or private ranges, then hops 5–6 named in ispb.co.uk, the first public hop\'s domain; ' +
      'hop 7 (x.other.co.uk) is outside it');
  });

  test('ISP with a private core: private hops in another range than the gateway\'s are the ISP\'s', () => {
    const s = segmentPath(path('192.168.0.1', '10.20.0.1', '10.20.5.9', '203.0.113.1', '192.0.2.10'), viaGw('192.168.0.1'), false);
    assert.deepEqual(counts(s), [1, 3, 1]);
    assert.match(s.why.isp, /^hops 2–3 in shared or private ranges, then hop 4 \(203\.0\.113\.1\), the first public hop/);
  });

  test('an office: its own routers in the gateway\'s private range are still the LAN', () => {
    const s = segmentPath(path('10.1.1.1', '?', '10.0.0.1', '203.0.113.1', '192.0.2.10'), viaGw('10.1.1.1'), false);
    assert.deepEqual(counts(s), [3, 1, 1]);
    assert.equal(s.why.lan, 'hop 1 (10.1.1.1) is the probe\'s gateway (default route on eth0); hops 2–3 are in its range (10.0.0.0/8)');
  });

  test('the gateway is not on the path: hop 1, the first router, is taken as it, answering or not', () => {
    const s = segmentPath(path('192.168.1.254', '100.64.0.1', '203.0.113.1'), viaGw('192.168.1.1'), false);
    assert.deepEqual(counts(s), [1, 2, 0]);
    assert.equal(s.why.lan, 'the probe\'s gateway 192.168.1.1 (default route on eth0) is not on the path: hop 1, the first router, ' +
      'is taken as it (it answered from 192.168.1.254)');
    const silent = segmentPath(path('?', '192.168.1.7', '203.0.113.1'), viaGw('192.168.1.1'), false);
    assert.deepEqual(counts(silent), [2, 1, 0], 'a silent hop 1 holds the gateway\'s range for the hops after it');
    assert.match(silent.why.lan, /is taken as it \(it did not answer\); hop 2 is in its range \(192\.168\.0\.0\/16\)$/);
  });

  test('no gateway known: the first hops in one private range; a public first hop: no LAN', () => {
    const s = segmentPath(path('?', '192.168.1.1', '192.168.7.1', '100.64.0.1', '203.0.113.1', '192.0.2.1'), null, false);
    assert.deepEqual(counts(s), [3, 2, 1]);
    assert.equal(s.why.lan, 'no gateway known: hops 1–3 are in one private range (192.168.0.0/16), taken as the LAN');
    const pub = segmentPath(path('198.51.100.1', '203.0.113.1', '192.0.2.10'), null, false);
    assert.deepEqual(counts(pub), [0, 1, 2]);
    assert.equal(pub.why.lan, 'no gateway known and hop 1 (198.51.100.1) is public: no LAN hop');
  });

  test('an all-public path through a known gateway: the gateway is the LAN, whatever its range', () => {
    const s = segmentPath(path('198.51.100.1', '203.0.113.1', '192.0.2.10'), viaGw('198.51.100.1'), false);
    assert.deepEqual(counts(s), [1, 1, 1]);
  });

  test('on the probe\'s own subnet or the probe itself: all LAN; a path that ends in the LAN has no ISP', () => {
    const direct = segmentPath(path('10.77.0.60'), { kind: 'direct', route: '10.77.0.0/24 on npl0' }, false);
    assert.deepEqual(counts(direct), [1, 0, 0]);
    assert.equal(direct.why.lan, 'the destination is on the probe\'s own subnet (10.77.0.0/24 on npl0): no router between');
    assert.equal(direct.why.isp, 'the path ends in the LAN');
    assert.deepEqual(counts(segmentPath(path('127.0.0.1'), { kind: 'local' }, false)), [1, 0, 0]);
    assert.deepEqual(counts(segmentPath(path('10.77.0.254', '10.77.1.10'), viaGw('10.77.0.254'), false)), [2, 0, 0]);
  });

  test('no public hop after the LAN: the rest is the operator\'s', () => {
    const s = segmentPath(path('192.168.1.1', '100.64.0.1', '10.9.9.9'), viaGw('192.168.1.1'), false);
    assert.deepEqual(counts(s), [1, 2, 0]);
    assert.match(s.why.isp, /^no public hop after the LAN/);
  });

  test('domains without the public suffix list: two labels, three under a country\'s second level', () => {
    assert.equal(domainOf('ae1.cr2.ispa.net.'), 'ispa.net');
    assert.equal(domainOf('be2.ISPB.co.uk'), 'ispb.co.uk');
    assert.equal(domainOf('x.example.de'), 'example.de');
    assert.equal(domainOf('localhost'), null);
    assert.equal(domainOf(null), null);
  });

  test('a path result keeps the counts and the reasons in its details', () => {
    const hops = [{ hop: 1, address: '192.168.1.1', loss_pct: 0, sent: 1, received: 1, avg_ms: 1, best_ms: 1, worst_ms: 1 },
      { hop: 2, address: '203.0.113.1', loss_pct: 0, sent: 1, received: 1, avg_ms: 5, best_ms: 5, worst_ms: 5 }];
    const r = pathResult('203.0.113.1', '203.0.113.1', hops, settings.parse({}), {}, viaGw('192.168.1.1'));
    assert.deepEqual(r.details.segments, { lan: 1, isp: 1, internet: 0, why: { lan: 'hop 1 (192.168.1.1) is the probe\'s gateway (default route on eth0)',
      isp: 'hop 2 (203.0.113.1), the first public hop; reverse names are off, so the ISP is taken to end there' } });
  });
});

// /proc/net/route as the lab leaves it (default route, the lab's /24 on npl0, its /20 through the router, the guard).
const ROUTE4 = `Iface	Destination	Gateway 	Flags	RefCnt	Use	Metric	Mask		MTU	Window	IRTT
eth0	00000000	010200C0	0003	0	0	0	00000000	0	0	0
eth0	000200C0	00000000	0001	0	0	0	00FFFFFF	0	0	0
npl0	00004D0A	00000000	0001	0	0	0	00FFFFFF	0	0	0
npl0	00004D0A	FE004D0A	0003	0	0	0	00F0FFFF	0	0	0
*	00004D0A	00000000	0201	0	0	0	0000FFFF	0	0	0
`;
const ROUTE6 = `fd000000000000000000000000000000 40 00000000000000000000000000000000 00 00000000000000000000000000000000 00000100 00000001 00000000 00000001     eth0
00000000000000000000000000000000 00 00000000000000000000000000000000 00 fd000000000000000000000000000001 00000400 00000003 00000000 00000003     eth0
fd000000000000000000000000000002 80 00000000000000000000000000000000 00 00000000000000000000000000000000 00000000 00000003 00000000 80200001     eth0
`;

describe('the route toward an address', () => {
  const to = (t: string, a: string) => routeFromTable(t, parseIp(a)!);
  test('IPv4: longest prefix first: the lab\'s router for the far subnet, direct on the lab\'s /24, the default elsewhere', () => {
    assert.deepEqual(to(ROUTE4, '10.77.1.10'), { kind: 'gateway', gateway: '10.77.0.254', route: '10.77.0.0/20 on npl0' });
    assert.deepEqual(to(ROUTE4, '10.77.0.60'), { kind: 'direct', route: '10.77.0.0/24 on npl0' });
    assert.deepEqual(to(ROUTE4, '203.0.113.1'), { kind: 'gateway', gateway: '192.0.2.1', route: 'default route on eth0' });
    assert.equal(to(ROUTE4, '10.77.99.1'), null, 'an unreachable route: no way there');
  });
  test('IPv6: the default route through fd00::1, the probe\'s own address local', () => {
    assert.deepEqual(to(ROUTE6, '2001:db8::1'), { kind: 'gateway', gateway: 'fd00::1', route: 'default route on eth0' });
    assert.deepEqual(to(ROUTE6, 'fd00::9'), { kind: 'direct', route: 'fd00::/64 on eth0' });
    assert.deepEqual(to(ROUTE6, 'fd00::2'), { kind: 'local' });
  });
});
