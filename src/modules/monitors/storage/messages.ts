// The result-message dictionary: "HTTP 200 OK" is stored once in its table (monitor_messages for the
// monitors) and each result refers to it by id. Held in memory both ways, so a check result looks its message up without SQL; a new text
// is added in the result's own write. Messages over 200 characters, and every new one once the dictionary
// holds 10,000, are stored in the result itself (bounding the cost of texts that are all different).
import type { Store, Tx } from '../../../core/store/types.js';

const MAX_DICT_MESSAGE = 200;
/** Above this many entries, new messages are stored inline. */
const MAX_DICT = 10_000;

export class Messages {
  private byText = new Map<string, number>();
  private byId = new Map<number, string>();
  private nextId = 1;

  /** `table`: (id INTEGER PRIMARY KEY, text TEXT NOT NULL UNIQUE). */
  constructor(private readonly table: string) {}

  load(store: Pick<Store, 'all'>): void {
    for (const r of store.all<{ id: number; text: string }>(`SELECT id, text FROM ${this.table}`)) this.set(r.id, r.text);
  }

  get size(): number { return this.byId.size; }

  /** The text of a stored reference (an id, or the text itself). */
  text(ref: number | string): string {
    return typeof ref === 'string' ? ref : this.byId.get(ref) ?? '';
  }

  /** What a result stores for `text`: its id (inserting it in this write when new), or the text itself. */
  ref(tx: Tx, text: string): number | string {
    if (text.length > MAX_DICT_MESSAGE) return text;
    const hit = this.byText.get(text);
    if (hit !== undefined) return hit;
    if (this.byId.size >= MAX_DICT) return text;
    // An earlier result of this same write may have added it (memory learns it at commit).
    const pending = tx.get<{ id: number }>(`SELECT id FROM ${this.table} WHERE text = ?`, [text])?.id;
    if (pending !== undefined) return pending;
    const id = this.nextId++;
    tx.run(`INSERT INTO ${this.table} (id, text) VALUES (?, ?)`, [id, text]);
    tx.onCommit(() => this.set(id, text));
    return id;
  }

  /** Ids not in `used` (the retention job deletes them). */
  unused(used: ReadonlySet<number>): number[] {
    return [...this.byId.keys()].filter((id) => !used.has(id));
  }

  /** Deletes the entries of `ids` in this write; memory follows at commit. Returns how many rows went. */
  delete(tx: Tx, ids: readonly number[]): number {
    if (!ids.length) return 0;
    const n = tx.run(`DELETE FROM ${this.table} WHERE id IN (SELECT value FROM json_each(?))`, [JSON.stringify(ids)]).changes;
    tx.onCommit(() => this.forget(ids));
    return n;
  }

  private forget(ids: readonly number[]): void {
    for (const id of ids) {
      const text = this.byId.get(id);
      this.byId.delete(id);
      if (text !== undefined) this.byText.delete(text);
    }
  }

  clear(): void {
    this.byText.clear();
    this.byId.clear();
  }

  private set(id: number, text: string): void {
    this.byId.set(id, text);
    this.byText.set(text, id);
    if (id >= this.nextId) this.nextId = id + 1;
  }
}
