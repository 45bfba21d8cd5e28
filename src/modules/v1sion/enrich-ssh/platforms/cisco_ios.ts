// Cisco IOS and IOS XE: an interactive shell (an IOS exec channel runs one command), `terminal length 0`
// and `terminal width 511` first so nothing pages or wraps. The show commands' text as Cisco documents it.
import { emptyFacts, type FactLldpNeighbour, type FactRoute, type ParsedFacts } from '../facts.js';
import { capabilities, cidrOf, destinationOf, duration, int, ip, linesOf, mac, str, textOf } from './text.js';
import type { Platform, Sections } from './types.js';

export const ciscoIos: Platform = {
  name: 'cisco_ios',
  label: 'Cisco IOS / IOS XE',
  transport: 'shell',
  preamble: ['terminal length 0', 'terminal width 511'],
  commands: [
    { name: 'version', command: 'show version' },
    { name: 'inventory', command: 'show inventory', optional: true },
    { name: 'interfaces', command: 'show interfaces' },
    { name: 'routes', command: 'show ip route', optional: true },
    { name: 'arp', command: 'show ip arp', optional: true },
    { name: 'lldp', command: 'show lldp neighbors detail', optional: true },
    { name: 'cdp', command: 'show cdp neighbors detail', optional: true },
    { name: 'mac_table', command: 'show mac address-table', optional: true },
  ],
  parse: parseCiscoIos,
};

export function parseCiscoIos(s: Sections): ParsedFacts {
  const f = emptyFacts();
  const version = textOf(s, 'version');
  f.vendor = 'Cisco';
  const head = /^.*Cisco IOS.*$/m.exec(version)?.[0] ?? '';
  f.os = /IOS[ -]XE/i.test(version) ? 'Cisco IOS XE' : head ? 'Cisco IOS' : null;
  f.os_version = /Version ([^\s,]+)/.exec(head)?.[1] ?? null;
  const uptime = /^(\S+) uptime is (.*)$/m.exec(version);
  if (uptime) { f.hostname = uptime[1]!; f.uptime_s = duration(uptime[2]); }
  f.model = str(/^Model number\s*:\s*(\S+)/mi.exec(version)?.[1]) ?? str(/^cisco (\S+) .*processor/mi.exec(version)?.[1]);
  f.serial = str(/^System serial number\s*:\s*(\S+)/mi.exec(version)?.[1]) ?? str(/Processor board ID (\S+)/.exec(version)?.[1]);

  f.inventory = inventoryOf(textOf(s, 'inventory'));
  const chassis = f.inventory[0];
  if (chassis) { f.model ??= chassis.model; f.serial ??= chassis.serial; }

  f.interfaces = interfacesOf(textOf(s, 'interfaces'));
  f.routes = routesOf(textOf(s, 'routes'));
  for (const line of linesOf(textOf(s, 'arp'))) {
    const m = /^Internet\s+(\S+)\s+\S+\s+([0-9a-f.]{14})\s+\S+\s*(\S*)/i.exec(line.trim());
    const address = m ? ip(m[1]) : null;
    const hw = m ? mac(m[2]) : null;
    if (address && hw) f.neighbours.push({ address, mac: hw, interface: m![3] || null, state: null });
  }
  f.lldp = [...lldpOf(textOf(s, 'lldp')), ...cdpOf(textOf(s, 'cdp'))];
  for (const line of linesOf(textOf(s, 'mac_table'))) {
    const m = /^\s*(\d+|All)\s+([0-9a-f]{4}\.[0-9a-f]{4}\.[0-9a-f]{4})\s+(\S+)\s+(\S+)/i.exec(line);
    const hw = m ? mac(m[2]) : null;
    if (m && hw) f.mac_table.push({ mac: hw, vlan: int(m[1]), interface: m[4]!, type: m[3]!.toLowerCase() });
  }
  return f;
}

/** `show inventory`: NAME/DESCR lines followed by PID/VID/SN lines. */
export function inventoryOf(text: string) {
  const out: { name: string; description: string | null; model: string | null; serial: string | null }[] = [];
  let cur: (typeof out)[number] | null = null;
  for (const line of linesOf(text)) {
    const n = /NAME:\s*"([^"]*)",\s*DESCR:\s*"([^"]*)"/i.exec(line);
    if (n) { cur = { name: n[1]!, description: str(n[2]), model: null, serial: null }; out.push(cur); continue; }
    const p = /PID:\s*([^,]*?)\s*,.*SN:\s*(\S*)/i.exec(line);
    if (p && cur) { cur.model = str(p[1]); cur.serial = str(p[2]); }
  }
  return out;
}

/** `show interfaces`: a block per interface: state line, hardware (MAC), description, address, MTU. */
function interfacesOf(text: string) {
  const out: ParsedFacts['interfaces'] = [];
  let cur: ParsedFacts['interfaces'][number] | null = null;
  for (const line of linesOf(text)) {
    const head = /^(\S+) is (administratively down|up|down|deleted)[^,]*, line protocol is (\S+)/.exec(line);
    if (head) {
      cur = { name: head[1]!, description: null, mac: null, state: head[2] === 'administratively down' ? 'admin-down' : head[3]!,
        mtu: null, addresses: [], master: null };
      out.push(cur);
      continue;
    }
    if (!cur) continue;
    const hw = /address is ([0-9a-f.]{14})/i.exec(line);
    if (hw) cur.mac = mac(hw[1]);
    const d = /^\s+Description: (.*)$/.exec(line);
    if (d) cur.description = str(d[1]);
    const a = /^\s+Internet address is (\S+)(?:\s+(\S+))?/.exec(line);
    if (a) { const c = cidrOf(a[1]!, a[2]); if (c) cur.addresses.push(c); }
    const mtu = /^\s+MTU (\d+) bytes/.exec(line);
    if (mtu) cur.mtu = int(mtu[1]);
  }
  return out;
}

