// Juniper Junos: an interactive shell on the CLI, `set cli screen-length 0` and `set cli screen-width 0`
// first (they change this CLI session only, not the configuration), and `| no-more` on every command.
import { emptyFacts, type ParsedFacts } from '../facts.js';
import { cidrOf, destinationOf, int, ip, linesOf, mac, str, table, textOf } from './text.js';
import type { Platform, Sections } from './types.js';

export const junos: Platform = {
  name: 'junos',
  label: 'Juniper Junos',
  transport: 'shell',
  preamble: ['set cli screen-length 0', 'set cli screen-width 0'],
  commands: [
    { name: 'version', command: 'show version | no-more' },
    { name: 'hardware', command: 'show chassis hardware | no-more', optional: true },
    { name: 'interfaces', command: 'show interfaces terse | no-more' },
    { name: 'macs', command: 'show interfaces | match "Physical interface|Current address" | no-more', optional: true },
    { name: 'routes', command: 'show route table inet.0 | no-more', optional: true },
    { name: 'arp', command: 'show arp no-resolve | no-more', optional: true },
    { name: 'lldp', command: 'show lldp neighbors | no-more', optional: true },
    { name: 'mac_table', command: 'show ethernet-switching table | no-more', optional: true },
  ],
  parse: parseJunos,
};

export function parseJunos(s: Sections): ParsedFacts {
  const f = emptyFacts();
  f.vendor = 'Juniper Networks';
  const version = textOf(s, 'version');
  f.hostname = str(/^Hostname:\s*(\S+)/m.exec(version)?.[1]);
  f.model = str(/^Model:\s*(\S+)/m.exec(version)?.[1]);
  f.os_version = str(/^Junos:\s*(\S+)/m.exec(version)?.[1]) ?? str(/^JUNOS .*\[([^\]]+)\]/m.exec(version)?.[1]);
  f.os = f.os_version || f.hostname ? 'Junos' : null;

  const hardware = table(textOf(s, 'hardware'), /^Item\s+Version/, ['Item', 'Version', 'Part number', 'Serial number', 'Description']);
  f.inventory = hardware.filter((r) => r.Item).map((r) => ({
    name: r.Item!, description: str(r.Description), model: str(r['Part number']), serial: str(r['Serial number']),
  }));
  const chassis = hardware.find((r) => r.Item === 'Chassis');
  if (chassis) {
    f.serial = str(chassis['Serial number']);
    f.model ??= str(chassis.Description);
  }

  // `show interfaces terse`: a row per interface and unit; more addresses of a unit follow on their own lines.
  const macs = new Map<string, string>();
  let physical: string | null = null;
  for (const line of linesOf(textOf(s, 'macs'))) {
    const p = /Physical interface:\s*([^,\s]+)/.exec(line);
    if (p) { physical = p[1]!; continue; }
    const m = /Current address:\s*([0-9a-f:]{17})/i.exec(line);
    if (m && physical) { const hw = mac(m[1]); if (hw) macs.set(physical, hw); }
  }
  let cur: ParsedFacts['interfaces'][number] | null = null;
  for (const line of linesOf(textOf(s, 'interfaces'))) {
    if (/^Interface\s+Admin/.test(line) || !line.trim()) continue;
    const row = /^(\S+)\s+(up|down)\s+(up|down)(?:\s+(\S+)(?:\s+(\S+))?)?/.exec(line);
    if (row) {
      cur = { name: row[1]!, description: null, mac: macs.get(row[1]!) ?? null, state: row[2] === 'down' ? 'admin-down' : row[3]!,
        mtu: null, addresses: [], master: row[1]!.includes('.') ? row[1]!.split('.')[0]! : null };
      f.interfaces.push(cur);
      if (row[4] && /^inet6?$/.test(row[4]) && row[5]) { const c = cidrOf(row[5]); if (c) cur.addresses.push(c); }
      continue;
    }
    const more = /^\s+(inet6?)\s+(\S+)/.exec(line);
    if (more && cur) { const c = cidrOf(more[2]!); if (c) cur.addresses.push(c); }
  }

  // `show route`: `prefix *[Protocol/preference] age, metric N` then `> to gateway via interface` lines.
  let route: { destination: string; protocol: string; metric: number | null } | null = null;
  for (const line of linesOf(textOf(s, 'routes'))) {
    const head = /^(\S+\/\d+)\s+[*+-]?\[([A-Za-z-]+)\/\d+\][^,]*(?:, metric (\d+))?/.exec(line);
    if (head) {
      const destination = destinationOf(head[1]!);
      route = destination ? { destination, protocol: head[2]!.toLowerCase(), metric: int(head[3]) } : null;
      continue;
    }
    const hop = /^\s+>?\s*(?:to (\S+) )?via (\S+)/.exec(line) ?? /^\s+Local via (\S+)/.exec(line);
    if (route && hop) {
      const local = hop.length === 2;
      f.routes.push({ ...route, gateway: local ? null : ip(hop[1]), interface: local ? hop[1]! : hop[2]! });
      route = null; // the first (active) next hop
    }
  }
  for (const line of linesOf(textOf(s, 'arp'))) {
    const m = /^([0-9a-f:]{17})\s+(\S+)\s+(\S+)/i.exec(line.trim());
    const hw = m ? mac(m[1]) : null;
    const address = m ? ip(m[2]) : null;
    if (hw && address) f.neighbours.push({ address, mac: hw, interface: m![3]!, state: null });
  }
  const lldp = table(textOf(s, 'lldp'), /^Local Interface\s+/, ['Local Interface', 'Parent Interface', 'Chassis Id', 'Port info', 'System Name']);
  f.lldp = lldp.filter((r) => r['Local Interface']).map((r) => ({
    protocol: 'lldp' as const, local_port: r['Local Interface']!, chassis_id: str(r['Chassis Id']), system_name: str(r['System Name']),
    system_description: null, port_id: str(r['Port info']), port_description: null, management_addresses: [], capabilities: [],
    platform: null,
  }));
  for (const line of linesOf(textOf(s, 'mac_table'))) {
    const m = /^\s*(\S+)\s+([0-9a-f]{2}(?::[0-9a-f]{2}){5})\s+(\S+)\s+\S+\s+(\S+)/i.exec(line);
    const hw = m ? mac(m[2]) : null;
    if (m && hw) f.mac_table.push({ mac: hw, vlan: int(m[1]), interface: m[4]!, type: m[3]!.startsWith('S') ? 'static' : 'dynamic' });
  }
  return f;
}
