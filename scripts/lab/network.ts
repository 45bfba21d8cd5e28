// Builds a plan's namespaces, veth cables, bridges, addresses and routes. No namespace gets a default
// route: a lab host can reach only the lab. The root namespace gets the slot's subnet on its veth and
// a route for the rest of the slot's /20 through the router; the guard routes (slots.ts) are in place
// before this runs, so no lab address can ever be sent out by the default route.
import { ip, run } from './run.js';
import type { HostPlan, Plan } from './topology.js';

function nsOf(p: Plan, host: string): string | null {
  if (host === 'probe') return null;
  const h = p.hosts.find((x) => x.name === host);
  if (!h) throw new Error(`cable to unknown lab host ${host}`);
  return h.ns;
}

function macFor(p: Plan, host: string, ifname: string): string {
  if (host === 'probe') return p.probe.mac;
  return p.hosts.find((x) => x.name === host)!.ifaces.find((f) => f.name === ifname)!.mac;
}

/** One `ip -batch` per namespace: a lab of twenty hosts is built with a few dozen programs, not hundreds. */
function buildHost(h: HostPlan): void {
  const cmds = ['link set lo up'];
  for (const f of h.ifaces.filter((x) => x.bridge)) cmds.push(`link add ${f.name} address ${f.mac} type bridge`);
  for (const f of h.ifaces) {
    if (f.master) cmds.push(`link set ${f.name} master ${f.master}`);
    for (const c of [f.cidr, ...(f.more ?? [])]) if (c) cmds.push(`addr add ${c} dev ${f.name}`);
    cmds.push(`link set ${f.name} up`);
  }
  for (const r of h.routes) cmds.push(r.type ? `route add ${r.type} ${r.to}` : `route add ${r.to} via ${r.via}`);
  run('ip', ['-n', h.ns, '-batch', '-'], { input: cmds.join('\n') + '\n' });
  if (h.sysctls.length) run('ip', ['netns', 'exec', h.ns, 'sysctl', '-qw', ...h.sysctls]);
}

export function buildNetwork(p: Plan): void {
  for (const h of p.hosts) run('ip', ['netns', 'add', h.ns]);
  // Each cable is created with both ends already in their namespaces and named as they will stay.
  const cables: string[] = [];
  for (const [a, b] of p.cables) {
    const end = (x: { host: string; ifname: string }) => {
      const ns = nsOf(p, x.host);
      return [x.ifname, ...(ns ? ['netns', ns] : []), 'address', macFor(p, x.host, x.ifname)];
    };
    cables.push(['link', 'add', ...end(a), 'type', 'veth', 'peer', 'name', ...end(b)].join(' '));
  }
  run('ip', ['-batch', '-'], { input: cables.join('\n') + '\n' });
  for (const h of p.hosts) buildHost(h);
  ip(null, 'addr', 'add', p.probe.cidr, 'dev', p.probe.name);
  ip(null, 'link', 'set', p.probe.name, 'up');
  for (const r of p.probeRoutes) ip(null, 'route', 'replace', r.to, 'via', r.via, 'dev', p.probe.name);
}
