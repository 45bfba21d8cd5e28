// The subset of BER (X.690) that SNMP messages use, and the SNMP messages themselves: v1/v2c (RFC 1157,
// RFC 3416) and v3 with the User-based Security Model's parameters (RFC 3412 §6, RFC 3414 §2.4).
// Definite lengths, INTEGER, OCTET STRING, NULL, OBJECT IDENTIFIER, SEQUENCE, the SNMP application
// types, the PDU tags (Report 0xa8 included) and the v2 exception tags. No encryption and no digests:
// the sweep (sweep.ts) and the test agents need only plain messages; authenticated sessions go through
// net-snmp (session.ts).
//
// Decoding is for datagrams from the network, so it is defensive: every read is bounded by the buffer,
// lengths beyond it, indefinite lengths, multi-byte tags, oversized INTEGERs and OIDs that end in the
// middle of an arc throw a BerError from the low-level readers, and the message decoders
// (decodeMessage) catch it and return undefined. Nothing here allocates more than the input's size.

export interface Tlv { tag: number; value: Buffer }

export const TAG = {
  Integer: 0x02, OctetString: 0x04, Null: 0x05, OID: 0x06, Sequence: 0x30,
  IpAddress: 0x40, Counter32: 0x41, Gauge32: 0x42, TimeTicks: 0x43, Opaque: 0x44, Counter64: 0x46,
  NoSuchObject: 0x80, NoSuchInstance: 0x81, EndOfMibView: 0x82,
  GetRequest: 0xa0, GetNextRequest: 0xa1, Response: 0xa2, SetRequest: 0xa3, TrapV1: 0xa4, GetBulkRequest: 0xa5,
  InformRequest: 0xa6, SNMPv2Trap: 0xa7, Report: 0xa8,
} as const;

/** msgVersion values. */
export const SNMP_VERSION = { v1: 0, v2c: 1, v3: 3 } as const;

/** msgFlags bits (RFC 3412 §6.4). */
export const MSG_FLAGS = { auth: 0x01, priv: 0x02, reportable: 0x04 } as const;

/** msgSecurityModel of the User-based Security Model. */
export const USM_SECURITY_MODEL = 3;

/** A malformed encoding; only the low-level readers throw it. */
export class BerError extends Error {
  override name = 'BerError';
}

/** Reads one TLV at `offset`; returns it and the offset after it. Throws a BerError on malformed input. */
export function readTlv(buf: Buffer, offset: number): { tlv: Tlv; next: number } {
  if (offset < 0 || offset + 2 > buf.length) throw new BerError('BER: truncated header');
  const tag = buf[offset]!;
  // SNMP uses only low tag numbers; the high-tag-number form (all five low bits set) is not SNMP.
  if ((tag & 0x1f) === 0x1f) throw new BerError('BER: multi-byte tag');
  let len = buf[offset + 1]!;
  let pos = offset + 2;
  if (len & 0x80) {
    const n = len & 0x7f;
    // n === 0 is the indefinite form, which SNMP never uses; more than 4 octets cannot fit a datagram.
    if (n === 0 || n > 4 || pos + n > buf.length) throw new BerError('BER: unsupported length');
    len = 0;
    for (let i = 0; i < n; i++) len = len * 256 + buf[pos + i]!;
    pos += n;
  }
  if (pos + len > buf.length) throw new BerError('BER: truncated value');
  return { tlv: { tag, value: buf.subarray(pos, pos + len) }, next: pos + len };
}

/** All TLVs inside a constructed value (a SEQUENCE or a PDU). */
export function readAll(content: Buffer): Tlv[] {
  const out: Tlv[] = [];
  for (let pos = 0; pos < content.length;) {
    const { tlv, next } = readTlv(content, pos);
    out.push(tlv);
    pos = next;
  }
  return out;
}

/** Longest INTEGER content accepted: a Counter64 with its leading zero is 9 octets. */
const MAX_INT_OCTETS = 16;

export function decodeInt(b: Buffer): bigint {
  if (b.length === 0) return 0n;
  // A hostile 60 KB INTEGER would cost quadratic BigInt work; nothing in SNMP is longer than 9 octets.
  if (b.length > MAX_INT_OCTETS) throw new BerError('BER: INTEGER too long');
  let v = 0n;
  for (const x of b) v = (v << 8n) | BigInt(x);
  return b[0]! & 0x80 ? v - (1n << BigInt(b.length * 8)) : v;
}

/** An INTEGER that must fit a JavaScript number safely (request IDs, error status, engine boots). */
export function decodeSafeInt(b: Buffer): number {
  const v = decodeInt(b);
  if (v > BigInt(Number.MAX_SAFE_INTEGER) || v < BigInt(Number.MIN_SAFE_INTEGER)) throw new BerError('BER: INTEGER out of range');
  return Number(v);
}

