// Reading RawVarbinds: the octets of an OctetString whichever form the client gave them in, text with its
// NUL padding removed, MACs, IPs, BITS, and a walked table split into columns and row indexes.
import type { RawVarbind } from '../../../snmp/contracts.js';
import { bytesOf, octets } from '../../../snmp/index.js';
import { canonicalIp, normaliseMac } from '../../../../core/ip.js';

const EXCEPTIONS = new Set(['NoSuchObject', 'NoSuchInstance', 'EndOfMibView', 'Null']);

/** The octets of a value, whichever form the client gave them in (the SNMP client's own reader). */
export { bytesOf };

/** Colon-separated lowercase hex of some octets. */
export const hexColons = (b: Buffer) => [...b].map((x) => x.toString(16).padStart(2, '0')).join(':');

/**
 * A display string: NUL padding (agents pad fixed-size fields with NULs) and surrounding white space
 * removed; null when empty. Octets that are not text even then come back as colon-separated hex.
 */
export function textOf(vb: RawVarbind | undefined): string | null {
  if (!vb || typeof vb.value !== 'string' || EXCEPTIONS.has(vb.type)) return null;
  if (!vb.hex) return vb.value.trim() || null;
  const b = bytesOf(vb);
  let end = b.length;
  while (end > 0 && b[end - 1] === 0) end--;
  let start = 0;
  while (start < end && b[start] === 0) start++;
  const inner = b.subarray(start, end);
  const text = inner.toString('utf8');
  if (!octets(inner).hex) return text.trim() || null;
  return inner.length ? hexColons(inner) : null;
}

/** Six octets as aa:bb:cc:dd:ee:ff; null for any other length and for all zeros. */
export function macFromBytes(b: Buffer): string | null {
  if (b.length !== 6 || b.every((x) => x === 0)) return null;
  return hexColons(b);
}

/**
 * A MAC from a value: six octets (hex or printable text alike), or a MAC already written out as text
 * ("E8:28:C1:3C:1C:D8", "0:50:56:a:b:c", "0050.5612.3456") as some agents and recordings give it.
 */
export function macOf(vb: RawVarbind | undefined): string | null {
  const b = bytesOf(vb);
  if (b.length === 6) return macFromBytes(b);
  if (!vb || vb.hex || typeof vb.value !== 'string') return null;
  const s = vb.value.trim();
  const short = /^[0-9a-f]{1,2}([:-])[0-9a-f]{1,2}(\1[0-9a-f]{1,2}){4}$/i.exec(s);
  const mac = short ? s.split(/[:-]/).map((p) => p.padStart(2, '0')).join(':') : s;
  const n = normaliseMac(mac);
  return n === '00:00:00:00:00:00' ? null : n;
}

/** An integer value (the 32-bit types and Counter64 as a decimal string); null otherwise. */
export function intOf(vb: RawVarbind | undefined): number | null {
  if (!vb) return null;
  if (typeof vb.value === 'number') return Number.isFinite(vb.value) ? vb.value : null;
  if (vb.type === 'Counter64' && typeof vb.value === 'string' && /^\d+$/.test(vb.value)) return Number(vb.value);
  return null;
}

const unspecified = (ip: string) => ip === '0.0.0.0' || ip === '::';

/** An IPv4 (4 octets) or IPv6 (16 octets) address; null for other lengths and unspecified addresses. */
export function ipFromBytes(b: Buffer | readonly number[]): string | null {
  const a = [...b];
  let ip: string | null = null;
  if (a.length === 4) ip = a.join('.');
  else if (a.length === 16) {
    const groups: string[] = [];
    for (let i = 0; i < 16; i += 2) groups.push(((a[i]! << 8) | a[i + 1]!).toString(16));
    ip = canonicalIp(groups.join(':'));
  }
  return ip && !unspecified(ip) ? ip : null;
}

/** An address written as text ("169.254.9.11", "fdfd:0:2:1::1"), canonical; null when it is not one. */
export function ipFromText(s: string | null): string | null {
  const ip = s ? canonicalIp(s) : null;
  return ip && !unspecified(ip) ? ip : null;
}

