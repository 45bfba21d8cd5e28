// The generic item service: CRUD of every inventory type through its TypeDef, short IDs (per-type
// sequences, never reused), reference checks, delete with 409 or detach, the change history, the search
// index kept in sync, stats and recently changed items. Every change is one 'sync' write holding the
// record, its derived rows (references, search keys, FTS row), the history entry and the audit entry.
import type { Actor } from '../../core/audit/types.js';
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import type { AppContext } from '../../core/context.js';
import { fieldErrors, HttpError, invalid, notFound, type FieldError } from '../../core/errors.js';
import type { Store, Tx } from '../../core/store/types.js';
import { iso } from '../../core/clock.js';
import { UUID_PATTERN } from '../../core/http/schemas.js';
import { parseIp, cidrContains } from '../../core/ip.js';
import {
  BRAIN_TYPES, BUILTIN_TYPES, COMMON_FIELDS, SHORT_ID_PREFIX, subnetCidr, typeOfPrefix,
  type BrainType, type ItemData, type TypeDef,
} from './types.js';

export interface ItemRow {
  pk: number; id: string; type: BrainType; seq: number; name: string; data: string; created_at: number; updated_at: number;
}
const ROW = 'pk, id, type, seq, name, data, created_at, updated_at';

export type Changes = Record<string, { from: unknown; to: unknown }>;

export interface HistoryEntry {
  id: number; at: string; actor: string | null; action: string; changes: Changes; note: string | null;
}

export interface Referrer { type: BrainType; id: string; short_id: string; name: string; field: string }

export interface ItemSummary { type: BrainType; id: string; short_id: string; name: string }

export interface ListQuery { limit: number; offset: number; q?: string; tag?: string; [filter: string]: unknown }

const SHORT = /^([A-Za-z]{2})-([1-9]\d{0,8})$/;
const SECRET_SHOWN = '(secret)';

export function shortIdOf(type: BrainType, seq: number): string {
  return `${SHORT_ID_PREFIX[type]}-${seq}`;
}

/** `ep-12` -> {type: 'endpoints', seq: 12}; null when it is not a short ID of a known prefix. */
export function parseShortId(s: string): { type: BrainType; seq: number } | null {
  const m = SHORT.exec(s.trim());
  if (!m) return null;
  const type = typeOfPrefix(m[1]!);
  return type ? { type, seq: Number(m[2]) } : null;
}

/** The fields of a body that its object schema takes one by one (parsed), for checks that say more about a refused body. */
function validFields(schema: z.ZodType, body: unknown): ItemData {
  if (!(schema instanceof z.ZodObject) || typeof body !== 'object' || body === null || Array.isArray(body)) return {};
  const shape = schema.shape as Record<string, z.ZodType>;
  const out: ItemData = {};
  for (const [k, v] of Object.entries(body)) {
    const r = shape[k]?.safeParse(v);
    if (r?.success && r.data !== undefined) out[k] = r.data;
  }
  return out;
}

export function parseData(text: string): ItemData {
  try {
    const v: unknown = JSON.parse(text);
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as ItemData) : {};
  } catch {
    return {};
  }
}

const isEmpty = (v: unknown) => v == null || (Array.isArray(v) && v.length === 0)
  || (typeof v === 'object' && !Array.isArray(v) && Object.keys(v as object).length === 0);
const same = (a: unknown, b: unknown) => JSON.stringify(a ?? null) === JSON.stringify(b ?? null);

/** Text of a value for the search index: arrays and objects flattened to their scalar leaves. */
function textOf(v: unknown, out: string[] = []): string[] {
  if (v == null) return out;
  if (Array.isArray(v)) { for (const x of v) textOf(x, out); return out; }
  if (typeof v === 'object') { for (const x of Object.values(v as object)) textOf(x, out); return out; }
  out.push(String(v));
  return out;
}

export class ItemService {
  private readonly store: Store;
  private readonly defs = new Map<BrainType, TypeDef>(BUILTIN_TYPES.map((d) => [d.type, d]));