/** RFC 2578 §3.5: at most 128 sub-identifiers, each at most 2^32-1. */
const MAX_OID_ARCS = 128;
const MAX_ARC = 0xffffffff;

export function decodeOid(b: Buffer): number[] {
  if (b.length === 0) throw new BerError('BER: empty OID');
  if (b[b.length - 1]! & 0x80) throw new BerError('BER: OID ends inside an arc');
  const arcs: number[] = [];
  let v = 0;
  for (const x of b) {
    v = v * 128 + (x & 0x7f);
    // The first subidentifier holds two arcs (X * 40 + Y), so it may exceed MAX_ARC by up to 80.
    if (v > MAX_ARC + (arcs.length === 0 ? 80 : 0)) throw new BerError('BER: OID arc too large');
    if (!(x & 0x80)) {
      arcs.push(v);
      v = 0;
      if (arcs.length >= MAX_OID_ARCS) throw new BerError('BER: OID too long');
    }
  }
  const first = arcs.shift()!;
  const a = first < 80 ? Math.floor(first / 40) : 2;
  if (first - a * 40 > MAX_ARC) throw new BerError('BER: OID arc too large');
  return [a, first - a * 40, ...arcs];
}

function lengthBytes(n: number): Buffer {
  if (n < 0x80) return Buffer.from([n]);
  const bytes: number[] = [];
  for (let v = n; v > 0; v = Math.floor(v / 256)) bytes.unshift(v & 0xff);
  return Buffer.from([0x80 | bytes.length, ...bytes]);
}

export function tlv(tag: number, value: Buffer): Buffer {
  return Buffer.concat([Buffer.from([tag]), lengthBytes(value.length), value]);
}

export function seq(tag: number, parts: Buffer[]): Buffer {
  return tlv(tag, Buffer.concat(parts));
}

/** Two's-complement INTEGER content, shortest form. */
export function encodeSigned(v: bigint): Buffer {
  const bytes: number[] = [];
  let x = v;
  for (;;) {
    bytes.unshift(Number(x & 0xffn));
    x >>= 8n;
    if ((x === 0n && !(bytes[0]! & 0x80)) || (x === -1n && bytes[0]! & 0x80)) break;
  }
  return Buffer.from(bytes);
}

/** Unsigned content (Counter32, Gauge32, TimeTicks, Counter64): a leading zero when the top bit is set. */
export function encodeUnsigned(v: bigint): Buffer {
  const bytes: number[] = [];
  for (let x = v; x > 0n; x >>= 8n) bytes.unshift(Number(x & 0xffn));
  if (bytes.length === 0 || bytes[0]! & 0x80) bytes.unshift(0);
  return Buffer.from(bytes);
}

export function encodeOid(arcs: readonly number[]): Buffer {
  if (arcs.length < 2) throw new Error('BER: an OID needs two arcs');
  const out: number[] = [];
  const push = (n: number) => {
    const chunk: number[] = [n & 0x7f];
    for (let v = Math.floor(n / 128); v > 0; v = Math.floor(v / 128)) chunk.unshift((v & 0x7f) | 0x80);
    out.push(...chunk);
  };
  push(arcs[0]! * 40 + arcs[1]!);
  for (const a of arcs.slice(2)) push(a);
  return Buffer.from(out);
}

export const int = (v: number | bigint): Buffer => tlv(TAG.Integer, encodeSigned(BigInt(v)));
export const octetString = (v: Buffer | string): Buffer => tlv(TAG.OctetString, typeof v === 'string' ? Buffer.from(v) : v);
export const nullValue = (): Buffer => tlv(TAG.Null, Buffer.alloc(0));
export const oidValue = (oid: string | readonly number[]): Buffer =>
  tlv(TAG.OID, encodeOid(typeof oid === 'string' ? oid.replace(/^\./, '').split('.').map(Number) : oid));

// ---------------------------------------------------------------------------------------------------
// SNMP messages

/** A varbind as it travels: the OID, the value's tag and its content octets (undecoded). */
export interface WireVarbind {
  /** Dotted, no leading dot. */
  oid: string;
  tag: number;
  value: Buffer;
}

/** Any PDU but the SNMPv1 Trap: request-id, error-status (non-repeaters), error-index (max-repetitions), varbinds. */
export interface Pdu {
  tag: number;
  requestId: number;
  errorStatus: number;
  errorIndex: number;
  varbinds: WireVarbind[];
}

