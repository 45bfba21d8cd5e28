// Linux servers (and Linux-based appliances): one exec channel runs `sh -s` with a fixed script on its input
// (enrich-ssh/ssh.ts builds it from this list), each command under `timeout`. iproute2's JSON (`ip -j`),
// lldpd's `lldpctl -f json`, `ss`, os-release and machine-id. PATH gets /usr/sbin and /sbin, where Debian
// keeps `ip` and `lldpctl` (a non-root login lacks them); lldpctl needs group adm (or _lldpd) on Debian.
import { emptyFacts, type FactInterface, type FactLldpNeighbour, type FactService, type ParsedFacts } from '../facts.js';
import { cidrOf, destinationOf, int, ip, jsonIn, keyValues, linesOf, mac, str, textOf } from './text.js';
import type { Platform, PlatformCommand, Sections } from './types.js';

const cmd = (name: string, argv: string[], optional = false): PlatformCommand =>
  ({ name, argv, command: argv.join(' '), optional });

export const LINUX_COMMANDS: readonly PlatformCommand[] = [
  cmd('hostname', ['cat', '/proc/sys/kernel/hostname']),
  cmd('os_release', ['cat', '/etc/os-release'], true),
  cmd('uname', ['uname', '-srm']),
  cmd('machine_id', ['cat', '/etc/machine-id'], true),
  cmd('uptime', ['cat', '/proc/uptime'], true),
  cmd('dmi_vendor', ['cat', '/sys/class/dmi/id/sys_vendor'], true),
  cmd('dmi_product', ['cat', '/sys/class/dmi/id/product_name'], true),
  // Readable by root only on most systems.
  cmd('dmi_serial', ['cat', '/sys/class/dmi/id/product_serial'], true),
  // Single-board computers (a Raspberry Pi) name themselves in the device tree.
  cmd('dt_model', ['cat', '/proc/device-tree/model'], true),
  cmd('dt_serial', ['cat', '/proc/device-tree/serial-number'], true),
  cmd('ip_addr', ['ip', '-j', 'addr', 'show']),
  cmd('ip_route', ['ip', '-j', 'route', 'show']),
  cmd('ip_route6', ['ip', '-j', '-6', 'route', 'show'], true),
  cmd('ip_neigh', ['ip', '-j', 'neigh', 'show']),
  cmd('lldp', ['lldpctl', '-f', 'json'], true),
  cmd('ss_tcp', ['ss', '-Htlnp']),
  cmd('ss_udp', ['ss', '-Hulnp'], true),
];

export const linux: Platform = {
  name: 'linux',
  label: 'Linux',
  transport: 'script',
  commands: LINUX_COMMANDS,
  parse: parseLinux,
};

