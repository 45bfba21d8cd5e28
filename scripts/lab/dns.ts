// The lab's resolver: dnsmasq on the dns host, answering A and PTR for every lab address from a hosts
// file (<name>.lab.test). It has no upstream: other names under lab.test and reverse lookups of other
// private addresses get NXDOMAIN here (--local, --bogus-priv), so a lookup never leaves the lab.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { DaemonSpec } from './daemons.js';
import { addressesOf, DOMAIN, namedAddresses, type HostPlan, type Plan } from './topology.js';

/** One line per address; the first name of a line is what its PTR record says. */
export function hostsLines(p: Plan): string[] {
  const lines = [`${p.probe.cidr.split('/')[0]} probe.${DOMAIN} probe`];
  for (const h of p.hosts) {
    for (const n of namedAddresses(h)) for (const a of n.addresses) lines.push(`${a} ${n.name}.${DOMAIN} ${n.name}`);
  }
  return lines;
}

export function dnsmasqSpec(p: Plan, h: HostPlan, dir: string): DaemonSpec {
  const hosts = join(dir, 'hosts');
  writeFileSync(hosts, hostsLines(p).join('\n') + '\n');
  return {
    name: 'dnsmasq', phase: 1,
    argv: ['dnsmasq', '--keep-in-foreground', '--conf-file=/dev/null', '--log-facility=-', '--log-queries', '--user=root',
      `--pid-file=${join(dir, 'dnsmasq.pid')}`, '--no-resolv', '--no-hosts', `--addn-hosts=${hosts}`,
      `--local=/${DOMAIN}/`, '--bogus-priv', '--bind-interfaces', `--listen-address=${addressesOf(h)[0]}`],
    ready: [{ patterns: [/started, version/, /read .*hosts/] }],
  };
}
