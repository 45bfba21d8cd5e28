// SNMP on the probe's own links, only to the hosts the neighbour table has just confirmed. Sent to silent
// addresses there, SNMP datagrams would wait in the kernel for an ARP answer that never comes, filling
// the socket's send buffer and holding up the live hosts'. These hosts have just answered the kernel on
// the same wire, so one try each: a retry would only make every host without an agent (most of them)
// cost a second timeout, the scan's longest path on a LAN.
import { inCidr } from '../ranges.js';
import { sweepInto } from '../snmp-sweep.js';
import type { Stage } from './types.js';

export const snmpOnLink: Stage = {
  name: 'snmp-on-link', phase: 'liveness', needs: ['links', 'credentials', 'neighbours'],
  adds: { products: ['hosts', 'snmp_answers'], host: ['alive_by'] }, weight: 1,
  run: (ctx) => sweepInto(ctx, [...ctx.state.hosts.keys()].filter((ip) => ctx.plan.links.some((l) => inCidr(l.cidr, ip))),
    { ...ctx.settings.snmpTiming, retries: 0 }),
};
