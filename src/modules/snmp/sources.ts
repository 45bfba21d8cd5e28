// Reads the value sources of vendor profiles (vendors/types.ts) from one agent in few round trips: one
// GET for every instance wanted, one walk per column, then the ENTITY-MIB chassis row's columns once
// entPhysicalClass has said which row that is. Identification and cards both read through it.
import type { RawVarbind, SnmpReader, SnmpTarget } from './contracts.js';
import { bytesOf } from './client/values.js';
import type { OidStore } from './oids/oid-store.js';
import type { CardItem, PercentSpec, RowFilter, RowsSpec, ValueSource } from './vendors/types.js';

/** Rows a walk of one column may return; a bigger table is read in part. */
export const COLUMN_ROW_LIMIT = 1000;
const ENT_CLASS = '1.3.6.1.2.1.47.1.1.1.1.5';
const CHASSIS = 3;

export interface SourceValue {
  value: number | string;
  /** The variable the value is, when it is one variable's own value (not extracted, counted or reduced). */
  vb?: RawVarbind;
  /** When the variables it came from were read (epoch ms). */
  readAt: number;
}

interface Row { suffix: string; vb: RawVarbind }

const EXCEPTIONS = new Set(['Null', 'NoSuchObject', 'NoSuchInstance', 'EndOfMibView']);

/** The text of a variable: decoded octets (NULs dropped), dotted OIDs and addresses, numbers. */
export function textOf(vb: RawVarbind): string | undefined {
  if (EXCEPTIONS.has(vb.type) || vb.value === null) return undefined;
  if (vb.type === 'OctetString') {
    // eslint-disable-next-line no-control-regex
    return (vb.hex ? bytesOf(vb).toString('utf8') : String(vb.value)).replace(/\u0000+/g, '').trim();
  }
  return String(vb.value);
}

export function numberOf(vb: RawVarbind | undefined): number | undefined {
  if (!vb || EXCEPTIONS.has(vb.type)) return undefined;
  if (typeof vb.value === 'number') return vb.value;
  if (vb.type === 'Counter64') return Number(vb.value);
  const text = vb.type === 'OctetString' ? textOf(vb) : undefined;
  return text !== undefined && /^-?\d+(?:\.\d+)?$/.test(text) ? Number(text) : undefined;
}

function extract(text: string | undefined, pattern?: RegExp): string | undefined {
  if (!text) return undefined;
  if (!pattern) return text;
  const m = pattern.exec(text);
  const got = m ? (m[1] ?? m[0]).trim() : '';
  return got || undefined;
}

/**
 * What one identity field or card item needs: alternatives tried in order (each a set of sources read
 * together), and whether what was read so far already gives it a value.
 */
export interface Want { alternatives: ValueSource[][]; done: () => boolean }

/** The alternatives of a card item: each value source, each percentage's sources, or a table's columns. */
export function itemAlternatives(item: CardItem): ValueSource[][] {
  if (item.rows) return [rowsSources(item.rows)];
  if (item.percent) {
    return (Array.isArray(item.percent) ? item.percent : [item.percent])
      .map((p) => [p.used, p.free, p.total].filter((x): x is ValueSource => !!x));
  }
  return (item.value ? (Array.isArray(item.value) ? item.value : [item.value]) : []).map((v) => [v]);
}

function rowsSources(spec: RowsSpec): ValueSource[] {
  const cols = [spec.label, spec.value, spec.where?.column, spec.unit_column, spec.precision_column];
  return cols.filter((c): c is string => !!c).map((walk) => ({ walk }));
}

export class SourceReader {
  private readonly values = new Map<string, RawVarbind>();
  private readonly columns = new Map<string, Row[]>();
  private readonly readAt = new Map<string, number>();
  /** The chassis row's index; null once read and there is none; undefined until read. */
  private chassis: string | null | undefined;

  constructor(private readonly reader: SnmpReader, private readonly target: SnmpTarget,
    private readonly store: OidStore, private readonly now: () => number) {}

  /** Numeric OID for a profile's name; a name the store lacks is a bug in the profile. */
  oid(name: string): string {
    const oid = this.store.oidOf(name);
    if (!oid) throw new Error(`vendor profile names an OID the store does not know: ${name}`);
    return oid;
  }

