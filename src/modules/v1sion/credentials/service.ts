// The discovery credentials: the ordered list of inventory credentials a scan tries when its request
// names none. Only references are stored (v1sion_credentials); secrets stay in the vault. An entry sent
// inline (with its secret) becomes a new inventory credential first, which is a credential write: admin
// only, and 423 while the vault is locked.
import type { Actor } from '../../../core/audit/types.js';
import type { AppContext } from '../../../core/context.js';
import { HttpError, invalid, type FieldError } from '../../../core/errors.js';
import { brainServicesOf } from '../../brain/index.js';

/** Credential kinds a scan can use (SNMP); SSH kinds join with SSH enrichment. */
export const SCAN_CREDENTIAL_KINDS = ['snmp_v1', 'snmp_v2c', 'snmp_v3'] as const;
export const MAX_CREDENTIALS = 32;

/** A stored credential as the inventory shows it (secrets as {set: true|false}). */
export type CredentialView = Record<string, unknown> & { id: string; kind: string };

export class DiscoveryCredentials {
  constructor(private readonly app: AppContext) {}

  /** The list in scan order: each the inventory's view of the credential, with `credential_id`. */
  list(): { credentials: Record<string, unknown>[] } {
    const { items } = brainServicesOf(this.app);
    const out: Record<string, unknown>[] = [];
    for (const { credential_id } of this.app.store.all<{ credential_id: string }>(
      'SELECT credential_id FROM v1sion_credentials ORDER BY position')) {
      const row = items.findRow(credential_id, 'credentials');
      if (row) out.push({ credential_id: row.id, ...items.get('credentials', row.id) });
    }
    return { credentials: out };
  }

  /** The credential ids in scan order (what a scan uses when its request names none). */
  ids(): string[] {
    return this.list().credentials.map((c) => String(c.credential_id));
  }

  /**
   * Replaces the list. Entries with `credential_id` reference a stored credential (other fields, as GET
   * shows them, are ignored, so GET's body posts back unchanged); entries without one are new
   * credentials, created first (`admin` says whether the caller may). Everything is checked before
   * anything is created; a failure after some were created removes them again.
   */
  async save(entries: Record<string, unknown>[], by: Actor, admin: boolean): Promise<{ credentials: Record<string, unknown>[] }> {
    const { items } = brainServicesOf(this.app);
    const errors: FieldError[] = [];
    const ids: (string | null)[] = entries.map((e, i) => {
      if (e.credential_id === undefined) {
        if (!SCAN_CREDENTIAL_KINDS.includes(e.kind as never)) {
          errors.push({ path: `credentials.${i}.kind`, message: `A scan uses ${SCAN_CREDENTIAL_KINDS.join(', ')}` });
        }
        return null;
      }
      const row = typeof e.credential_id === 'string' ? items.findRow(e.credential_id, 'credentials') : undefined;
      if (!row) {
        errors.push({ path: `credentials.${i}.credential_id`, message: `No stored credential ${String(e.credential_id)}` });
        return null;
      }
      const kind = String(items.get('credentials', row.id).kind);
      if (!SCAN_CREDENTIAL_KINDS.includes(kind as never)) {
        errors.push({ path: `credentials.${i}.credential_id`, message: `${kind} credentials are not used by scans` });
      }
      return row.id;
    });
    if (errors.length) throw invalid('discovery credentials', errors);
    if (ids.some((id) => id === null) && !admin) {
      throw new HttpError(403, 'forbidden', 'Only an administrator may store new credentials; reference stored ones by credential_id');
    }

    const created: string[] = [];
    try {
      for (let i = 0; i < entries.length; i++) {
        if (ids[i] !== null) continue;
        const { credential_id: _ignored, ...body } = entries[i]!;
        const name = typeof body.name === 'string' && body.name ? body.name : `Discovery ${String(body.kind)} ${i + 1}`;
        try {
          const item = await items.create('credentials', { ...body, name }, by);
          created.push(String(item.id));
          ids[i] = String(item.id);
        } catch (e) {
          throw prefixed(e, `credentials.${i}`);
        }
      }
      const list = [...new Set(ids as string[])];
      await this.app.store.write((tx) => {
        tx.run('DELETE FROM v1sion_credentials');
        list.forEach((id, pos) => tx.run('INSERT INTO v1sion_credentials (position, credential_id) VALUES (?, ?)', [pos, id]));
        this.app.audit.insert(tx, by.auditEntry('v1sion.credentials_save', null, { credentials: list, created }));
      }, 'sync');
    } catch (e) {
      for (const id of created) await items.remove('credentials', id, true, by).catch(() => undefined);
      throw e;
    }
    return this.list();
  }
}

/** An inventory validation error with its field paths under the entry's path. */
function prefixed(e: unknown, at: string): unknown {
  if (!(e instanceof HttpError) || e.status !== 400) return e;
  const errors = (e.errors ?? []).map((x) => ({ ...x, path: `${at}.${x.path}` }));
  return errors.length ? invalid('discovery credentials', errors) : e;
}