/** An address value: the address as text, else 4 or 16 octets (printable or not). */
export function addressOf(vb: RawVarbind | undefined): string | null {
  const fromText = vb && !vb.hex ? ipFromText(textOf(vb)) : null;
  if (fromText) return fromText;
  const b = bytesOf(vb);
  return b.length === 4 || b.length === 16 ? ipFromBytes(b) : null;
}

/** Bit numbers set in a BITS value, MSB of the first octet = bit 0. */
export function setBits(b: Buffer): number[] {
  const out: number[] = [];
  b.forEach((byte, i) => {
    for (let bit = 0; bit < 8; bit++) if (byte & (0x80 >> bit)) out.push(i * 8 + bit);
  });
  return out;
}

/**
 * net-snmp's display of a BITS value, "28 2 4": the octets in hex, then the numbers of the bits set.
 * Some agents send that text as the value itself (Dell OS10: "68 1 2 4"), and recordings made from
 * snmpwalk output hold it too. The octets only when the bit list agrees with them.
 */
function renderedBits(text: string): Buffer | null {
  const tokens = text.trim().split(/\s+/);
  for (let k = tokens.length; k >= 1; k--) {
    const head = tokens.slice(0, k);
    if (!head.every((t) => /^[0-9a-f]{2}$/i.test(t))) continue;
    const bytes = Buffer.from(head.join(''), 'hex');
    const tail = tokens.slice(k);
    if (!tail.every((t) => /^\d{1,3}$/.test(t))) continue;
    const bits = setBits(bytes);
    if (bits.length === tail.length && bits.every((n, i) => n === Number(tail[i]))) return bytes;
  }
  return null;
}

/** The octets of a BITS value, looking through net-snmp's text display of it (up to twice). */
export function bitsOf(vb: RawVarbind | undefined): Buffer {
  let b = bytesOf(vb);
  for (let depth = 0; depth < 2; depth++) {
    const text = b.toString('latin1');
    if (!/^[0-9a-f]{2}( [0-9a-f]{1,3})*\s*$/i.test(text)) break;
    const inner = renderedBits(text);
    if (!inner) break;
    b = inner;
  }
  return b;
}

/** The names of the bits set, by position; bits without a name are left out. */
export function bitNames(b: Buffer, names: readonly string[]): string[] {
  return setBits(b).map((n) => names[n]).filter((n): n is string => !!n);
}

/** A walked table: column number → (row index as dotted text → varbind). Exceptions are left out. */
export type Table = Map<number, Map<string, RawVarbind>>;

/** The columns of the table whose entry OID is given (e.g. "1.3.6.1.2.1.2.2.1"). */
export function tableOf(varbinds: readonly RawVarbind[], entry: string): Table {
  const prefix = `${entry}.`;
  const out: Table = new Map();
  for (const vb of varbinds) {
    if (EXCEPTIONS.has(vb.type)) continue;
    const oid = vb.oid.startsWith('.') ? vb.oid.slice(1) : vb.oid;
    if (!oid.startsWith(prefix)) continue;
    const rest = oid.slice(prefix.length);
    const dot = rest.indexOf('.');
    if (dot <= 0) continue;
    const col = Number(rest.slice(0, dot));
    let rows = out.get(col);
    if (!rows) out.set(col, (rows = new Map()));
    rows.set(rest.slice(dot + 1), vb);
  }
  return out;
}

/** The rows of one column OID (e.g. ifDescr "1.3.6.1.2.1.2.2.1.2"): row index → varbind. */
export function columnOf(varbinds: readonly RawVarbind[], column: string): Map<string, RawVarbind> {
  const dot = column.lastIndexOf('.');
  return tableOf(varbinds, column.slice(0, dot)).get(Number(column.slice(dot + 1))) ?? new Map();
}

/** The value of a scalar (instance OID, e.g. "….0"); undefined when absent or an exception. */
export function scalarOf(varbinds: readonly RawVarbind[], oid: string): RawVarbind | undefined {
  return varbinds.find((vb) => (vb.oid.startsWith('.') ? vb.oid.slice(1) : vb.oid) === oid && !EXCEPTIONS.has(vb.type));
}

/** A row index as numbers. */
export const arcsOf = (index: string): number[] => index.split('.').map(Number);