  /** A variable already read, by numeric OID (undefined when it was not read). */
  value(oid: string): RawVarbind | undefined {
    return this.values.get(oid);
  }

  /** Variables already read elsewhere (identification's system group). */
  remember(vbs: RawVarbind[], at: number): void {
    for (const vb of vbs) {
      this.values.set(vb.oid, vb);
      this.readAt.set(vb.oid, at);
    }
  }

  /**
   * Reads in waves: every want's first alternative together, then the second alternative of the wants
   * still without a value, and so on; a device that has the preferred variables costs no fallback reads.
   */
  async fetchWanted(wants: Want[]): Promise<void> {
    for (let wave = 0; ; wave++) {
      const batch = wants.filter((w) => wave < w.alternatives.length && (wave === 0 || !w.done()))
        .flatMap((w) => w.alternatives[wave]!);
      if (!batch.length) return;
      await this.fetch(batch);
    }
  }

  /** Reads what these sources need and has not been read yet. */
  async fetch(sources: ValueSource[]): Promise<void> {
    const gets = new Set<string>();
    const walks = new Set<string>();
    const entity = new Set<string>();
    for (const s of sources) {
      if ('get' in s) gets.add(this.oid(s.get));
      else if ('walk' in s) {
        walks.add(this.oid(s.walk));
        if (s.where?.column) walks.add(this.oid(s.where.column));
      } else entity.add(this.oid(s.entity));
    }
    if (entity.size && this.chassis === undefined) walks.add(ENT_CLASS);
    await this.readGets([...gets]);
    await this.readColumns([...walks]);
    if (!entity.size) return;
    if (this.chassis === undefined) {
      this.chassis = this.columns.get(ENT_CLASS)?.find((r) => r.vb.value === CHASSIS)?.suffix ?? null;
    }
    if (this.chassis !== null) await this.readGets([...entity].map((col) => `${col}.${this.chassis}`));
    else await this.readColumns([...entity]);
  }

  private async readGets(oids: string[]): Promise<void> {
    const wanted = oids.filter((o) => !this.values.has(o));
    if (!wanted.length) return;
    const vbs = await this.reader.get(this.target, wanted);
    const at = this.now();
    vbs.forEach((vb, i) => {
      const oid = wanted[i] ?? vb.oid;
      this.values.set(oid, vb);
      this.readAt.set(oid, at);
    });
  }

  private async readColumns(cols: string[]): Promise<void> {
    for (const col of cols) {
      if (this.columns.has(col)) continue;
      const res = await this.reader.walk(this.target, [col], { max_varbinds: COLUMN_ROW_LIMIT });
      const at = this.now();
      const rows: Row[] = [];
      for (const vb of res.varbinds) {
        if (!vb.oid.startsWith(col + '.')) continue;
        rows.push({ suffix: vb.oid.slice(col.length + 1), vb });
        this.values.set(vb.oid, vb);
      }
      this.columns.set(col, rows);
      this.readAt.set(col, at);
    }
  }

  private passes(row: Row, f: RowFilter | undefined): boolean {
    if (!f) return true;
    const vb = f.column ? this.values.get(`${this.oid(f.column)}.${row.suffix}`) : row.vb;
    let ok = !!vb && !EXCEPTIONS.has(vb.type);
    if (ok && f.equals !== undefined) {
      const want = typeof f.equals === 'string' && vb!.type === 'OID' ? this.store.oidOf(f.equals) : f.equals;
      ok = typeof want === 'number' ? numberOf(vb) === want : textOf(vb!) === want;
    }
    if (ok && f.match) ok = f.match.test(textOf(vb!) ?? '');
    return f.not ? !ok : ok;
  }

