// Monitor parents from a session's graph (sessions/parent-tree.ts), on the lab's shape: the probe on sw1's
// swp1 (FDB), sw2 behind sw1 (LLDP), ssh behind sw2 (LLDP), a host on sw2 drawn by hand, a host on sw1 (FDB).
// Each monitor gets the ping monitors of the nearest node toward the probe that has one, and says why.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  parentTree, type ProbePosition, type TreeEdge, type TreeMonitor, type TreeNode,
} from '../../src/modules/v1sion/sessions/parent-tree.js';
import { gatewaysOf } from '../../src/modules/v1sion/sessions/probe-position.js';

const nodes: TreeNode[] = [
  { id: 'probe', label: '10.0.0.1', addresses: ['10.0.0.1'] },
  { id: 'sw1', label: 'sw1', addresses: ['10.0.0.2'] },
  { id: 'sw2', label: 'sw2', addresses: ['10.0.0.3'] },
  { id: 'ssh', label: 'ssh', addresses: ['10.0.0.22'] },
  { id: 'plain3', label: 'plain3', addresses: ['10.0.0.62'] },
  { id: 'plain1', label: 'plain1', addresses: ['10.0.0.60'] },
  { id: 'router', label: 'router', addresses: ['10.0.0.254', '10.0.1.1'] },
  { id: 'lonely', label: 'lonely', addresses: ['10.0.0.99'] },
];
const edges: TreeEdge[] = [
  { from: 'sw1', to: 'probe', from_port: 'swp1', to_port: null, source: 'fdb' },
  { from: 'sw1', to: 'sw2', from_port: 'swp2', to_port: 'swp1', source: 'lldp' },
  { from: 'sw2', to: 'ssh', from_port: 'swp2', to_port: 'eth0', source: 'lldp' },
  { from: 'sw2', to: 'router', from_port: 'swp3', to_port: 'eth0', source: 'cdp' },
  { from: 'plain3', to: 'sw2', from_port: null, to_port: 'swp6', source: 'manual' },
  { from: 'sw1', to: 'plain1', from_port: 'swp8', to_port: null, source: 'fdb' },
];
const mon = (id: string, address: string | null, check_type = 'ping'): TreeMonitor => ({ id, name: id, check_type, address });
const monitors = [
  mon('sw1', '10.0.0.2'), mon('sw2', '10.0.0.3'), mon('sw2-web', '10.0.0.3', 'http'), mon('ssh', '10.0.0.22'),
  mon('ssh-22', '10.0.0.22', 'tcp'), mon('plain3', '10.0.0.62'), mon('plain1', '10.0.0.60'), mon('router-far', '10.0.1.1'),
  mon('lonely', '10.0.0.99'), mon('by-name', null), mon('elsewhere', '192.0.2.1'),
];
const here: ProbePosition = { addresses: ['10.0.0.1'], gateways: ['10.0.0.254'] };

const parentsOf = (tree: ReturnType<typeof parentTree>) =>
  Object.fromEntries(tree.proposals.map((p) => [p.monitor.id, p.parents.map((m) => m.id)]));
const whyOf = (tree: ReturnType<typeof parentTree>, id: string) => tree.proposals.find((p) => p.monitor.id === id)!.why;

test('the probe\'s own node is the root; each monitor gets the nearest ping monitor toward it', () => {
  const tree = parentTree(nodes, edges, monitors, here);
  assert.deepEqual(tree.root, { node: 'probe', label: '10.0.0.1', why: 'the probe\'s own address 10.0.0.1 is this node' });
  assert.deepEqual(parentsOf(tree), {
    sw1: [], sw2: ['sw1'], 'sw2-web': ['sw2'], ssh: ['sw2'], 'ssh-22': ['ssh'], plain3: ['sw2'], plain1: ['sw1'],
    'router-far': ['sw2'], lonely: [],
  });
  // A monitor on a name, or on an address that is no node, is not a proposal.
  assert.ok(!tree.proposals.some((p) => p.monitor.id === 'by-name' || p.monitor.id === 'elsewhere'));
  assert.deepEqual(tree.unmatched, []);
});

