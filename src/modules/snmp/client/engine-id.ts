// snmpEngineID (RFC 3411 §5, SnmpEngineID): what an SNMPv3 engine calls itself, the same over every
// address of the device, so discovery shows it and merges a device's addresses on it. Its first four
// octets are the engine's private enterprise number with the top bit set, the fifth says how the rest is
// to be read (1 IPv4, 2 IPv6, 3 MAC, 4 text, 5 octets, 128-255 the enterprise's own); an engine ID with
// the top bit clear is the older RFC 1910 form (enterprise number and 8 octets of the vendor's choosing).
import { formatIp } from '../../../core/ip.js';

export type EngineIdFormat = 'ipv4' | 'ipv6' | 'mac' | 'text' | 'octets' | 'reserved' | 'enterprise' | 'legacy' | 'unknown';

export interface EngineIdInfo {
  /** The whole engine ID, lowercase hex: the key to merge on. */
  hex: string;
  /** The private enterprise number, null when the ID is too short to have one. */
  enterprise: number | null;
  /** IANA's name for it when the caller's lookup knows it. */
  enterprise_name: string | null;
  format: EngineIdFormat;
  /** The format octet (RFC 3411 form only). */
  format_code: number | null;
  /** The part after the format octet as its format reads: dotted or RFC 5952 address, MAC, text, else 0x-hex. */
  value: string;
  /** For people: "net-snmp (8072) random 0x431d…", "Cisco (9) MAC 00:1a:2b:3c:4d:5e", "enterprise 4242 text sw1". */
  label: string;
}

/** RFC 3411: an snmpEngineID is 5 to 32 octets. */
export const ENGINE_ID_MIN = 5;
export const ENGINE_ID_MAX = 32;

/** Net-SNMP (enterprise 8072) uses format 128 for its default, randomly made engine IDs. */
const NET_SNMP = 8072;
const NET_SNMP_RANDOM = 128;

const hexOf = (b: Buffer) => `0x${b.toString('hex')}`;
const macOf = (b: Buffer) => [...b].map((x) => x.toString(16).padStart(2, '0')).join(':');

function printable(b: Buffer): string | undefined {
  const text = b.toString('utf8');
  if (!Buffer.from(text).equals(b)) return undefined;
  // eslint-disable-next-line no-control-regex
  return /^[^\u0000-\u001f\u007f-\u009f]+$/.test(text) ? text : undefined;
}

/**
 * Reads an engine ID (the octets, or their hex as the sweep returns them). `enterpriseName` turns an
 * enterprise number into IANA's name, e.g. `(n) => oidStore.enterprise(`1.3.6.1.4.1.${n}`)?.name`.
 */
export function describeEngineId(id: Buffer | string, enterpriseName?: (n: number) => string | null | undefined): EngineIdInfo {
  const b = typeof id === 'string' ? Buffer.from(normaliseEngineId(id, { anyLength: true }) ?? '', 'hex') : id;
  const hex = b.toString('hex');
  if (b.length < ENGINE_ID_MIN || b.length > ENGINE_ID_MAX) {
    return { hex, enterprise: null, enterprise_name: null, format: 'unknown', format_code: null, value: hexOf(b), label: hexOf(b) };
  }
  const modern = (b[0]! & 0x80) !== 0;
  const enterprise = b.readUInt32BE(0) & 0x7fffffff;
  const name = enterpriseName?.(enterprise) ?? null;
  const who = name ? `${name} (${enterprise})` : `enterprise ${enterprise}`;
  const base = { hex, enterprise, enterprise_name: name };
  if (!modern) {
    const value = hexOf(b.subarray(4));
    return { ...base, format: 'legacy', format_code: null, value, label: `${who} legacy ${value}` };
  }
  const code = b[4]!;
  const rest = b.subarray(5);
  let format: EngineIdFormat;
  let value: string | undefined;
  let word: string;
  if (code === 1) {
    format = 'ipv4'; word = 'IPv4';
    if (rest.length === 4) value = [...rest].join('.');
  } else if (code === 2) {
    format = 'ipv6'; word = 'IPv6';
    if (rest.length === 16) value = formatIp({ family: 6, value: BigInt(`0x${rest.toString('hex')}`) });
  } else if (code === 3) {
    format = 'mac'; word = 'MAC';
    if (rest.length === 6) value = macOf(rest);
  } else if (code === 4) {
    format = 'text'; word = 'text';
    value = printable(rest);
  } else if (code === 5) {
    format = 'octets'; word = 'octets';
  } else if (code < 128) {
    format = 'reserved'; word = `reserved format ${code}`;
  } else {
    format = 'enterprise';
    word = enterprise === NET_SNMP && code === NET_SNMP_RANDOM ? 'random' : `format ${code}`;
  }
  value ??= hexOf(rest);
  return { ...base, format, format_code: code, value, label: `${who} ${word} ${value}` };
}

/**
 * An engine ID as typed or printed by tools ("0x80001f88…", "80 00 1F 88 …", "80:00:1f:88:…") as
 * lowercase hex; null when it is not hex or not 5 to 32 octets (any length with `anyLength`).
 */
export function normaliseEngineId(text: string, opts: { anyLength?: boolean } = {}): string | null {
  const s = text.trim().replace(/^0x/i, '').replace(/[\s:.-]/g, '').toLowerCase();
  if (!/^([0-9a-f]{2})*$/.test(s)) return null;
  const n = s.length / 2;
  if (!opts.anyLength && (n < ENGINE_ID_MIN || n > ENGINE_ID_MAX)) return null;
  return s;
}
