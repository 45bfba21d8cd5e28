// Contracts inside the SNMP module, between the client (net-snmp wrapper), the OID store, the vendor
// profiles and the routes. Discovery (a later module) uses the same interfaces through snmpServicesOf().

export type SnmpVersion = 'v1' | 'v2c' | 'v3';
export const SNMP_VERSIONS = ['v1', 'v2c', 'v3'] as const;
// One list for inline v3 parameters and stored credentials: the inventory's.
export {
  SNMP_AUTH_PROTOCOLS as V3_AUTH_PROTOCOLS, SNMP_LEVELS as V3_LEVELS, SNMP_PRIV_PROTOCOLS as V3_PRIV_PROTOCOLS
} from '../brain/contracts.js';
import type { SNMP_AUTH_PROTOCOLS, SNMP_LEVELS, SNMP_PRIV_PROTOCOLS } from '../brain/contracts.js';

export interface V3Params {
  username: string;
  level: (typeof SNMP_LEVELS)[number];
  auth_protocol?: (typeof SNMP_AUTH_PROTOCOLS)[number];
  auth_key?: string;
  priv_protocol?: (typeof SNMP_PRIV_PROTOCOLS)[number];
  priv_key?: string;
}

/** Where and how to reach an agent. Secrets are already resolved (a stored credential is read first). */
export interface SnmpTarget {
  host: string;
  /** Default 161. */
  port?: number;
  version: SnmpVersion;
  /** v1/v2c; default "public" is NOT assumed: callers pass it. */
  community?: string;
  v3?: V3Params;
  /** Per request, milliseconds (default 2000). */
  timeout_ms?: number;
  /** Default 1. */
  retries?: number;
}

/** ASN.1 types as the API names them. */
export type VarbindType =
  | 'Integer' | 'OctetString' | 'Null' | 'OID' | 'IpAddress' | 'Counter32' | 'Gauge32' | 'TimeTicks'
  | 'Opaque' | 'Counter64' | 'NoSuchObject' | 'NoSuchInstance' | 'EndOfMibView';

/**
 * One variable as read from the agent. `value` is JSON-safe: numbers for Integer/Counter32/Gauge32/
 * TimeTicks, a decimal string for Counter64, the dotted string for OID and IpAddress, for OctetString
 * the text when it is printable UTF-8 and otherwise lowercase hex with `hex: true`; null for Null and
 * the exception types.
 */
export interface RawVarbind {
  oid: string;
  type: VarbindType;
  value: string | number | null;
  /** True when an OctetString value is given as hex because it is not printable text. */
  hex?: boolean;
}

/** A varbind as the API returns it: symbolic name from the OID store and a display rendering. */
export interface Varbind extends RawVarbind {
  /** e.g. "ifDescr.3"; the numeric OID when the store does not know it. */
  name: string;
  /** e.g. "3 days, 04:05:06.07" for TimeTicks, "00:1a:2b:3c:4d:5e" for a MAC, "up(1)" for an enum. */
  display: string;
}

export interface WalkOptions {
  /** GETBULK max-repetitions for v2c/v3 (default 20). */
  max_repetitions?: number;
  /** Stop after this many varbinds in total over all roots (default 10,000) and report truncated. */
  max_varbinds?: number;
  signal?: AbortSignal;
}

export interface WalkResult {
  varbinds: RawVarbind[];
  truncated: boolean;
  elapsed_ms: number;
}

/**
 * Reads from one agent. Errors are HttpErrors with distinct codes (see docs/snmp.md): snmp_timeout (504),
 * snmp_unreachable (502), snmp_bad_community (422), snmp_unknown_user (422), snmp_wrong_key (422),
 * snmp_decryption_failed (422), snmp_unsupported_level (422), snmp_error (502, agent error status).
 */
export interface SnmpReader {
  /** GET of the given OIDs; missing ones come back with type NoSuchObject/NoSuchInstance. */
  get(target: SnmpTarget, oids: string[]): Promise<RawVarbind[]>;
  /** GETBULK (v2c/v3) or GETNEXT (v1) walk of each root's subtree, in order. */
  walk(target: SnmpTarget, roots: string[], opts?: WalkOptions): Promise<WalkResult>;
}

/** One entry of the OID dictionary. */
export interface OidEntry {
  /** Numeric, dotted, no leading dot. */
  oid: string;
  name: string;
  module: string;
  /** What the OID is: scalar, table, row (entry), column, or node (a branch with no value). */
  kind: 'scalar' | 'table' | 'row' | 'column' | 'node' | 'notification';
  /** SYNTAX as written in the MIB after resolving textual conventions' base where useful, e.g.
   *  "DisplayString", "PhysAddress", "MacAddress", "TimeTicks", "Counter64", "INTEGER", "InetAddress". */
  type?: string;
  /** Enumerated values of INTEGER syntaxes: number → label. */
  enums?: Record<string, string>;
  units?: string;
  description?: string;
}

export interface OidLookup {
  /** The entry for this exact OID or for the longest known prefix of it (a column for an instance). */
  resolve(oid: string): { entry: OidEntry; suffix: string } | undefined;
  /** "ifDescr.3" style name, or the numeric OID when unknown. */
  nameOf(oid: string): string;
  /**
   * Numeric OID for a name such as "sysDescr" or "IF-MIB::ifDescr" (also accepts numeric OIDs); undefined
   * for a bare name several modules define at different OIDs ("linux"): those need MODULE::name.
   */
  oidOf(nameOrOid: string): string | undefined;
}