/** UsmSecurityParameters (RFC 3414 §2.4), carried in msgSecurityParameters as an OCTET STRING. */
export interface UsmParameters {
  engineId: Buffer;
  engineBoots: number;
  engineTime: number;
  userName: Buffer;
  authParams: Buffer;
  privParams: Buffer;
}

export interface ScopedPdu {
  contextEngineId: Buffer;
  contextName: Buffer;
  pdu: Pdu;
}

export interface CommunityMessage {
  version: typeof SNMP_VERSION.v1 | typeof SNMP_VERSION.v2c;
  community: Buffer;
  pdu: Pdu;
}

export interface V3Message {
  version: typeof SNMP_VERSION.v3;
  /** msgGlobalData (RFC 3412 §6). */
  msgId: number;
  maxSize: number;
  flags: number;
  securityModel: number;
  /** The USM parameters; undefined when securityModel is not USM or they do not decode. */
  usm?: UsmParameters;
  /** undefined when the scopedPDU is encrypted (msgData is then an OCTET STRING). */
  scoped?: ScopedPdu;
}

export type SnmpMessage = CommunityMessage | V3Message;

/** A varbind list entry to encode: a NULL value unless `value` (a whole TLV) is given. */
export interface VarbindSpec { oid: string | readonly number[]; value?: Buffer }

export interface PduSpec { tag: number; requestId: number; errorStatus?: number; errorIndex?: number; varbinds: VarbindSpec[] }

export function encodePdu(p: PduSpec): Buffer {
  return seq(p.tag, [
    int(p.requestId), int(p.errorStatus ?? 0), int(p.errorIndex ?? 0),
    seq(TAG.Sequence, p.varbinds.map((vb) => seq(TAG.Sequence, [oidValue(vb.oid), vb.value ?? nullValue()]))),
  ]);
}

/** A v1 or v2c message around an encoded PDU. */
export function encodeCommunityMessage(version: CommunityMessage['version'], community: Buffer | string, pdu: Buffer): Buffer {
  return seq(TAG.Sequence, [int(version), octetString(community), pdu]);
}

export function encodeUsmParameters(u: Partial<UsmParameters> = {}): Buffer {
  const empty = Buffer.alloc(0);
  return seq(TAG.Sequence, [
    octetString(u.engineId ?? empty), int(u.engineBoots ?? 0), int(u.engineTime ?? 0),
    octetString(u.userName ?? empty), octetString(u.authParams ?? empty), octetString(u.privParams ?? empty),
  ]);
}

/** A v3 message with a plaintext scopedPDU (noAuthNoPriv, or a Report from an agent). */
export function encodeV3Message(m: {
  msgId: number; maxSize?: number; flags: number; usm?: Partial<UsmParameters>;
  contextEngineId?: Buffer; contextName?: Buffer | string; pdu: Buffer;
}): Buffer {
  return seq(TAG.Sequence, [
    int(SNMP_VERSION.v3),
    seq(TAG.Sequence, [int(m.msgId), int(m.maxSize ?? 65507), octetString(Buffer.from([m.flags])), int(USM_SECURITY_MODEL)]),
    octetString(encodeUsmParameters(m.usm)),
    seq(TAG.Sequence, [octetString(m.contextEngineId ?? Buffer.alloc(0)), octetString(m.contextName ?? ''), m.pdu]),
  ]);
}

/**
 * The RFC 3414 §4 discovery request: noAuthNoPriv, reportable, empty msgAuthoritativeEngineID and
 * user name, a GET with no varbinds. An SNMPv3 agent answers it with a Report (usmStatsUnknownEngineIDs)
 * whose msgSecurityParameters carry its snmpEngineID, boots and time. msgID and request-id are both `id`.
 */
export function encodeDiscoveryRequest(id: number): Buffer {
  return encodeV3Message({
    msgId: id, flags: MSG_FLAGS.reportable, usm: {},
    pdu: encodePdu({ tag: TAG.GetRequest, requestId: id, varbinds: [] }),
  });
}

function expect(t: Tlv | undefined, tag: number, what: string): Tlv {
  if (!t || t.tag !== tag) throw new BerError(`SNMP: ${what} missing`);
  return t;
}