  constructor(private readonly app: AppContext) {
    this.store = app.store;
  }

  now(): number { return this.app.clock.now(); }

  /**
   * Adds (or replaces) a type: the credentials type registers itself this way, with hooks bound to the
   * app's vault. Register in the module's register() before the routes are built (list filters).
   */
  registerType(def: TypeDef): void {
    this.defs.set(def.type, def);
  }

  /** The registered types, in BRAIN_TYPES order. */
  types(): BrainType[] {
    return BRAIN_TYPES.filter((t) => this.defs.has(t));
  }

  typeDef(type: string): TypeDef | undefined {
    return this.defs.get(type as BrainType);
  }

  /** The type's definition; a type that is not registered (yet) is a 404 like an unknown one. */
  def(type: BrainType): TypeDef {
    const d = this.defs.get(type);
    if (!d) throw notFound(`Inventory type ${type}`);
    return d;
  }

  // ---- lookups ---------------------------------------------------------------------------------

  /** A live record by UUID or short ID (case-insensitive), optionally of one type. */
  findRow(idOrSid: string, type?: BrainType, db: Pick<Store, 'get'> = this.store): ItemRow | undefined {
    const s = idOrSid.trim();
    let row: ItemRow | undefined;
    if (UUID_PATTERN.test(s)) row = db.get<ItemRow>(`SELECT ${ROW} FROM brain_items WHERE id = ?`, [s.toLowerCase()]);
    else {
      const p = parseShortId(s);
      if (p) row = db.get<ItemRow>(`SELECT ${ROW} FROM brain_items WHERE type = ? AND seq = ?`, [p.type, p.seq]);
    }
    return row && (!type || row.type === type) ? row : undefined;
  }

  mustRow(type: BrainType, idOrSid: string, db: Pick<Store, 'get'> = this.store): ItemRow {
    this.def(type);
    const r = this.findRow(idOrSid, type, db);
    if (!r) throw notFound(`${type} record ${idOrSid}`);
    return r;
  }

  /** The live records of a type with this name (case-insensitive), as UUIDs. */
  idsNamed(type: BrainType, name: string, db: Pick<Store, 'all'> = this.store): string[] {
    return db.all<{ id: string }>('SELECT id FROM brain_items WHERE type = ? AND name = ? COLLATE NOCASE', [type, name]).map((r) => r.id);
  }

  /** An audit entry written with a change made through createIn, updateIn or removeIn (an import, a bulk action). */
  audit(tx: Tx, entry: Parameters<AppContext['audit']['insert']>[1]): void {
    this.app.audit.insert(tx, entry);
  }

  summary(row: ItemRow): ItemSummary {
    return { type: row.type, id: row.id, short_id: shortIdOf(row.type, row.seq), name: row.name };
  }

  /** The API object of a record: every field present (null, [] or {} when unset). */
  toItem(row: ItemRow): ItemData {
    const def = this.def(row.type);
    return this.shape(def, row, parseData(row.data));
  }

  private shape(def: TypeDef, row: Pick<ItemRow, 'id' | 'type' | 'seq' | 'name' | 'created_at' | 'updated_at'>, data: ItemData): ItemData {
    const out: ItemData = { id: row.id, type: row.type, short_id: shortIdOf(row.type, row.seq), name: row.name };
    for (const f of def.fields) {
      if (def.secretFields?.includes(f)) continue;
      out[f] = data[f] ?? (def.listFields.includes(f) ? [] : f === 'custom_fields' ? {} : null);
    }
    out.created_at = iso(row.created_at);
    out.updated_at = iso(row.updated_at);
    return def.present ? def.present(out) : out;
  }

  get(type: BrainType, idOrSid: string): ItemData {
    return this.toItem(this.mustRow(type, idOrSid));
  }

