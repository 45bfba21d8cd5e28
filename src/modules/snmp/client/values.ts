// net-snmp varbinds to the JSON-safe RawVarbind of contracts.ts: numbers for 32-bit integer types, a
// decimal string for Counter64, text for printable octet strings and lowercase hex (hex: true) otherwise.
import type { RawVarbind, VarbindType } from '../contracts.js';
import { snmp, type NsVarbind } from './net-snmp.js';

/** net-snmp's type tags by name, made on first use (net-snmp loads when SNMP is first used). */
let names: Map<number, VarbindType> | undefined;
function namesOf(): Map<number, VarbindType> {
  const T = snmp.ObjectType;
  return names ??= new Map<number, VarbindType>([
    [T.Integer, 'Integer'], [T.OctetString, 'OctetString'], [T.Null, 'Null'], [T.OID, 'OID'],
    [T.IpAddress, 'IpAddress'], [T.Counter, 'Counter32'], [T.Gauge, 'Gauge32'], [T.TimeTicks, 'TimeTicks'],
    [T.Opaque, 'Opaque'], [T.Counter64, 'Counter64'], [T.NoSuchObject, 'NoSuchObject'],
    [T.NoSuchInstance, 'NoSuchInstance'], [T.EndOfMibView, 'EndOfMibView'],
  ]);
}

/** C0 controls other than tab, LF and CR, DEL and the C1 controls mark a string as binary. */
function hasControl(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if ((c < 0x20 && c !== 0x09 && c !== 0x0a && c !== 0x0d) || (c >= 0x7f && c <= 0x9f)) return true;
  }
  return false;
}

/** Text when the octets are valid UTF-8 without control characters, else lowercase hex. */
export function octets(buf: Buffer): { value: string; hex?: true } {
  const text = buf.toString('utf8');
  // Invalid UTF-8 decodes to U+FFFD and so does not encode back to the same bytes.
  if (!hasControl(text) && Buffer.from(text).equals(buf)) return { value: text };
  return { value: buf.toString('hex'), hex: true };
}

/**
 * The octets of an OctetString/Opaque RawVarbind, whichever form its value took (six MAC octets that
 * happen to be printable arrive as text); an IpAddress gives its four octets; nothing for other types.
 */
export function bytesOf(vb: RawVarbind | undefined): Buffer {
  if (!vb || typeof vb.value !== 'string') return Buffer.alloc(0);
  if (vb.type === 'IpAddress') {
    const parts = vb.value.split('.').map(Number);
    return parts.length === 4 && parts.every((n) => Number.isInteger(n) && n >= 0 && n <= 255) ? Buffer.from(parts) : Buffer.alloc(0);
  }
  return vb.hex ? Buffer.from(vb.value, 'hex') : Buffer.from(vb.value, 'utf8');
}

const asBuffer = (v: unknown) => (Buffer.isBuffer(v) ? v : Buffer.from(String(v ?? '')));

export function rawVarbind(vb: NsVarbind): RawVarbind {
  const T = snmp.ObjectType;
  const type = vb.type === T.Boolean ? 'Integer' : vb.type === T.BitString ? 'OctetString' : namesOf().get(vb.type);
  const oid = vb.oid;
  switch (type) {
    case 'Integer':
      return { oid, type, value: typeof vb.value === 'boolean' ? (vb.value ? 1 : 0) : Number(vb.value) };
    case 'Counter32': case 'Gauge32': case 'TimeTicks':
      return { oid, type, value: Number(vb.value) };
    case 'Counter64': {
      // The BER content octets of an unsigned integer (a leading 0x00 when the top bit is set).
      const hex = asBuffer(vb.value).toString('hex');
      return { oid, type, value: BigInt(`0x${hex || '0'}`).toString() };
    }
    case 'OctetString':
      return { oid, type, ...octets(asBuffer(vb.value)) };
    case 'Opaque':
      return { oid, type, value: asBuffer(vb.value).toString('hex'), hex: true };
    case 'OID': case 'IpAddress':
      return { oid, type, value: String(vb.value) };
    case 'Null': case 'NoSuchObject': case 'NoSuchInstance': case 'EndOfMibView':
      return { oid, type, value: null };
    default:
      // net-snmp rejects unknown tags while decoding, so this is a type it decodes but SNMP does not use.
      return { oid, type: 'Opaque', value: asBuffer(vb.value).toString('hex'), hex: true };
  }
}

export const isException = (t: VarbindType) => t === 'NoSuchObject' || t === 'NoSuchInstance' || t === 'EndOfMibView';
