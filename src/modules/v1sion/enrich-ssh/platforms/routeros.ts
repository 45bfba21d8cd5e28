// MikroTik RouterOS: the login name gets `+ct` (no colours, no terminal detection, so nothing pages or is
// painted), and one exec channel runs a fixed console script: each `print terse` between `:put` markers,
// inside `:do {} on-error={}` so one failing command does not end the others.
import { emptyFacts, type ParsedFacts } from '../facts.js';
import { capabilities, cidrOf, destinationOf, duration, int, ip, keyValues, mac, str, terseRows, textOf } from './text.js';
import type { Platform, Sections } from './types.js';

export const routeros: Platform = {
  name: 'routeros',
  label: 'MikroTik RouterOS',
  transport: 'routeros',
  usernameSuffix: '+ct',
  commands: [
    { name: 'identity', command: '/system identity print' },
    { name: 'resource', command: '/system resource print' },
    { name: 'routerboard', command: '/system routerboard print', optional: true },
    { name: 'interfaces', command: '/interface print terse' },
    { name: 'addresses', command: '/ip address print terse' },
    { name: 'routes', command: '/ip route print terse', optional: true },
    { name: 'arp', command: '/ip arp print terse', optional: true },
    { name: 'neighbours', command: '/ip neighbor print terse', optional: true },
    { name: 'bridge_hosts', command: '/interface bridge host print terse', optional: true },
  ],
  parse: parseRouteros,
};

export function parseRouteros(s: Sections): ParsedFacts {
  const f = emptyFacts();
  f.vendor = 'MikroTik';
  f.hostname = str(keyValues(textOf(s, 'identity')).get('name'));
  const res = keyValues(textOf(s, 'resource'));
  const version = res.get('version');
  f.os = version ? 'RouterOS' : null;
  f.os_version = str(version?.split(/\s+/)[0]);
  f.uptime_s = duration(res.get('uptime'));
  const rb = keyValues(textOf(s, 'routerboard'));
  f.model = str(rb.get('model')) ?? str(res.get('board-name'));
  f.serial = str(rb.get('serial-number'));

  const byName = new Map<string, ParsedFacts['interfaces'][number]>();
  for (const { flags, values } of terseRows(textOf(s, 'interfaces'))) {
    if (!values.name) continue;
    const i = {
      name: values.name, description: str(values.comment), mac: mac(values['mac-address']),
      state: flags.includes('X') ? 'admin-down' : flags.includes('R') ? 'up' : 'down',
      mtu: int(values['actual-mtu'] ?? values.mtu), addresses: [] as string[], master: null,
    };
    byName.set(i.name, i);
    f.interfaces.push(i);
  }
  for (const { flags, values } of terseRows(textOf(s, 'addresses'))) {
    if (flags.includes('X') || !values.address) continue;
    const c = cidrOf(values.address);
    const i = byName.get(values.interface ?? '');
    if (c && i) i.addresses.push(c);
  }
  for (const { flags, values } of terseRows(textOf(s, 'routes'))) {
    if (!flags.includes('A') || !values['dst-address']) continue;
    const destination = destinationOf(values['dst-address']);
    if (!destination) continue;
    const gw = values.gateway ?? '';
    const immediate = values['immediate-gw'] ?? '';
    const protocol = flags.includes('C') ? 'connected' : flags.includes('S') ? 'static' : flags.includes('o') ? 'ospf'
      : flags.includes('b') ? 'bgp' : flags.includes('D') ? 'dynamic' : null;
    f.routes.push({
      destination, gateway: ip(gw), interface: immediate.includes('%') ? immediate.split('%')[1]! : ip(gw) ? null : str(gw),
      protocol, metric: int(values.distance),
    });
  }
  for (const { values } of terseRows(textOf(s, 'arp'))) {
    const address = ip(values.address);
    const hw = mac(values['mac-address']);
    if (address && hw) f.neighbours.push({ address, mac: hw, interface: str(values.interface), state: null });
  }
  for (const { values } of terseRows(textOf(s, 'neighbours'))) {
    const by = (values['discovered-by'] ?? '').split(',');
    f.lldp.push({
      protocol: by.includes('lldp') ? 'lldp' : by.includes('cdp') ? 'cdp' : 'mndp',
      local_port: str(values.interface?.split(',')[0]), chassis_id: mac(values['mac-address']) ?? str(values['mac-address']),
      system_name: str(values.identity), system_description: str(values['system-description']),
      port_id: str(values['interface-name']), port_description: null,
      management_addresses: [ip(values.address4 ?? values.address), ip(values.address6)].filter((a): a is string => !!a),
      capabilities: capabilities(values['system-caps-enabled'] ?? values['system-caps']),
      platform: [str(values.platform), str(values.board)].filter(Boolean).join(' ') || null,
    });
  }
  for (const { flags, values } of terseRows(textOf(s, 'bridge_hosts'))) {
    const hw = mac(values['mac-address']);
    if (!hw || flags.includes('L')) continue; // L: the bridge's own (local) addresses
    f.mac_table.push({ mac: hw, vlan: int(values['vid'] ?? values['vlan-id']), interface: str(values['on-interface']),
      type: flags.includes('D') ? 'dynamic' : 'static' });
  }
  return f;
}
