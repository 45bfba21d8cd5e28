// What runs on which lab host, by role. Each host's files (configuration, keys, logs, stamps) are in
// its own directory under the slot's directory.
import type { DaemonSpec } from './daemons.js';
import { dnsmasqSpec } from './dns.js';
import { lldpdSpec, snmpdSpec } from './snmp.js';
import { prepareSsh, type SshAccess } from './ssh.js';
import { httpSpec } from './tcp.js';
import type { HostPlan, Plan } from './topology.js';

export function servicesFor(p: Plan, h: HostPlan, dir: string, community: string): { specs: DaemonSpec[]; ssh?: SshAccess } {
  const specs: DaemonSpec[] = [];
  let ssh: SshAccess | undefined;
  if (h.snmp) specs.push(snmpdSpec(p, h, dir, community));
  if (h.role === 'switch') specs.push(lldpdSpec(h, dir));
  if (h.role === 'ssh') {
    const prepared = prepareSsh(h, dir);
    specs.push(prepared.spec);
    ssh = prepared.access;
  }
  if (h.role === 'dns') specs.push(dnsmasqSpec(p, h, dir));
  if (h.role === 'silent' || h.role === 'server') specs.push(httpSpec(h));
  return { specs, ssh };
}