  resolve(sid: string): { type: BrainType; item: ItemData } {
    const p = parseShortId(sid);
    if (!p) throw notFound(`Short ID ${sid}`);
    if (!this.defs.has(p.type)) throw notFound(`Short ID ${sid} (type ${p.type} is not available)`);
    const row = this.store.get<ItemRow>(`SELECT ${ROW} FROM brain_items WHERE type = ? AND seq = ?`, [p.type, p.seq]);
    if (!row) {
      const gone = this.store.get('SELECT id FROM brain_tombstones WHERE type = ? AND seq = ?', [p.type, p.seq]);
      throw new HttpError(404, 'not_found',
        gone ? `${shortIdOf(p.type, p.seq)} was deleted; its history remains` : `Short ID ${sid} not found`);
    }
    return { type: row.type, item: this.toItem(row) };
  }

  list(type: BrainType, q: ListQuery): { items: ItemData[]; total: number } {
    const def = this.def(type);
    const where = ['type = ?'];
    const params: (string | number)[] = [type];
    if (q.q) { where.push("name LIKE ? ESCAPE '\\'"); params.push(`%${q.q.replace(/[\\%_]/g, (c) => '\\' + c)}%`); }
    if (q.tag) { where.push("EXISTS (SELECT 1 FROM json_each(brain_items.data, '$.tags') WHERE value = ?)"); params.push(q.tag); }
    let contains: ReturnType<typeof parseIp> = null;
    const errors: FieldError[] = [];
    for (const [name, value] of Object.entries(q)) {
      if (['limit', 'offset', 'q', 'tag'].includes(name) || value === undefined) continue;
      const f = def.filters[name];
      if (!f) { errors.push({ path: `query.${name}`, message: `Not a filter of ${type}` }); continue; }
      const v = String(value);
      if (f.kind === 'eq') {
        if (f.number && !/^-?\d{1,15}$/.test(v)) { errors.push({ path: `query.${name}`, message: 'Must be an integer' }); continue; }
        where.push(`json_extract(data, '$.${f.field}') = ?`);
        params.push(f.number ? Number(v) : v);
      } else if (f.kind === 'ref') {
        const target = this.findRow(v, f.type);
        where.push('id IN (SELECT src FROM brain_refs WHERE dst = ? AND field = ?)');
        params.push(target?.id ?? v, f.field);
      } else {
        contains = parseIp(v);
        if (!contains) errors.push({ path: `query.${name}`, message: `Not an IPv4 or IPv6 address: ${v}` });
      }
    }
    if (errors.length) throw invalid('query', errors);
    const w = where.join(' AND ');
    if (contains) {
      const ip = contains;
      const rows = this.store.all<ItemRow>(`SELECT ${ROW} FROM brain_items WHERE ${w} ORDER BY name COLLATE NOCASE, seq`, params)
        .filter((r) => { const c = subnetCidr(parseData(r.data)); return c != null && cidrContains(c, ip); });
      return { items: rows.slice(q.offset, q.offset + q.limit).map((r) => this.shape(def, r, parseData(r.data))), total: rows.length };
    }
    const total = this.store.get<{ n: number }>(`SELECT count(*) AS n FROM brain_items WHERE ${w}`, params)?.n ?? 0;
    const rows = this.store.all<ItemRow>(
      `SELECT ${ROW} FROM brain_items WHERE ${w} ORDER BY name COLLATE NOCASE, seq LIMIT ? OFFSET ?`, [...params, q.limit, q.offset]);
    return { items: rows.map((r) => this.shape(def, r, parseData(r.data))), total };
  }

  stats(): Record<BrainType, number> {
    const out = Object.fromEntries(BRAIN_TYPES.map((t) => [t, 0])) as Record<BrainType, number>;
    for (const r of this.store.all<{ type: string; n: number }>('SELECT type, count(*) AS n FROM brain_items GROUP BY type')) {
      if (r.type in out) out[r.type as BrainType] = r.n;
    }
    return out;
  }

