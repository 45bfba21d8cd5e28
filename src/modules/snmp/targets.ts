// Turns what an API caller sends (an address plus a community, v3 parameters or a stored credential)
// into the SnmpTarget the client reads from. Stored credentials come from the inventory's credentials
// type; their secrets only through the vault (423 while it is locked). One place for the walk
// endpoint, templates and device cards.
import { z } from 'zod';
import { isAllowed, rangeNotAllowed } from '../../core/allowed-ranges.js';
import type { AppContext } from '../../core/context.js';
import { badRequest } from '../../core/errors.js';
import { canonicalIp, parseCidr } from '../../core/ip.js';
import { brainServicesOf, type SecretDestination } from '../brain/index.js';
import { lookupHost } from './client/lookup.js';
import {
  SNMP_VERSIONS, V3_AUTH_PROTOCOLS, V3_LEVELS, V3_PRIV_PROTOCOLS, type SnmpTarget, type SnmpVersion, type V3Params
} from './contracts.js';

/** A host name or IP literal: letters, digits, dots, hyphens, colons (IPv6), no spaces or schemes. */
export const TargetHost = z.string().trim().min(1).max(253)
  .regex(/^[A-Za-z0-9.:_-]+$/, 'an IP address or host name (no scheme, port or path)')
  .describe('Agent address: IP or host name');
export const Port = z.number().int().min(1).max(65535);

export const V3Body = z.strictObject({
  username: z.string().min(1).max(32),
  level: z.enum(V3_LEVELS),
  auth_protocol: z.enum(V3_AUTH_PROTOCOLS).optional(),
  auth_key: z.string().min(8, 'at least 8 characters (RFC 3414)').max(256).optional(),
  priv_protocol: z.enum(V3_PRIV_PROTOCOLS).optional(),
  priv_key: z.string().min(8, 'at least 8 characters (RFC 3414)').max(256).optional(),
}).describe('SNMPv3 user; keys are used for this request only and never stored or logged');

/** The fields every "reach this agent" body shares. */
export const AgentFields = {
  target: TargetHost,
  port: Port.optional().describe('UDP port, default 161 (or the credential\'s port)'),
  version: z.enum(SNMP_VERSIONS).optional().describe('Required unless credential_id is given (then the credential\'s kind decides)'),
  community: z.string().min(1).max(255).optional().describe('v1/v2c community; never stored or logged'),
  v3: V3Body.optional(),
  credential_id: z.string().trim().min(1).max(100).optional().describe('A stored SNMP credential: UUID or short ID (CR-n)'),
};

export interface AgentInput {
  target: string;
  port?: number;
  version?: SnmpVersion;
  community?: string;
  v3?: V3Params;
  credential_id?: string;
}

/** What a stored credential is, without its secrets (templates show this). */
export interface CredentialRef { id: string; short_id: string; name: string; version: SnmpVersion; port: number | null }

const KIND_VERSION: Record<string, SnmpVersion> = { snmp_v1: 'v1', snmp_v2c: 'v2c', snmp_v3: 'v3' };

export class TargetResolver {
  constructor(private readonly app: AppContext) {}

  private items() {
    return brainServicesOf(this.app);
  }

  /** The credential's identity and SNMP version; 400 naming `field` when it is unknown or not SNMP. */
  credential(idOrSid: string, field = 'credential_id'): CredentialRef {
    const { items } = this.items();
    const row = items.findRow(idOrSid, 'credentials');
    if (!row) throw badRequest('No such credential', [{ path: field, message: `no credential ${idOrSid}` }]);
    const data = items.toItem(row);
    const version = KIND_VERSION[String(data.kind)];
    if (!version) {
      throw badRequest('Not an SNMP credential',
        [{ path: field, message: `${String(data.short_id)} is a ${String(data.kind)} credential, not SNMP` }]);
    }
    return { id: String(data.id), short_id: String(data.short_id), name: String(data.name), version,
      port: typeof data.port === 'number' ? data.port : null };
  }

  /** Checks the combination of fields without reading any secret (for saving templates and cards). */
  check(input: AgentInput, opts: { secretsAllowed: boolean }): void {
    const errors: { path: string; message: string }[] = [];
    if (input.credential_id) {
      const cred = this.credential(input.credential_id);
      if (input.version && input.version !== cred.version) errors.push({ path: 'version', message: `the credential is ${cred.version}` });
      if (input.community !== undefined) errors.push({ path: 'community', message: 'give either credential_id or community' });
      if (input.v3 !== undefined) errors.push({ path: 'v3', message: 'give either credential_id or v3' });
    } else if (!opts.secretsAllowed) {
      if (input.community !== undefined || input.v3 !== undefined) {
        errors.push({ path: input.v3 ? 'v3' : 'community', message: 'not stored here: save it as an SNMP credential in the ' +
          'inventory (the vault encrypts it) and give credential_id' });
      }
      errors.push({ path: 'credential_id', message: 'required: the stored SNMP credential to use' });
    } else if (!input.version) {
      errors.push({ path: 'version', message: 'required unless credential_id is given' });
    } else if (input.version === 'v3') {
      if (!input.v3) errors.push({ path: 'v3', message: 'required for version v3' });
      else errors.push(...v3Errors(input.v3, 'v3'));
      if (input.community !== undefined) errors.push({ path: 'community', message: 'not used by v3' });
    } else {
      if (input.community === undefined) errors.push({ path: 'community', message: `required for ${input.version}` });
      if (input.v3 !== undefined) errors.push({ path: 'v3', message: `not used by ${input.version}` });
    }
    if (errors.length) throw badRequest(errors.map((e) => `${e.path}: ${e.message}`).join('; '), errors);
  }

