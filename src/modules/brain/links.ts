// Links between any two entities: inventory records of any type and monitors (checked through the
// monitors module's service, never its tables). A fixed set of relations; a duplicate link is a 409.
// Links of a deleted record go with it; links to a deleted monitor go on the monitor.deleted bus event.
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import type { AppContext } from '../../core/context.js';
import { HttpError, invalid, notFound } from '../../core/errors.js';
import { monitorsServiceOf } from '../monitors/index.js';
import type { MonitorDetail } from '../monitors/contracts.js';
import type { Actor } from '../../core/audit/types.js';
import type { Tx } from '../../core/store/types.js';
import { UUID_PATTERN } from '../../core/http/schemas.js';
import { shortIdOf, type ItemService } from './items.js';
import type { BrainType } from './types.js';

/**
 * runs_on: an application (or VM) runs on an endpoint; connected_to: a physical or logical connection
 * (symmetric: A-B and B-A are the same link); depends_on: needs the other to work; located_in: sits in a
 * site or location; monitored_by: watched by a monitor.
 */
export const RELATIONS = ['runs_on', 'connected_to', 'depends_on', 'located_in', 'monitored_by'] as const;
export type Relation = (typeof RELATIONS)[number];
const SYMMETRIC: readonly Relation[] = ['connected_to'];

export type EntityType = BrainType | 'monitors';

/** How a link reads in a record's history, from its `from` side and from its `to` side. */
const WORDS: Record<Relation, [string, string]> = {
  runs_on: ['runs on', 'hosts'], connected_to: ['connected to', 'connected to'], depends_on: ['depends on', 'needed by'],
  located_in: ['located in', 'contains'], monitored_by: ['monitored by', 'monitors'],
};

const named = (e: EntityRef) => (e.type === 'monitors' ? `monitor ${e.name ?? e.id}` : `${e.short_id ?? e.id} ${e.name ?? ''}`.trim());

export interface EntityRef { type: EntityType; id: string; short_id: string | null; name: string | null }

export interface LinkOut {
  id: string; from: EntityRef; to: EntityRef; relation: Relation; note: string | null; created_at: string; created_by: string | null;
}

interface LinkRow {
  id: string; from_type: EntityType; from_id: string; to_type: EntityType; to_id: string; relation: Relation;
  note: string | null; created_at: number; created_by: string | null;
}

export const EntityRefSchema = z.object({
  type: z.string(), id: z.string(), short_id: z.string().nullable(), name: z.string().nullable(),
});
export const LinkSchema = z.object({
  id: z.string(), from: EntityRefSchema, to: EntityRefSchema, relation: z.enum(RELATIONS), note: z.string().nullable(),
  created_at: z.string(), created_by: z.string().nullable(),
});


export class LinkService {
  constructor(private readonly app: AppContext, private readonly items: ItemService) {}

  private monitor(id: string): MonitorDetail | undefined {
    const svc = monitorsServiceOf(this.app);
    if (!UUID_PATTERN.test(id)) return undefined;
    try {
      return svc.get(id.toLowerCase());
    } catch (e) {
      if (e instanceof HttpError && e.status === 404) return undefined;
      throw e;
    }
  }

  /** The entity a {type, id} names (UUID or short ID for records), or undefined when there is none. */
  entity(type: EntityType, id: string): EntityRef | undefined {
    if (type === 'monitors') {
      const m = this.monitor(id);
      return m ? { type, id: m.id, short_id: null, name: m.name } : undefined;
    }
    const row = this.items.findRow(id, type);
    return row ? { type, id: row.id, short_id: shortIdOf(row.type, row.seq), name: row.name } : undefined;
  }

  private mustEntity(type: EntityType, id: string): EntityRef {
    if (type !== 'monitors') this.items.def(type);
    const e = this.entity(type, id);
    if (!e) throw notFound(`${type} ${id}`);
    return e;
  }

  private out(r: LinkRow): LinkOut {
    const side = (type: EntityType, id: string): EntityRef => this.entity(type, id) ?? { type, id, short_id: null, name: null };
    return {
      id: r.id, from: side(r.from_type, r.from_id), to: side(r.to_type, r.to_id), relation: r.relation, note: r.note,
      created_at: new Date(r.created_at).toISOString(), created_by: r.created_by,
    };
  }

  /** Links of an entity in both directions, oldest first. */
  list(type: EntityType, id: string): { items: LinkOut[]; total: number } {
    const e = this.mustEntity(type, id);
    const rows = this.app.store.all<LinkRow>(
      'SELECT * FROM brain_links WHERE from_id = ? UNION ALL SELECT * FROM brain_links WHERE to_id = ? ORDER BY created_at, id',
      [e.id, e.id]);
    return { items: rows.map((r) => this.out(r)), total: rows.length };
  }