  recent(limit: number, offset: number): { items: (ItemSummary & { created_at: string; updated_at: string })[]; total: number } {
    const total = this.store.get<{ n: number }>('SELECT count(*) AS n FROM brain_items')?.n ?? 0;
    const rows = this.store.all<ItemRow>(
      `SELECT ${ROW} FROM brain_items ORDER BY updated_at DESC, pk DESC LIMIT ? OFFSET ?`, [limit, offset]);
    return { items: rows.map((r) => ({ ...this.summary(r), created_at: iso(r.created_at), updated_at: iso(r.updated_at) })), total };
  }

  // ---- history ---------------------------------------------------------------------------------

  /** History of a live or deleted record, newest first. */
  history(type: BrainType, idOrSid: string, q: { limit: number; offset: number }):
    { item: ItemSummary & { deleted: boolean }; items: HistoryEntry[]; total: number } {
    this.def(type);
    let item: (ItemSummary & { deleted: boolean }) | undefined;
    const live = this.findRow(idOrSid, type);
    if (live) item = { ...this.summary(live), deleted: false };
    else {
      const s = idOrSid.trim();
      const p = parseShortId(s);
      const t = UUID_PATTERN.test(s)
        ? this.store.get<{ id: string; type: BrainType; seq: number; name: string }>(
          'SELECT id, type, seq, name FROM brain_tombstones WHERE id = ?', [s.toLowerCase()])
        : p ? this.store.get<{ id: string; type: BrainType; seq: number; name: string }>(
          'SELECT id, type, seq, name FROM brain_tombstones WHERE type = ? AND seq = ?', [p.type, p.seq]) : undefined;
      if (t && t.type === type) item = { type, id: t.id, short_id: shortIdOf(type, t.seq), name: t.name, deleted: true };
    }
    if (!item) throw notFound(`${type} record ${idOrSid}`);
    const total = this.store.get<{ n: number }>('SELECT count(*) AS n FROM brain_history WHERE item_id = ?', [item.id])?.n ?? 0;
    const rows = this.store.all<{ id: number; at: number; actor: string | null; action: string; changes: string; note: string | null }>(
      'SELECT id, at, actor, action, changes, note FROM brain_history WHERE item_id = ? ORDER BY id DESC LIMIT ? OFFSET ?',
      [item.id, q.limit, q.offset]);
    return {
      item,
      items: rows.map((r) => ({ id: r.id, at: iso(r.at), actor: r.actor, action: r.action,
        changes: parseData(r.changes) as Changes, note: r.note })),
      total,
    };
  }

  /** Writes one history entry of a record inside tx (links write theirs through it too). */
  addHistory(tx: Tx, e: { item_id: string; type: BrainType; at: number; actor: string | null; action: string;
    changes: Changes; note?: string | null }): void {
    tx.run('INSERT INTO brain_history (item_id, type, at, actor, action, changes, note) VALUES (?, ?, ?, ?, ?, ?, ?)',
      [e.item_id, e.type, e.at, e.actor, e.action, JSON.stringify(e.changes), e.note ?? null]);
  }

  // ---- validation ------------------------------------------------------------------------------

  /**
   * Parses a body with the type's schema and takes secret fields out of it. An invalid body is a 400
   * naming every field at fault: the schema's errors, and what the checks that follow would say of the
   * fields that are valid (a name, the type's cross-field checks over `base` with the valid fields, the
   * references), so that a form shows all of them after one submit.
   */
  private parse(def: TypeDef, schema: z.ZodType<ItemData>, body: unknown,
    after: { base: ItemData; needsName: boolean; selfId?: string }): { data: ItemData; secrets: Record<string, string | null> } {
    const r = schema.safeParse(body ?? {});
    if (!r.success) {
      const errors = fieldErrors(r.error.issues);
      const valid = validFields(schema, body);
      // A name is missing only when the body gives none, not even a field at fault it would default from.
      const raw = typeof body === 'object' && body !== null ? (body as ItemData) : {};
      const named = !!(valid.name ?? def.defaultName?.(raw));
      const more = [...this.recordErrors(def, { ...after.base, ...valid }, after.needsName && !named),
        ...this.refErrors(this.store, def, { ...valid }, after.selfId)];
      const said = new Set(errors.map((e) => e.path));
      throw invalid(`${def.type} record`, [...errors, ...more.filter((e) => !said.has(e.path))]);
    }
    const data = { ...r.data };
    const secrets: Record<string, string | null> = {};
    for (const f of def.secretFields ?? []) {
      if (f in data) {
        const v = data[f];
        secrets[f] = v == null ? null : String(v);
        delete data[f];
      }
    }
    return { data, secrets };
  }

