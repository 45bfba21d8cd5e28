// Cisco NX-OS: an interactive shell, `terminal length 0` and `terminal width 511` first, and every show
// command with `| json`: NX-OS answers in TABLE_x/ROW_x documents (a ROW is an object for one row, a list
// for more), which parse without guessing at column widths.
import { emptyFacts, type FactLldpNeighbour, type ParsedFacts } from '../facts.js';
import { capabilities, cidrOf, destinationOf, int, ip, jsonIn, mac, rows, str, textOf } from './text.js';
import type { Platform, Sections } from './types.js';

export const ciscoNxos: Platform = {
  name: 'cisco_nxos',
  label: 'Cisco NX-OS',
  transport: 'shell',
  preamble: ['terminal length 0', 'terminal width 511'],
  commands: [
    { name: 'version', command: 'show version | json' },
    { name: 'inventory', command: 'show inventory | json', optional: true },
    { name: 'interfaces', command: 'show interface | json' },
    { name: 'routes', command: 'show ip route | json', optional: true },
    { name: 'arp', command: 'show ip arp | json', optional: true },
    { name: 'lldp', command: 'show lldp neighbors detail | json', optional: true },
    { name: 'cdp', command: 'show cdp neighbors detail | json', optional: true },
    { name: 'mac_table', command: 'show mac address-table | json', optional: true },
  ],
  parse: parseCiscoNxos,
};

type Row = Record<string, unknown>;
const v = (r: Row, ...keys: string[]): string | null => {
  for (const k of keys) {
    const x = r[k];
    if (typeof x === 'string' || typeof x === 'number') { const s = str(String(x)); if (s) return s; }
  }
  return null;
};

export function parseCiscoNxos(s: Sections): ParsedFacts {
  const f = emptyFacts();
  f.vendor = 'Cisco';
  const ver = (jsonIn(textOf(s, 'version')) ?? {}) as Row;
  f.os = Object.keys(ver).length ? 'Cisco NX-OS' : null;
  f.hostname = v(ver, 'host_name');
  f.os_version = v(ver, 'nxos_ver_str', 'kickstart_ver_str', 'sys_ver_str');
  f.serial = v(ver, 'proc_board_id');
  const days = int(v(ver, 'kern_uptm_days'));
  if (days !== null) {
    f.uptime_s = days * 86400 + (int(v(ver, 'kern_uptm_hrs')) ?? 0) * 3600 + (int(v(ver, 'kern_uptm_mins')) ?? 0) * 60
      + (int(v(ver, 'kern_uptm_secs')) ?? 0);
  }
  f.inventory = rows(jsonIn(textOf(s, 'inventory')), 'inv').map((r) => ({
    name: v(r, 'name') ?? '', description: v(r, 'desc'), model: v(r, 'productid'), serial: v(r, 'serialnum'),
  }));
  const chassis = f.inventory.find((i) => /chassis/i.test(i.name)) ?? f.inventory[0];
  f.model = chassis?.model ?? str(v(ver, 'chassis_id')?.replace(/ chassis$/i, ''));
  f.serial ??= chassis?.serial ?? null;

  f.interfaces = rows(jsonIn(textOf(s, 'interfaces')), 'interface').map((r) => {
    const addr = v(r, 'eth_ip_addr', 'svi_ip_addr');
    const c = addr ? cidrOf(addr, v(r, 'eth_ip_mask', 'svi_ip_mask')) : null;
    return {
      name: v(r, 'interface') ?? '', description: v(r, 'desc'), mac: mac(v(r, 'eth_hw_addr', 'svi_mac')),
      state: v(r, 'state', 'svi_line_proto')?.toLowerCase() ?? null, mtu: int(v(r, 'eth_mtu', 'svi_mtu')),
      addresses: c ? [c] : [], master: v(r, 'eth_bundle'),
    };
  }).filter((i) => i.name);

  for (const vrf of rows(jsonIn(textOf(s, 'routes')), 'vrf')) {
    for (const af of rows(vrf, 'addrf')) {
      for (const p of rows(af, 'prefix')) {
        const destination = destinationOf(v(p, 'ipprefix') ?? '');
        if (!destination) continue;
        for (const path of rows(p, 'path')) {
          f.routes.push({ destination, gateway: ip(v(path, 'ipnexthop')), interface: v(path, 'ifname'),
            protocol: v(path, 'clientname')?.replace(/-.*$/, '') ?? null, metric: int(v(path, 'metric')) });
        }
      }
    }
  }
  for (const vrf of rows(jsonIn(textOf(s, 'arp')), 'vrf')) {
    for (const a of rows(vrf, 'adj')) {
      const address = ip(v(a, 'ip-addr-out'));
      const hw = mac(v(a, 'mac'));
      if (address && hw) f.neighbours.push({ address, mac: hw, interface: v(a, 'intf-out'), state: null });
    }
  }
  f.lldp = [...lldpOf(jsonIn(textOf(s, 'lldp'))), ...cdpOf(jsonIn(textOf(s, 'cdp')))];
  for (const r of rows(jsonIn(textOf(s, 'mac_table')), 'mac_address')) {
    const hw = mac(v(r, 'disp_mac_addr'));
    if (hw) f.mac_table.push({ mac: hw, vlan: int(v(r, 'disp_vlan')), interface: v(r, 'disp_port'), type: v(r, 'disp_type') });
  }
  return f;
}

function lldpOf(doc: unknown): FactLldpNeighbour[] {
  return rows(doc, 'nbor_detail').map((r) => ({
    protocol: 'lldp', local_port: v(r, 'l_port_id'), chassis_id: v(r, 'chassis_id'), system_name: v(r, 'sys_name'),
    system_description: v(r, 'sys_desc'), port_id: v(r, 'port_id'), port_description: v(r, 'port_desc'),
    management_addresses: [ip(v(r, 'mgmt_addr'))].filter((a): a is string => !!a),
    capabilities: capabilities(v(r, 'enabled_capability')), platform: null,
  }));
}

function cdpOf(doc: unknown): FactLldpNeighbour[] {
  return rows(doc, 'cdp_neighbor_detail_info').map((r) => {
    const caps = r.capability;
    return {
      protocol: 'cdp' as const, local_port: v(r, 'intf_id'), chassis_id: v(r, 'device_id'),
      system_name: v(r, 'sysname') ?? v(r, 'device_id')?.replace(/\(.*\)$/, '') ?? null,
      system_description: v(r, 'version'), port_id: v(r, 'port_id'), port_description: null,
      management_addresses: [...new Set([ip(v(r, 'v4mgmtaddr')), ip(v(r, 'v4addr'))].filter((a): a is string => !!a))],
      capabilities: capabilities(Array.isArray(caps) ? caps.map(String) : typeof caps === 'string' ? caps : null),
      platform: v(r, 'platform_id'),
    };
  });
}
