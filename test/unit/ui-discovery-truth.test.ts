// What the discovery pages compute to tell the truth (ui/pages/discovery/map-model.js and model.js): a
// node's monitors read as whether the host answers apart from how many of its services fail; the map's
// automatic layout starts from the same seeds on every visit; a comparison with the inventory puts a
// matched device that is not linked in a group of its own; an IPv6 prefix too large to sweep is told apart.
import assert from 'node:assert/strict';
import { test } from 'node:test';
// @ts-expect-error plain browser JavaScript without type declarations
import { layoutBox, liveData, namesByNode, nodeStatus, seedPositions, serviceBadge, servicesText } from '../../ui/pages/discovery/map-model.js';
// @ts-expect-error plain browser JavaScript without type declarations
import { diffGroupOf, diffGroups, ipv6Scan } from '../../ui/pages/discovery/model.js';

const svc = (total: number, down = 0, degraded = 0, failing = 0, maintenance = 0) => ({ total, down, failing, degraded, maintenance });
interface AddressStatus { ip: string; status: string | null; monitors: number; reachability: string | null; services: ReturnType<typeof svc> }
const at = (ip: string, status: string | null, reachability: string | null, services: ReturnType<typeof svc>,
  monitors = services.total + 1): [string, AddressStatus] => [ip, { ip, status, monitors, reachability, services }];

test('a host that answers ping with 2 of 3 services down is reachable with a red 2, though its worst status is down', () => {
  const byIp = new Map([at('10.0.0.2', 'down', 'reachable', svc(3, 2))]);
  const s = nodeStatus({ addresses: ['10.0.0.2'] }, byIp);
  assert.deepEqual(s, { status: 'down', monitors: 4, reachability: 'reachable', services: svc(3, 2) });
  assert.deepEqual(serviceBadge(s), { tone: 'down', count: 2 });
  assert.equal(servicesText(s), '2 of 3 services down');
  assert.deepEqual(liveData({ label: '10.0.0.2' }, s, undefined), { label: '10.0.0.2', inventory: null, status: 'down', reach: 'reachable', badge: 'down:2' });
});

test('over a node\'s addresses: reachable wins over unreachable; services add up; none watched is null', () => {
  const byIp = new Map([at('10.0.0.1', 'down', 'unreachable', svc(0), 1), at('10.0.1.1', 'degraded', 'reachable', svc(2, 0, 1)),
    at('10.0.2.1', null, null, svc(0), 0)]);
  const s = nodeStatus({ addresses: ['10.0.0.1', '10.0.1.1', '10.0.2.1'] }, byIp);
  assert.deepEqual([s.status, s.reachability, s.services], ['down', 'reachable', svc(2, 0, 1)]);
  assert.equal(servicesText(s), '1 of 2 services degraded');
  assert.deepEqual(serviceBadge(s), { tone: 'degraded', count: 1 });
  assert.equal(nodeStatus({ addresses: ['10.0.0.1'] }, byIp).reachability, 'unreachable');
  assert.equal(nodeStatus({ addresses: ['10.0.2.1'] }, byIp), null);
  assert.equal(serviceBadge(nodeStatus({ addresses: ['10.0.0.1'] }, byIp)), null, 'ping alone: no service badge');
  assert.equal(servicesText({ services: svc(3) }), '3 services, all answering');
  assert.equal(servicesText({ services: svc(9, 2, 1) }), '2 of 9 services down, 1 degraded');
  // Failing (failed checks below the threshold) counts apart from degraded, and ranks between down and it.
  assert.equal(servicesText({ services: svc(9, 2, 1, 3) }), '2 of 9 services down, 3 failing, 1 degraded');
  assert.deepEqual(serviceBadge({ services: svc(4, 0, 1, 2) }), { tone: 'failing', count: 2 });
  assert.equal(servicesText({ services: svc(1, 0, 0, 1) }), '1 of 1 service failing');
  // Held by a maintenance window: its own count and blue badge, below every problem, above "all answering".
  assert.deepEqual(serviceBadge({ services: svc(3, 0, 0, 0, 2) }), { tone: 'maintenance', count: 2 });
  assert.equal(servicesText({ services: svc(3, 0, 0, 0, 2) }), '2 of 3 services in maintenance');
  assert.deepEqual(serviceBadge({ services: svc(3, 0, 1, 0, 2) }), { tone: 'degraded', count: 1 });
  assert.equal(servicesText({ services: svc(3, 0, 1, 0, 2) }), '1 of 3 services degraded, 2 in maintenance');
  // Old answers without the count (a probe not yet upgraded behind a cached page) read as none.
  assert.deepEqual(nodeStatus({ addresses: ['10.9.9.9'] }, new Map([['10.9.9.9', { ip: '10.9.9.9', status: 'up', monitors: 2,
    reachability: 'reachable', services: { total: 1, down: 0, failing: 0, degraded: 0 } }]])).services, svc(1));
});

