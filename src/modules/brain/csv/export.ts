// A type's list as CSV (RFC 4180, formula-safe cells: core/csv.ts), with the list's own filters and order.
// A reference is written as the name of the record it points at, or its short ID when another record of that
// type has the same name (or the name reads as an ID), so that the file reads back to the same records here
// and by name on another probe. Built whole: an inventory is thousands of records, a few MiB at most.
import { csvLine } from '../../../core/csv.js';
import type { Store } from '../../../core/store/types.js';
import { shortIdOf, type ItemService, type ListQuery } from '../items.js';
import type { BrainType, ItemData } from '../types.js';
import { exportColumns, exportValue, SHORT_OR_UUID } from './columns.js';

const PAGE = 500;

/** How each record of a type is named in another's reference cells: its name, else its short ID. */
export function referenceLabels(store: Pick<Store, 'all'>, type: BrainType): Map<string, string> {
  const rows = store.all<{ id: string; seq: number; name: string }>('SELECT id, seq, name FROM brain_items WHERE type = ?', [type]);
  const uses = new Map<string, number>();
  for (const r of rows) uses.set(r.name.toLowerCase(), (uses.get(r.name.toLowerCase()) ?? 0) + 1);
  return new Map(rows.map((r) => [r.id,
    uses.get(r.name.toLowerCase()) === 1 && !SHORT_OR_UUID(r.name) && r.name === r.name.trim() ? r.name : shortIdOf(type, r.seq)]));
}

/** The CSV of a type's records matching the list filters (`q`, `tag`, the type's own), sorted as the list is. */
export function exportCsv(items: ItemService, store: Pick<Store, 'all'>, type: BrainType,
  filters: Omit<ListQuery, 'limit' | 'offset'>, shown: (page: ItemData[]) => ItemData[] = (page) => page): { csv: string; rows: number } {
  const def = items.def(type);
  const columns = exportColumns(def);
  const labels = new Map<BrainType, Map<string, string>>();
  const label = (t: BrainType, id: string) => {
    let m = labels.get(t);
    if (!m) labels.set(t, (m = referenceLabels(store, t)));
    return m.get(id) ?? id;
  };
  const parts = [csvLine(columns.map((c) => c.name))];
  let rows = 0;
  for (let offset = 0; ; offset += PAGE) {
    const page = items.list(type, { ...filters, limit: PAGE, offset });
    for (const item of shown(page.items)) parts.push(csvLine(columns.map((c) => exportValue(c, item, label))));
    rows += page.items.length;
    if (offset + PAGE >= page.total || !page.items.length) break;
  }
  return { csv: parts.join(''), rows };
}

/** attachment; filename="inventory-endpoints-20260101-120000.csv" */
export function exportFilename(type: BrainType, nowMs: number): string {
  const s = new Date(nowMs).toISOString().replace(/\.\d+Z$/, '').replace(/[-:]/g, '').replace('T', '-');
  return `inventory-${type}-${s}.csv`;
}