  /** What a record's fields say together: a name where one is needed, and the type's cross-field checks. */
  private recordErrors(def: TypeDef, data: ItemData, needsName: boolean): FieldError[] {
    const name = typeof data.name === 'string' ? data.name : def.defaultName?.(data);
    return [...(needsName && !name ? [{ path: 'name', message: 'Required' }] : []), ...(def.check?.(data) ?? [])];
  }

  /** Resolves reference fields (UUID or short ID) to UUIDs of live records of the right type; the errors of those that are not. */
  private refErrors(db: Pick<Store, 'get'>, def: TypeDef, data: ItemData, selfId?: string): FieldError[] {
    const errors: FieldError[] = [];
    const one = (v: unknown, type: BrainType, path: string): string | null => {
      if (typeof v !== 'string') return null;
      const row = this.findRow(v, undefined, db);
      if (!row || row.type !== type) {
        errors.push({ path, message: row ? `${v} is a record in ${row.type}, not in ${type}` : `No record in ${type} with id ${v}` });
        return null;
      }
      if (row.id === selfId) { errors.push({ path, message: 'A record cannot reference itself' }); return null; }
      return row.id;
    };
    for (const ref of def.refs) {
      const v = data[ref.field];
      if (v == null) continue;
      if (ref.many && Array.isArray(v))
        data[ref.field] = [...new Set(v.map((x, i) => one(x, ref.type, `${ref.field}.${i}`)))].filter(Boolean);
      else data[ref.field] = one(v, ref.type, ref.field);
    }
    return errors;
  }

  /** The record's checks inside the write transaction: its fields together, then its references (resolved in place). */
  private check(tx: Tx, def: TypeDef, data: ItemData, needsName: boolean, selfId?: string): void {
    const errors = [...this.recordErrors(def, data, needsName), ...this.refErrors(tx, def, data, selfId)];
    if (errors.length) throw invalid(`${def.type} record`, errors);
  }

  /** The stored form: no name (a column), no nulls or empty values. */
  private stored(data: ItemData): ItemData {
    const out: ItemData = {};
    for (const [k, v] of Object.entries(data)) if (k !== 'name' && !isEmpty(v)) out[k] = v;
    return out;
  }

  // ---- derived rows ----------------------------------------------------------------------------

  private index(tx: Tx, def: TypeDef, row: { pk: number; id: string; type: BrainType; seq: number; name: string },
    data: ItemData, fresh: boolean): void {
    const short = shortIdOf(row.type, row.seq);
    // references
    if (!fresh) tx.run('DELETE FROM brain_refs WHERE src = ?', [row.id]);
    for (const ref of def.refs) {
      const v = data[ref.field];
      for (const dst of Array.isArray(v) ? v : v == null ? [] : [v]) {
        tx.run('INSERT OR IGNORE INTO brain_refs (dst, src, field) VALUES (?, ?, ?)', [String(dst), row.id, ref.field]);
      }
    }
    // exact keys
    if (!fresh) tx.run('DELETE FROM brain_keys WHERE pk = ?', [row.pk]);
    const keys: [string, string][] = [[short.toLowerCase(), 'short_id'], [row.name.toLowerCase(), 'name']];
    for (const f of def.keyFields) for (const v of textOf(data[f])) keys.push([v.toLowerCase(), f]);
    for (const [k, f] of keys) tx.run('INSERT OR IGNORE INTO brain_keys (k, pk, f) VALUES (?, ?, ?)', [k.slice(0, 300), row.pk, f]);
    // full text
    const keyText = [short, ...def.keyFields.flatMap((f) => textOf(data[f]))];
    for (const m of Array.isArray(data.mac_addresses) ? data.mac_addresses : []) keyText.push(String(m).replace(/:/g, ''));
    const body: string[] = [];
    for (const f of COMMON_FIELDS) textOf(data[f], body);
    if (data.custom_fields && typeof data.custom_fields === 'object') body.push(...Object.keys(data.custom_fields));
    for (const f of def.searchable) if (!def.keyFields.includes(f)) textOf(data[f], body);
    if (fresh) tx.run('INSERT INTO brain_fts (docid, name, keys, body) VALUES (?, ?, ?, ?)',
      [row.pk, row.name, keyText.join(' '), body.join(' ')]);
    else tx.run('UPDATE brain_fts SET name = ?, keys = ?, body = ? WHERE docid = ?', [row.name, keyText.join(' '), body.join(' '), row.pk]);
  }