function decodePdu(t: Tlv): Pdu {
  // The v1 Trap PDU has another shape (enterprise, agent-addr, ...) and is never an answer.
  if (t.tag < TAG.GetRequest || t.tag > TAG.Report || t.tag === TAG.TrapV1) throw new BerError('SNMP: not a PDU');
  const [reqId, status, index, list, extra] = readAll(t.value);
  if (extra) throw new BerError('SNMP: trailing data in the PDU');
  const varbinds = readAll(expect(list, TAG.Sequence, 'varbind list').value).map((vb) => {
    const [name, value, more] = readAll(expect(vb, TAG.Sequence, 'varbind').value);
    if (!value || more) throw new BerError('SNMP: malformed varbind');
    return { oid: decodeOid(expect(name, TAG.OID, 'varbind name').value).join('.'), tag: value.tag, value: value.value };
  });
  return {
    tag: t.tag,
    requestId: decodeSafeInt(expect(reqId, TAG.Integer, 'request-id').value),
    errorStatus: decodeSafeInt(expect(status, TAG.Integer, 'error-status').value),
    errorIndex: decodeSafeInt(expect(index, TAG.Integer, 'error-index').value),
    varbinds,
  };
}

export function decodeUsmParameters(b: Buffer): UsmParameters {
  const { tlv: outer, next } = readTlv(b, 0);
  if (next !== b.length) throw new BerError('USM: trailing data');
  const [engineId, boots, time, user, auth, priv, extra] = readAll(expect(outer, TAG.Sequence, 'UsmSecurityParameters').value);
  if (extra) throw new BerError('USM: trailing data');
  return {
    engineId: expect(engineId, TAG.OctetString, 'msgAuthoritativeEngineID').value,
    engineBoots: decodeSafeInt(expect(boots, TAG.Integer, 'msgAuthoritativeEngineBoots').value),
    engineTime: decodeSafeInt(expect(time, TAG.Integer, 'msgAuthoritativeEngineTime').value),
    userName: expect(user, TAG.OctetString, 'msgUserName').value,
    authParams: expect(auth, TAG.OctetString, 'msgAuthenticationParameters').value,
    privParams: expect(priv, TAG.OctetString, 'msgPrivacyParameters').value,
  };
}

function decodeV3(parts: Tlv[]): V3Message {
  const [, global, secParams, data, extra] = parts;
  if (extra) throw new BerError('SNMP: trailing data');
  const [msgId, maxSize, flags, model] = readAll(expect(global, TAG.Sequence, 'msgGlobalData').value);
  const flagOctets = expect(flags, TAG.OctetString, 'msgFlags').value;
  if (flagOctets.length !== 1) throw new BerError('SNMP: msgFlags is not one octet');
  const msg: V3Message = {
    version: SNMP_VERSION.v3,
    msgId: decodeSafeInt(expect(msgId, TAG.Integer, 'msgID').value),
    maxSize: decodeSafeInt(expect(maxSize, TAG.Integer, 'msgMaxSize').value),
    flags: flagOctets[0]!,
    securityModel: decodeSafeInt(expect(model, TAG.Integer, 'msgSecurityModel').value),
  };
  const sp = expect(secParams, TAG.OctetString, 'msgSecurityParameters').value;
  if (msg.securityModel === USM_SECURITY_MODEL) {
    try {
      msg.usm = decodeUsmParameters(sp);
    } catch {
      // Left undefined: the caller decides whether a message without usable USM parameters matters.
    }
  }
  if (!data) throw new BerError('SNMP: msgData missing');
  if (data.tag === TAG.Sequence) {
    const [ctxEngine, ctxName, pdu, more] = readAll(data.value);
    if (!pdu || more) throw new BerError('SNMP: malformed scopedPDU');
    msg.scoped = {
      contextEngineId: expect(ctxEngine, TAG.OctetString, 'contextEngineID').value,
      contextName: expect(ctxName, TAG.OctetString, 'contextName').value,
      pdu: decodePdu(pdu),
    };
  } else {
    expect(data, TAG.OctetString, 'msgData');
  }
  return msg;
}

/**
 * Decodes one SNMP message (a whole datagram). Returns undefined for anything that is not a well-formed
 * v1, v2c or v3 message with trailing bytes absent; never throws. Buffers in the result are views of `buf`.
 */
export function decodeMessage(buf: Buffer): SnmpMessage | undefined {
  try {
    const { tlv: outer, next } = readTlv(buf, 0);
    if (outer.tag !== TAG.Sequence || next !== buf.length) return undefined;
    const parts = readAll(outer.value);
    const version = decodeSafeInt(expect(parts[0], TAG.Integer, 'msgVersion').value);
    if (version === SNMP_VERSION.v3) return decodeV3(parts);
    if (version !== SNMP_VERSION.v1 && version !== SNMP_VERSION.v2c) return undefined;
    const [, community, pdu, extra] = parts;
    if (!pdu || extra) return undefined;
    return { version, community: expect(community, TAG.OctetString, 'community').value, pdu: decodePdu(pdu) };
  } catch {
    return undefined;
  }
}
