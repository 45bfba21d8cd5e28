// Saved topology sessions: built from given nodes and edges (an unknown scan_job_id
// is a 404), stored canonical, edited by PATCH all or nothing, listed with counts, listed by the
// inventory for the subnets they overlap, kept across a restart, deleted with an audit entry.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { assertProblem, startTestApp, type TestApp } from '../helpers/harness.js';

let t: TestApp;
let key: string;
const api = (method: string, path: string, body?: unknown) => t.request(method, path, { key, body });

before(async () => {
  t = await startTestApp();
  key = (await t.admin()).key;
});
after(() => t?.close());

const graph = {
  name: 'Lab floor 1',
  subnets: ['10.77.1.0/24', '2001:DB8:77::/48'],
  notes: 'first scan',
  nodes: [
    { id: 'sw1', label: 'switch-1', addresses: ['10.77.1.2', '[2001:db8:77:0::2]'], mac: 'AA-BB-CC-00-00-01', kind: 'switch',
      vendor_key: 'generic', position: { x: 10, y: 20 } },
    { id: 'sw2', label: 'switch-2', addresses: ['10.77.1.3'], kind: 'switch' },
    { id: 'h1', label: 'host-1', addresses: ['::ffff:10.77.1.50'] },
  ],
  edges: [
    { from: 'sw1', to: 'sw2', from_port: 'Gi1/0/1', to_port: 'Gi1/0/2', source: 'lldp' },
    { from: 'sw2', to: 'h1', from_port: 'Gi1/0/5', source: 'fdb' },
  ],
};

test('a session from nodes and edges: stored canonical, listed with counts', async () => {
  const r = await api('POST', '/api/v1sion/sessions', graph);
  assert.equal(r.status, 201, r.text);
  const s = r.body;
  assert.deepEqual(s.subnets, ['10.77.1.0/24', '2001:db8:77::/48']);
  const sw1 = s.nodes.find((n: { id: string }) => n.id === 'sw1');
  assert.deepEqual(sw1.addresses, ['10.77.1.2', '2001:db8:77::2']);
  assert.equal(sw1.mac, 'aa:bb:cc:00:00:01');
  assert.deepEqual(sw1.position, { x: 10, y: 20 });
  assert.equal(sw1.manual, false);
  assert.deepEqual(s.nodes.find((n: { id: string }) => n.id === 'h1').addresses, ['10.77.1.50']);
  assert.equal(s.nodes.find((n: { id: string }) => n.id === 'h1').kind, 'unknown');
  assert.deepEqual(s.edges.map((e: { id: string; source: string }) => [e.id, e.source]), [['e1', 'lldp'], ['e2', 'fdb']]);
  assert.deepEqual((await api('GET', `/api/v1sion/sessions/${s.id}`)).body, s);

  const list = await api('GET', '/api/v1sion/sessions');
  assert.equal(list.status, 200);
  const item = list.body.items.find((i: { id: string }) => i.id === s.id);
  assert.equal(item.node_count, 3);
  assert.equal(item.edge_count, 2);
  assert.equal(item.nodes, undefined, 'lists carry counts, not graphs');
  assert.equal((await api('GET', '/api/v1sion/sessions?q=FLOOR')).body.total, 1);
  assert.equal((await api('GET', '/api/v1sion/sessions?q=nothing-like-it')).body.total, 0);
});

test('bad sessions are 400s naming the field; an unknown scan is a 404', async () => {
  const bad = async (body: unknown, field: string) => assertProblem(await api('POST', '/api/v1sion/sessions', body), 400, field);
  await bad({ ...graph, edges: [{ from: 'sw1', to: 'nobody' }] }, 'edges.0.to');
  await bad({ ...graph, nodes: [graph.nodes[0], graph.nodes[0]], edges: [] }, 'nodes.1.id');
  await bad({ ...graph, nodes: [{ id: 'x', label: 'x', addresses: ['10.0.0.300'] }], edges: [] }, 'nodes.0.addresses.0');
  await bad({ ...graph, nodes: [{ id: 'x', label: 'x', mac: 'not-a-mac' }], edges: [] }, 'nodes.0.mac');
  await bad({ ...graph, subnets: ['10.77.1.5/24'] }, 'subnets.0');
  await bad({ ...graph, nodes: [{ id: 'x', label: 'x', kind: 'toaster' }], edges: [] }, 'nodes.0.kind');
  await bad({ ...graph, nodes: [{ id: 'x', label: 'x', inventory: { type: 'assets', id: 'AS-999' } }], edges: [] }, 'nodes.0.inventory.id');
  await bad({ name: '' }, 'name');
  assertProblem(await api('POST', '/api/v1sion/sessions', { ...graph, extra: 1 }), 400);
  assertProblem(await api('POST', '/api/v1sion/sessions', { name: 'from a scan', scan_job_id: 'no-such-job' }), 404);
  assertProblem(await api('GET', '/api/v1sion/sessions/7d0f7f44-0000-4000-8000-000000000000'), 404);
  assertProblem(await api('GET', '/api/v1sion/sessions/not-a-uuid'), 404, 'params.id');
});

