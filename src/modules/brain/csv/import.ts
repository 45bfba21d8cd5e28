// A CSV of one type's records into the inventory. The first row names the columns (an export's, in any order;
// a column the type does not have is a 400 for the whole file); each other row is a record: a row whose `id`
// names a record of the type here updates it (only the columns given; an empty cell clears the field), any
// other row creates one (records get this probe's ids and short IDs). Every row goes through the same path as
// the API's create and update, each in a savepoint of one transaction: a refused row (its field errors, as
// the API gives them) is rolled back alone and the others are kept. A dry run is the same transaction rolled
// back at the end, so it says exactly what an import would do, down to the short IDs it would hand out.
// One audit entry for the import; each record's history notes it.
import type { Actor } from '../../../core/audit/types.js';
import { parseCsv } from '../../../core/csv.js';
import { badRequest, HttpError, type FieldError } from '../../../core/errors.js';
import { inspectJson } from '../../../core/http/json-guard.js';
import type { Store, Tx } from '../../../core/store/types.js';
import { shortIdOf, type ItemService } from '../items.js';
import type { BrainType, TypeDef } from '../types.js';
import { importColumns, importValue, SHORT_OR_UUID, type CsvColumn } from './columns.js';

/** Rows an import takes at most (one transaction; an inventory is thousands of records). */
export const MAX_ROWS = 2000;

export type RowAction = 'create' | 'update' | 'unchanged' | 'refused';

export interface RowResult {
  /** The line of the file the row starts on (the header is line 1). */
  line: number;
  action: RowAction;
  id: string | null;
  short_id: string | null;
  name: string | null;
  /** The fields an update changes. */
  fields?: string[];
  /** Why a row is refused: the problem's code and detail, and its field errors (paths are column names). */
  code?: string;
  detail?: string;
  errors?: FieldError[];
}

export interface ImportResult {
  type: BrainType;
  dry_run: boolean;
  rows: RowResult[];
  created: number;
  updated: number;
  unchanged: number;
  refused: number;
}

export interface ImportOptions {
  dryRun: boolean;
  by: Actor;
  /** Refuses a row the caller may not write (throws an HttpError), e.g. a credential binding by a non-administrator. */
  guard?: (existingId: string | null, body: Record<string, unknown>) => void;
}

/** Thrown to roll a dry run back, carrying what it would have done. */
class DryRun extends Error {
  constructor(readonly result: ImportResult) { super('dry run'); }
}

const NOTE = 'CSV import';

/** The header's columns, in file order; unknown or repeated names are a 400 for the whole file. */
function headerOf(def: TypeDef, cells: string[]): CsvColumn[] {
  const known = importColumns(def);
  const errors: FieldError[] = [];
  const seen = new Set<string>();
  const out = cells.map((raw, i) => {
    const name = raw.trim().toLowerCase();
    const col = known.get(name);
    if (!col) errors.push({ path: `columns.${i}`, message: `${def.type} have no column "${raw.trim()}"` });
    else if (seen.has(name)) errors.push({ path: `columns.${i}`, message: `The column ${name} is given twice` });
    seen.add(name);
    return col!;
  });
  if (errors.length) {
    const first = errors.slice(0, 3).map((e) => e.message).join('; ');
    throw badRequest(`The CSV's first row must name columns of ${def.type}: ${first}`, errors);
  }
  return out;
}

