// The credentials type: a stored login for SNMP, SSH, HTTP or an API. Its secrets are write-only: they
// go through the vault (CredentialSecrets) inside the item's write transaction and are shown only as
// {set: true|false}. Its routes are in routes.ts. Discovery records where a credential worked or failed through
// recordCredentialUse(); GET /api/brain/credentials/:id/scan reads that back.
import { z } from 'zod';
import { HttpError } from '../../../core/errors.js';
import type { Store, Tx } from '../../../core/store/types.js';
import { secretShown } from '../../../core/secret-marker.js';
import { CREDENTIAL_SECRET_FIELDS, SNMP_AUTH_PROTOCOLS, SNMP_LEVELS, SNMP_PRIV_PROTOCOLS, type CredentialSecrets } from '../contracts.js';
import { ScopeField } from './scope.js';
import { common, defineType, opt, str, type ItemData, type TypeDef } from '../types.js';

export const CREDENTIAL_KINDS = ['snmp_v1', 'snmp_v2c', 'snmp_v3', 'ssh_password', 'ssh_key', 'http_basic', 'api_token'] as const;

/** Which secret a kind uses; the others are refused so a credential never carries stray secrets. */
const KIND_SECRETS: Record<(typeof CREDENTIAL_KINDS)[number], readonly string[]> = {
  snmp_v1: ['community'], snmp_v2c: ['community'],
  snmp_v3: ['snmpv3_auth_key', 'snmpv3_priv_key'],
  ssh_password: ['password'], ssh_key: ['ssh_private_key', 'ssh_passphrase'],
  http_basic: ['password'], api_token: ['api_token'],
};

const secret = z.string().min(1).max(64 * 1024).nullable().optional()
  .describe('Write-only: stored encrypted, shown as {set: true|false}; null removes it');

const credentialShape = {
  ...common,
  kind: z.enum(CREDENTIAL_KINDS),
  username: opt(str(200)).describe('SSH, HTTP or SNMPv3 user name'),
  port: opt(z.number().int().min(1).max(65535)).describe('Port when not the protocol default'),
  snmpv3_level: opt(z.enum(SNMP_LEVELS)),
  snmpv3_auth_protocol: opt(z.enum(SNMP_AUTH_PROTOCOLS)),
  snmpv3_priv_protocol: opt(z.enum(SNMP_PRIV_PROTOCOLS)),
  scope: ScopeField.optional(),
  ...Object.fromEntries(CREDENTIAL_SECRET_FIELDS.map((f) => [f, secret])),
};

function checkCredential(d: ItemData) {
  const errors: { path: string; message: string }[] = [];
  if (d.kind === 'snmp_v3') {
    if (!d.username) errors.push({ path: 'username', message: 'SNMPv3 needs a user name' });
    const level = d.snmpv3_level ?? 'authPriv';
    if (level !== 'noAuthNoPriv' && !d.snmpv3_auth_protocol)
      errors.push({ path: 'snmpv3_auth_protocol', message: `Required for ${String(level)}` });
    if (level === 'authPriv' && !d.snmpv3_priv_protocol) errors.push({ path: 'snmpv3_priv_protocol', message: 'Required for authPriv' });
  }
  if ((d.kind === 'ssh_password' || d.kind === 'ssh_key' || d.kind === 'http_basic') && !d.username) {
    errors.push({ path: 'username', message: `A ${String(d.kind)} credential needs a user name` });
  }
  return errors;
}

/** The credentials TypeDef over the vault's secret storage. */
export function credentialsType(secrets: CredentialSecrets, store: Pick<Store, 'get'>): TypeDef {
  const kindOf = (id: string): string | undefined =>
    store.get<{ kind: string }>("SELECT json_extract(data, '$.kind') AS kind FROM brain_items WHERE id = ?", [id])?.kind;
  return defineType('credentials', credentialShape, {
    listFields: ['tags', 'scope'], refs: [],
    searchable: ['kind', 'username'],
    keyFields: ['username'],
    filters: { kind: { kind: 'eq', field: 'kind' } },
    check: checkCredential,
    secretFields: CREDENTIAL_SECRET_FIELDS,
    onSecrets(tx: Tx, itemId: string, values: Record<string, string | null>) {
      // The kind is already stored (this runs after the insert or update in the same transaction).
      const kind = tx.get<{ kind: string }>("SELECT json_extract(data, '$.kind') AS kind FROM brain_items WHERE id = ?", [itemId])?.kind;
      const allowed = KIND_SECRETS[kind as keyof typeof KIND_SECRETS] ?? [];
      const stray = Object.entries(values).filter(([f, v]) => v != null && !allowed.includes(f)).map(([f]) => f);
      if (stray.length) throw badSecrets(kind, stray);
      secrets.write(tx, itemId, values);
    },
    onRemove(tx: Tx, itemId: string) {
      secrets.remove(tx, itemId);
      tx.run('DELETE FROM brain_credential_uses WHERE credential_id = ?', [itemId]);
    },
    present(item: ItemData): ItemData {
      const set = new Set(secrets.which(String(item.id)));
      const allowed = KIND_SECRETS[(item.kind ?? kindOf(String(item.id))) as keyof typeof KIND_SECRETS] ?? [];
      const out: ItemData = { ...item };
      for (const f of CREDENTIAL_SECRET_FIELDS) if (allowed.includes(f) || set.has(f)) out[f] = secretShown(set.has(f));
      return out;
    },
  });
}

function badSecrets(kind: string | undefined, fields: string[]): HttpError {
  return new HttpError(400, 'validation_failed', `A ${kind ?? 'credential'} credential does not use ${fields.join(', ')}`,
    { errors: fields.map((f) => ({ path: f, message: `Not used by kind ${kind ?? '?'}` })) });
}

// ---- where a credential was tried ----------------------------------------------------------------


export interface CredentialUse { target: string; protocol: string; outcome: 'success' | 'failure'; detail?: string | null }

/** Records (or refreshes) the latest outcome of trying a credential on a device; called by discovery. */
export function recordCredentialUse(tx: Tx, credentialId: string, use: CredentialUse, atMs: number): void {
  tx.run(`INSERT OR REPLACE INTO brain_credential_uses (credential_id, target, protocol, outcome, detail, at)
          VALUES (?, ?, ?, ?, ?, ?)`, [credentialId, use.target, use.protocol, use.outcome, use.detail ?? null, atMs]);
}
