// Liveness on the probe's own links: every address is poked so the kernel resolves it (ARP or ND) and
// the neighbour table then lists each host that answered (scan/neighbour-cache.ts). An IPv6 prefix too
// large to sweep is found by one all-nodes echo request per link instead.
import { allNodesPing, pokeAndRead, readNeighboursInto, sleep } from '../neighbour-cache.js';
import { inCidr } from '../ranges.js';
import type { Stage } from './types.js';

export const neighbourTable: Stage = {
  name: 'neighbour-table', phase: 'liveness', needs: ['links'],
  adds: { products: ['hosts', 'neighbours'], host: ['alive_by', 'mac'] }, weight: 1,
  async run({ plan, state, signal, fail }) {
    const read = () => readNeighboursInto(state, signal);
    try {
      if (plan.addresses.length) {
        await pokeAndRead(plan.addresses.filter((a) => plan.links.some((l) => inCidr(l.cidr, a))), signal, read);
      } else {
        await Promise.all(plan.links.map((l) => allNodesPing(l.iface, signal)));
        await sleep(400, signal);
        await read();
      }
    } catch (e) {
      fail('neighbour table', e);
    }
  },
};
