// Documented routes (/api/v1sion/routes): created one at a time with every field checked (a CIDR with host
// bits set names the network it probably meant, a next hop of the other family, a device that does not
// exist), stored canonical, listed with filters and paging, updated field by field, deleted; audit
// entries for every write; unknown and malformed ids are 404s; a viewer reads but never writes; junk
// never gets a 500.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { assertProblem, startTestApp, type TestApp } from '../helpers/harness.js';

let t: TestApp;
let key: string;
const api = (method: string, path: string, body?: unknown) => t.request(method, path, { key, body });
const post = (body: unknown) => api('POST', '/api/v1sion/routes', body);

let endpoint: { id: string; short_id: string; name: string };
let session: { id: string };

before(async () => {
  t = await startTestApp();
  key = (await t.admin()).key;
  const e = await api('POST', '/api/brain/endpoints', { name: 'edge router' });
  assert.equal(e.status, 201, e.text);
  endpoint = e.body;
  const s = await api('POST', '/api/v1sion/sessions', {
    name: 'routed', nodes: [{ id: 'core', label: 'core-1', addresses: ['10.0.0.1'] }, { id: 'edge', label: 'edge-1', addresses: ['10.0.0.2'] }],
  });
  assert.equal(s.status, 201, s.text);
  session = s.body;
});
after(() => t?.close());

const auditOf = async (action: string) => (await api('GET', `/api/audit-log?action=${action}`)).body.items as
  { action: string; target: string; details: Record<string, unknown> }[];

