// Synthetic topology sessions for bench/ui.ts: a network shaped like a real one (a core router, a ring of
// distribution switches, access switches under them, hosts under those, a few access points and servers),
// made through POST /api/v1sion/sessions with no positions, so the map lays every node out itself.
import assert from 'node:assert/strict';
import type { TestApp } from '../../test/helpers/harness.js';

interface N { id: string; label: string; addresses: string[]; kind: string }
interface E { from: string; to: string; from_port: string | null; to_port: string | null; source: string }

/** `n` nodes: ~2% switches of two tiers, the rest hosts, servers and access points; one edge per non-root node plus a ring. */
export function syntheticGraph(n: number): { nodes: N[]; edges: E[] } {
  const nodes: N[] = [];
  const edges: E[] = [];
  const ip = (i: number) => `10.${100 + Math.floor(i / 65536)}.${Math.floor(i / 256) % 256}.${(i % 256) || 1}`;
  const add = (kind: string, label: string) => {
    const id = `b-${nodes.length}`;
    nodes.push({ id, label, addresses: [ip(nodes.length + 1)], kind });
    return id;
  };
  const core = add('router', 'core');
  const dist = Math.max(2, Math.round(n / 100));
  const access = Math.max(4, Math.round(n / 25));
  const distIds: string[] = [];
  for (let i = 0; i < dist && nodes.length < n; i++) {
    const d = add('switch', `dist-${i + 1}`);
    distIds.push(d);
    edges.push({ from: core, to: d, from_port: `xe-0/0/${i}`, to_port: 'Te1/1/1', source: 'lldp' });
  }
  for (let i = 1; i < distIds.length; i++) edges.push({ from: distIds[i - 1]!, to: distIds[i]!, from_port: 'Te1/1/2', to_port: 'Te1/1/3', source: 'lldp' });
  const accIds: string[] = [];
  for (let i = 0; i < access && nodes.length < n; i++) {
    const s = add('switch', `access-${i + 1}`);
    accIds.push(s);
    edges.push({ from: distIds[i % distIds.length]!, to: s, from_port: `Gi1/0/${i + 1}`, to_port: 'Gi1/0/48', source: i % 5 ? 'lldp' : 'cdp' });
  }
  for (let i = 0; nodes.length < n; i++) {
    const kind = i % 17 === 0 ? 'access_point' : i % 11 === 0 ? 'server' : 'host';
    const h = add(kind, `${kind === 'host' ? 'pc' : kind === 'server' ? 'srv' : 'ap'}-${i + 1}`);
    edges.push({ from: accIds[i % accIds.length]!, to: h, from_port: `Gi1/0/${(Math.floor(i / accIds.length) % 47) + 1}`, to_port: null, source: 'fdb' });
  }
  return { nodes, edges };
}

export async function makeSession(t: TestApp, key: string, n: number, name: string): Promise<{ id: string; edges: number }> {
  const g = syntheticGraph(n);
  const r = await t.request('POST', '/api/v1sion/sessions', { key, body: { name, subnets: ['10.100.0.0/16'], nodes: g.nodes, edges: g.edges } });
  assert.equal(r.status, 201, r.text);
  return { id: r.body.id, edges: g.edges.length };
}