  /**
   * The target with its secrets, to send to `input.target`: a host name resolved once (the address checked is the
   * address reached), within discovery's allowed ranges (403), and a stored credential within its scope (403
   * credential_out_of_scope). Every SNMP entry point (walks, templates, device cards) comes through here.
   */
  async reach(input: AgentInput, timing: { timeout_ms: number; retries: number }): Promise<SnmpTarget> {
    this.check(input, { secretsAllowed: true });
    const address = await this.addressOf(input.target);
    const base = { host: address, timeout_ms: timing.timeout_ms, retries: timing.retries };
    if (!input.credential_id) {
      return { ...base, port: input.port ?? 161, version: input.version!, community: input.community, v3: input.v3 };
    }
    const data = this.items().items.toItem(this.items().items.findRow(input.credential_id, 'credentials')!);
    const secrets = this.secretsOf(String(data.id), { host: input.target, address, use: 'SNMP' });
    return { ...base, ...secrets, port: input.port ?? secrets.port ?? 161 };
  }

  /**
   * A stored SNMP credential's version and secrets, for sending to `to`, or `held` for a scan that asks
   * `allows()` before each host (brain's CredentialSecrets.read). 400 when the credential is incomplete.
   */
  secretsOf(credentialId: string, to: SecretDestination | 'held'): Pick<SnmpTarget, 'version' | 'community' | 'v3'> & { port?: number } {
    const { items, secrets } = this.items();
    const data = items.toItem(items.findRow(credentialId, 'credentials')!);
    const plain = secrets.read(String(data.id), to);
    const version = KIND_VERSION[String(data.kind)]!;
    const port = typeof data.port === 'number' ? data.port : undefined;
    if (version !== 'v3') {
      if (!plain.community)
        throw badRequest('The credential has no community set', [{ path: 'credential_id', message: 'set its community first' }]);
      return { version, community: plain.community, port };
    }
    const v3: V3Params = {
      username: String(data.username ?? ''),
      level: (data.snmpv3_level as V3Params['level'] | null) ?? 'authPriv',
      auth_protocol: (data.snmpv3_auth_protocol as V3Params['auth_protocol'] | null) ?? undefined,
      auth_key: plain.snmpv3_auth_key,
      priv_protocol: (data.snmpv3_priv_protocol as V3Params['priv_protocol'] | null) ?? undefined,
      priv_key: plain.snmpv3_priv_key,
    };
    const errors = v3Errors(v3, 'credential_id');
    if (errors.length) throw badRequest(`The stored credential is incomplete: ${errors.map((e) => e.message).join('; ')}`, errors);
    return { version, v3, port };
  }

  /**
   * Whether `credentialId` may be saved to be sent to `host` later (a monitor's snmp check, a polled device): 400 when
   * it is unknown or not SNMP, 403 when the address is outside discovery's allowed ranges or the credential's scope
   * refuses it. Reads no secret. A name that does not resolve now is checked by its name only: every later send comes
   * through reach(), which checks the address and the scope again before a datagram leaves.
   */
  async checkReference(host: string, credentialId: string, field: string): Promise<CredentialRef> {
    const cred = this.credential(credentialId, field);
    const bare = host.replace(/^\[(.*)\]$/, '$1');
    let address = canonicalIp(bare);
    if (!address) address = await lookupHost(bare).then((a) => canonicalIp(a.address), () => null);
    if (address) {
      const c = parseCidr(address);
      if (!c.ok || !isAllowed(c.cidr, this.app.config.get().discovery.allowed_ranges)) {
        throw rangeNotAllowed(address === bare ? host : `${host} (${address})`, 'reaches');
      }
    }
    const refused = this.items().secrets.refusal(cred.id, { host, address, use: 'SNMP' });
    if (refused) throw refused;
    return cred;
  }

  /** The agent's address: an IP as it is, a name resolved once (502 snmp_host_not_found); 403 outside discovery's allowed ranges. */
  private async addressOf(target: string): Promise<string> {
    const bare = target.replace(/^\[(.*)\]$/, '$1');
    const address = canonicalIp(bare) ?? canonicalIp((await lookupHost(bare)).address)!;
    const c = parseCidr(address);
    if (!c.ok || !isAllowed(c.cidr, this.app.config.get().discovery.allowed_ranges)) {
      throw rangeNotAllowed(address === bare ? target : `${target} (${address})`, 'reaches');
    }
    return address;
  }
}

/**
 * What a v3 user lacks at its level (an auth protocol and key from authNoPriv up, a privacy pair at
 * authPriv), by V3Params field; callers name the fields as their request spells them.
 */
export function v3Missing(v3: V3Params): { field: keyof V3Params; message: string }[] {
  const out: { field: keyof V3Params; message: string }[] = [];
  if (!v3.username) out.push({ field: 'username', message: 'an SNMPv3 user name is required' });
  if (v3.level !== 'noAuthNoPriv') {
    if (!v3.auth_protocol) out.push({ field: 'auth_protocol', message: `required for ${v3.level}` });
    if (!v3.auth_key) out.push({ field: 'auth_key', message: `required for ${v3.level}` });
  }
  if (v3.level === 'authPriv') {
    if (!v3.priv_protocol) out.push({ field: 'priv_protocol', message: 'required for authPriv' });
    if (!v3.priv_key) out.push({ field: 'priv_key', message: 'required for authPriv' });
  }
  return out;
}

function v3Errors(v3: V3Params, at: string): { path: string; message: string }[] {
  return v3Missing(v3).map((e) => ({ path: at === 'v3' ? `v3.${e.field}` : at, message: e.message }));
}
