// How a value reads to a network engineer: TimeTicks as a duration, MAC addresses with colons, binary
// strings as hex, enums and BITS by name, units appended, DateAndTime and InetAddress decoded. The raw value
// stays beside it in the Varbind; this is only the rendering.
import type { OidEntry, OidLookup, RawVarbind, Varbind } from './contracts.js';
import { bytesOf, octets } from './client/values.js';

const pad2 = (n: number) => String(n).padStart(2, '0');

/** Hundredths of a second as "3 days, 04:05:06.07" (no day part under a day). */
export function formatTimeTicks(ticks: number): string {
  const cs = ticks % 100;
  const totalSeconds = Math.floor(ticks / 100);
  const days = Math.floor(totalSeconds / 86_400);
  const h = Math.floor((totalSeconds % 86_400) / 3600);
  const m = Math.floor((totalSeconds % 3600) / 60);
  const s = totalSeconds % 60;
  const clock = `${pad2(h)}:${pad2(m)}:${pad2(s)}.${pad2(cs)}`;
  return days ? `${days} ${days === 1 ? 'day' : 'days'}, ${clock}` : clock;
}

const colonHex = (b: Buffer) => [...b].map((x) => x.toString(16).padStart(2, '0')).join(':');
const spacedHex = (b: Buffer) => [...b].map((x) => x.toString(16).padStart(2, '0').toUpperCase()).join(' ');

/** SNMPv2-TC DateAndTime (8 or 11 octets) in ISO 8601 form, or undefined when the octets are not one. */
export function formatDateAndTime(b: Buffer): string | undefined {
  if (b.length !== 8 && b.length !== 11) return undefined;
  const year = b.readUInt16BE(0);
  const [month, day, hour, min, sec, deci] = [b[2]!, b[3]!, b[4]!, b[5]!, b[6]!, b[7]!];
  if (month < 1 || month > 12 || day < 1 || day > 31 || hour > 23 || min > 59 || sec > 60 || deci > 9) return undefined;
  let out = `${String(year).padStart(4, '0')}-${pad2(month)}-${pad2(day)}T${pad2(hour)}:${pad2(min)}:${pad2(sec)}`;
  if (deci) out += `.${deci}`;
  if (b.length === 11) {
    const sign = String.fromCharCode(b[8]!);
    if ((sign !== '+' && sign !== '-') || b[9]! > 14 || b[10]! > 59) return undefined;
    out += `${sign}${pad2(b[9]!)}:${pad2(b[10]!)}`;
  }
  return out;
}

/** An IPv4 or IPv6 address held in octets (InetAddress), or undefined for other lengths. */
function formatInetAddress(b: Buffer): string | undefined {
  if (b.length === 4) return [...b].join('.');
  if (b.length !== 16) return undefined;
  const groups = Array.from({ length: 8 }, (_, i) => b.readUInt16BE(i * 2).toString(16));
  // RFC 5952: the longest run of two or more zero groups becomes "::".
  let best = -1, bestLen = 0;
  for (let i = 0; i < 8;) {
    if (groups[i] !== '0') { i++; continue; }
    let j = i;
    while (j < 8 && groups[j] === '0') j++;
    if (j - i > bestLen && j - i >= 2) { best = i; bestLen = j - i; }
    i = j;
  }
  if (best < 0) return groups.join(':');
  return `${groups.slice(0, best).join(':')}::${groups.slice(best + bestLen).join(':')}`;
}

/** Net-SNMP wraps floats in Opaque (UCD-SNMP-MIB laLoadFloat): tag 0x9f78, length 4, IEEE single. */
function opaqueFloat(b: Buffer): string | undefined {
  if (b.length === 7 && b[0] === 0x9f && b[1] === 0x78 && b[2] === 4) return String(Math.round(b.readFloatBE(3) * 1e6) / 1e6);
  if (b.length === 11 && b[0] === 0x9f && b[1] === 0x79 && b[2] === 8) return String(b.readDoubleBE(3));
  return undefined;
}

/** BITS: the named bits that are set, bit 0 being the high bit of the first octet ("bridge(2) router(4)"). */
function formatBits(b: Buffer, names: Record<string, string>): string {
  const set: string[] = [];
  for (let bit = 0; bit < b.length * 8; bit++) {
    if (b[bit >> 3]! & (0x80 >> (bit & 7))) set.push(`${names[String(bit)] ?? 'bit'}(${bit})`);
  }
  return set.join(' ');
}

const MAC_TYPES = new Set(['PhysAddress', 'MacAddress']);
const INET_TYPES = new Set(['InetAddress', 'InetAddressIPv4', 'InetAddressIPv6', 'InetAddressIPv4z', 'InetAddressIPv6z']);

function displayOctets(vb: RawVarbind, entry: OidEntry | undefined): string {
  const b = bytesOf(vb);
  const type = entry?.type;
  if (type && MAC_TYPES.has(type)) return colonHex(b);
  if (type === 'BITS' && entry?.enums) return formatBits(b, entry.enums);
  if (type === 'DateAndTime') return formatDateAndTime(b) ?? spacedHex(b);
  if (type && INET_TYPES.has(type)) return formatInetAddress(b) ?? spacedHex(b);
  if (!vb.hex) return String(vb.value);
  if (b.length === 6) return colonHex(b);
  // Some agents end DisplayStrings with NULs: the text without them, when that is all that was wrong.
  let end = b.length;
  while (end > 0 && b[end - 1] === 0) end--;
  const trimmed = b.subarray(0, end);
  if (trimmed.length && trimmed.length < b.length && !octets(trimmed).hex) return trimmed.toString('utf8');
  return spacedHex(b);
}

function withUnits(text: string, entry?: OidEntry): string {
  return entry?.units ? `${text} ${entry.units}` : text;
}

/** The value as an engineer reads it; `entry` is the OID store's column or scalar for this OID. */
export function displayValue(vb: RawVarbind, entry?: OidEntry): string {
  switch (vb.type) {
    case 'Integer': {
      const label = entry?.enums?.[String(vb.value)];
      return label ? `${label}(${vb.value})` : withUnits(String(vb.value), entry);
    }
    case 'Counter32': case 'Gauge32': case 'Counter64':
      return withUnits(String(vb.value), entry);
    case 'TimeTicks':
      return formatTimeTicks(Number(vb.value));
    case 'OctetString':
      return displayOctets(vb, entry);
    case 'Opaque': {
      const b = bytesOf(vb);
      return opaqueFloat(b) ?? spacedHex(b);
    }
    case 'OID': case 'IpAddress':
      return String(vb.value);
    case 'Null':
      return 'NULL';
    case 'NoSuchObject':
      return 'No Such Object available on this agent at this OID';
    case 'NoSuchInstance':
      return 'No Such Instance currently exists at this OID';
    case 'EndOfMibView':
      return 'No more variables left in this MIB View';
  }
}

/** A varbind with its symbolic name and display text. Only a scalar's or column's entry describes a value. */
export function toVarbind(vb: RawVarbind, lookup: OidLookup): Varbind {
  const found = lookup.resolve(vb.oid)?.entry;
  const entry = found && (found.kind === 'scalar' || found.kind === 'column') ? found : undefined;
  return {
    oid: vb.oid, name: lookup.nameOf(vb.oid), type: vb.type, value: vb.value,
    ...(vb.hex ? { hex: true } : {}),
    display: displayValue(vb, entry),
  };
}