  /** Field-by-field differences between two stored forms (name included); secrets are never compared. */
  private diff(def: TypeDef, before: ItemData, after: ItemData): Changes {
    const changes: Changes = {};
    for (const f of ['name', ...def.fields]) {
      if (def.secretFields?.includes(f)) continue;
      const a = isEmpty(before[f]) ? null : before[f], b = isEmpty(after[f]) ? null : after[f];
      if (!same(a, b)) changes[f] = { from: a, to: b };
    }
    return changes;
  }

  private secretChanges(secrets: Record<string, string | null>): Changes {
    const out: Changes = {};
    for (const [f, v] of Object.entries(secrets)) out[f] = { from: SECRET_SHOWN, to: v == null ? '(removed)' : '(changed)' };
    return out;
  }

  // ---- changes ---------------------------------------------------------------------------------
  // Each change has a form that runs inside a caller's transaction (createIn, updateIn, removeIn: the record, its
  // derived rows and its history, no audit) so that an import or a bulk action is one write; create, update and
  // remove wrap one of them in a write of its own with the audit entry.

  async create(type: BrainType, body: unknown, by: Actor): Promise<ItemData> {
    const def = this.def(type);
    def.beforeWrite?.();
    // Validated before the write too: a 400 then takes no short-ID number and opens no transaction.
    const { data } = this.parse(def, def.create, body, { base: {}, needsName: true });
    const early = this.recordErrors(def, data, true);
    if (early.length) throw invalid(`${type} record`, [...early, ...this.refErrors(this.store, def, { ...data })]);
    const now = this.now();
    const row = await this.store.write((tx) => {
      const r = this.createIn(tx, type, body, by, now);
      this.app.audit.insert(tx, by.auditEntry('brain.create', shortIdOf(type, r.seq), { type, id: r.id, name: r.name }));
      return r;
    }, 'sync');
    return this.toItem(row);
  }

  /** Creates a record inside tx: validated, stored, indexed, its secrets handed over, its history written. */
  createIn(tx: Tx, type: BrainType, body: unknown, by: Actor, now: number, note?: string): ItemRow {
    const def = this.def(type);
    const { data, secrets } = this.parse(def, def.create, body, { base: {}, needsName: true });
    this.check(tx, def, data, true);
    const name = (typeof data.name === 'string' ? data.name : def.defaultName?.(data)) ?? '';
    const id = randomUUID();
    const seq = tx.get<{ last: number }>(
      'INSERT INTO brain_seq (type, last) VALUES (?, 1) ON CONFLICT(type) DO UPDATE SET last = last + 1 RETURNING last', [type])!.last;
    const stored = this.stored(data);
    const pk = tx.get<{ pk: number }>(
      'INSERT INTO brain_items (id, type, seq, name, data, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING pk',
      [id, type, seq, name, JSON.stringify(stored), now, now])!.pk;
    const r: ItemRow = { pk, id, type, seq, name, data: JSON.stringify(stored), created_at: now, updated_at: now };
    this.index(tx, def, r, stored, true);
    if (Object.keys(secrets).length) def.onSecrets?.(tx, id, secrets, 'create');
    const changes = { ...this.diff(def, {}, { ...stored, name }), ...this.secretChanges(secrets) };
    this.addHistory(tx, { item_id: id, type, at: now, actor: by.actor, action: 'create', changes, note });
    return r;
  }

