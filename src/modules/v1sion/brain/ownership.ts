// Who wrote a field of an inventory record: discovery or a person. Discovery writes through the
// inventory's own item service under the actor "discovery for <the person who asked>", so its changes
// have history, short IDs, search and audit like a person's, and stay told apart from them: a user name
// has no spaces, and an API key's actor is "<user> (key <name>)", so no person's actor starts with
// "discovery for ". A field whose newest history entry names another actor is hand-set: discovery shows
// it in a diff and never writes it. The audit log keeps the person as the actor (details.via: discovery).
import type { Actor } from '../../../core/audit/types.js';
import type { BrainServices } from '../../brain/index.js';
import type { InventoryRecord } from './match.js';

const PREFIX = 'discovery for ';

export const isDiscoveryActor = (actor: string | null): boolean => !!actor && actor.startsWith(PREFIX);

/** The actor discovery writes under on behalf of a request's actor. */
export function discoveryActor(by: Actor): Actor {
  return {
    actor: `${PREFIX}${by.actor ?? 'the system'}`,
    auditEntry: (action, target, details) => by.auditEntry(action, target, { ...details, via: 'discovery' }),
  };
}

const PAGE = 200;
/** History entries read per record at most: a field not written in the newest ones counts as hand-set if set. */
const MAX_ENTRIES = 2000;

/**
 * Reads who last wrote each field of a record from its change history (newest first), once per record
 * and only for records a diff shows a difference in: an unchanged record costs nothing.
 */
export class FieldWriters {
  private readonly cache = new Map<string, Map<string, string | null>>();

  constructor(private readonly items: BrainServices['items']) {}

  /** Who last wrote the field: the actor, null for an entry without one, undefined when no entry names the field. */
  lastWriter(record: Pick<InventoryRecord, 'type' | 'id'>, field: string): string | null | undefined {
    let writers = this.cache.get(record.id);
    if (!writers) { writers = this.load(record); this.cache.set(record.id, writers); }
    return writers.has(field) ? writers.get(field)! : undefined;
  }

  /**
   * Hand-set: the newest entry naming the field is not discovery's. A field no entry names was never
   * written (a record's create lists every field it set), so discovery may fill it; when the history is
   * longer than we read, a field not found is hand-set if it holds a value.
   */
  handSet(record: InventoryRecord, field: string): boolean {
    const w = this.lastWriter(record, field);
    if (w === undefined) return this.truncated.has(record.id) && record.data[field] != null;
    return !isDiscoveryActor(w);
  }

  private readonly truncated = new Set<string>();

  private load(record: Pick<InventoryRecord, 'type' | 'id'>): Map<string, string | null> {
    const writers = new Map<string, string | null>();
    for (let offset = 0; offset < MAX_ENTRIES; offset += PAGE) {
      const page = this.items.history(record.type, record.id, { limit: PAGE, offset });
      for (const e of page.items) {
        for (const f of Object.keys(e.changes ?? {})) if (!writers.has(f)) writers.set(f, e.actor);
      }
      if (offset + PAGE >= page.total) return writers;
    }
    this.truncated.add(record.id);
    return writers;
  }

  /** Forgets what was read (after a write changed a record's history). */
  forget(recordId: string): void { this.cache.delete(recordId); this.truncated.delete(recordId); }
}
