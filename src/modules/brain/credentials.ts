// The credentials type: a stored login for SNMP, SSH, HTTP or an API. Its secrets are write-only: they
// go through the vault (CredentialSecrets) inside the item's write transaction and are shown only as
// {set: true|false}. Writes need the admin role (SPEC.md), so credentials have their own literal routes,
// which win over /api/brain/:type. Discovery records where a credential worked or failed through
// recordCredentialUse(); GET /api/brain/credentials/:id/scan reads that back.
import { z } from 'zod';
import type { AppContext } from '../../core/context.js';
import { HttpError } from '../../core/errors.js';
import { reply, route, type AnyRoute, actorOf } from '../../core/http/registry.js';
import type { Migration, Store, Tx } from '../../core/store/types.js';
import { CREDENTIAL_SECRET_FIELDS, type CredentialSecrets } from './contracts.js';
import type { ItemService } from './items.js';
import { common, defineType, opt, str, type ItemData, type TypeDef } from './types.js';

export const CREDENTIAL_KINDS = ['snmp_v1', 'snmp_v2c', 'snmp_v3', 'ssh_password', 'ssh_key', 'http_basic', 'api_token'] as const;
export const SNMP_AUTH_PROTOCOLS = ['md5', 'sha', 'sha224', 'sha256', 'sha384', 'sha512'] as const;
export const SNMP_PRIV_PROTOCOLS = ['des', 'aes', 'aes256b', 'aes256r'] as const;
export const SNMP_LEVELS = ['noAuthNoPriv', 'authNoPriv', 'authPriv'] as const;

/** Which secret a kind uses; the others are refused so a credential never carries stray secrets. */
const KIND_SECRETS: Record<(typeof CREDENTIAL_KINDS)[number], readonly string[]> = {
  snmp_v1: ['community'], snmp_v2c: ['community'],
  snmp_v3: ['snmpv3_auth_key', 'snmpv3_priv_key'],
  ssh_password: ['password'], ssh_key: ['ssh_private_key', 'ssh_passphrase'],
  http_basic: ['password'], api_token: ['api_token'],
};

const secret = z.string().min(1).max(64 * 1024).nullable().optional().describe('Write-only: stored encrypted, shown as {set: true|false}; null removes it');

const credentialShape = {
  ...common,
  kind: z.enum(CREDENTIAL_KINDS),
  username: opt(str(200)).describe('SSH, HTTP or SNMPv3 user name'),
  port: opt(z.number().int().min(1).max(65535)).describe('Port when not the protocol default'),
  snmpv3_level: opt(z.enum(SNMP_LEVELS)),
  snmpv3_auth_protocol: opt(z.enum(SNMP_AUTH_PROTOCOLS)),
  snmpv3_priv_protocol: opt(z.enum(SNMP_PRIV_PROTOCOLS)),
  ...Object.fromEntries(CREDENTIAL_SECRET_FIELDS.map((f) => [f, secret])),
};

function checkCredential(d: ItemData) {
  const errors: { path: string; message: string }[] = [];
  if (d.kind === 'snmp_v3') {
    if (!d.username) errors.push({ path: 'username', message: 'SNMPv3 needs a user name' });
    const level = d.snmpv3_level ?? 'authPriv';
    if (level !== 'noAuthNoPriv' && !d.snmpv3_auth_protocol) errors.push({ path: 'snmpv3_auth_protocol', message: `Required for ${String(level)}` });
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
    listFields: ['tags'], refs: [],
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
      for (const f of CREDENTIAL_SECRET_FIELDS) if (allowed.includes(f) || set.has(f)) out[f] = { set: set.has(f) };
      return out;
    },
  });
}

function badSecrets(kind: string | undefined, fields: string[]): HttpError {
  return new HttpError(400, 'validation_failed', `A ${kind ?? 'credential'} credential does not use ${fields.join(', ')}`,
    { errors: fields.map((f) => ({ path: f, message: `Not used by kind ${kind ?? '?'}` })) });
}

// ---- where a credential was tried ----------------------------------------------------------------

export const credentialUseMigrations: Migration[] = [{
  version: 370,
  name: 'brain: where discovery tried each credential',
  up: `CREATE TABLE brain_credential_uses (
         credential_id TEXT NOT NULL,
         target        TEXT NOT NULL,
         protocol      TEXT NOT NULL,
         outcome       TEXT NOT NULL CHECK (outcome IN ('success', 'failure')),
         detail        TEXT,
         at            INTEGER NOT NULL,
         PRIMARY KEY (credential_id, target, protocol)
       ) WITHOUT ROWID;`,
}];