describe('create', () => {
  test('a route is stored canonical, with defaults, and audited', async () => {
    const r = await post({ destination: '2001:DB8:10:0::/56', next_hop: '2001:db8:0:0::1', interface: ' ge-0/0/1 ' });
    assert.equal(r.status, 201, r.text);
    const { id, created_at, updated_at, ...rest } = r.body;
    assert.match(id, /^[0-9a-f-]{36}$/);
    assert.equal(created_at, updated_at);
    assert.deepEqual(rest, {
      destination: '2001:db8:10::/56', next_hop: '2001:db8::1', device: null, interface: 'ge-0/0/1', metric: null, source: 'manual', note: '',
    });
    const a = (await auditOf('v1sion.route_create')).find((x) => x.details.id === id);
    assert.ok(a, 'audit entry');
    assert.equal(a.target, '2001:db8:10::/56');
    assert.deepEqual([a.details.next_hop, a.details.source], ['2001:db8::1', 'manual']);
  });

  test('a bare address is a host route; an IPv4-mapped next hop is IPv4', async () => {
    const r = await post({ destination: '10.200.0.7', next_hop: '::ffff:10.0.0.1', metric: 0, source: 'snmp' });
    assert.equal(r.status, 201, r.text);
    assert.deepEqual([r.body.destination, r.body.next_hop, r.body.metric, r.body.source], ['10.200.0.7/32', '10.0.0.1', 0, 'snmp']);
  });

  test('invalid bodies are 400s naming the field', async () => {
    const bad = async (body: unknown, field: string) => assertProblem(await post(body), 400, field);
    const hostBits = await post({ destination: '10.1.0.5/24' });
    assertProblem(hostBits, 400, 'destination');
    assert.match(hostBits.body.errors[0].message, /10\.1\.0\.0\/24/, 'names the network it probably meant');
    assert.match(hostBits.body.detail, /destination/);
    await bad({ destination: '10.1.0.0/33' }, 'destination');
    await bad({ destination: 'core-net' }, 'destination');
    await bad({}, 'destination');
    await bad({ destination: 12 }, 'destination');
    await bad({ destination: '10.1.0.0/24', next_hop: '10.0.0.300' }, 'next_hop');
    await bad({ destination: '10.1.0.0/24', next_hop: '2001:db8::1' }, 'next_hop');
    await bad({ destination: '10.1.0.0/24', next_hop: '0.0.0.0' }, 'next_hop');
    await bad({ destination: '10.1.0.0/24', metric: -1 }, 'metric');
    await bad({ destination: '10.1.0.0/24', metric: 1.5 }, 'metric');
    await bad({ destination: '10.1.0.0/24', metric: 2 ** 32 }, 'metric');
    await bad({ destination: '10.1.0.0/24', source: 'bgp' }, 'source');
    await bad({ destination: '10.1.0.0/24', note: 'x'.repeat(2001) }, 'note');
    await bad({ destination: '10.1.0.0/24', interface: 'x'.repeat(101) }, 'interface');
    await bad({ destination: '10.1.0.0/24', interface: 'eth0\tvlan' }, 'interface');
    await bad({ destination: '10.1.0.0/24', device: { type: 'router', id: 'x' } }, 'device.type');
    await bad({ destination: '10.1.0.0/24', device: { type: 'endpoint' } }, 'device.id');
    await bad({ destination: '10.1.0.0/24', device: { type: 'session_node', session_id: 'nope', node_id: 'core' } }, 'device.session_id');
    await bad({ destination: '10.1.0.0/24', device: { type: 'session_node', session_id: session.id, node_id: 'a b' } }, 'device.node_id');
    await bad({ destination: '10.1.0.0/24', extra: true }, 'extra');
    // Several problems at once: each is named.
    const many = await post({ destination: '10.1.0.1/24', next_hop: 'gateway', metric: -5 });
    assertProblem(many, 400, 'metric');
    const checked = await post({ destination: '10.1.0.1/24', next_hop: 'gateway' });
    assert.deepEqual(checked.body.errors.map((e: { path: string }) => e.path).sort(), ['destination', 'next_hop']);
    assert.equal((await api('GET', '/api/v1sion/routes?q=10.1.0.')).body.total, 0, 'nothing was written');
  });

  test('the device must exist: an endpoint by short ID is stored by UUID, a session node by session and node', async () => {
    const bad = async (device: unknown, field: string) => assertProblem(await post({ destination: '10.50.0.0/16', device }), 400, field);
    await bad({ type: 'endpoint', id: 'EP-999' }, 'device.id');
    await bad({ type: 'endpoint', id: '0b9e2f6a-1111-4000-8000-000000000001' }, 'device.id');
    const asset = await api('POST', '/api/brain/assets', { name: 'not an endpoint' });
    await bad({ type: 'endpoint', id: asset.body.short_id }, 'device.id');
    await bad({ type: 'session_node', session_id: '7d0f7f44-0000-4000-8000-000000000000', node_id: 'core' }, 'device.session_id');
    await bad({ type: 'session_node', session_id: session.id, node_id: 'nobody' }, 'device.node_id');

    const e = await post({ destination: '10.50.0.0/16', next_hop: '10.0.0.2', device: { type: 'endpoint', id: endpoint.short_id.toLowerCase() } });
    assert.equal(e.status, 201, e.text);
    assert.deepEqual(e.body.device, { type: 'endpoint', id: endpoint.id, short_id: endpoint.short_id, name: 'edge router' });
    const n = await post({ destination: '10.50.0.0/16', next_hop: '10.0.0.2',
      device: { type: 'session_node', session_id: session.id.toUpperCase(), node_id: 'core' } });
    assert.equal(n.status, 201, n.text);
    assert.deepEqual(n.body.device, { type: 'session_node', session_id: session.id, node_id: 'core', label: 'core-1' });
  });

  test('the same device, destination and next hop twice is a 409 naming the route', async () => {
    const first = await post({ destination: '10.60.0.0/16', next_hop: '10.0.0.1', device: { type: 'endpoint', id: endpoint.id } });
    assert.equal(first.status, 201, first.text);
    const again = await post({ destination: '10.60.0.0/16', next_hop: '10.0.0.1', device: { type: 'endpoint', id: endpoint.short_id },
      source: 'snmp' });
    assertProblem(again, 409);
    assert.equal(again.body.code, 'route_exists');
    assert.equal(again.body.route_id, first.body.id);
    // Another next hop, no next hop, or no device: other routes.
    for (const body of [{ next_hop: '10.0.0.2' }, { next_hop: null }, { next_hop: '10.0.0.1', device: null }]) {
      const r = await post({ destination: '10.60.0.0/16', device: { type: 'endpoint', id: endpoint.id }, ...body });
      assert.equal(r.status, 201, r.text);
    }
    assertProblem(await post({ destination: '10.60.0.0/16', next_hop: '10.0.0.1' }), 409);
  });
});

