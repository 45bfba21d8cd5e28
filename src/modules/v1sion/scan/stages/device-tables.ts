// The LLDP, CDP, bridge and ARP tables of each identified SNMP agent (scan/topology.ts), a few at once.
import { readDeviceTables } from '../topology.js';
import type { Stage } from './types.js';

export const deviceTables: Stage = {
  name: 'device-tables', phase: 'neighbours', needs: ['agents'], adds: { products: ['tables'] }, weight: 10,
  async run({ app, state, settings, signal }) {
    state.work.tables = await readDeviceTables(app, state.work.agents, settings.snmpTiming, signal, state.result.warnings);
  },
};