const ROUTE_CODES: Record<string, string> = {
  C: 'connected', L: 'local', S: 'static', O: 'ospf', D: 'eigrp', B: 'bgp', R: 'rip', i: 'isis', E: 'egp', M: 'mobile', U: 'user',
};

/**
 * `show ip route` (also FortiOS's routing table, which is written the same way): a code, the prefix, then
 * `[distance/metric] via gateway[, age][, interface]` or `is directly connected, interface`. Further paths of
 * the same prefix sit on the next lines; a `x.0.0.0/24 is subnetted` header gives the mask of entries without one.
 */
export function routesOf(text: string): FactRoute[] {
  const out: FactRoute[] = [];
  let subnetMask: string | null = null;
  let last: { destination: string; protocol: string | null } | null = null;
  for (const raw of linesOf(text)) {
    const line = raw.replace(/\s+$/, '');
    const header = /^\s+\S+\/(\d+) is subnetted/.exec(line);
    if (header) { subnetMask = header[1]!; continue; }
    if (/is variably subnetted/.test(line)) { subnetMask = null; continue; }
    const entry = /^([A-Za-z]{1,2})(\*?)\s+(?:[A-Za-z0-9]{1,3}\s+)?(\d[\d.:a-f]*(?:\/\d+)?)\s*(.*)$/.exec(line);
    if (entry && ROUTE_CODES[entry[1]!] !== undefined) {
      const dst = entry[3]!.includes('/') ? entry[3]! : `${entry[3]}/${subnetMask ?? (entry[3]!.includes(':') ? 128 : 32)}`;
      const destination = destinationOf(dst);
      if (!destination) continue;
      last = { destination, protocol: ROUTE_CODES[entry[1]!]! };
      const path = pathOf(entry[4]!);
      if (path) out.push({ destination, protocol: last.protocol, ...path });
      continue;
    }
    if (last && /^\s+\[\d+\/\d+\]/.test(line)) {
      const path = pathOf(line.trim());
      if (path) out.push({ destination: last.destination, protocol: last.protocol, ...path });
    }
  }
  return out;
}

function pathOf(rest: string): Pick<FactRoute, 'gateway' | 'interface' | 'metric'> | null {
  const direct = /is directly connected,\s*([^,\s]+)/.exec(rest);
  if (direct) return { gateway: null, interface: direct[1]!, metric: 0 };
  const via = /\[(\d+)\/(\d+)\]\s+via\s+([^,\s]+)(.*)$/.exec(rest);
  if (!via) return null;
  const parts = via[4]!.split(',').map((p) => p.trim()).filter(Boolean);
  const iface = parts.find((p) => /^[A-Za-z][\w./:-]*$/.test(p)) ?? null;
  return { gateway: ip(via[3]), interface: iface, metric: int(via[2]) };
}

/** `show lldp neighbors detail`: blocks between dashed lines. */
export function lldpOf(text: string): FactLldpNeighbour[] {
  const out: FactLldpNeighbour[] = [];
  for (const block of text.replace(/\r/g, '').split(/^-{10,}\s*$/m)) {
    const get = (re: RegExp) => str(re.exec(block)?.[1]);
    const local = get(/^Local Intf:\s*(.*)$/m);
    if (!local) continue;
    const desc = /^System Description:\s*\n?([\s\S]*?)\n\s*\n/m.exec(block)?.[1];
    out.push({
      protocol: 'lldp', local_port: local, chassis_id: get(/^Chassis id:\s*(.*)$/m), system_name: get(/^System Name:\s*(.*)$/m),
      system_description: str(desc?.trim()), port_id: get(/^Port id:\s*(.*)$/m), port_description: get(/^Port Description:\s*(.*)$/m),
      management_addresses: [...block.matchAll(/^\s+IP(?:V6)?:\s*(\S+)/gim)].map((m) => ip(m[1])).filter((a): a is string => !!a),
      capabilities: capabilities(get(/^Enabled Capabilities:\s*(.*)$/m)), platform: null,
    });
  }
  return out;
}

/** `show cdp neighbors detail`: blocks between dashed lines. */
export function cdpOf(text: string): FactLldpNeighbour[] {
  const out: FactLldpNeighbour[] = [];
  for (const block of text.replace(/\r/g, '').split(/^-{10,}\s*$/m)) {
    const device = str(/^Device ID:\s*(.*)$/m.exec(block)?.[1]);
    if (!device) continue;
    const ports = /^Interface:\s*([^,]+),\s*Port ID \(outgoing port\):\s*(.*)$/m.exec(block);
    const platform = /^Platform:\s*([^,]*),\s*Capabilities:\s*(.*)$/m.exec(block);
    const version = /^Version\s*:\s*\n([\s\S]*?)\n\s*\n/m.exec(block)?.[1];
    const addresses = [...block.matchAll(/^\s+IP(?:v6)? address:\s*(\S+)/gim)].map((m) => ip(m[1])).filter((a): a is string => !!a);
    out.push({
      protocol: 'cdp', local_port: str(ports?.[1]), chassis_id: device, system_name: device.replace(/\(.*\)$/, ''),
      system_description: str(version?.trim()), port_id: str(ports?.[2]), port_description: null,
      management_addresses: [...new Set(addresses)], capabilities: capabilities(platform?.[2]), platform: str(platform?.[1]?.replace(/^cisco /i, '')),
    });
  }
  return out;
}
