// Defaults, limits and validation of what the client is asked to reach. Bad input is a 400 naming the
// field as the API body names it (community, v3.auth_key, oids.0, ...), never a library exception.
import { getCiphers, createCipheriv } from 'node:crypto';
import { isIP } from 'node:net';
import { badRequest, type FieldError } from '../../../core/errors.js';
import {
  V3_AUTH_PROTOCOLS, V3_LEVELS, V3_PRIV_PROTOCOLS, type SnmpTarget, type SnmpVersion, type V3Params, type WalkOptions,
} from '../contracts.js';

export const SNMP_DEFAULTS = {
  port: 161,
  timeout_ms: 2000,
  retries: 1,
  max_repetitions: 20,
  max_varbinds: 10_000,
} as const;

export const SNMP_LIMITS = {
  timeout_ms: 60_000,
  retries: 5,
  max_repetitions: 200,
  max_varbinds: 100_000,
  /** RFC 3414 section 11.2: pass phrases shorter than 8 octets are refused (Net-SNMP does too). */
  min_key_length: 8,
  /** SnmpAdminString (SIZE(1..32)) for usmUserName. */
  max_username_length: 32,
} as const;

/** A target with every default filled in, checked. */
export interface ResolvedTarget {
  host: string;
  port: number;
  version: SnmpVersion;
  community?: string;
  v3?: V3Params;
  timeout_ms: number;
  retries: number;
  transport: 'udp4' | 'udp6';
  /** The IP address the socket connects to: set by lookupTarget() (client/lookup.ts) for a host name. */
  address?: string;
  /** "192.0.2.1:161" or "[2001:db8::1]:161", for messages. */
  where: string;
}

let desWorks: boolean | undefined;
/** OpenSSL 3 keeps DES in its legacy provider, which Node loads only with --openssl-legacy-provider. */
export function desAvailable(): boolean {
  if (desWorks === undefined) {
    try {
      desWorks = getCiphers().includes('des-cbc') && !!createCipheriv('des-cbc', Buffer.alloc(8), Buffer.alloc(8));
    } catch {
      desWorks = false;
    }
  }
  return desWorks;
}

function v3Errors(v3: V3Params | undefined, errors: FieldError[]): void {
  if (!v3 || typeof v3 !== 'object') { errors.push({ path: 'v3', message: 'required for version v3' }); return; }
  if (typeof v3.username !== 'string' || !v3.username) errors.push({ path: 'v3.username', message: 'required' });
  else if (Buffer.byteLength(v3.username) > SNMP_LIMITS.max_username_length) {
    errors.push({ path: 'v3.username', message: `at most ${SNMP_LIMITS.max_username_length} bytes (RFC 3414)` });
  }
  if (!(V3_LEVELS as readonly string[]).includes(v3.level)) {
    errors.push({ path: 'v3.level', message: `one of ${V3_LEVELS.join(', ')}` });
    return;
  }
  const key = (field: 'auth_key' | 'priv_key', value: string | undefined) => {
    if (typeof value !== 'string' || !value) errors.push({ path: `v3.${field}`, message: `required for ${v3.level}` });
    else if (Buffer.byteLength(value) < SNMP_LIMITS.min_key_length) {
      errors.push({ path: `v3.${field}`, message: `at least ${SNMP_LIMITS.min_key_length} characters (RFC 3414)` });
    }
  };
  if (v3.level !== 'noAuthNoPriv') {
    if (!(V3_AUTH_PROTOCOLS as readonly (string | undefined)[]).includes(v3.auth_protocol)) {
      errors.push({ path: 'v3.auth_protocol', message: `required for ${v3.level}: one of ${V3_AUTH_PROTOCOLS.join(', ')}` });
    }
    key('auth_key', v3.auth_key);
  }
  if (v3.level === 'authPriv') {
    if (!(V3_PRIV_PROTOCOLS as readonly (string | undefined)[]).includes(v3.priv_protocol)) {
      errors.push({ path: 'v3.priv_protocol', message: `required for authPriv: one of ${V3_PRIV_PROTOCOLS.join(', ')}` });
    } else if (v3.priv_protocol === 'des' && !desAvailable()) {
      errors.push({ path: 'v3.priv_protocol',
        message: 'DES is not available in this Node.js (OpenSSL 3 without the legacy provider); use aes' });
    }
    key('priv_key', v3.priv_key);
  }
}

const intIn = (v: unknown, min: number, max: number) => Number.isInteger(v) && (v as number) >= min && (v as number) <= max;

