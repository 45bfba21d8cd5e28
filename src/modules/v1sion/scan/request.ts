// What a scan (or a one-device identification) is asked to use: the request body's schema and the
// ordered list of SNMP credentials it resolves to. Inline secrets (community, v3_params, inline
// entries) are used for this request only: they live in memory for the scan's duration and are never
// stored, logged or put in a result, where a credential shows only as a reference.
import { z } from 'zod';
import type { AppContext } from '../../../core/context.js';
import { HttpError, invalid, type FieldError } from '../../../core/errors.js';
import { brainServicesOf } from '../../brain/index.js';
import { snmpServicesOf, v3Missing } from '../../snmp/index.js';
import type { CredentialLabel } from './result.js';
import { V3_AUTH_PROTOCOLS, V3_LEVELS, V3_PRIV_PROTOCOLS, type SnmpTarget, type SnmpVersion, type V3Params } from '../../snmp/contracts.js';

/** SPEC.md's value is "2c"; the walk's spellings are accepted too. */
export const SNMP_VERSION_NAMES = ['1', 'v1', '2c', 'v2c', '3', 'v3'] as const;
const VERSION_OF: Record<(typeof SNMP_VERSION_NAMES)[number], SnmpVersion> = {
  1: 'v1', v1: 'v1', '2c': 'v2c', v2c: 'v2c', 3: 'v3', v3: 'v3',
};

const Key = z.string().min(8, 'at least 8 characters (RFC 3414)').max(256);
export const V3ParamsBody = z.strictObject({
  username: z.string().min(1).max(32),
  level: z.enum(V3_LEVELS).default('authPriv'),
  auth_protocol: z.enum(V3_AUTH_PROTOCOLS).optional(),
  auth_key: Key.optional(),
  priv_protocol: z.enum(V3_PRIV_PROTOCOLS).optional(),
  priv_key: Key.optional(),
}).describe('SNMPv3 user for this request only: never stored or logged');

/** An inline credential in the inventory's shape (as POST /api/v1sion/credentials takes it), used once. */
const InlineCredential = z.strictObject({
  kind: z.enum(['snmp_v1', 'snmp_v2c', 'snmp_v3']),
  name: z.string().max(200).optional(),
  community: z.string().min(1).max(255).optional(),
  username: z.string().min(1).max(32).optional(),
  port: z.number().int().min(1).max(65535).optional(),
  snmpv3_level: z.enum(V3_LEVELS).optional(),
  snmpv3_auth_protocol: z.enum(V3_AUTH_PROTOCOLS).optional(),
  snmpv3_auth_key: Key.optional(),
  snmpv3_priv_protocol: z.enum(V3_PRIV_PROTOCOLS).optional(),
  snmpv3_priv_key: Key.optional(),
});
const Reference = z.string().trim().min(1).max(100).describe('A stored SNMP credential: UUID or short ID (CR-n)');
export const CredentialEntry = z.union([Reference, z.strictObject({ credential_id: Reference }), InlineCredential]);
export type CredentialEntry = z.output<typeof CredentialEntry>;

/** The credential fields a scan request and a one-device request share. */
export const CredentialFields = {
  community: z.string().min(1).max(255).optional().describe('v1/v2c community for this request only (tried first); never stored'),
  snmp_version: z.enum(SNMP_VERSION_NAMES).default('2c').describe('Version of `community` or `v3_params`: 2c (SPEC), 1, v1, v2c, 3, v3'),
  snmp_enabled: z.boolean().default(true).describe('Identify SNMP agents (false: liveness, names, MACs and ports only)'),
  credentials: z.array(CredentialEntry).max(32).optional().describe(
    'Ordered SNMP credentials: stored references (UUID or CR-n) and/or inline entries in the inventory\'s shape (used once, ' +
    'never stored). Without it, the saved discovery credentials (GET /api/v1sion/credentials) are used'),
  v3_params: V3ParamsBody.optional(),
};
const _CredentialFieldsObject = z.object(CredentialFields);
export type CredentialFieldValues = z.output<typeof _CredentialFieldsObject>;

export type { CredentialLabel };

/** One credential to try, secrets resolved. `key` is unique within the request. */
export interface ScanCredential {
  key: string;
  version: SnmpVersion;
  community?: string;
  v3?: V3Params;
  port?: number;
  label: CredentialLabel;
  /** A stored credential's scope: whether it may be sent to this address (inline ones go wherever the request says). */
  allows?: (ip: string) => boolean;
}

/** Whether the credential may be sent to this address. */
export const inScope = (c: ScanCredential, ip: string): boolean => !c.allows || c.allows(ip);

/**
 * The credentials a request tries, in order: its inline `community` / `v3_params`, then its
 * `credentials` list (or, without one, the saved discovery credentials). Stored secrets come from the
 * vault (423 while it is locked). Bad combinations are a 400 naming the field.
 */
