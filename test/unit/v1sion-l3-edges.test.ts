// Layer-3 edges of a session from documented routes (sessions/l3-edges.ts): a route held by a node (or by
// the endpoint a node stands for) whose next hop is another node's address joins the two, labelled with
// the destinations; anything ambiguous or incomplete draws nothing.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Route } from '../../src/modules/v1sion/routes/service.js';
import type { Session } from '../../src/modules/v1sion/schemas.js';
import { layer3Edges, type L3Node, type L3Route } from '../../src/modules/v1sion/sessions/l3-edges.js';

// What the session GET will pass in: the API's routes and session nodes fit the inputs as they are.
const _fits = (routes: Route[], session: Session): [L3Node[], L3Route[]] => [session.nodes, routes];

const S = '7d0f7f44-0000-4000-8000-00000000000a';
const OTHER = '7d0f7f44-0000-4000-8000-00000000000b';
const EP = '0b9e2f6a-1111-4000-8000-000000000001';

const nodes: L3Node[] = [
  { id: 'core', addresses: ['10.0.0.1', '2001:db8::1'], inventory: null },
  { id: 'edge', addresses: ['10.0.0.2', '::ffff:192.0.2.2'], inventory: { type: 'endpoints', id: EP.toUpperCase() } },
  { id: 'fw', addresses: ['10.0.0.3'], inventory: null },
  { id: 'twin-a', addresses: ['10.0.0.9'], inventory: null },
  { id: 'twin-b', addresses: ['10.0.0.9'], inventory: null },
];

let n = 0;
const at = (node_id: string, destination: string, next_hop: string | null, session_id = S): L3Route =>
  ({ id: `r${++n}`, destination, next_hop, device: { type: 'session_node', session_id, node_id } });

test('routes between nodes are edges from the holder to the next hop, one per pair, labelled with the destinations', () => {
  n = 0;
  const edges = layer3Edges(nodes, [
    at('core', '10.1.0.0/16', '10.0.0.2'),
    at('core', '10.2.0.0/16', '10.0.0.2'),
    at('core', '10.1.0.0/16', '10.0.0.2'), // the same destination again (another device record): listed once
    at('edge', '0.0.0.0/0', '10.0.0.1'),
    at('core', '2001:db8:5::/48', '2001:DB8:0::1'), // its own address: no edge to itself
    at('fw', '192.168.0.0/16', '10.0.0.1'),
  ], S);
  assert.deepEqual(edges, [
    { id: 'l3:core->edge', from: 'core', to: 'edge', destinations: ['10.1.0.0/16', '10.2.0.0/16'], label: '10.1.0.0/16, 10.2.0.0/16',
      route_ids: ['r1', 'r2', 'r3'], source: 'route' },
    { id: 'l3:edge->core', from: 'edge', to: 'core', destinations: ['0.0.0.0/0'], label: '0.0.0.0/0', route_ids: ['r4'], source: 'route' },
    { id: 'l3:fw->core', from: 'fw', to: 'core', destinations: ['192.168.0.0/16'], label: '192.168.0.0/16', route_ids: ['r6'], source: 'route' },
  ]);
});

test('an endpoint route is drawn from the one node standing for it; next hops compare canonical', () => {
  const r: L3Route = { id: 'e1', destination: '172.16.0.0/12', next_hop: '::ffff:10.0.0.3', device: { type: 'endpoint', id: EP } };
  assert.deepEqual(layer3Edges(nodes, [r]).map((e) => [e.from, e.to, e.label]), [['edge', 'fw', '172.16.0.0/12']]);
  // Two nodes for one endpoint: which one holds the route is not known.
  const doubled = [...nodes, { id: 'edge-2', addresses: [], inventory: { type: 'endpoints', id: EP } }];
  assert.deepEqual(layer3Edges(doubled, [r]), []);
  // An asset of the same id is not the endpoint.
  assert.deepEqual(layer3Edges([{ id: 'a', addresses: [], inventory: { type: 'assets', id: EP } }, ...nodes.slice(2)], [r]), []);
});

test('nothing is drawn for routes without a device or next hop, other sessions, unknown nodes or a next hop two nodes share', () => {
  n = 0;
  const routes: L3Route[] = [
    { id: 'x1', destination: '10.5.0.0/16', next_hop: '10.0.0.2', device: null },
    at('core', '10.6.0.0/16', null),
    at('core', '10.7.0.0/16', '10.0.0.2', OTHER),
    at('ghost', '10.8.0.0/16', '10.0.0.2'),
    at('core', '10.9.0.0/16', '10.0.0.9'),
    at('core', '10.10.0.0/16', '10.99.0.1'),
  ];
  assert.deepEqual(layer3Edges(nodes, routes, S), []);
  // Without a session id, a node id names the node in whichever session the route was written for.
  assert.deepEqual(layer3Edges(nodes, routes).map((e) => [e.id, e.destinations]), [['l3:core->edge', ['10.7.0.0/16']]]);
});

test('a long label shows three destinations and how many more', () => {
  const routes = Array.from({ length: 5 }, (_, i) => at('fw', `10.${i}.0.0/16`, '10.0.0.1'));
  const [e] = layer3Edges(nodes, routes, S);
  assert.equal(e!.label, '10.0.0.0/16, 10.1.0.0/16, 10.2.0.0/16 +2');
  assert.equal(e!.destinations.length, 5);
});
