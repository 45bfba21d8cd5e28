// The ARP (and IPv6 neighbour) table of a router or layer-3 switch: ipNetToPhysicalTable (IP-MIB, v4 and
// v6) and the legacy ipNetToMediaTable (RFC 1213, v4 only), which many agents still serve alone.
import type { RawVarbind } from '../../../snmp/contracts.js';
import { byIfIndex, interfaceName } from './interfaces.js';
import { ARP } from './roots.js';
import type { ArpEntry, Interface } from './types.js';
import { arcsOf, columnOf, intOf, ipFromBytes, macOf } from './values.js';

/** Static broadcast entries some agents list: not a host. */
const BROADCAST = 'ff:ff:ff:ff:ff:ff';
/** ipNetToPhysicalType / ipNetToMediaType invalid(2). */
const TYPE_INVALID = 2;
/** ipNetToPhysicalState invalid(5), incomplete(7). */
const STATE_SKIPPED = new Set([5, 7]);

/**
 * The address of an ipNetToPhysical index after the ifIndex: AddrType (1 ipv4, 2 ipv6, 3 ipv4z, 4 ipv6z),
 * AddrLen, the octets (a zone index's 4 trailing octets dropped). Agents that leave the length out are
 * read too.
 */
function physAddress(arcs: readonly number[]): string | null {
  const type = arcs[0];
  const size = type === 1 || type === 3 ? 4 : type === 2 || type === 4 ? 16 : 0;
  if (!size) return null;
  const full = type === 3 || type === 4 ? size + 4 : size;
  let rest = arcs.slice(1);
  if (rest.length === full + 1 && rest[0] === full) rest = rest.slice(1);
  if (rest.length !== full || !rest.every((x) => Number.isInteger(x) && x >= 0 && x <= 255)) return null;
  return ipFromBytes(rest.slice(0, size));
}

/**
 * Entries with a usable MAC (six octets, not all zeros: an empty or zero MAC is an unresolved entry; not
 * the broadcast MAC), from
 * ipNetToPhysicalTable first and then the entries of ipNetToMediaTable it does not have (same ifIndex and
 * address). Skipped: Type invalid(2) in either table, State invalid(5) or incomplete(7).
 */
export function parseArp(varbinds: readonly RawVarbind[], interfaces: readonly Interface[]): ArpEntry[] {
  const ifs = byIfIndex(interfaces);
  const out: ArpEntry[] = [];
  const seen = new Set<string>();
  const add = (ifIndex: number, ip: string | null, mac: string | null) => {
    if (!ip || !mac || mac === BROADCAST || seen.has(`${ifIndex}|${ip}`)) return;
    seen.add(`${ifIndex}|${ip}`);
    const known = ifIndex > 0 ? ifIndex : null;
    out.push({ ip, mac, if_index: known, port: known != null ? interfaceName(ifs.get(known)) : null });
  };

  const physType = columnOf(varbinds, ARP.physType);
  const physState = columnOf(varbinds, ARP.physState);
  for (const [k, vb] of columnOf(varbinds, ARP.physPhysAddress)) {
    const arcs = arcsOf(k);
    if (arcs.length < 2 || intOf(physType.get(k)) === TYPE_INVALID || STATE_SKIPPED.has(intOf(physState.get(k)) ?? 0)) continue;
    add(arcs[0]!, physAddress(arcs.slice(1)), macOf(vb));
  }

  const mediaType = columnOf(varbinds, ARP.mediaType);
  for (const [k, vb] of columnOf(varbinds, ARP.mediaPhysAddress)) {
    const arcs = arcsOf(k);
    if (arcs.length !== 5 || intOf(mediaType.get(k)) === TYPE_INVALID) continue;
    const octets = arcs.slice(1);
    add(arcs[0]!, octets.every((x) => Number.isInteger(x) && x >= 0 && x <= 255) ? ipFromBytes(octets) : null, macOf(vb));
  }
  return out;
}