  /** The value of one source, or undefined when the agent has none. */
  read(source: ValueSource): SourceValue | undefined {
    if ('get' in source) {
      const oid = this.oid(source.get);
      return this.single(this.values.get(oid), oid, source.pattern);
    }
    if ('entity' in source) {
      const col = this.oid(source.entity);
      if (this.chassis) return this.single(this.values.get(`${col}.${this.chassis}`), col + '.' + this.chassis, source.pattern);
      return this.firstRow(col, this.columns.get(col) ?? [], source.pattern);
    }
    const col = this.oid(source.walk);
    const rows = (this.columns.get(col) ?? []).filter((r) => this.passes(r, source.where));
    const at = this.readAt.get(col) ?? this.now();
    const reduce = source.reduce ?? 'first';
    if (reduce === 'first') return this.firstRow(col, rows, source.pattern);
    // A column without a single row says nothing (not recorded, not implemented), not "none".
    if (reduce === 'count') return this.columns.get(col)?.length ? { value: rows.length, readAt: at } : undefined;
    const nums = rows.map((r) => numberOf(r.vb)).filter((n): n is number => n !== undefined);
    if (!nums.length) return undefined;
    const value = reduce === 'sum' ? nums.reduce((a, b) => a + b, 0)
      : reduce === 'avg' ? Math.round((nums.reduce((a, b) => a + b, 0) / nums.length) * 100) / 100
        : reduce === 'max' ? Math.max(...nums) : Math.min(...nums);
    return { value, readAt: at };
  }

  /** The first of several sources that has a value. */
  first(sources: ValueSource[]): SourceValue | undefined {
    for (const s of sources) {
      const v = this.read(s);
      if (v !== undefined) return v;
    }
    return undefined;
  }

  percent(specs: PercentSpec[]): SourceValue | undefined {
    for (const p of specs) {
      const [used, free, total] = [p.used, p.free, p.total].map((s) => (s ? this.read(s) : undefined));
      const n = (v: SourceValue | undefined) => (typeof v?.value === 'number' ? v.value : Number(v?.value ?? NaN));
      const whole = total ? n(total) : n(used) + n(free);
      const part = used ? n(used) : n(total) - n(free);
      if (!Number.isFinite(whole) || !Number.isFinite(part) || whole <= 0) continue;
      const readAt = Math.max(...[used, free, total].map((v) => v?.readAt ?? 0));
      return { value: Math.round((part / whole) * 1000) / 10, readAt };
    }
    return undefined;
  }

  /** The rows of a table item, with the variables they were read from. */
  rows(spec: RowsSpec): { index: string; label: string; vb: RawVarbind; unit?: string; precision?: number }[] | undefined {
    const col = this.oid(spec.value);
    const all = this.columns.get(col);
    if (!all) return undefined;
    const labelCol = this.oid(spec.label);
    const unitCol = spec.unit_column ? this.oid(spec.unit_column) : undefined;
    const precCol = spec.precision_column ? this.oid(spec.precision_column) : undefined;
    return all.filter((r) => this.passes(r, spec.where)).map((r) => {
      const unitVb = unitCol ? this.values.get(`${unitCol}.${r.suffix}`) : undefined;
      const enumLabel = unitVb ? this.store.resolve(unitVb.oid)?.entry.enums?.[String(unitVb.value)] : undefined;
      const precision = precCol ? numberOf(this.values.get(`${precCol}.${r.suffix}`)) : undefined;
      return {
        index: r.suffix,
        label: textOf(this.values.get(`${labelCol}.${r.suffix}`) ?? r.vb) ?? r.suffix,
        vb: r.vb,
        ...(enumLabel ? { unit: enumLabel } : {}),
        ...(precision ? { precision } : {}),
      };
    });
  }

  readTime(oid: string): number | undefined {
    return this.readAt.get(oid);
  }

  private single(vb: RawVarbind | undefined, oid: string, pattern?: RegExp): SourceValue | undefined {
    if (!vb) return undefined;
    const readAt = this.readAt.get(oid) ?? this.readAt.get(vb.oid) ?? this.now();
    const text = textOf(vb);
    if (!text) return undefined;
    if (pattern) {
      const got = extract(text, pattern);
      return got === undefined ? undefined : { value: got, readAt };
    }
    return { value: typeof vb.value === 'number' ? vb.value : text, vb, readAt };
  }

  private firstRow(col: string, rows: Row[], pattern?: RegExp): SourceValue | undefined {
    for (const r of rows) {
      const v = this.single(r.vb, col, pattern);
      if (v !== undefined) return v;
    }
    return undefined;
  }
}
