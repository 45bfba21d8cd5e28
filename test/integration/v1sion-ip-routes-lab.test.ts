// readRoutes() (scan/ip-routes.ts) against the lab's real Debian snmpd agents, inside network namespaces
// (docs/lab.md): the router serves inetCidrRouteTable for its three connected subnets (and the blackhole
// that ends the rest of the slot's /20), each matching what the kernel itself says (`ip -j route`); sw1's
// route to the /20 goes through the router, so documented as a route it draws a layer-3 edge sw1 → router;
// a limit under the router's count reads the count and walks nothing.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createSnmpClient } from '../../src/modules/snmp/client.js';
import type { SnmpReader, SnmpTarget } from '../../src/modules/snmp/contracts.js';
import { offered, readRoutes } from '../../src/modules/v1sion/scan/ip-routes.js';
import { layer3Edges } from '../../src/modules/v1sion/sessions/l3-edges.js';
import { labSkipReason, startLab, type Lab, type LabHost } from '../helpers/lab.js';

const skip = labSkipReason();

const targetOf = (h: LabHost): SnmpTarget => {
  assert.ok(h.snmp?.community, `${h.name} answers a community`);
  return { host: h.addresses[0]!, version: 'v2c', community: h.snmp.community, timeout_ms: 2000, retries: 1 };
};

/** The reader, counting the requests a caller makes. */
function counting(reader: SnmpReader): SnmpReader & { gets: number; walks: number } {
  const c = {
    gets: 0, walks: 0,
    get: (t: SnmpTarget, oids: string[]) => { c.gets++; return reader.get(t, oids); },
    walk: (...args: Parameters<SnmpReader['walk']>) => { c.walks++; return reader.walk(...args); },
  };
  return c;
}

interface KernelRoute { dst: string; dev?: string; gateway?: string; type?: string; protocol?: string }

describe('route tables of the lab\'s agents', { skip: skip ?? false }, () => {
  let lab: Lab;
  before(async () => { lab = await startLab({ corpus: false, waitLldp: false }); });
  after(async () => { await lab?.stop(); });

  test('the router: inetCidrRouteTable, every IPv4 route the kernel has, connected subnets on their interfaces', async () => {
    const router = lab.host('router');
    const r = await readRoutes(createSnmpClient(), targetOf(router));
    assert.equal(r.table, 'inetCidrRouteTable');
    assert.equal(r.skipped, false);
    assert.deepEqual(r.warnings, []);
    assert.ok(r.counts.inetCidrRouteTable !== null && r.counts.inetCidrRouteTable >= r.routes.length, JSON.stringify(r.counts));

    const kernel = JSON.parse((await lab.exec('router', 'ip', ['-j', '-4', 'route', 'show', 'table', 'main'])).stdout) as KernelRoute[];
    assert.ok(kernel.length >= 4, `the router's kernel routes: ${JSON.stringify(kernel)}`);
    const v4 = r.routes.filter((x) => !x.destination.includes(':'));
    for (const k of kernel) {
      const dst = k.dst === 'default' ? '0.0.0.0/0' : k.dst.includes('/') ? k.dst : `${k.dst}/32`;
      const found = v4.find((x) => x.destination === dst);
      assert.ok(found, `${dst} (${JSON.stringify(k)}) is among ${JSON.stringify(v4)}`);
      if (k.dev) assert.equal(found.interface, k.dev, dst);
      assert.equal(found.next_hop, k.gateway ?? null, dst);
    }
    for (const [subnet, dev] of [['lan', 'eth0'], ['far', 'eth1'], ['corp', 'eth2']] as const) {
      const cidr = lab.subnets.find((s) => s.name === subnet)!.cidr;
      const route = r.routes.find((x) => x.destination === cidr);
      assert.ok(route, `${cidr} in ${JSON.stringify(r.routes)}`);
      assert.deepEqual([route.next_hop, route.interface, route.type, route.protocol], [null, dev, 'local', 'local'], cidr);
      assert.equal(offered(route), true);
    }
    // The rest of the slot's /20 ends at the router (`blackhole`): Net-SNMP shows it as a local route on no
    // interface, with no next hop. It leads nowhere, so it is not offered for import.
    const range = r.routes.find((x) => x.destination === lab.range);
    assert.deepEqual(range && [range.next_hop, range.if_index, range.interface], [null, null, null]);
    assert.equal(offered(range!), false);
    assert.deepEqual(r.routes.filter(offered).map((x) => x.destination).filter((d) => !d.includes(':')).sort(),
      lab.subnets.map((s) => s.cidr).sort(), 'offered: the three subnets');
  });

  test('sw1 reaches the slot\'s /20 through the router: documented, that is a layer-3 edge sw1 → router', async () => {
    const sw1 = lab.host('sw1');
    const router = lab.host('router');
    const r = await readRoutes(createSnmpClient(), targetOf(sw1));
    assert.equal(r.table, 'inetCidrRouteTable');
    const gateway = lab.subnets.find((s) => s.name === 'lan')!.gateway;
    const viaRouter = r.routes.find((x) => x.destination === lab.range);
    assert.ok(viaRouter, JSON.stringify(r.routes));
    assert.deepEqual([viaRouter.next_hop, viaRouter.interface, viaRouter.type, offered(viaRouter)], [gateway, 'br0', 'remote', true]);
    assert.ok(router.addresses.includes(gateway));

    const edges = layer3Edges(
      [{ id: 'sw1', addresses: sw1.addresses, inventory: null }, { id: 'router', addresses: router.addresses, inventory: null }],
      r.routes.filter(offered).map((x, i) => ({
        id: `r${i}`, destination: x.destination, next_hop: x.next_hop, device: { type: 'session_node' as const, session_id: 's', node_id: 'sw1' },
      })), 's');
    assert.deepEqual(edges.map((e) => [e.from, e.to, e.destinations]), [['sw1', 'router', [lab.range]]]);
  });

  test('a limit below the router\'s count: the count is read and nothing is walked', async () => {
    const reader = counting(createSnmpClient());
    const r = await readRoutes(reader, targetOf(lab.host('router')), undefined, { limit: 2 });
    assert.equal(r.skipped, true);
    assert.deepEqual(r.routes, []);
    assert.match(r.warnings[0] ?? '', /routing table holds \d+ routes, more than 2: not read/);
    assert.deepEqual([reader.gets, reader.walks], [1, 0]);
  });
});