describe('update and delete', () => {
  test('PUT changes only the fields given, checks the result whole, and is audited', async () => {
    const r = (await post({ destination: '10.70.0.0/16', next_hop: '10.0.0.1', note: 'via core', metric: 10, source: 'ssh' })).body;
    const u = await api('PUT', `/api/v1sion/routes/${r.id}`, { metric: 20, interface: 'eth1' });
    assert.equal(u.status, 200, u.text);
    assert.deepEqual([u.body.metric, u.body.interface, u.body.note, u.body.source, u.body.next_hop], [20, 'eth1', 'via core', 'ssh', '10.0.0.1']);
    assert.equal(u.body.created_at, r.created_at);
    const cleared = await api('PUT', `/api/v1sion/routes/${r.id}`, { next_hop: null, metric: null });
    assert.deepEqual([cleared.body.next_hop, cleared.body.metric], [null, null]);
    const audit = (await auditOf('v1sion.route_update')).filter((x) => x.details.id === r.id);
    assert.equal(audit.length, 2);
    assert.ok(audit.some((x) => JSON.stringify(x.details.changed) === JSON.stringify(['interface', 'metric'])), JSON.stringify(audit));

    assertProblem(await api('PUT', `/api/v1sion/routes/${r.id}`, {}), 400);
    assertProblem(await api('PUT', `/api/v1sion/routes/${r.id}`, { destination: '10.70.0.1/16' }), 400, 'destination');
    assertProblem(await api('PUT', `/api/v1sion/routes/${r.id}`, { next_hop: 'fd00::1' }), 400, 'next_hop');
    assertProblem(await api('PUT', `/api/v1sion/routes/${r.id}`, { destination: 'fd00::/8', next_hop: '10.0.0.1' }), 400, 'next_hop');
    assertProblem(await api('PUT', `/api/v1sion/routes/${r.id}`, { device: { type: 'endpoint', id: 'EP-999' } }), 400, 'device.id');
    assertProblem(await api('PUT', `/api/v1sion/routes/${r.id}`, { source: 'bgp' }), 400, 'source');
    assert.equal((await api('GET', '/api/v1sion/routes?q=via%20core')).body.items[0].interface, 'eth1', 'a refused PUT changes nothing');
    // Into another route's place: 409.
    const other = (await post({ destination: '10.71.0.0/16', next_hop: '10.0.0.1' })).body;
    assertProblem(await api('PUT', `/api/v1sion/routes/${other.id}`, { destination: '10.70.0.0/16', next_hop: null }), 409);
  });

  test('unknown ids and malformed ids are 404s', async () => {
    const unknown = '7d0f7f44-0000-4000-8000-000000000099';
    assertProblem(await api('PUT', `/api/v1sion/routes/${unknown}`, { note: 'x' }), 404);
    assertProblem(await api('DELETE', `/api/v1sion/routes/${unknown}`), 404);
    assertProblem(await api('PUT', '/api/v1sion/routes/not-a-uuid', { note: 'x' }), 404, 'params.id');
    assertProblem(await api('DELETE', '/api/v1sion/routes/EP-1'), 404, 'params.id');
  });

  test('a device deleted since shows as gone; the route can still be edited; DELETE is audited', async () => {
    const e = (await api('POST', '/api/brain/endpoints', { name: 'short-lived' })).body;
    const r = (await post({ destination: '10.80.0.0/16', next_hop: '10.0.0.1', device: { type: 'endpoint', id: e.short_id } })).body;
    assert.equal((await api('DELETE', `/api/brain/endpoints/${e.id}`)).status, 204);
    const list = await api('GET', `/api/v1sion/routes?endpoint=${e.id}`);
    assert.deepEqual(list.body.items[0].device, { type: 'endpoint', id: e.id, short_id: null, name: null });
    const u = await api('PUT', `/api/v1sion/routes/${r.id}`, { note: 'that router is gone' });
    assert.equal(u.status, 200, u.text);
    assertProblem(await api('PUT', `/api/v1sion/routes/${r.id}`, { device: { type: 'endpoint', id: e.short_id } }), 400, 'device.id');

    assert.equal((await api('DELETE', `/api/v1sion/routes/${r.id.toUpperCase()}`)).status, 204);
    assertProblem(await api('DELETE', `/api/v1sion/routes/${r.id}`), 404);
    const a = (await auditOf('v1sion.route_delete')).find((x) => x.details.id === r.id);
    assert.ok(a);
    assert.equal(a.target, '10.80.0.0/16');
  });
});