export function parseLinux(s: Sections): ParsedFacts {
  const f = emptyFacts();
  f.hostname = str(textOf(s, 'hostname').split('\n')[0]);
  const os = keyValues(textOf(s, 'os_release'), '=');
  const unq = (v: string | undefined) => str(v?.replace(/^(["'])(.*)\1$/, '$2'));
  f.os = unq(os.get('name')) ?? (textOf(s, 'uname') ? 'Linux' : null);
  f.os_version = unq(os.get('version_id')) ?? unq(os.get('version')) ?? unq(os.get('build_id'));
  const uname = textOf(s, 'uname').trim().split(/\s+/);
  if (uname.length >= 2) f.kernel = uname.slice(1).join(' ');
  const mid = textOf(s, 'machine_id').trim();
  f.machine_id = /^[0-9a-f]{32}$/i.test(mid) ? mid.toLowerCase() : null;
  const up = Number(textOf(s, 'uptime').trim().split(/\s+/)[0]);
  f.uptime_s = Number.isFinite(up) && up > 0 ? Math.floor(up) : null;
  f.vendor = str(textOf(s, 'dmi_vendor'));
  f.model = str(textOf(s, 'dmi_product')) ?? str(textOf(s, 'dt_model'));
  f.serial = str(textOf(s, 'dmi_serial')) ?? str(textOf(s, 'dt_serial'));
  if (!f.vendor && f.model && /^Raspberry Pi/.test(f.model)) f.vendor = 'Raspberry Pi Ltd';

  f.interfaces = interfacesOf(jsonIn(textOf(s, 'ip_addr')));
  f.routes = [...routesOf(jsonIn(textOf(s, 'ip_route')), 4), ...routesOf(jsonIn(textOf(s, 'ip_route6')), 6)];
  f.neighbours = neighboursOf(jsonIn(textOf(s, 'ip_neigh')));
  f.lldp = lldpOf(jsonIn(textOf(s, 'lldp')));
  f.services = [...servicesOf(textOf(s, 'ss_tcp'), 'tcp'), ...servicesOf(textOf(s, 'ss_udp'), 'udp')];
  return f;
}

type Json = Record<string, unknown>;
const obj = (v: unknown): Json => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Json) : {});
const arr = (v: unknown): unknown[] => (Array.isArray(v) ? v : v === undefined || v === null ? [] : [v]);
const s = (v: unknown): string | null => (typeof v === 'string' ? str(v) : typeof v === 'number' ? String(v) : null);

/** `ip -j addr show`: name, MAC (none for loopback), state, MTU, master, addresses. */
function interfacesOf(doc: unknown): FactInterface[] {
  return arr(doc).map(obj).filter((l) => typeof l.ifname === 'string').map((l) => ({
    name: String(l.ifname),
    description: s(l.ifalias),
    mac: l.link_type === 'loopback' ? null : mac(s(l.address)),
    state: s(l.operstate)?.toLowerCase() ?? null,
    mtu: int(l.mtu as number | undefined),
    addresses: arr(l.addr_info).map(obj).flatMap((a) => {
      const c = typeof a.local === 'string' ? cidrOf(a.local, a.prefixlen as number | undefined) : null;
      return c ? [c] : [];
    }),
    master: s(l.master),
  }));
}

/** `ip -j route show` (main table): destination, gateway, device, protocol, metric. */
function routesOf(doc: unknown, family: 4 | 6) {
  return arr(doc).map(obj).flatMap((r) => {
    if (typeof r.dst !== 'string' || (r.type && r.type !== 'unicast')) return [];
    const destination = destinationOf(r.dst, family);
    if (!destination) return [];
    return [{
      destination, gateway: ip(s(r.gateway)), interface: s(r.dev), protocol: s(r.protocol) ?? 'boot',
      metric: int(r.metric as number | undefined),
    }];
  });
}

/** `ip -j neigh show`: entries with a link-layer address (FAILED and INCOMPLETE ones have none). */
function neighboursOf(doc: unknown) {
  return arr(doc).map(obj).flatMap((n) => {
    const address = ip(s(n.dst));
    const m = mac(s(n.lladdr));
    if (!address || !m) return [];
    return [{ address, mac: m, interface: s(n.dev), state: arr(n.state).map(String).join(',').toLowerCase() || null }];
  });
}

/**
 * `lldpctl -f json`. lldpd shortens one-element lists to the element: `interface` is an object keyed by
 * the port for one neighbour and a list of such objects for more, `chassis` is keyed by the system name
 * (or holds `id` directly when there is none), and `mgmt-ip` and `capability` are a value or a list.
 */
export function lldpOf(doc: unknown): FactLldpNeighbour[] {
  const out: FactLldpNeighbour[] = [];
  const ifaces = obj(obj(doc).lldp).interface;
  const entries: [string, Json][] = [];
  for (const item of arr(ifaces)) {
    for (const [port, v] of Object.entries(obj(item))) {
      for (const one of arr(v)) entries.push([port, obj(one)]);
    }
  }
  for (const [localPort, n] of entries) {
    const chassisWrap = obj(n.chassis);
    let name: string | null = null;
    let chassis = chassisWrap;
    if (!('id' in chassisWrap)) {
      const [first] = Object.entries(chassisWrap);
      if (first) { name = first[0]; chassis = obj(Array.isArray(first[1]) ? first[1][0] : first[1]); }
    }
    if (!name) name = s(obj(chassis.name).value) ?? s(chassis.name);
    const port = obj(n.port);
    const caps = arr(chassis.capability).map(obj).filter((c) => c.enabled === true).map((c) => String(c.type).toLowerCase());
    const protocol = String(n.via ?? 'LLDP').toLowerCase();
    out.push({
      protocol: protocol === 'cdpv1' || protocol === 'cdpv2' || protocol === 'cdp' ? 'cdp' : 'lldp',
      local_port: localPort,
      chassis_id: s(obj(chassis.id).value),
      system_name: str(name),
      system_description: s(chassis.descr),
      port_id: s(obj(port.id).value),
      port_description: s(port.descr),
      management_addresses: arr(chassis['mgmt-ip']).map((a) => ip(s(a))).filter((a): a is string => !!a),
      capabilities: caps,
      platform: null,
    });
  }
  return out;
}

/** `ss -H -tlnp` / `-ulnp`: `LISTEN 0 128 0.0.0.0:22 0.0.0.0:* users:(("sshd",pid=1,fd=3))`. */
export function servicesOf(text: string, protocol: 'tcp' | 'udp'): FactService[] {
  const out: FactService[] = [];
  for (const line of linesOf(text)) {
    const cols = line.trim().split(/\s+/);
    if (cols.length < 5) continue;
    const local = cols[3]!;
    const at = local.lastIndexOf(':');
    if (at <= 0) continue;
    const port = int(local.slice(at + 1));
    if (port === null || port <= 0 || port > 65535) continue;
    let address = local.slice(0, at).replace(/^\[(.*)\]$/, '$1').replace(/%.*$/, '');
    if (address === '*') address = '0.0.0.0';
    const process = /users:\(\("([^"]+)"/.exec(line)?.[1] ?? null;
    out.push({ protocol, address: ip(address) ?? address, port, process });
  }
  return out;
}