export interface CredentialUse { target: string; protocol: string; outcome: 'success' | 'failure'; detail?: string | null }

/** Records (or refreshes) the latest outcome of trying a credential on a device; called by discovery. */
export function recordCredentialUse(tx: Tx, credentialId: string, use: CredentialUse, atMs: number): void {
  tx.run(`INSERT OR REPLACE INTO brain_credential_uses (credential_id, target, protocol, outcome, detail, at)
          VALUES (?, ?, ?, ?, ?, ?)`, [credentialId, use.target, use.protocol, use.outcome, use.detail ?? null, atMs]);
}

// ---- routes --------------------------------------------------------------------------------------


const IdParams = z.object({ id: z.string().trim().min(1).max(100).describe('UUID or short ID (CR-n)') });
const Item = z.object({ id: z.string(), short_id: z.string(), name: z.string(), kind: z.string() }).catchall(z.unknown());
const Use = z.object({ target: z.string(), protocol: z.string(), outcome: z.enum(['success', 'failure']), detail: z.string().nullable(), at: z.string() });

export function credentialRoutes(app: AppContext, items: ItemService): AnyRoute[] {
  return [
    route({
      method: 'GET', path: '/api/brain/credentials', scope: 'brain:read', tag: 'brain',
      summary: 'List credentials, secrets redacted',
      query: z.object({
        limit: z.coerce.number().int().min(1).max(500).default(50), offset: z.coerce.number().int().min(0).default(0),
        q: z.string().trim().min(1).max(200).optional(), tag: z.string().trim().min(1).max(50).optional(),
        kind: z.enum(CREDENTIAL_KINDS).optional(),
      }),
      response: z.object({ items: z.array(Item), total: z.number().int() }),
      handler: (ctx) => items.list('credentials', ctx.query),
    }),
    route({
      method: 'POST', path: '/api/brain/credentials', admin: true, tag: 'brain', status: 201,
      summary: 'Create a credential (admin); secrets need an unlocked vault (423)',
      body: z.record(z.string(), z.unknown()), response: Item,
      handler: async (ctx) => reply(201, await items.create('credentials', ctx.body, actorOf(ctx))),
    }),
    route({
      method: 'GET', path: '/api/brain/credentials/:id', scope: 'brain:read', tag: 'brain',
      summary: 'Get a credential, secrets redacted', params: IdParams, response: Item,
      handler: (ctx) => items.get('credentials', ctx.params.id),
    }),
    route({
      method: 'PUT', path: '/api/brain/credentials/:id', admin: true, tag: 'brain',
      summary: 'Update a credential (admin); an omitted secret keeps its stored value',
      params: IdParams, body: z.record(z.string(), z.unknown()), response: Item,
      handler: (ctx) => items.update('credentials', ctx.params.id, ctx.body, actorOf(ctx)),
    }),
    route({
      method: 'DELETE', path: '/api/brain/credentials/:id', admin: true, tag: 'brain',
      summary: 'Delete a credential and its stored secrets (admin)',
      params: IdParams, query: z.object({ detach: z.enum(['true', 'false', '1', '0']).optional() }),
      handler: async (ctx) => {
        await items.remove('credentials', ctx.params.id, ctx.query.detach === 'true' || ctx.query.detach === '1', actorOf(ctx));
        return undefined;
      },
    }),
    route({
      method: 'GET', path: '/api/brain/credentials/:id/scan', scope: 'brain:read', tag: 'brain',
      summary: 'Devices this credential succeeded or failed on (recorded by discovery)',
      params: IdParams, response: z.object({ items: z.array(Use), total: z.number().int() }),
      handler: (ctx) => {
        const cred = items.get('credentials', ctx.params.id);
        const rows = app.store.all<{ target: string; protocol: string; outcome: 'success' | 'failure'; detail: string | null; at: number }>(
          'SELECT target, protocol, outcome, detail, at FROM brain_credential_uses WHERE credential_id = ? ORDER BY at DESC', [String(cred.id)]);
        return { items: rows.map((r) => ({ ...r, at: new Date(r.at).toISOString() })), total: rows.length };
      },
    }),
  ];
}
