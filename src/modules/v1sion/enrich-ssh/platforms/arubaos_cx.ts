// HPE Aruba ArubaOS-CX: an interactive shell, `no page` first (it turns paging off for this CLI session
// only), then the show commands' text as the CX command reference writes it.
import { emptyFacts, type ParsedFacts } from '../facts.js';
import { cidrOf, destinationOf, duration, int, ip, keyValues, linesOf, mac, str, table, textOf } from './text.js';
import type { Platform, Sections } from './types.js';

export const arubaosCx: Platform = {
  name: 'arubaos_cx',
  label: 'HPE Aruba ArubaOS-CX',
  transport: 'shell',
  preamble: ['no page'],
  commands: [
    { name: 'version', command: 'show version' },
    { name: 'system', command: 'show system' },
    { name: 'interfaces', command: 'show interface brief' },
    { name: 'addresses', command: 'show ip interface brief', optional: true },
    { name: 'routes', command: 'show ip route', optional: true },
    { name: 'arp', command: 'show arp', optional: true },
    { name: 'lldp', command: 'show lldp neighbor-info', optional: true },
    { name: 'mac_table', command: 'show mac-address-table', optional: true },
  ],
  parse: parseArubaosCx,
};

export function parseArubaosCx(s: Sections): ParsedFacts {
  const f = emptyFacts();
  f.vendor = 'HPE Aruba Networking';
  const version = keyValues(textOf(s, 'version'));
  const system = keyValues(textOf(s, 'system'));
  f.os = /ArubaOS-CX/i.test(textOf(s, 'version')) || system.size ? 'ArubaOS-CX' : null;
  f.os_version = str(version.get('version')) ?? str(system.get('arubaos-cx version'));
  f.hostname = str(system.get('hostname'));
  const product = str(system.get('product name'));
  f.model = product ? product.split(/\s+/)[0]! : null;
  f.serial = str(system.get('chassis serial nbr'));
  f.uptime_s = duration(system.get('up time'));
  if (product) f.inventory.push({ name: 'Chassis', description: product, model: f.model, serial: f.serial });

  const ifaces = table(textOf(s, 'interfaces'), /^Port\s+Native/, ['Port', 'Native', 'Mode', 'Type', 'Enabled', 'Status', 'Reason', 'Speed', 'Description']);
  const byName = new Map<string, ParsedFacts['interfaces'][number]>();
  for (const r of ifaces) {
    if (!r.Port || !/\d/.test(r.Port)) continue;
    const i = { name: r.Port, description: str(r.Description), mac: null, state: r.Enabled === 'no' ? 'admin-down' : str(r.Status),
      mtu: null, addresses: [] as string[], master: null };
    byName.set(i.name, i);
    f.interfaces.push(i);
  }
  for (const line of linesOf(textOf(s, 'addresses'))) {
    const m = /^(\S+)\s+(\d[\d.]*\/\d+)\s+(\S+)/.exec(line);
    if (!m) continue;
    const c = cidrOf(m[2]!);
    let i = byName.get(m[1]!);
    if (!i) {
      i = { name: m[1]!, description: null, mac: null, state: m[3]!.split('/')[0] ?? null, mtu: null, addresses: [], master: null };
      byName.set(i.name, i);
      f.interfaces.push(i);
    }
    if (c) i.addresses.push(c);
  }
  // `show ip route`: `prefix, vrf name` then `via next-hop, [distance/metric], protocol` lines.
  let dest: string | null = null;
  for (const line of linesOf(textOf(s, 'routes'))) {
    const head = /^(\S+\/\d+),\s*vrf\s+\S+/.exec(line);
    if (head) { dest = destinationOf(head[1]!); continue; }
    const via = /^\s+via\s+([^,\s]+),\s*\[(\d+)\/(\d+)\],\s*(\S+)/.exec(line);
    if (via && dest) {
      const gw = ip(via[1]);
      f.routes.push({ destination: dest, gateway: gw, interface: gw ? null : via[1]!, protocol: via[4]!, metric: int(via[3]) });
    }
  }
  for (const line of linesOf(textOf(s, 'arp'))) {
    const m = /^(\d[\d.]+)\s+([0-9a-f:]{17})\s+(\S+)\s+(\S+)?\s*(\S+)?/i.exec(line.trim());
    const address = m ? ip(m[1]) : null;
    const hw = m ? mac(m[2]) : null;
    if (address && hw) f.neighbours.push({ address, mac: hw, interface: m![3]!, state: str(m![5]) });
  }
  const lldp = table(textOf(s, 'lldp'), /^LOCAL-PORT\s+CHASSIS-ID/, ['LOCAL-PORT', 'CHASSIS-ID', 'PORT-ID', 'PORT-DESC', 'TTL', 'SYS-NAME']);
  f.lldp = lldp.filter((r) => r['LOCAL-PORT'] && /\d/.test(r['LOCAL-PORT'])).map((r) => ({
    protocol: 'lldp' as const, local_port: r['LOCAL-PORT']!, chassis_id: str(r['CHASSIS-ID']), system_name: str(r['SYS-NAME']),
    system_description: null, port_id: str(r['PORT-ID']), port_description: str(r['PORT-DESC']), management_addresses: [],
    capabilities: [], platform: null,
  }));
  for (const line of linesOf(textOf(s, 'mac_table'))) {
    const m = /^([0-9a-f]{2}(?::[0-9a-f]{2}){5})\s+(\d+)\s+(\S+)\s+(\S+)/i.exec(line.trim());
    const hw = m ? mac(m[1]) : null;
    if (m && hw) f.mac_table.push({ mac: hw, vlan: int(m[2]), interface: m[4]!, type: m[3]!.toLowerCase() });
  }
  return f;
}
