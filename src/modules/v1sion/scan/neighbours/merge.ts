// One neighbour per local port and remote end, however many protocols reported it: a Cisco (or NX-OS,
// or anything speaking both) neighbour shows up in both cdpCacheTable and lldpRemTable.
import { samePort } from './port-names.js';
import type { Neighbour } from './types.js';

/** A host name's first label, lower case, "(serial)" suffix dropped; an IP address stays whole. */
function nameKey(name: string | null): string | null {
  const s = name?.replace(/\s*\([^()]*\)\s*$/, '').trim().toLowerCase();
  if (!s) return null;
  return /^[\d.]+$/.test(s) || s.includes(':') ? s : s.split('.')[0]!;
}

const sameLocal = (a: Neighbour, b: Neighbour) =>
  a.local_if_index != null && b.local_if_index != null ? a.local_if_index === b.local_if_index : samePort(a.local_port, b.local_port);

/** Names agree, or one side has none. */
function namesAgree(a: Neighbour, b: Neighbour): boolean {
  const x = nameKey(a.remote.sys_name), y = nameKey(b.remote.sys_name);
  return x == null || y == null || x === y;
}

const portsAgree = (lldp: Neighbour, cdp: Neighbour) =>
  samePort(lldp.remote.port, cdp.remote.port) || samePort(lldp.remote.port_descr, cdp.remote.port);

const union = <T>(a: readonly T[], b: readonly T[]) => [...new Set([...a, ...b])];

/** The LLDP row with the CDP row's extras: what LLDP lacks, the platform, the native VLAN, the Device-ID. */
function combine(lldp: Neighbour, cdp: Neighbour): Neighbour {
  const l = lldp.remote, c = cdp.remote;
  return {
    protocol: 'lldp',
    protocols: union(lldp.protocols, cdp.protocols),
    local_port: lldp.local_port ?? cdp.local_port,
    local_if_index: lldp.local_if_index ?? cdp.local_if_index,
    remote: {
      chassis_id: l.chassis_id ?? c.chassis_id,
      chassis_id_subtype: l.chassis_id != null ? l.chassis_id_subtype : c.chassis_id_subtype,
      port: l.port ?? c.port,
      port_subtype: l.port != null ? l.port_subtype : c.port_subtype,
      port_descr: l.port_descr,
      sys_name: l.sys_name ?? c.sys_name,
      sys_descr: l.sys_descr ?? c.sys_descr,
      platform: l.platform ?? c.platform,
      capabilities: union(l.capabilities, c.capabilities),
      management_addresses: union(l.management_addresses, c.management_addresses),
      device_id: c.device_id,
      native_vlan: c.native_vlan,
    },
  };
}

/**
 * LLDP and CDP rows merged when they describe the same local port and the same remote end: the remote
 * port names agree (short or long form; LLDP's port ID or port description against CDP's Port-ID) and
 * the remote names do not disagree; or, on a port where each protocol saw exactly one neighbour, both
 * name it and the names agree (LLDP's port ID can be a MAC or a number where CDP gives a name). Duplicate
 * rows of one protocol (an LLDP-V2 neighbour seen by two agents of the port) become one, their addresses
 * and capabilities joined. Sorted by local ifIndex, stable.
 */
export function mergeNeighbours(lldp: readonly Neighbour[], cdp: readonly Neighbour[]): Neighbour[] {
  const out = dedupe(lldp);
  const cdpRows = dedupe(cdp);
  for (const c of cdpRows) {
    const here = out.filter((n) => n.protocols.includes('lldp') && !n.protocols.includes('cdp') && sameLocal(n, c));
    let match = here.filter((n) => portsAgree(n, c) && namesAgree(n, c));
    if (match.length !== 1) {
      const cdpHere = cdpRows.filter((o) => sameLocal(o, c));
      const x = here.length === 1 ? nameKey(here[0]!.remote.sys_name) : null;
      match = cdpHere.length === 1 && x != null && x === nameKey(c.remote.sys_name) ? here : [];
    }
    if (match.length === 1) out[out.indexOf(match[0]!)] = combine(match[0]!, c);
    else out.push(c);
  }
  return out
    .map((n, i) => ({ n, i }))
    .sort((a, b) => (a.n.local_if_index ?? Infinity) - (b.n.local_if_index ?? Infinity) || a.i - b.i)
    .map(({ n }) => n);
}

function dedupe(rows: readonly Neighbour[]): Neighbour[] {
  const kept = new Map<string, Neighbour>();
  for (const n of rows) {
    const k = JSON.stringify([n.protocol, n.local_if_index, n.local_port, n.remote.chassis_id, n.remote.port]);
    const first = kept.get(k);
    if (!first) kept.set(k, { ...n, remote: { ...n.remote } });
    else {
      first.remote.management_addresses = union(first.remote.management_addresses, n.remote.management_addresses);
      first.remote.capabilities = union(first.remote.capabilities, n.remote.capabilities);
    }
  }
  return [...kept.values()];
}