  async update(type: BrainType, idOrSid: string, body: unknown, by: Actor): Promise<ItemData> {
    const def = this.def(type);
    const old = this.mustRow(type, idOrSid);
    def.beforeWrite?.();
    // Validated before the write too (every field at fault at once), so a refusal does not wait for the write queue.
    this.parse(def, def.update, body, { base: parseData(old.data), needsName: false, selfId: old.id });
    const now = this.now();
    const row = await this.store.write((tx) => {
      const { row: r, changes } = this.updateIn(tx, type, old.id, body, by, now);
      if (Object.keys(changes).length) {
        this.app.audit.insert(tx, by.auditEntry('brain.update', shortIdOf(type, r.seq),
          { type, id: r.id, name: r.name, fields: Object.keys(changes) }));
      }
      return r;
    }, 'sync');
    return this.toItem(row);
  }

  /**
   * Updates a record inside tx (only the fields given change; null clears one); no change writes nothing. The
   * changes are empty when nothing changed.
   */
  updateIn(tx: Tx, type: BrainType, id: string, body: unknown, by: Actor, now: number, note?: string): { row: ItemRow; changes: Changes } {
    const def = this.def(type);
    const cur = this.mustRow(type, id, tx);
    const before = parseData(cur.data);
    const { data: input, secrets } = this.parse(def, def.update, body, { base: before, needsName: false, selfId: cur.id });
    const merged: ItemData = { ...before };
    for (const [k, v] of Object.entries(input)) if (k !== 'name') merged[k] = v;
    const name = typeof input.name === 'string' ? input.name : cur.name;
    this.check(tx, def, merged, false, cur.id);
    const stored = this.stored(merged);
    const changes = { ...this.diff(def, { ...before, name: cur.name }, { ...stored, name }), ...this.secretChanges(secrets) };
    if (!Object.keys(changes).length) return { row: cur, changes };
    tx.run('UPDATE brain_items SET name = ?, data = ?, updated_at = ? WHERE pk = ?', [name, JSON.stringify(stored), now, cur.pk]);
    const r: ItemRow = { ...cur, name, data: JSON.stringify(stored), updated_at: now };
    this.index(tx, def, r, stored, false);
    if (Object.keys(secrets).length) def.onSecrets?.(tx, cur.id, secrets, 'update');
    this.addHistory(tx, { item_id: cur.id, type, at: now, actor: by.actor, action: 'update', changes, note });
    return { row: r, changes };
  }

  /** Records that point at this one through a reference field. */
  referrers(id: string, db: Pick<Store, 'all'> = this.store): Referrer[] {
    return db.all<{ src: string; field: string; type: BrainType; seq: number; name: string }>(
      `SELECT r.src AS src, r.field AS field, i.type AS type, i.seq AS seq, i.name AS name
         FROM brain_refs r JOIN brain_items i ON i.id = r.src WHERE r.dst = ? ORDER BY i.type, i.seq, r.field`, [id],
    ).map((r) => ({ type: r.type, id: r.src, short_id: shortIdOf(r.type, r.seq), name: r.name, field: r.field }));
  }

  /** The 409 for deleting a record others reference (`refs`), naming a few of them. */
  referencedError(short: string, refs: Referrer[]): HttpError {
    return new HttpError(409, 'referenced',
      `${short} is referenced by ${refs.length} record(s): ` +
      `${refs.slice(0, 5).map((r) => `${r.short_id}.${r.field}`).join(', ')}${refs.length > 5 ? ', …' : ''}; ` +
      'delete with ?detach=true to clear those references', { extra: { referrers: refs } });
  }

