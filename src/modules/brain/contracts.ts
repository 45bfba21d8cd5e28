// Contracts inside the brain (inventory) module, between the generic item service and the vault.
import type { Tx } from '../../core/store/types.js';
import type { Cidr } from '../../core/ip.js';
import type { SecretDestination } from './credentials/scope.js';

export type { SecretDestination } from './credentials/scope.js';

/** The seven inventory types, as used in the `:type` path segment. */
export const BRAIN_TYPES = ['sites', 'locations', 'endpoints', 'assets', 'applications', 'subnets', 'credentials'] as const;
export type BrainType = (typeof BRAIN_TYPES)[number];

/** SNMPv3 security levels and protocols a stored credential may name (the SNMP module reads them). */
export const SNMP_LEVELS = ['noAuthNoPriv', 'authNoPriv', 'authPriv'] as const;
export const SNMP_AUTH_PROTOCOLS = ['md5', 'sha', 'sha224', 'sha256', 'sha384', 'sha512'] as const;
export const SNMP_PRIV_PROTOCOLS = ['des', 'aes', 'aes256b', 'aes256r'] as const;

/** Short-ID prefixes: never change one once shipped (docs/brain.md). */
export const SHORT_ID_PREFIX: Record<BrainType, string> = {
  sites: 'ST', locations: 'LC', endpoints: 'EP', assets: 'AS', applications: 'AP', subnets: 'SN', credentials: 'CR',
};

/**
 * Write-only secret fields of a credential. SPEC.md names community, password and snmpv3_priv_key; the
 * inventory issue adds the v3 auth key and the SSH private key (and its passphrase), and API tokens.
 * They are never stored in the item's data: only as ciphertext through CredentialSecrets.
 */
export const CREDENTIAL_SECRET_FIELDS = [
  'community', 'password', 'snmpv3_auth_key', 'snmpv3_priv_key', 'ssh_private_key', 'ssh_passphrase', 'api_token',
] as const;
export type CredentialSecretField = (typeof CREDENTIAL_SECRET_FIELDS)[number];

/**
 * Encrypted storage of credential secrets (implemented by the vault). All writes happen inside the
 * caller's store transaction so a credential and its secrets change together.
 */
export interface CredentialSecrets {
  /** Throws HttpError 423 (code vault_locked) unless the vault is set up and unlocked. */
  assertUnlocked(): void;
  /**
   * Encrypts and stores the given values for the credential (AES-256-GCM bound to credential id and
   * field); null removes a field. Throws 423 when locked. Fields not named are left as they are.
   */
  write(tx: Tx, credentialId: string, values: Partial<Record<CredentialSecretField, string | null>>): void;
  /** The secret fields that hold a value for this credential (works while locked). */
  which(credentialId: string): CredentialSecretField[];
  /**
   * Plaintext for other modules (SNMP, discovery, SSH), for sending to `to`: 403 (credential_out_of_scope) unless the
   * credential's scope allows that destination, 423 when locked, 404 when unknown. `held` is for a caller that sends
   * to many hosts and asks `allows()` before each (a scan), or sends nowhere (checking that a key parses).
   */
  read(credentialId: string, to: SecretDestination | 'held'): Partial<Record<CredentialSecretField, string>>;
  /** The credential's scope as it is now (its entries and the endpoints referencing it), for checking many hosts. */
  scope(credentialId: string): CredentialScope;
  /** The 403 read() throws for this destination, when it would (for callers that check before a batch). */
  refusal(credentialId: string, to: SecretDestination): Error | null;
  /** Removes every secret of the credential (on delete), inside the caller's transaction. */
  remove(tx: Tx, credentialId: string): void;
}

/** A credential's scope, read once: where its secrets may go. */
export interface CredentialScope {
  /** The rules as people read them: entries, then `EP-12 10.0.0.2` for the endpoints referencing it. */
  rules: string[];
  allows(to: Pick<SecretDestination, 'host' | 'address'>): boolean;
  /** Whether a whole network (a scanned subnet) lies within it. */
  covers(network: Cidr): boolean;
}

/** A saved topology session as the subnet route shows it. */
export interface SessionSummary { id: string; name: string; networks: string[]; [more: string]: unknown }

/**
 * Where topology sessions come from: the discovery (v1sion) module will provide one that uses
 * core/ip.ts overlapsAny over its saved sessions. Until it exists, there are none.
 */
export interface SessionSource { overlapping(subnet: Cidr): SessionSummary[] }
export const noSessions: SessionSource = { overlapping: () => [] };

/** What uses a stored credential (GET /api/brain/credentials/:id/usage), in the order the list shows them. */
export const CREDENTIAL_USAGE_KINDS = [
  'endpoint', 'discovery', 'ssh_target', 'snmp_template', 'snmp_device', 'snmp_polled_device', 'monitor',
] as const;
export type CredentialUsageKind = (typeof CREDENTIAL_USAGE_KINDS)[number];

/** One place a credential is used: named, never with a secret. */
export interface CredentialUsage {
  kind: CredentialUsageKind;
  /** The user's id (UUID, or a device name for SNMP device cards). */
  id: string;
  name: string;
  short_id?: string | null;
  /** A short description: the address of an SSH target, the position in the discovery list… */
  detail?: string | null;
  /**
   * Where this use sends the credential: host names, addresses or networks (CIDR). The usage list says whether the
   * credential's scope covers them; the upgrade that introduced scopes started each credential's scope from them.
   */
  destinations?: string[];
}

/**
 * Another module's uses of credentials (discovery's list and SSH targets, SNMP templates and device
 * cards). `scope` is what the caller must hold to see them: the usage list shows only what the caller
 * could read through that module's own API.
 */
export interface CredentialUsageSource {
  scope: 'monitors:read' | 'v1sion:read' | 'snmp:read' | 'system:read';
  usesOf(credentialId: string): CredentialUsage[];
}
