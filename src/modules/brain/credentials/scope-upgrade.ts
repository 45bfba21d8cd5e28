// The upgrade that introduced credential scopes: a credential stored before it (listed in brain_scope_pending by
// migration 380) gets the scope of what used it then (SSH targets, SNMP templates and device cards, the subnets
// discovery scanned with it, the agents it answered on), so that nothing that worked stops working. Each change is
// in the credential's history and the audit log; the credential's usage list then shows any use that falls outside.
import type { AppContext } from '../../../core/context.js';
import type { CredentialUsageSource } from '../contracts.js';
import type { ItemService } from '../items.js';
import { SCOPE_MAX, ScopeEntry } from './scope.js';

const UPGRADE_ACTOR = 'system (upgrade: credential scopes)';

export async function scopeFromUses(app: AppContext, items: ItemService, sources: readonly CredentialUsageSource[]): Promise<number> {
  const pending = app.store.all<{ credential_id: string }>('SELECT credential_id FROM brain_scope_pending');
  let changed = 0;
  for (const { credential_id: id } of pending) {
    const row = items.findRow(id, 'credentials');
    if (row) {
      const found = destinationsOf(app, id, sources);
      const current = items.toItem(row).scope;
      const entries = [...new Set([...(Array.isArray(current) ? current as string[] : []), ...found])].slice(0, SCOPE_MAX);
      if (entries.length && entries.length !== (Array.isArray(current) ? current.length : 0)) {
        await items.update('credentials', id, { scope: entries }, {
          actor: UPGRADE_ACTOR,
          auditEntry: (action, target, details) => ({ action, actor: UPGRADE_ACTOR, target, details: { ...details, scope: entries } }),
        });
        changed++;
      }
    }
    await app.store.write((tx) => { tx.run('DELETE FROM brain_scope_pending WHERE credential_id = ?', [id]); }, 'sync');
  }
  if (changed) app.log.info('credentials stored before scopes were given the scope of their uses', { credentials: changed });
  return changed;
}

/** Canonical scope entries for everything that used the credential: the sources' destinations and the agents it answered on. */
function destinationsOf(app: AppContext, id: string, sources: readonly CredentialUsageSource[]): string[] {
  const raw = sources.flatMap((s) => s.usesOf(id).flatMap((u) => u.destinations ?? []));
  raw.push(...app.store.all<{ target: string }>(
    "SELECT target FROM brain_credential_uses WHERE credential_id = ? AND protocol = 'snmp' AND outcome = 'success' ORDER BY at DESC",
    [id]).map((r) => r.target));
  const out: string[] = [];
  for (const d of raw) {
    const e = ScopeEntry.safeParse(d);
    if (e.success && !out.includes(e.data)) out.push(e.data);
  }
  return out;
}
