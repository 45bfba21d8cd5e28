// Named measurements of results, beside the response time (a ping's loss, a certificate's days left, a
// hop count, a throughput): their names are stored once in a dictionary table (monitor_measures for the
// monitors) and results carry small ids. A result's measurements travel as one flat array of pairs
// [id, value, id, value, ...], values in hundredths of their unit as integers (as response times are in
// hundredths of a millisecond), so that channel entries and history pages hold them as varints.
import type { Store, Tx } from '../../../core/store/types.js';

/** A result's measurements: [id, value in hundredths, ...]. */
export type MeasureList = readonly number[];

/** Measurements one result may carry, at most. */
export const MAX_MEASURES = 16;

export const toMeasureUnits = (v: number): number => Math.round(v * 100);
export const fromMeasureUnits = (u: number): number => u / 100;

export class MeasureNames {
  private byName = new Map<string, number>();
  private byId = new Map<number, string>();
  private nextId = 1;

  /** `table`: (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE). */
  constructor(private readonly table: string) {}

  load(store: Pick<Store, 'all'>): void {
    for (const r of store.all<{ id: number; name: string }>(`SELECT id, name FROM ${this.table}`)) this.set(r.id, r.name);
  }

  name(id: number): string | undefined {
    return this.byId.get(id);
  }

  id(name: string): number | undefined {
    return this.byName.get(name);
  }

  /**
   * The list of `values` (by name, in their unit), a name new to the dictionary inserted in this write;
   * null when there is none. Values must be finite; at most MAX_MEASURES are kept.
   */
  encode(tx: Tx, values: Readonly<Record<string, number>>): number[] | null {
    let out: number[] | null = null;
    for (const [name, v] of Object.entries(values)) {
      if (out && out.length >= 2 * MAX_MEASURES) break;
      let id = this.byName.get(name);
      if (id === undefined) {
        // New: unless an earlier result of this same write added it (memory learns it at commit).
        id = tx.get<{ id: number }>(`SELECT id FROM ${this.table} WHERE name = ?`, [name])?.id;
        if (id === undefined) {
          const fresh = this.nextId++;
          tx.run(`INSERT INTO ${this.table} (id, name) VALUES (?, ?)`, [fresh, name]);
          tx.onCommit(() => this.set(fresh, name));
          id = fresh;
        }
      }
      (out ??= []).push(id, toMeasureUnits(v));
    }
    return out;
  }

  /** A list as values by name, in their unit (ids this dictionary does not know are left out). */
  decode(list: MeasureList): Record<string, number> {
    const out: Record<string, number> = {};
    for (let i = 0; i + 1 < list.length; i += 2) {
      const name = this.byId.get(list[i]!);
      if (name !== undefined) out[name] = fromMeasureUnits(list[i + 1]!);
    }
    return out;
  }

  private set(id: number, name: string): void {
    this.byId.set(id, name);
    this.byName.set(name, id);
    if (id >= this.nextId) this.nextId = id + 1;
  }
}

/** Zigzag: a signed integer as a varint's non-negative one (days left go negative once a certificate expired). */
export const zigzag = (v: number): number => (v >= 0 ? v * 2 : -v * 2 - 1);
export const unzigzag = (z: number): number => (z % 2 === 0 ? z / 2 : -(z + 1) / 2);
