// Bulk actions on records of one type: delete (with their links; detach clears references to them, as one
// delete does) and tag (add and remove tags). Each is one transaction: all the records or none (a record
// others reference is a 409 naming them all, unless detach). Each record gets its history entry, the action
// one audit entry listing the short IDs.
import type { Actor } from '../../core/audit/types.js';
import { HttpError, invalid, type FieldError } from '../../core/errors.js';
import type { Store } from '../../core/store/types.js';
import { shortIdOf, type ItemRow, type ItemService, type ItemSummary, type Referrer } from './items.js';
import type { BrainType } from './types.js';

/** Records one bulk action takes at most. */
export const BULK_MAX = 500;

/** The live records the ids name (UUIDs or short IDs, each once); any that names none is a 400 naming it. */
function rowsOf(items: ItemService, type: BrainType, ids: readonly string[]): ItemRow[] {
  items.def(type);
  const errors: FieldError[] = [];
  const rows = new Map<string, ItemRow>();
  ids.forEach((id, i) => {
    const row = items.findRow(id, type);
    if (!row) errors.push({ path: `ids.${i}`, message: `No record in ${type} with id ${id}` });
    else rows.set(row.id, row);
  });
  if (errors.length) throw invalid(`list of ${type}`, errors);
  return [...rows.values()];
}

export async function bulkDelete(items: ItemService, store: Pick<Store, 'write'>, type: BrainType, ids: readonly string[],
  detach: boolean, by: Actor): Promise<{ deleted: number; items: ItemSummary[] }> {
  const rows = rowsOf(items, type, ids);
  const now = items.now();
  items.def(type).beforeWrite?.();
  const gone = await store.write((tx) => {
    if (!detach) {
      const referenced = rows.map((r) => ({ ...items.summary(r), referrers: items.referrers(r.id, tx) })).filter((r) => r.referrers.length);
      if (referenced.length) throw referencedMany(referenced, rows.length);
    }
    const note = `Bulk delete of ${rows.length} ${type}`;
    const out = rows.map((r) => {
      const summary = items.summary(r);
      items.removeIn(tx, type, r.id, detach, by, now, note);
      return summary;
    });
    items.audit(tx, by.auditEntry('brain.bulk_delete', `${out.length} ${type}`,
      { type, count: out.length, detach, short_ids: out.map((r) => r.short_id) }));
    return out;
  }, 'sync');
  return { deleted: gone.length, items: gone };
}

function referencedMany(referenced: (ItemSummary & { referrers: Referrer[] })[], of: number): HttpError {
  const by = (r: { referrers: Referrer[] }) =>
    r.referrers.slice(0, 3).map((x) => `${x.short_id}.${x.field}`).join(', ') + (r.referrers.length > 3 ? ', …' : '');
  const names = referenced.slice(0, 5).map((r) => `${r.short_id} (by ${by(r)})`).join('; ');
  return new HttpError(409, 'referenced',
    `${referenced.length} of the ${of} records are referenced by others: ${names}${referenced.length > 5 ? '; …' : ''}; ` +
    'delete with detach=true to clear those references', { extra: { referenced } });
}

export interface TaggedItem extends ItemSummary { tags: string[] }

export async function bulkTag(items: ItemService, store: Pick<Store, 'write'>, type: BrainType, ids: readonly string[],
  change: { add: readonly string[]; remove: readonly string[] }, by: Actor):
  Promise<{ updated: number; unchanged: number; items: TaggedItem[] }> {
  const rows = rowsOf(items, type, ids);
  const now = items.now();
  const note = `Bulk tag: ${[...change.add.map((t) => `+${t}`), ...change.remove.map((t) => `-${t}`)].join(' ')}`;
  const drop = new Set(change.remove);
  return store.write((tx) => {
    let updated = 0;
    const errors: FieldError[] = [];
    const out: TaggedItem[] = [];
    rows.forEach((r, i) => {
      const tags = items.toItem(r).tags as string[];
      const next = [...new Set([...tags, ...change.add])].filter((t) => !drop.has(t));
      try {
        const { row, changes } = items.updateIn(tx, type, r.id, { tags: next }, by, now, note);
        if (Object.keys(changes).length) updated++;
        out.push({ ...items.summary(row), tags: next });
      } catch (e) {
        if (!(e instanceof HttpError) || e.status !== 400) throw e;
        for (const fe of e.errors ?? []) errors.push({ path: `ids.${i}`, message: `${shortIdOf(type, r.seq)}: ${fe.path}: ${fe.message}` });
      }
    });
    if (errors.length) throw invalid(`tag change of ${type}`, errors);
    if (updated) {
      items.audit(tx, by.auditEntry('brain.bulk_tag', `${updated} ${type}`,
        { type, add: change.add, remove: change.remove, short_ids: out.map((r) => r.short_id) }));
    }
    return { updated, unchanged: rows.length - updated, items: out };
  }, 'sync');
}
