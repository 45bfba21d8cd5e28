// The CSV columns of an inventory type and how a value becomes a cell and back. The columns come from the
// type's own schema (the API's create body), so a field the API takes is a column, and its kind (text,
// number, list, JSON) says how it is written: a list as "a, b" (as JSON when an item holds a comma or a
// line break), custom fields and DHCP ranges as JSON, a reference as the name of the record it points at (its
// short ID when the name is shared or looks like an ID). Around the fields: id and short_id first,
// created_at and updated_at last, and read-only figures of the type (an endpoint's status and last_seen).
// Secrets are never exported; an import may set them (credentials).
import { z } from 'zod';
import { uncell } from '../../../core/csv.js';
import { jsonDepth, MAX_JSON_DEPTH } from '../../../core/http/json-guard.js';
import { UUID_PATTERN } from '../../../core/http/schemas.js';
import type { BrainType, ItemData, TypeDef } from '../types.js';

export type CellKind = 'text' | 'number' | 'list' | 'json' | 'ref' | 'refs';

export interface CsvColumn {
  name: string;
  kind: CellKind;
  /** The type a reference column points at. */
  ref?: BrainType;
  /** Exported for reading, ignored by an import (ids, times, figures the probe works out). */
  readOnly?: boolean;
  /** Write-only: taken by an import, never exported. */
  secret?: boolean;
}

/** Figures an export adds to a type's fields, read from the API object. */
const FIGURES: Partial<Record<BrainType, { name: string; of: (item: ItemData) => unknown }[]>> = {
  endpoints: [
    { name: 'status', of: (i) => (i.watch as { status?: unknown } | undefined)?.status ?? null },
    { name: 'last_seen', of: (i) => (i.watch as { last_seen?: unknown } | undefined)?.last_seen ?? null },
  ],
};

const kinds = new WeakMap<TypeDef, Map<string, CellKind>>();

/** Each field's kind, from the JSON Schema of the type's create body (what a client may send). */
function kindsOf(def: TypeDef): Map<string, CellKind> {
  let out = kinds.get(def);
  if (out) return out;
  out = new Map();
  const schema = z.toJSONSchema(def.create, { io: 'input', unrepresentable: 'any' }) as { properties?: Record<string, JsonProp> };
  for (const [name, prop] of Object.entries(schema.properties ?? {})) out.set(name, kindOfProp(prop));
  for (const r of def.refs) out.set(r.field, r.many ? 'refs' : 'ref');
  kinds.set(def, out);
  return out;
}

interface JsonProp { type?: string | string[]; anyOf?: JsonProp[]; items?: JsonProp }

function kindOfProp(p: JsonProp): CellKind {
  const alt = (p.anyOf ?? [p]).find((x) => x.type !== 'null') ?? p;
  const type = Array.isArray(alt.type) ? alt.type.find((t) => t !== 'null') : alt.type;
  if (type === 'number' || type === 'integer') return 'number';
  if (type === 'object') return 'json';
  if (type === 'array') return alt.items && kindOfProp(alt.items) !== 'text' ? 'json' : 'list';
  return 'text';
}

/** The columns of a type's export, in order. */
export function exportColumns(def: TypeDef): CsvColumn[] {
  const k = kindsOf(def);
  const ref = (f: string) => def.refs.find((r) => r.field === f)?.type;
  return [
    { name: 'id', kind: 'text', readOnly: true }, { name: 'short_id', kind: 'text', readOnly: true },
    { name: 'name', kind: 'text' },
    ...def.fields.filter((f) => !def.secretFields?.includes(f)).map((f): CsvColumn => ({ name: f, kind: k.get(f) ?? 'text', ref: ref(f) })),
    ...(FIGURES[def.type] ?? []).map((f): CsvColumn => ({ name: f.name, kind: 'text', readOnly: true })),
    { name: 'created_at', kind: 'text', readOnly: true }, { name: 'updated_at', kind: 'text', readOnly: true },
  ];
}

/** The columns an import takes: the export's and the type's secrets. */
export function importColumns(def: TypeDef): Map<string, CsvColumn> {
  const out = new Map(exportColumns(def).map((c) => [c.name, c]));
  for (const f of def.secretFields ?? []) out.set(f, { name: f, kind: 'text', secret: true });
  return out;
}

/** A cell's value in an export (csvCell then writes it): `label` names a referenced record. */
export function exportValue(col: CsvColumn, item: ItemData, label: (type: BrainType, id: string) => string): unknown {
  const figure = FIGURES[item.type as BrainType]?.find((f) => f.name === col.name);
  const v = figure ? figure.of(item) : item[col.name];
  if (v == null) return null;
  if (col.kind === 'ref') return typeof v === 'string' ? label(col.ref!, v) : null;
  if (col.kind === 'refs') return listCell((v as string[]).map((id) => label(col.ref!, id)));
  if (col.kind === 'list') return listCell(v as string[]);
  if (col.kind === 'json') return isEmptyValue(v) ? null : JSON.stringify(v);
  return v;
}

const isEmptyValue = (v: unknown) => (Array.isArray(v) ? v.length === 0 : typeof v === 'object' && v !== null && !Object.keys(v).length);

/** "a, b"; JSON when an item could not be read back from that (a comma, a line break, a leading "["). */
function listCell(list: string[]): string | null {
  if (!list.length) return null;
  return list.some((x) => /[,\r\n]/.test(x) || x.startsWith('[') || x !== x.trim()) ? JSON.stringify(list) : list.join(', ');
}

/** A cell read by an import: the value to send, nothing (`omit`), or why the cell cannot be read. */
export type CellValue = { value: unknown } | { omit: true } | { error: string };

/**
 * A cell as a field's value. Empty: left out of a new record; on an existing one it clears the field (null, an
 * empty list or {}), except the name and secrets, which stay.
 */
export function importValue(col: CsvColumn, raw: string, existing: boolean): CellValue {
  const cell = uncell(raw);
  if (cell.trim() === '') {
    if (!existing || col.name === 'name' || col.secret) return { omit: true };
    return { value: col.kind === 'list' || col.kind === 'refs' ? [] : col.kind === 'json' && col.name === 'custom_fields' ? {} : null };
  }
  switch (col.kind) {
    case 'number': {
      const n = Number(cell.trim());
      // Anything else goes on as text, so the schema's message says what the field takes.
      return { value: /^[-+]?(\d+\.?\d*|\.\d+)(e[-+]?\d+)?$/i.test(cell.trim()) && Number.isFinite(n) ? n : cell };
    }
    case 'list': case 'refs': {
      const text = cell.trim();
      if (text.startsWith('[')) return parsedJson(text);
      return { value: text.split(/[,\r\n]/).map((x) => x.trim()).filter(Boolean) };
    }
    case 'json': return parsedJson(cell.trim());
    default: return { value: cell };
  }
}

function parsedJson(text: string): CellValue {
  if (jsonDepth(text, MAX_JSON_DEPTH) > MAX_JSON_DEPTH) return { error: `Nests deeper than ${MAX_JSON_DEPTH} levels` };
  try {
    return { value: JSON.parse(text) as unknown };
  } catch (e) {
    return { error: `Not valid JSON (${e instanceof Error ? e.message : String(e)})` };
  }
}

/** Whether a reference cell names a record by id (UUID or short ID) rather than by its name. */
export const SHORT_OR_UUID = (s: string): boolean => UUID_PATTERN.test(s.trim()) || /^[A-Za-z]{2}-[1-9]\d{0,8}$/.test(s.trim());