export function resolveCredentials(app: AppContext, body: CredentialFieldValues, saved: () => string[]): ScanCredential[] {
  if (!body.snmp_enabled) return [];
  const version = VERSION_OF[body.snmp_version];
  const errors: FieldError[] = [];
  const out: ScanCredential[] = [];
  let inline = 0;
  const addInline = (c: Omit<ScanCredential, 'key' | 'label'>) => {
    inline++;
    out.push({ ...c, key: `inline-${inline}`, label: { inline: true, version: c.version, position: inline } });
  };

  if (body.community !== undefined) {
    if (version === 'v3') errors.push({ path: 'community', message: 'not used by SNMPv3: give v3_params' });
    else addInline({ version, community: body.community });
  }
  if (body.v3_params) {
    if (version !== 'v3') errors.push({ path: 'v3_params', message: 'set snmp_version to 3 (or v3) to use v3_params' });
    else {
      errors.push(...v3Errors(body.v3_params, 'v3_params'));
      addInline({ version: 'v3', v3: body.v3_params });
    }
  } else if (version === 'v3' && body.community === undefined && body.credentials === undefined) {
    errors.push({ path: 'v3_params', message: 'required for snmp_version 3 unless credentials are given' });
  }

  const snmp = snmpServicesOf(app);
  const entries: CredentialEntry[] = body.credentials ?? saved();
  entries.forEach((entry, i) => {
    const path = body.credentials ? `credentials.${i}` : `saved discovery credential ${i + 1}`;
    if (typeof entry === 'string' || 'credential_id' in entry) {
      const ref = typeof entry === 'string' ? entry : entry.credential_id;
      let cred;
      try {
        cred = snmp.targets.credential(ref, path);
      } catch (e) {
        if (e instanceof Error && 'errors' in e && Array.isArray(e.errors)) { errors.push(...(e.errors as FieldError[])); return; }
        throw e;
      }
      // The vault is read once per scan, not per host (423 here while it is locked); the scope is read once too,
      // and each host is checked against it before the credential is sent there (`allows`).
      const t = snmp.targets.secretsOf(cred.id, 'held');
      const scope = brainServicesOf(app).secrets.scope(cred.id);
      out.push({
        key: cred.id, version: t.version, community: t.community, v3: t.v3, port: cred.port ?? undefined,
        label: { credential_id: cred.id, short_id: cred.short_id, name: cred.name, version: cred.version },
        allows: (ip) => scope.allows({ host: ip }),
      });
      return;
    }
    const v: SnmpVersion = entry.kind === 'snmp_v1' ? 'v1' : entry.kind === 'snmp_v2c' ? 'v2c' : 'v3';
    if (v === 'v3') {
      const v3: V3Params = {
        username: entry.username ?? '', level: entry.snmpv3_level ?? 'authPriv',
        auth_protocol: entry.snmpv3_auth_protocol, auth_key: entry.snmpv3_auth_key,
        priv_protocol: entry.snmpv3_priv_protocol, priv_key: entry.snmpv3_priv_key,
      };
      const errs = v3Errors(v3, path, { username: 'username', auth_protocol: 'snmpv3_auth_protocol', auth_key: 'snmpv3_auth_key',
        priv_protocol: 'snmpv3_priv_protocol', priv_key: 'snmpv3_priv_key' });
      if (entry.community !== undefined) errs.push({ path: `${path}.community`, message: 'not used by snmp_v3' });
      errors.push(...errs);
      addInline({ version: 'v3', v3, port: entry.port });
    } else {
      if (entry.community === undefined) errors.push({ path: `${path}.community`, message: `required for ${entry.kind}` });
      addInline({ version: v, community: entry.community, port: entry.port });
    }
  });
  if (errors.length) throw invalid('credentials', errors);
  return out;
}

const V3_FIELDS: Record<keyof V3Params, string> = {
  username: 'username', level: 'level', auth_protocol: 'auth_protocol', auth_key: 'auth_key', priv_protocol: 'priv_protocol',
  priv_key: 'priv_key',
};

/** The SNMP module's rule for what a v3 user needs, with the fields named as this request spells them. */
function v3Errors(v3: V3Params, at: string, names: Partial<Record<keyof V3Params, string>> = V3_FIELDS): FieldError[] {
  return v3Missing(v3).map((e) => ({ path: `${at}.${names[e.field] ?? e.field}`, message: e.message }));
}

/** The SNMP target for one host with a resolved credential. */
export function targetOf(c: ScanCredential, host: string, timing: { timeout_ms: number; retries: number }, port?: number): SnmpTarget {
  if (!inScope(c, host)) {
    const name = 'short_id' in c.label ? c.label.short_id : 'the credential';
    throw new HttpError(403, 'credential_out_of_scope', `${name} may not be sent to ${host}: outside its scope`);
  }
  return { host, port: port ?? c.port ?? 161, version: c.version, community: c.community, v3: c.v3, ...timing };
}