describe('list', () => {
  test('filters: text, an address the destination holds, source, endpoint, session and node; paging', async () => {
    const made = [
      { destination: '172.16.0.0/12', next_hop: '10.0.0.2', note: 'to the lab', source: 'snmp',
        device: { type: 'session_node', session_id: session.id, node_id: 'core' } },
      { destination: '172.16.5.0/24', next_hop: '10.0.0.3', interface: 'vlan5', device: { type: 'session_node', session_id: session.id, node_id: 'edge' } },
      { destination: '2001:db8:aa::/48', next_hop: '2001:db8::2', source: 'ssh' },
    ];
    for (const m of made) assert.equal((await post(m)).status, 201);
    const list = async (qs: string) => {
      const r = await api('GET', `/api/v1sion/routes?${qs}`);
      assert.equal(r.status, 200, r.text);
      return r.body as { items: { destination: string; source: string }[]; total: number };
    };
    const all = await list('limit=500');
    assert.equal(all.items.length, all.total);
    const dests = all.items.map((r) => r.destination);
    assert.ok(dests.indexOf('172.16.0.0/12') < dests.indexOf('172.16.5.0/24'), 'by destination, then prefix');
    assert.ok(dests.indexOf('172.16.5.0/24') < dests.indexOf('2001:db8:aa::/48'), 'IPv4 before IPv6');

    assert.deepEqual((await list('contains=172.16.5.9')).items.map((r) => r.destination), ['172.16.0.0/12', '172.16.5.0/24']);
    assert.deepEqual((await list('contains=172.16.6.1')).items.map((r) => r.destination), ['172.16.0.0/12']);
    assert.deepEqual((await list('contains=2001:DB8:AA:1::5')).items.map((r) => r.destination), ['2001:db8:aa::/48']);
    assert.deepEqual((await list('q=TO%20THE%20LAB')).items.map((r) => r.destination), ['172.16.0.0/12']);
    assert.deepEqual((await list('q=vlan5')).items.map((r) => r.destination), ['172.16.5.0/24']);
    assert.ok((await list('source=ssh')).items.every((r) => r.source === 'ssh'));
    assert.ok((await list('source=ssh')).items.some((r) => r.destination === '2001:db8:aa::/48'));
    assert.equal((await list(`session_id=${session.id}`)).total, 3, 'the two above and the one of the device test');
    assert.deepEqual((await list(`session_id=${session.id}&node_id=edge`)).items.map((r) => r.destination), ['172.16.5.0/24']);
    const byEndpoint = await list(`endpoint=${endpoint.short_id}`);
    assert.ok(byEndpoint.total >= 4 && byEndpoint.items.every((r) => (r as any).device.id === endpoint.id));
    assert.equal((await list('endpoint=EP-4242')).total, 0);

    const page = await list('limit=2&offset=1');
    assert.equal(page.items.length, 2);
    assert.deepEqual(page.items.map((r) => r.destination), dests.slice(1, 3));
    assert.equal(page.total, all.total);

    assertProblem(await api('GET', '/api/v1sion/routes?contains=10.0.0.0/8'), 400, 'query.contains');
    assertProblem(await api('GET', '/api/v1sion/routes?node_id=core'), 400, 'query.node_id');
    assertProblem(await api('GET', '/api/v1sion/routes?source=bgp'), 400, 'query.source');
    assertProblem(await api('GET', '/api/v1sion/routes?session_id=x'), 400, 'query.session_id');
    assertProblem(await api('GET', '/api/v1sion/routes?limit=501'), 400, 'query.limit');
    assertProblem(await api('GET', '/api/v1sion/routes?nope=1'), 400);
  });
});

