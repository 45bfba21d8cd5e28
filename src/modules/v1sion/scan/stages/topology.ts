// Devices (hosts merged by identity, plus neighbours seen only in LLDP/CDP tables) and the links between
// them (scan/topology.ts); one `link` message per link.
import { buildTopology } from '../topology.js';
import type { Stage } from './types.js';

export const topology: Stage = {
  name: 'topology', phase: 'neighbours', needs: ['hosts', 'tables'],
  adds: { products: ['devices'], host: ['device_id'], result: ['devices', 'links'] }, weight: 4,
  async run({ state, emit }) {
    const topo = buildTopology([...state.hosts.values()], state.work.tables);
    state.result.devices = topo.devices;
    state.result.links = topo.links;
    for (const link of topo.links) emit('link', { link });
  },
};
