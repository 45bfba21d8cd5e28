// What runs on which lab host, by role. Each host's files (configuration, keys, logs, stamps) are in
// its own directory under the slot's directory.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { nodeTs, type DaemonSpec } from './daemons.js';
import { dnsmasqSpec } from './dns.js';
import type { AdvertiserConfig } from './advertiser.js';
import type { SimConfig } from './sim.js';
import { lldpdSpec, snmpdSpec, type SnmpSecrets } from './snmp.js';
import { prepareSsh, type SshAccess } from './ssh.js';
import { httpSpec } from './tcp.js';
import { addressesOf, macOfHost, type HostPlan, type Plan } from './topology.js';

const SIM_PROGRAM = fileURLToPath(new URL('./sim.ts', import.meta.url));
const ADVERTISER_PROGRAM = fileURLToPath(new URL('./advertiser.ts', import.meta.url));

/** What the lab's printer advertises (advertiser.ts): the same in every lab but for the slot. */
export function printerAdvert(p: Plan, h: HostPlan): AdvertiserConfig {
  const model = 'LaserJet 400 M401dn';
  return {
    name: h.name, address: addressesOf(h)[0]!, host: h.ns, instance: `Lab Printer NPL-P${p.slot}`, http_port: h.tcp[0] ?? 80,
    ipp_txt: ['txtvers=1', 'qtotal=1', 'rp=ipp/print', `ty=NPL ${model}`, `product=(NPL ${model})`, 'usb_MFG=NPL', `usb_MDL=${model}`,
      'note=Lab room 2', 'pdl=application/pdf,image/urf', 'Color=F', 'Duplex=T'],
    upnp: { uuid: `4e504c00-0000-1000-8000-${macOfHost(h).replace(/:/g, '')}`, friendly_name: `Lab Printer NPL-P${p.slot}`,
      manufacturer: 'NPL', model_name: model, model_number: 'M401dn', serial: `NPL${p.slot}PRN` },
  };
}

/** The printer's mDNS/SSDP responder and its HTTP server (LOCATION), in its namespace. */
function advertiserSpec(p: Plan, h: HostPlan, dir: string): DaemonSpec {
  const file = join(dir, 'advertiser.json');
  writeFileSync(file, JSON.stringify(printerAdvert(p, h), null, 2) + '\n', { mode: 0o600 });
  return { name: 'advertiser', phase: 1, argv: nodeTs(ADVERTISER_PROGRAM, file), ready: [{ patterns: [/^ready$/m] }] };
}

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
  if (h.role === 'printer') specs.push(advertiserSpec(p, h, dir));
  return { specs, ssh };
}
