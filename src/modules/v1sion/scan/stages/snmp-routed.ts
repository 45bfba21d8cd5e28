// Liveness by SNMP on the addresses that are not on one of the probe's links: every address, every
// community and the engine probe at once (scan/snmp-sweep.ts), with discovery.snmp_retries.
import { inCidr } from '../ranges.js';
import { sweepInto } from '../snmp-sweep.js';
import type { Stage } from './types.js';

export const snmpRouted: Stage = {
  name: 'snmp-routed', phase: 'liveness', needs: ['addresses', 'credentials'],
  adds: { products: ['hosts', 'snmp_answers'], host: ['alive_by'] }, weight: 1,
  run: (ctx) => sweepInto(ctx, ctx.plan.addresses.filter((a) => !ctx.plan.links.some((l) => inCidr(l.cidr, a)))),
};