  /**
   * Deletes a record with its links. Records referencing it make this a 409 listing them, unless
   * detach is set: then their references are cleared, each recorded in the referrer's history.
   */
  async remove(type: BrainType, idOrSid: string, detach: boolean, by: Actor): Promise<void> {
    const def = this.def(type);
    const old = this.mustRow(type, idOrSid);
    def.beforeWrite?.();
    const now = this.now();
    await this.store.write((tx) => {
      const r = this.removeIn(tx, type, old.id, detach, by, now);
      this.app.audit.insert(tx, by.auditEntry('brain.delete', r.short_id,
        { type, id: old.id, name: r.name, detached: r.detached, links_removed: r.links }));
    }, 'sync');
  }

  /** Deletes a record inside tx (see remove); the other records of its links get an unlink entry in their history. */
  removeIn(tx: Tx, type: BrainType, id: string, detach: boolean, by: Actor, now: number, note?: string):
    { short_id: string; name: string; detached: string[]; links: number } {
    const def = this.def(type);
    const cur = this.mustRow(type, id, tx);
    const short = shortIdOf(type, cur.seq);
    const refs = this.referrers(cur.id, tx);
    if (refs.length && !detach) throw this.referencedError(short, refs);
    const detached: string[] = [];
    for (const src of [...new Set(refs.map((r) => r.id))]) {
      const rr = tx.get<ItemRow>(`SELECT ${ROW} FROM brain_items WHERE id = ?`, [src])!;
      const rdef = this.def(rr.type);
      const before = parseData(rr.data);
      const after: ItemData = { ...before };
      for (const r of refs.filter((x) => x.id === src)) {
        const v = after[r.field];
        after[r.field] = Array.isArray(v) ? v.filter((x) => x !== cur.id) : null;
      }
      const stored = this.stored(after);
      tx.run('UPDATE brain_items SET data = ?, updated_at = ? WHERE pk = ?', [JSON.stringify(stored), now, rr.pk]);
      this.index(tx, rdef, rr, stored, false);
      this.addHistory(tx, {
        item_id: rr.id, type: rr.type, at: now, actor: by.actor, action: 'detach',
        changes: this.diff(rdef, before, stored), note: `${short} (${cur.name}) was deleted`,
      });
      detached.push(shortIdOf(rr.type, rr.seq));
    }
    // The records at the other end of its links are told in their history.
    const others = tx.all<{ id: string; type: BrainType }>(
      `SELECT to_id AS id, to_type AS type FROM brain_links WHERE from_id = ? AND to_type <> 'monitors'
       UNION SELECT from_id AS id, from_type AS type FROM brain_links WHERE to_id = ? AND from_type <> 'monitors'`, [cur.id, cur.id]);
    for (const o of others) {
      if (o.id === cur.id) continue;
      this.addHistory(tx, { item_id: o.id, type: o.type, at: now, actor: by.actor, action: 'unlink', changes: {},
        note: `${short} ${cur.name} was deleted, and its link with it` });
    }
    const links = tx.run('DELETE FROM brain_links WHERE from_id = ? OR to_id = ?', [cur.id, cur.id]).changes;
    tx.run('DELETE FROM brain_refs WHERE src = ?', [cur.id]);
    tx.run('DELETE FROM brain_keys WHERE pk = ?', [cur.pk]);
    tx.run('DELETE FROM brain_fts WHERE docid = ?', [cur.pk]);
    tx.run('DELETE FROM brain_items WHERE pk = ?', [cur.pk]);
    tx.run('INSERT INTO brain_tombstones (id, type, seq, name, deleted_at) VALUES (?, ?, ?, ?, ?)',
      [cur.id, type, cur.seq, cur.name, now]);
    def.onRemove?.(tx, cur.id);
    const data = parseData(cur.data);
    this.addHistory(tx, { item_id: cur.id, type, at: now, actor: by.actor, action: 'delete',
      changes: this.diff(def, { ...data, name: cur.name }, {}), note });
    return { short_id: short, name: cur.name, detached, links };
  }
}
