// The one reader of a numeric PRAGMA (page_size, page_count, freelist_count), for the store and its copy.
import type { Database } from 'sql.js';

export function readPragma(db: Database, name: string): number {
  return Number(db.exec(`PRAGMA ${name}`)[0]?.values[0]?.[0] ?? 0);
}