export async function importCsv(items: ItemService, store: Pick<Store, 'write'>, type: BrainType, text: string,
  opts: ImportOptions): Promise<ImportResult> {
  const def = items.def(type);
  const lines = parseCsv(text).filter((r) => r.cells.some((c) => c.trim() !== ''));
  if (!lines.length) throw badRequest('The CSV is empty: its first row names the columns, each row after it is a record');
  const columns = headerOf(def, lines[0]!.cells);
  const records = lines.slice(1);
  if (records.length > MAX_ROWS) {
    throw badRequest(`The CSV has ${records.length} records; an import takes at most ${MAX_ROWS} (split the file)`,
      [{ path: '', message: `At most ${MAX_ROWS} rows` }]);
  }
  def.beforeWrite?.();
  const now = items.now();
  const run = (tx: Tx): ImportResult => {
    const result: ImportResult = { type, dry_run: opts.dryRun, rows: [], created: 0, updated: 0, unchanged: 0, refused: 0 };
    for (const rec of records) {
      tx.run('SAVEPOINT brain_import_row');
      let row: RowResult;
      try {
        row = importRow(items, tx, def, columns, rec, opts, now);
      } catch (e) {
        if (!(e instanceof HttpError) || e.status >= 500) throw e;
        tx.run('ROLLBACK TO brain_import_row');
        row = { line: rec.line, action: 'refused', id: null, short_id: null, name: null, code: e.code, detail: e.message,
          errors: e.errors ?? [] };
      }
      tx.run('RELEASE brain_import_row');
      result.rows.push(row);
      if (row.action === 'create') result.created++;
      else if (row.action === 'update') result.updated++;
      else if (row.action === 'unchanged') result.unchanged++;
      else result.refused++;
    }
    if (opts.dryRun) throw new DryRun(result);
    const written = result.rows.filter((r) => r.action === 'create' || r.action === 'update');
    if (written.length) {
      items.audit(tx, opts.by.auditEntry('brain.import', type, {
        type, created: result.created, updated: result.updated, refused: result.refused,
        short_ids: written.slice(0, 200).map((r) => r.short_id),
      }));
    }
    return result;
  };
  try {
    return await store.write(run, 'sync');
  } catch (e) {
    if (e instanceof DryRun) return e.result;
    throw e;
  }
}

/** One row: its body from the cells, then the same create or update as the API's. */
function importRow(items: ItemService, tx: Tx, def: TypeDef, columns: CsvColumn[], rec: { line: number; cells: string[] },
  opts: ImportOptions, now: number): RowResult {
  if (rec.cells.length !== columns.length) {
    throw badRequest(`This row has ${rec.cells.length} cells; the header names ${columns.length} columns`);
  }
  const idCell = rec.cells[columns.findIndex((c) => c.name === 'id')]?.trim() ?? '';
  const found = idCell ? items.findRow(idCell, undefined, tx) : undefined;
  if (found && found.type !== def.type) {
    throw badRequest(`The id ${idCell} is a record in ${found.type}, not in ${def.type}`,
      [{ path: 'id', message: `A record in ${found.type}` }]);
  }
  const body: Record<string, unknown> = {};
  const errors: FieldError[] = [];
  columns.forEach((col, i) => {
    if (col.readOnly) return;
    const cell = importValue(col, rec.cells[i]!, !!found);
    if ('error' in cell) errors.push({ path: col.name, message: cell.error });
    else if ('value' in cell) body[col.name] = col.ref ? referenceOf(items, tx, col, cell.value, errors) : cell.value;
  });
  // What every JSON body must be holds for a row too: one-line fields are one line, no control characters.
  errors.push(...inspectJson(body));
  if (errors.length) throw badRequest(`This row cannot be read: ${errors.map((e) => `${e.path}: ${e.message}`).join('; ')}`, errors);
  opts.guard?.(found?.id ?? null, body);
  if (!found) {
    const r = items.createIn(tx, def.type, body, opts.by, now, NOTE);
    return { line: rec.line, action: 'create', id: r.id, short_id: shortIdOf(def.type, r.seq), name: r.name };
  }
  const { row, changes } = items.updateIn(tx, def.type, found.id, body, opts.by, now, NOTE);
  const fields = Object.keys(changes);
  return { line: rec.line, action: fields.length ? 'update' : 'unchanged', id: row.id, short_id: shortIdOf(def.type, row.seq),
    name: row.name, ...(fields.length ? { fields } : {}) };
}

/**
 * A reference cell's records: a UUID or short ID goes on as it is (the item service checks it); a name must be
 * the name of exactly one record of the referenced type.
 */
function referenceOf(items: ItemService, tx: Tx, col: CsvColumn, value: unknown, errors: FieldError[]): unknown {
  const one = (v: unknown, path: string): unknown => {
    if (typeof v !== 'string' || SHORT_OR_UUID(v)) return v;
    const ids = items.idsNamed(col.ref!, v.trim(), tx);
    if (ids.length === 1) return ids[0];
    errors.push({ path, message: ids.length
      ? `${ids.length} records in ${col.ref} are named "${v.trim()}": give the short ID`
      : `No record in ${col.ref} is named "${v.trim()}" (nor has it as short ID or UUID)` });
    return v;
  };
  return Array.isArray(value) ? value.map((v, i) => one(v, `${col.name}.${i}`)) : one(value, col.name);
}
