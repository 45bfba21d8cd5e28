// What other modules lend the check types, as ports the monitors module defines and they implement: a
// check type stays a definition without the app (testable with a stand-in), and the monitors module
// imports none of those modules (the SNMP module provides its part at registration: monitors/index.ts,
// provideCheckServices). A check type whose service is absent says so in its result.

/** One variable read for a check, as the SNMP module renders it. */
export interface SnmpReading {
  /** Numeric OID read. */
  oid: string;
  /** "upsBatteryCapacity.0"; the numeric OID when the OID store does not know it. */
  name: string;
  /** ASN.1 type as the SNMP API names it: Integer, Gauge32, Counter32, Counter64, TimeTicks, OctetString, NoSuchObject... */
  type: string;
  /** Numbers for Integer/Gauge32/Counter32/TimeTicks, a decimal string for Counter64, text (or hex) for the rest. */
  value: string | number | null;
  /** "established(6)", "3 days, 04:05:06.07": the value as the SNMP pages show it. */
  display: string;
  /** The GET's round trip: from the request sent to the response read (ms). */
  elapsed_ms: number;
}

/**
 * Reading one OID with a stored SNMP credential. Every method throws an HttpError with the SNMP module's
 * codes: 400 naming `field` (an unknown or non-SNMP credential, an unknown OID name), 403 (credential_out_of_scope,
 * range_not_allowed: refused before anything is sent), 423 (the vault is locked), and the client's
 * snmp_timeout, snmp_bad_community, snmp_unreachable, snmp_host_not_found...
 */
export interface SnmpCheckService {
  /** The numeric OID of a name ("sysUpTime.0", "UPS-MIB::upsBatteryCapacity.0") or of a numeric OID. */
  resolveOid(nameOrOid: string, field: string): string;
  /** Whether the credential exists, is SNMP, and may be sent to `host` (discovery's allowed ranges too); sends nothing. */
  checkReference(host: string, credentialId: string, field: string): Promise<void>;
  /** GET of one OID from `host` with the credential, within its scope: the same path as every SNMP entry point. */
  get(req: { host: string; port?: number; credential_id: string; oid: string; timeout_ms: number }): Promise<SnmpReading>;
}

/** Everything lent, by the name of the lender (absent when its module is not registered). */
export interface CheckServices {
  snmp?: SnmpCheckService;
}
