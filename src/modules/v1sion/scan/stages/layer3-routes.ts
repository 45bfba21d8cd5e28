// The routing tables of the layer-3 agents (scan/routes-read.ts), offered in the result for import.
import { isLayer3, readLayer3Routes } from '../routes-read.js';
import type { Stage } from './types.js';

export const layer3Routes: Stage = {
  name: 'layer3-routes', phase: 'neighbours', needs: ['agents', 'tables', 'devices'], adds: { products: ['routes'], result: ['routes'] },
  weight: 5,
  async run({ app, state, settings, signal }) {
    const agents = state.work.agents.filter((a) => isLayer3(state.hosts.get(a.ip)!));
    const routes = await readLayer3Routes(app, agents, state.work.tables, settings.snmpTiming, signal, state.result.warnings);
    state.result.routes = routes.map((r) => ({ ...r, device_id: state.hosts.get(r.agent)?.device_id ?? '' }));
  },
};
