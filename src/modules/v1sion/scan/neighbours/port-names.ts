// Port names as different places write them: IOS's ifName and its CDP/LLDP say "Gi1/0/4" where ifDescr
// says "GigabitEthernet1/0/4" (netdisco#380), NX-OS "Eth1/49" vs "Ethernet1/49", FTOS "TenGigabitEthernet 1/43",
// TP-Link "gigabitEthernet 1/0/1", and agents pad names with NULs. One comparison key for all of them.
import type { Interface } from './types.js';

/**
 * Abbreviations and long forms of one interface family → the family's key. Applied only when the letters
 * are directly followed by a digit, so Junos names ("ge-0/0/1", "xe-0/0/1") and Linux names stay as they are.
 */
const FAMILIES: Record<string, string[]> = {
  ethernet: ['e', 'et', 'eth', 'ethernet'],
  fastethernet: ['f', 'fa', 'fas', 'fastethernet'],
  gigabitethernet: ['g', 'gi', 'gig', 'gige', 'gigabitethernet', 'ge'],
  twogigabitethernet: ['tw', 'twogigabitethernet'],
  fivegigabitethernet: ['fi', 'fivegige', 'fivegigabitethernet'],
  tengigabitethernet: ['te', 'ten', 'tengig', 'tengige', 'tengigabitethernet', 'xge', 'xgigabitethernet'],
  twentyfivegige: ['twe', 'twentyfivegige', 'twentyfivegigabitethernet', 'twentyfivegigeethernet'],
  fortygigabitethernet: ['fo', 'fortygige', 'fortygigabitethernet', 'fortygigethernet'],
  hundredgigabitethernet: ['hu', 'hundredgige', 'hundredgigabitethernet', 'hundredgigethernet'],
  portchannel: ['po', 'portchannel', 'pc'],
  bridgeaggregation: ['bagg', 'bridgeaggregation'],
  vlan: ['vl', 'vlan', 'vlanif', 'vlaninterface'],
  loopback: ['lo', 'loopback'],
  tunnel: ['tu', 'tunnel'],
  serial: ['se', 'serial'],
  managementethernet: ['ma', 'mgmteth', 'managementethernet'],
  bundleether: ['be', 'bundleether'],
};

const NUL = String.fromCharCode(0);
const stripNul = (name: string | null | undefined) => (name ?? '').split(NUL).join('');

const KEY = new Map<string, string>();
for (const [family, names] of Object.entries(FAMILIES)) for (const n of names) KEY.set(n, family);

/**
 * The comparison key of a port name: NULs and white space removed, lower case, and a known family prefix
 * (letters, hyphens between letters allowed: "Ten-GigabitEthernet", "Port-channel") directly followed by
 * a digit replaced by the family's key. "Gi1/0/4", "GigabitEthernet1/0/4" and "gigabitethernet 1/0/4"
 * all give "gigabitethernet1/0/4"; "xe-0/0/1" gives "xe-0/0/1". Empty for a name with nothing in it.
 */
export function normalisePortName(name: string | null | undefined): string {
  const s = stripNul(name).replace(/\s+/g, '').toLowerCase();
  const m = /^([a-z]+(?:-[a-z]+)*)(?=\d)/.exec(s);
  if (!m) return s;
  const family = KEY.get(m[1]!.replace(/-/g, ''));
  return family ? family + s.slice(m[1]!.length) : s;
}

/** Whether two names denote the same port (short or long form, case, spaces, NUL padding). */
export function samePort(a: string | null | undefined, b: string | null | undefined): boolean {
  const ka = normalisePortName(a);
  return ka !== '' && ka === normalisePortName(b);
}

/**
 * The interface a name refers to (a neighbour's port ID, an LLDP local port ID, a CDP Port-ID): the first
 * of these that matches exactly one interface — ifName as written, ifDescr as written, ifName normalised,
 * ifDescr normalised, ifAlias as written. Null when none does (or only ambiguously).
 */
export function resolvePort(name: string | null | undefined, interfaces: readonly Interface[]): Interface | null {
  const raw = stripNul(name).trim();
  if (!raw) return null;
  const key = normalisePortName(raw);
  const tests: ((i: Interface) => boolean)[] = [
    (i) => i.name === raw,
    (i) => i.descr === raw,
    (i) => normalisePortName(i.name) === key,
    (i) => normalisePortName(i.descr) === key,
    (i) => i.alias === raw,
  ];
  for (const t of tests) {
    const hits = interfaces.filter(t);
    if (hits.length === 1) return hits[0]!;
  }
  return null;
}
