// What runs on which lab host, by role. Each host's files (configuration, keys, logs, stamps) are in
// its own directory under the slot's directory.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { nodeTs, type DaemonSpec } from './daemons.js';
import { dnsmasqSpec } from './dns.js';
import type { SimConfig } from './sim.js';
import { lldpdSpec, snmpdSpec, type SnmpSecrets } from './snmp.js';
import { prepareSsh, type SshAccess } from './ssh.js';
import { httpSpec } from './tcp.js';
import type { HostPlan, Plan } from './topology.js';

const SIM_PROGRAM = fileURLToPath(new URL('./sim.ts', import.meta.url));

/** The snmprec simulator serving the host's recordings on their lab addresses, UDP 161, on the lab community. */
function simSpec(h: HostPlan, dir: string, community: string): DaemonSpec {
  const config: SimConfig = { devices: h.sims!.map((s) => ({ name: s.name, file: s.file, host: s.address, community })) };
  const file = join(dir, 'sim.json');
  writeFileSync(file, JSON.stringify(config, null, 2) + '\n', { mode: 0o600 });
  return { name: 'sim', phase: 1, argv: nodeTs(SIM_PROGRAM, file), ready: [{ patterns: [/^ready$/m] }] };
}

export function servicesFor(p: Plan, h: HostPlan, dir: string, secrets: SnmpSecrets, guardSeconds: number):
{ specs: DaemonSpec[]; ssh?: SshAccess } {
  const specs: DaemonSpec[] = [];
  let ssh: SshAccess | undefined;
  if (h.snmp) specs.push(snmpdSpec(p, h, dir, secrets, guardSeconds));
  if (h.sims?.length) specs.push(simSpec(h, dir, secrets.community));
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