describe('who may', () => {
  test('a viewer reads routes but never writes them; an operator with v1sion:write does', async () => {
    const viewer = await t.user('viewer', ['v1sion:read']);
    const asViewer = (method: string, path: string, body?: unknown) => t.request(method, path, { key: viewer.key, body });
    assert.equal((await asViewer('GET', '/api/v1sion/routes')).status, 200);
    const some = (await api('GET', '/api/v1sion/routes?limit=1')).body.items[0];
    assertProblem(await asViewer('POST', '/api/v1sion/routes', { destination: '10.90.0.0/16' }), 403);
    assertProblem(await asViewer('PUT', `/api/v1sion/routes/${some.id}`, { note: 'mine now' }), 403);
    assertProblem(await asViewer('DELETE', `/api/v1sion/routes/${some.id}`), 403);
    // The viewer's cookie too (a browser session).
    assertProblem(await t.request('POST', '/api/v1sion/routes', { cookie: viewer.cookie, body: { destination: '10.90.0.0/16' } }), 403);
    assertProblem(await t.request('GET', '/api/v1sion/routes'), 401);

    const operator = await t.user('operator', ['v1sion:write']);
    const made = await t.request('POST', '/api/v1sion/routes', { key: operator.key, body: { destination: '10.90.0.0/16' } });
    assert.equal(made.status, 201, made.text);
    const readOnly = await t.user('operator', ['v1sion:read']);
    assertProblem(await t.request('POST', '/api/v1sion/routes', { key: readOnly.key, body: { destination: '10.91.0.0/16' } }), 403);
  });

  test('junk never gets a 500', async () => {
    const junk: unknown[] = [
      null, [], 'x', 1, { destination: null }, { destination: ['10.0.0.0/8'] }, { destination: '10.0.0.0/8', device: [] },
      { destination: '10.0.0.0/8', device: { type: 'session_node' } }, { destination: '::/0', next_hop: '::' },
      { destination: '10.0.0.0/8', metric: '5' }, { destination: '10.0.0.0/8', note: null }, { destination: '1.2.3.4/-1' },
      { destination: 'fe80::1%eth0/64' }, { destination: '10.0.0.0/8', next_hop: 'fe80::1%eth0' },
    ];
    for (const body of junk) {
      const r = await post(body);
      assert.ok(r.status >= 400 && r.status < 500, `${JSON.stringify(body)}: ${r.status} ${r.text}`);
    }
  });
});

test('a session draws layer-3 edges from the routes of its nodes', async () => {
  const s = await api('POST', '/api/v1sion/sessions', {
    name: 'l3', nodes: [
      { id: 'edge', label: 'Edge router', addresses: ['10.20.0.1'] },
      { id: 'core', label: 'Core router', addresses: ['10.20.0.2'] },
    ],
  });
  assert.equal(s.status, 201, s.text);
  assert.deepEqual(s.body.l3_edges, []);
  for (const destination of ['10.30.0.0/16', '10.40.0.0/16']) {
    const r = await api('POST', '/api/v1sion/routes', {
      destination, next_hop: '10.20.0.2', device: { type: 'session_node', session_id: s.body.id, node_id: 'edge' },
    });
    assert.equal(r.status, 201, r.text);
  }
  const got = await api('GET', `/api/v1sion/sessions/${s.body.id}`);
  assert.equal(got.status, 200, got.text);
  assert.equal(got.body.l3_edges.length, 1);
  assert.deepEqual({ ...got.body.l3_edges[0], route_ids: undefined, id: undefined }, {
    from: 'edge', to: 'core', destinations: ['10.30.0.0/16', '10.40.0.0/16'], label: '10.30.0.0/16, 10.40.0.0/16',
    source: 'route', route_ids: undefined, id: undefined,
  });
});