/** Fills in defaults and checks a target; 400 listing every bad field. */
export function resolveTarget(t: SnmpTarget): ResolvedTarget {
  const errors: FieldError[] = [];
  const host = typeof t.host === 'string' ? t.host.trim().replace(/^\[(.*)\]$/, '$1') : '';
  if (!host || host.length > 253 || /\s/.test(host)) errors.push({ path: 'target', message: 'an IP address or host name' });
  const port = t.port ?? SNMP_DEFAULTS.port;
  if (!intIn(port, 1, 65535)) errors.push({ path: 'port', message: 'an integer from 1 to 65535' });
  const timeout = t.timeout_ms ?? SNMP_DEFAULTS.timeout_ms;
  if (!intIn(timeout, 1, SNMP_LIMITS.timeout_ms))
    errors.push({ path: 'timeout', message: `from 1 ms to ${SNMP_LIMITS.timeout_ms / 1000} s` });
  const retries = t.retries ?? SNMP_DEFAULTS.retries;
  if (!intIn(retries, 0, SNMP_LIMITS.retries)) errors.push({ path: 'retries', message: `an integer from 0 to ${SNMP_LIMITS.retries}` });
  if (t.version === 'v1' || t.version === 'v2c') {
    // net-snmp silently replaces an empty community with "public": refuse it instead.
    if (typeof t.community !== 'string' || !t.community) errors.push({ path: 'community', message: `required for ${t.version}` });
  } else if (t.version === 'v3') {
    v3Errors(t.v3, errors);
  } else {
    errors.push({ path: 'version', message: 'one of v1, v2c, v3' });
  }
  if (errors.length) throw badRequest(`Invalid SNMP target: ${errors.map((e) => `${e.path}: ${e.message}`).join('; ')}`, errors);
  const v6 = isIP(host) === 6;
  return {
    host, port, version: t.version, community: t.community, v3: t.v3, timeout_ms: timeout, retries,
    transport: v6 ? 'udp6' : 'udp4',
    where: v6 ? `[${host}]:${port}` : `${host}:${port}`,
  };
}

/** A numeric OID without its leading dot; every arc a non-negative 32-bit integer, at least two arcs. */
export function normalizeOid(oid: string): string | undefined {
  const s = oid.trim().replace(/^\./, '');
  if (!/^\d+(\.\d+)+$/.test(s)) return undefined;
  const arcs = s.split('.');
  if (arcs.some((a) => Number(a) > 0xffffffff || (a.length > 1 && a.startsWith('0')))) return undefined;
  // X.690: the first arc is 0, 1 or 2, and under 0 and 1 the second is at most 39.
  if (Number(arcs[0]) > 2 || (Number(arcs[0]) < 2 && Number(arcs[1]) > 39) || arcs.length > 128) return undefined;
  return s;
}

/** Numeric OIDs of a request; 400 naming `field.N` for each one that is not. */
export function checkOids(oids: string[], field = 'oids'): string[] {
  if (!Array.isArray(oids) || oids.length === 0)
    throw badRequest('At least one OID is required', [{ path: field, message: 'at least one OID' }]);
  const errors: FieldError[] = [];
  const out = oids.map((o, i) => {
    const n = typeof o === 'string' ? normalizeOid(o) : undefined;
    if (!n) errors.push({ path: `${field}.${i}`, message: `not a numeric OID: ${JSON.stringify(o)}` });
    return n ?? '';
  });
  if (errors.length) throw badRequest(`Invalid OIDs: ${errors.map((e) => e.message).join('; ')}`, errors);
  return out;
}

/** max_repetitions and max_varbinds with defaults, checked. */
export function walkLimits(opts: WalkOptions): { maxRepetitions: number; maxVarbinds: number } {
  const errors: FieldError[] = [];
  const maxRepetitions = opts.max_repetitions ?? SNMP_DEFAULTS.max_repetitions;
  if (!intIn(maxRepetitions, 1, SNMP_LIMITS.max_repetitions)) {
    errors.push({ path: 'max_repetitions', message: `an integer from 1 to ${SNMP_LIMITS.max_repetitions}` });
  }
  const maxVarbinds = opts.max_varbinds ?? SNMP_DEFAULTS.max_varbinds;
  if (!intIn(maxVarbinds, 1, SNMP_LIMITS.max_varbinds)) {
    errors.push({ path: 'max_varbinds', message: `an integer from 1 to ${SNMP_LIMITS.max_varbinds}` });
  }
  if (errors.length) throw badRequest(`Invalid walk options: ${errors.map((e) => `${e.path}: ${e.message}`).join('; ')}`, errors);
  return { maxRepetitions, maxVarbinds };
}
