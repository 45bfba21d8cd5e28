// Status pages as their editors keep them: rows of monitor_status_pages (migration 215), held in memory by
// id and by slug so that a reader's request never reads SQL. Changes are 'sync' writes with their audit
// entry in the same transaction. A page names its monitors by id; one deleted since is left out when the
// page is read, so a deletion needs no change here.
import { randomUUID } from 'node:crypto';
import type { Actor } from '../../../core/audit/types.js';
import { iso } from '../../../core/clock.js';
import type { AppContext } from '../../../core/context.js';
import { conflict, invalid, notFound, type FieldError } from '../../../core/errors.js';
import type { Tx } from '../../../core/store/types.js';
import type { Registry } from '../live.js';
import type { CreatePage, PageOut, UpdatePage } from './schemas.js';

interface PageRow {
  id: string; slug: string; title: string; description: string; show_logo: number; show_maintenance: number; notice: string;
  groups_json: string; created_at: number; updated_at: number;
}

export interface PageGroup { name: string; monitors: { id: string; alias: string }[] }

/** A page as the reader's side uses it; `version` changes with every edit (the cached document is made again). */
export interface LivePage {
  row: PageRow;
  groups: PageGroup[];
  version: number;
}

export class StatusPages {
  private byId = new Map<string, LivePage>();
  private bySlugMap = new Map<string, LivePage>();
  private version = 0;

  constructor(private readonly app: AppContext, private readonly registry: Registry) {}

  load(): void {
    this.byId.clear();
    this.bySlugMap.clear();
    for (const r of this.app.store.all<PageRow>('SELECT * FROM monitor_status_pages ORDER BY created_at, id')) this.keep(r);
  }

  /** The page at /status/<slug>, or undefined. */
  bySlug(slug: string): LivePage | undefined {
    return this.bySlugMap.get(slug);
  }

  list(): PageOut[] {
    return [...this.byId.values()].sort((a, b) => a.row.title.localeCompare(b.row.title) || a.row.id.localeCompare(b.row.id))
      .map((p) => this.out(p));
  }

  get(id: string): PageOut {
    return this.out(this.must(id));
  }

  async create(body: CreatePage, by: Actor): Promise<PageOut> {
    this.check(body);
    const now = this.app.clock.now();
    const row: PageRow = {
      id: randomUUID(), slug: body.slug, title: body.title, description: body.description, show_logo: body.show_logo ? 1 : 0,
      show_maintenance: body.show_maintenance ? 1 : 0, notice: body.notice, groups_json: JSON.stringify(groupsOf(body.groups)),
      created_at: now, updated_at: now,
    };
    await this.app.store.write((tx) => {
      insert(tx, row);
      this.app.audit.insert(tx, by.auditEntry('monitors.status_page.create', row.title, { id: row.id, ...summary(row) }));
    }, 'sync');
    this.keep(row);
    return this.get(row.id);
  }

  async update(id: string, body: UpdatePage, by: Actor): Promise<PageOut> {
    const old = this.must(id).row;
    this.check(body, id);
    const row: PageRow = {
      ...old,
      ...(body.slug !== undefined ? { slug: body.slug } : {}),
      ...(body.title !== undefined ? { title: body.title } : {}),
      ...(body.description !== undefined ? { description: body.description } : {}),
      ...(body.notice !== undefined ? { notice: body.notice } : {}),
      ...(body.show_logo !== undefined ? { show_logo: body.show_logo ? 1 : 0 } : {}),
      ...(body.show_maintenance !== undefined ? { show_maintenance: body.show_maintenance ? 1 : 0 } : {}),
      ...(body.groups !== undefined ? { groups_json: JSON.stringify(groupsOf(body.groups)) } : {}),
      updated_at: this.app.clock.now(),
    };
    await this.app.store.write((tx) => {
      tx.run('DELETE FROM monitor_status_pages WHERE id = ?', [id]);
      insert(tx, row);
      this.app.audit.insert(tx, by.auditEntry('monitors.status_page.update', row.title,
        { id, fields: Object.keys(body).filter((k) => body[k as keyof UpdatePage] !== undefined), ...summary(row) }));
    }, 'sync');
    this.drop(id);
    this.keep(row);
    return this.get(id);
  }

  async remove(id: string, by: Actor): Promise<void> {
    const old = this.must(id).row;
    await this.app.store.write((tx) => {
      tx.run('DELETE FROM monitor_status_pages WHERE id = ?', [id]);
      this.app.audit.insert(tx, by.auditEntry('monitors.status_page.delete', old.title, { id, slug: old.slug }));
    }, 'sync');
    this.drop(id);
  }

  /** The page's groups with only the monitors that still exist. */
  groupsNow(p: LivePage): PageGroup[] {
    return p.groups.map((g) => ({ name: g.name, monitors: g.monitors.filter((m) => this.registry.byId(m.id)) }));
  }

  // ---- rows -----------------------------------------------------------------------------------------

  /** A slug taken by another page is a 409; a monitor that does not exist is a 400 naming its field. */
  private check(body: { slug?: string; groups?: CreatePage['groups'] }, self?: string): void {
    const errors: FieldError[] = [];
    body.groups?.forEach((g, i) => g.monitors.forEach((m, j) => {
      if (!this.registry.byId(m.id)) errors.push({ path: `groups.${i}.monitors.${j}.id`, message: `No monitor with id ${m.id}` });
    }));
    if (errors.length) throw invalid('status page', errors);
    const other = body.slug !== undefined ? this.bySlugMap.get(body.slug) : undefined;
    if (other && other.row.id !== self) {
      throw Object.assign(conflict(`The address /status/${body.slug} is taken by the page "${other.row.title}"`, 'slug_taken'),
        { errors: [{ path: 'slug', message: 'Another page has this address' }] });
    }
  }

  private keep(row: PageRow): void {
    const p: LivePage = { row, groups: JSON.parse(row.groups_json) as PageGroup[], version: ++this.version };
    this.byId.set(row.id, p);
    this.bySlugMap.set(row.slug, p);
  }

  private drop(id: string): void {
    const p = this.byId.get(id);
    if (!p) return;
    this.byId.delete(id);
    if (this.bySlugMap.get(p.row.slug) === p) this.bySlugMap.delete(p.row.slug);
  }

  private must(id: string): LivePage {
    const p = this.byId.get(id);
    if (!p) throw notFound('Status page');
    return p;
  }

  private out(p: LivePage): PageOut {
    const r = p.row;
    return {
      id: r.id, slug: r.slug, url: `/status/${r.slug}`, title: r.title, description: r.description, groups: this.groupsNow(p),
      show_logo: r.show_logo === 1, show_maintenance: r.show_maintenance === 1, notice: r.notice,
      created_at: iso(r.created_at), updated_at: iso(r.updated_at),
    };
  }
}

function groupsOf(groups: CreatePage['groups']): PageGroup[] {
  return groups.map((g) => ({ name: g.name, monitors: g.monitors.map((m) => ({ id: m.id, alias: m.alias })) }));
}

function insert(tx: Tx, r: PageRow): void {
  tx.run(`INSERT INTO monitor_status_pages (id, slug, title, description, show_logo, show_maintenance, notice, groups_json,
      created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  [r.id, r.slug, r.title, r.description, r.show_logo, r.show_maintenance, r.notice, r.groups_json, r.created_at, r.updated_at]);
}

/** What the audit entry records of a page. */
function summary(r: PageRow): Record<string, unknown> {
  const groups = JSON.parse(r.groups_json) as PageGroup[];
  return { slug: r.slug, groups: groups.length, monitors: groups.reduce((n, g) => n + g.monitors.length, 0) };
}