test('an inventory link names a record that exists and is stored by its UUID', async () => {
  const asset = await api('POST', '/api/brain/assets', { name: 'core switch' });
  assert.equal(asset.status, 201, asset.text);
  const r = await api('POST', '/api/v1sion/sessions', {
    name: 'linked', nodes: [{ id: 'a', label: 'core', inventory: { type: 'assets', id: asset.body.short_id } }],
  });
  assert.equal(r.status, 201, r.text);
  assert.deepEqual(r.body.nodes[0].inventory, { type: 'assets', id: asset.body.id });
});

test('PATCH: positions, manual nodes and edges, removals; all or nothing', async () => {
  const s = (await api('POST', '/api/v1sion/sessions', graph)).body;
  const p = await api('PATCH', `/api/v1sion/sessions/${s.id}`, {
    name: 'Lab floor 1 (edited)',
    positions: { sw2: { x: 100, y: -50 } },
    add_nodes: [{ id: 'ap1', label: 'access point', kind: 'access_point', addresses: ['10.77.1.60'] }],
    add_edges: [{ from: 'sw2', to: 'ap1', from_port: 'Gi1/0/7', source: 'lldp' }],
  });
  assert.equal(p.status, 200, p.text);
  const by = (id: string) => p.body.nodes.find((n: { id: string }) => n.id === id);
  assert.deepEqual(by('sw2').position, { x: 100, y: -50 });
  assert.deepEqual(by('sw1').position, { x: 10, y: 20 }, 'only the nodes given move');
  assert.equal(by('ap1').manual, true);
  const added = p.body.edges.find((e: { to: string }) => e.to === 'ap1');
  assert.deepEqual([added.id, added.source], ['e3', 'manual'], 'a person\'s edge is manual whatever it says');

  const removed = await api('PATCH', `/api/v1sion/sessions/${s.id}`, { remove_nodes: ['sw2'] });
  assert.equal(removed.status, 200, removed.text);
  assert.deepEqual(removed.body.edges, [], 'the edges of a removed node go with it');
  assert.deepEqual(removed.body.nodes.map((n: { id: string }) => n.id).sort(), ['ap1', 'h1', 'sw1']);

  const before = (await api('GET', `/api/v1sion/sessions/${s.id}`)).body;
  // One bad part refuses the whole change.
  assertProblem(await api('PATCH', `/api/v1sion/sessions/${s.id}`, { name: 'never', positions: { gone: { x: 1, y: 1 } } }), 400, 'positions.gone');
  assertProblem(await api('PATCH', `/api/v1sion/sessions/${s.id}`, { name: 'never', add_edges: [{ from: 'sw1', to: 'sw2' }] }), 400, 'add_edges.0.to');
  assertProblem(await api('PATCH', `/api/v1sion/sessions/${s.id}`, { add_nodes: [{ id: 'sw1', label: 'again' }] }), 400, 'add_nodes.0.id');
  assertProblem(await api('PATCH', `/api/v1sion/sessions/${s.id}`, { remove_edges: ['e99'] }), 400, 'remove_edges.0');
  assertProblem(await api('PATCH', `/api/v1sion/sessions/${s.id}`, {}), 400);
  assert.deepEqual((await api('GET', `/api/v1sion/sessions/${s.id}`)).body, before);
});

test('the inventory lists the sessions that overlap a subnet', async () => {
  const s = (await api('POST', '/api/v1sion/sessions', { ...graph, name: 'overlap check', subnets: ['10.78.4.0/24'] })).body;
  const wide = await api('POST', '/api/brain/subnets', { cidr: '10.78.0.0/16' });
  const other = await api('POST', '/api/brain/subnets', { cidr: '10.79.0.0/16' });
  assert.equal(wide.status, 201, wide.text);
  const found = await api('GET', `/api/brain/subnets/${wide.body.short_id}/v1sion-sessions`);
  assert.equal(found.status, 200, found.text);
  assert.deepEqual(found.body.items.map((i: { id: string }) => i.id), [s.id]);
  assert.deepEqual(found.body.items[0].networks, ['10.78.4.0/24']);
  assert.equal((await api('GET', `/api/brain/subnets/${other.body.short_id}/v1sion-sessions`)).body.total, 0);
});

test('DELETE removes a session with an audit entry; sessions survive a restart', async () => {
  const keep = (await api('POST', '/api/v1sion/sessions', { ...graph, name: 'kept' })).body;
  const gone = (await api('POST', '/api/v1sion/sessions', { ...graph, name: 'gone' })).body;
  assert.equal((await api('DELETE', `/api/v1sion/sessions/${gone.id}`)).status, 204);
  assertProblem(await api('GET', `/api/v1sion/sessions/${gone.id}`), 404);
  assertProblem(await api('DELETE', `/api/v1sion/sessions/${gone.id}`), 404);
  const audit = await api('GET', '/api/audit-log?action=v1sion.session_delete');
  assert.ok(audit.body.items.some((e: { details: { id: string } }) => e.details.id === gone.id), audit.text);

  const dataDir = t.dataDir;
  await t.close({ keepData: true });
  t = await startTestApp({ dataDir });
  assert.deepEqual((await api('GET', `/api/v1sion/sessions/${keep.id}`)).body, keep);
});