  async create(body: { from: { type: EntityType; id: string }; to: { type: EntityType; id: string }; relation: Relation;
    note?: string | null }, by: Actor): Promise<LinkOut> {
    const errors: { path: string; message: string }[] = [];
    const side = (s: { type: EntityType; id: string }, path: string) => {
      const e = this.entity(s.type, s.id);
      if (!e)
        errors.push({ path: `${path}.id`, message: `No ${s.type === 'monitors' ? 'monitor' : `record in ${s.type}`} with id ${s.id}` });
      return e;
    };
    const from = side(body.from, 'from'), to = side(body.to, 'to');
    if (from && to && from.id === to.id) errors.push({ path: 'to.id', message: 'A link needs two different entities' });
    if (errors.length || !from || !to) throw invalid('link', errors);
    const id = randomUUID();
    const now = this.app.clock.now();
    const row = await this.app.store.write((tx) => {
      // Records are checked again inside the write (a concurrent delete would leave a dangling link).
      for (const [e, path] of [[from, 'from'], [to, 'to']] as const) {
        if (e.type !== 'monitors' && !this.items.findRow(e.id, e.type, tx))
          throw invalid('link', [{ path: `${path}.id`, message: `No record in ${e.type} with id ${e.id}` }]);
      }
      const dup = tx.get<{ id: string }>(
        'SELECT id FROM brain_links WHERE from_id = ? AND to_id = ? AND relation = ?', [from.id, to.id, body.relation])
        ?? (SYMMETRIC.includes(body.relation)
          ? tx.get<{ id: string }>(
            'SELECT id FROM brain_links WHERE from_id = ? AND to_id = ? AND relation = ?', [to.id, from.id, body.relation])
          : undefined);
      if (dup) throw new HttpError(409, 'duplicate_link', `That link already exists (${dup.id})`, { extra: { link_id: dup.id } });
      const r: LinkRow = {
        id, from_type: from.type, from_id: from.id, to_type: to.type, to_id: to.id, relation: body.relation,
        note: body.note ?? null, created_at: now, created_by: by.actor,
      };
      tx.run(`INSERT INTO brain_links (id, from_type, from_id, to_type, to_id, relation, note, created_at, created_by)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        [r.id, r.from_type, r.from_id, r.to_type, r.to_id, r.relation, r.note, r.created_at, r.created_by]);
      this.linkHistory(tx, 'link', from, to, body.relation, by.actor, now);
      this.app.audit.insert(tx, by.auditEntry('brain.link', `${from.short_id ?? from.id} ${body.relation} ${to.short_id ?? to.id}`,
        { id, from: { type: from.type, id: from.id }, to: { type: to.type, id: to.id }, relation: body.relation }));
      return r;
    }, 'sync');
    return this.out(row);
  }

  async remove(id: string, by: Actor): Promise<void> {
    await this.app.store.write((tx) => {
      const r = UUID_PATTERN.test(id) ? tx.get<LinkRow>('SELECT * FROM brain_links WHERE id = ?', [id.toLowerCase()]) : undefined;
      if (!r) throw notFound(`Link ${id}`);
      tx.run('DELETE FROM brain_links WHERE id = ?', [r.id]);
      const side = (type: EntityType, eid: string): EntityRef => this.entity(type, eid) ?? { type, id: eid, short_id: null, name: null };
      this.linkHistory(tx, 'unlink', side(r.from_type, r.from_id), side(r.to_type, r.to_id), r.relation, by.actor, this.app.clock.now());
      this.app.audit.insert(tx, by.auditEntry('brain.unlink', r.id,
        { from: { type: r.from_type, id: r.from_id }, to: { type: r.to_type, id: r.to_id }, relation: r.relation }));
    }, 'sync');
  }

  /** Removes every link to or from a monitor (it was deleted); each record it was linked to says so in its history. */
  async removeMonitor(monitorId: string, name: string | null = null): Promise<number> {
    const sql = "SELECT * FROM brain_links WHERE (from_type = 'monitors' AND from_id = ?) OR (to_type = 'monitors' AND to_id = ?)";
    const rows = this.app.store.all<LinkRow>(sql, [monitorId, monitorId]);
    if (!rows.length) return 0; // nothing to do: no write, no fsync
    const now = this.app.clock.now();
    return this.app.store.write((tx) => {
      for (const r of rows) {
        const [type, id] = r.from_type === 'monitors' ? [r.to_type, r.to_id] : [r.from_type, r.from_id];
        if (type === 'monitors') continue;
        this.items.addHistory(tx, { item_id: id, type, at: now, actor: null, action: 'unlink', changes: {},
          note: `monitor ${name ?? monitorId} was deleted, and its link with it` });
      }
      return tx.run(
        "DELETE FROM brain_links WHERE (from_type = 'monitors' AND from_id = ?) OR (to_type = 'monitors' AND to_id = ?)",
        [monitorId, monitorId]).changes;
    }, 'sync');
  }

  /** A link's entry in the history of each inventory record it joins, in the words of that record's side. */
  private linkHistory(tx: Tx, action: 'link' | 'unlink', from: EntityRef, to: EntityRef, relation: Relation, actor: string | null,
    at: number): void {
    const verb = action === 'link' ? 'Linked' : 'Unlinked';
    for (const [self, other, words] of [[from, to, WORDS[relation][0]], [to, from, WORDS[relation][1]]] as const) {
      if (self.type === 'monitors') continue;
      this.items.addHistory(tx, { item_id: self.id, type: self.type, at, actor, action, changes: {},
        note: `${verb}: ${words} ${named(other)}` });
    }
  }

}