test('a node carries the name of the record that stands for it, linked or matched', () => {
  const names = namesByNode({ items: [
    { device_id: 'a', device_ids: ['a', 'b'], inventory: { name: 'core-sw1' }, linked: true },
    { device_id: 'c', device_ids: ['c'], inventory: { name: 'web01' }, linked: false },
  ] });
  assert.equal(liveData({ label: '10.0.0.1' }, null, names.get('b')).label, 'core-sw1', 'every id of a merged device');
  assert.deepEqual([liveData({ label: 'x' }, null, names.get('c')).inventory, liveData({ label: 'x' }, null, names.get('a')).inventory],
    ['matched', 'linked']);
  assert.equal(liveData({ label: '10.0.0.9' }, null, undefined).label, '10.0.0.9');
});

test('the layout seeds are the same whatever order the nodes come in, distinct, infrastructure first', () => {
  const nodes = [{ id: 'h2', kind: 'host' }, { id: 'sw', kind: 'switch' }, { id: 'h1', kind: 'host' }, { id: 'r', kind: 'router' }];
  const a = seedPositions(nodes);
  assert.deepEqual(seedPositions([...nodes].reverse()), a);
  const points = Object.values(a).map((p) => `${(p as { x: number }).x},${(p as { y: number }).y}`);
  assert.equal(new Set(points).size, nodes.length, 'no two nodes start at one point');
  const r = (id: string) => Math.hypot(a[id].x, a[id].y);
  assert.ok(r('r') < r('sw') && r('sw') < r('h1') && r('h1') < r('h2'), 'the router nearest the centre, then the switch, then hosts by id');
  assert.deepEqual(layoutBox(24), layoutBox(24));
  assert.ok(layoutBox(100).w > layoutBox(10).w);
});

test('compared with the inventory: a match that is not linked is its own group, whatever its fields say', () => {
  const items = [
    { status: 'new', linked: false }, { status: 'unchanged', linked: false }, { status: 'changed', linked: false },
    { status: 'unchanged', linked: true }, { status: 'changed', linked: true },
  ];
  assert.deepEqual(items.map(diffGroupOf), ['new', 'unlinked', 'unlinked', 'unchanged', 'changed']);
  const g = diffGroups({ items });
  assert.deepEqual([g.new.length, g.unlinked.length, g.changed.length, g.unchanged.length], [1, 2, 1, 1]);
});

test('an IPv6 prefix shorter than /120 is not swept; /120 and longer are; IPv4 is neither', () => {
  assert.deepEqual(ipv6Scan('2001:db8:1:2::/64'), { prefix: 64, how: 'neighbours' });
  assert.deepEqual(ipv6Scan(' fd00::/119 '), { prefix: 119, how: 'neighbours' });
  assert.deepEqual(ipv6Scan('fd00::/120'), { prefix: 120, how: 'sweep' });
  assert.deepEqual(ipv6Scan('fd00::1'), { prefix: 128, how: 'sweep' });
  assert.equal(ipv6Scan('10.0.0.0/24'), null);
  assert.equal(ipv6Scan('fd00::/129'), null);
  assert.equal(ipv6Scan(''), null);
});