test('each proposal says why: the port it is behind, by what, and whose monitor', () => {
  const tree = parentTree(nodes, edges, monitors, here);
  assert.equal(whyOf(tree, 'ssh'),
    '10.0.0.22 (ssh) is behind sw2 port swp2 (LLDP); sw2\'s ping "sw2" is the nearest monitor toward the probe (10.0.0.1)');
  assert.match(whyOf(tree, 'sw2'), /^10\.0\.0\.3 \(sw2\) is behind sw1 port swp2 \(LLDP\); sw1's ping "sw1"/);
  assert.match(whyOf(tree, 'plain3'), /is behind sw2 port swp6 \(drawn by hand\)/);
  assert.match(whyOf(tree, 'plain1'), /is behind sw1 port swp8 \(FDB\)/);
  assert.match(whyOf(tree, 'router-far'), /10\.0\.1\.1 \(router\) is behind sw2 port swp3 \(CDP\)/);
  assert.match(whyOf(tree, 'ssh-22'), /watched by ping "ssh" too/);
  assert.match(whyOf(tree, 'sw1'), /is behind 10\.0\.0\.1, on its own port swp1 \(FDB\): no ping monitor lies between it and the probe/);
  assert.match(whyOf(tree, 'lonely'), /not joined to 10\.0\.0\.1 by any LLDP, CDP, FDB/);
  const path = tree.proposals.find((p) => p.monitor.id === 'ssh')!.path;
  assert.deepEqual(path.map((s) => [s.node, s.port, s.own_port, s.source]),
    [['probe', null, null, null], ['sw1', null, 'swp1', 'fdb'], ['sw2', 'swp2', 'swp1', 'lldp'], ['ssh', 'swp2', 'eth0', 'lldp']]);
});

test('a node without a ping monitor is passed over, and named; other check types never become parents', () => {
  const tree = parentTree(nodes, edges, monitors.filter((m) => m.id !== 'sw2'), here);
  assert.deepEqual(parentsOf(tree).ssh, ['sw1']);
  assert.deepEqual(parentsOf(tree)['sw2-web'], ['sw1'], 'the web monitor of sw2 hangs on sw1 too');
  assert.match(whyOf(tree, 'ssh'), /sw1's ping "sw1" .*; passed over, without a ping monitor: sw2$/);
});

test('several ping monitors on a node are all parents', () => {
  const tree = parentTree(nodes, edges, [...monitors, mon('sw2-again', '10.0.0.3')], here);
  assert.deepEqual(parentsOf(tree).ssh, ['sw2', 'sw2-again']);
});

test('LLDP and CDP are preferred over forwarding tables; routes come last', () => {
  // A forwarding table that also put ssh on sw1 (a stale entry): the way through sw2 by LLDP wins.
  const withFdb = [...edges, { from: 'sw1', to: 'ssh', from_port: 'swp9', to_port: null, source: 'fdb' as const }];
  assert.deepEqual(parentsOf(parentTree(nodes, withFdb, monitors, here)).ssh, ['sw2']);
  // A host known only by a route through the router hangs on the router's monitor.
  const far: TreeNode = { id: 'srv', label: 'srv', addresses: ['10.0.1.10'] };
  const tree = parentTree([...nodes, far], [...edges, { from: 'srv', to: 'router', from_port: null, to_port: null, source: 'route' }],
    [...monitors, mon('srv', '10.0.1.10')], here);
  assert.deepEqual(parentsOf(tree).srv, ['router-far']);
  assert.match(whyOf(tree, 'srv'), /is behind router \(route\)/);
});

test('without the probe\'s own address: its gateway\'s node, a chosen node, or no root at all', () => {
  const viaGateway = parentTree(nodes, edges, monitors, { addresses: ['10.9.9.9'], gateways: ['10.0.0.254'] });
  assert.equal(viaGateway.root?.node, 'router');
  assert.match(viaGateway.root!.why, /gateway 10\.0\.0\.254/);
  // From the router, sw1 is behind sw2.
  assert.deepEqual(parentsOf(viaGateway).sw1, ['sw2']);
  const chosen = parentTree(nodes, edges, monitors, { ...here, node: 'sw1' });
  assert.equal(chosen.root?.node, 'sw1');
  assert.deepEqual(parentsOf(chosen).sw2, ['sw1']);
  const none = parentTree(nodes, edges, monitors, { addresses: ['192.0.2.9'], gateways: [] });
  assert.equal(none.root, null);
  assert.match(none.problem!, /not in this session/);
  assert.deepEqual(none.proposals, []);
  assert.match(parentTree(nodes, edges, monitors, { ...here, node: 'nope' }).problem!, /No node "nope"/);
});

test('an address two nodes hold is unmatched, not guessed', () => {
  const twin: TreeNode = { id: 'twin', label: 'twin', addresses: ['10.0.0.22'] };
  const tree = parentTree([...nodes, twin], edges, monitors, here);
  assert.ok(!tree.proposals.some((p) => p.monitor.id === 'ssh'));
  assert.deepEqual(tree.unmatched.map((u) => u.monitor.id).sort(), ['ssh', 'ssh-22']);
  // and ssh-22 no longer has a ping beside it: ssh's node is ambiguous
});

test('gateways from /proc/net/route: default routes first, each once', () => {
  const text = [
    'Iface\tDestination\tGateway \tFlags\tRefCnt\tUse\tMetric\tMask\t\tMTU\tWindow\tIRTT',
    'npl0\t00004D0A\tFE004D0A\t0003\t0\t0\t0\t00F0FFFF\t0\t0\t0',
    'eth0\t00000000\t0100A8C0\t0003\t0\t0\t100\t00000000\t0\t0\t0',
    'eth0\t0000A8C0\t00000000\t0001\t0\t0\t100\t00FFFFFF\t0\t0\t0',
  ].join('\n');
  assert.deepEqual(gatewaysOf(text), ['192.168.0.1', '10.77.0.254']);
});
