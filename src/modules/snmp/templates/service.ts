// Walk templates: a saved target and stored credential plus an OID list and walk options, re-run on
// demand. A template never holds a secret itself: it names an SNMP credential from the inventory, whose
// community or keys the vault keeps. The last run's time and outcome are stored with the template.
import { randomUUID } from 'node:crypto';
import type { AppContext } from '../../../core/context.js';
import { HttpError, conflict, notFound } from '../../../core/errors.js';
import type { Actor } from '../../../core/audit/types.js';
import { iso } from '../../../core/clock.js';
import type { SnmpService, WalkResponse } from '../service.js';
import type { TemplateInput, TemplateOut, WalkOptionValues } from '../schemas.js';

interface TemplateRow {
  id: string; name: string; description: string | null; target: string; port: number | null; version: string;
  credential_id: string | null; oids: string; options: string; last_run_at: number | null;
  last_outcome: 'success' | 'failure' | null; last_count: number | null; last_elapsed_ms: number | null;
  last_error: string | null; created_at: number; updated_at: number;
}

const COLUMNS = `id, name, description, target, port, version, credential_id, oids, options, last_run_at, last_outcome,
  last_count, last_elapsed_ms, last_error, created_at, updated_at`;

export class TemplateService {
  constructor(private readonly app: AppContext, private readonly snmp: SnmpService) {}

  private row(id: string): TemplateRow {
    const r = this.app.store.get<TemplateRow>(`SELECT ${COLUMNS} FROM snmp_templates WHERE id = ?`, [id]);
    if (!r) throw notFound('Template');
    return r;
  }

  present(r: TemplateRow): TemplateOut {
    let credential: { id: string; short_id: string; name: string } | null = null;
    if (r.credential_id) {
      try {
        const c = this.snmp.targets.credential(r.credential_id);
        credential = { id: c.id, short_id: c.short_id, name: c.name };
      } catch { credential = null; }
    }
    return {
      id: r.id, name: r.name, description: r.description, target: r.target, port: r.port,
      version: r.version as 'v1' | 'v2c' | 'v3', credential_id: r.credential_id, credential,
      oids: JSON.parse(r.oids) as string[], options: JSON.parse(r.options) as WalkOptionValues,
      last_run: r.last_run_at === null ? null : {
        at: iso(r.last_run_at), outcome: r.last_outcome!, count: r.last_count, elapsed_ms: r.last_elapsed_ms, error: r.last_error,
      },
      created_at: iso(r.created_at), updated_at: iso(r.updated_at),
    };
  }

  list() {
    const rows = this.app.store.all<TemplateRow>(`SELECT ${COLUMNS} FROM snmp_templates ORDER BY name COLLATE NOCASE`);
    return { items: rows.map((r) => this.present(r)), total: rows.length };
  }

  get(id: string) { return this.present(this.row(id)); }

  /** Validates the whole template; returns the values to store (credential id canonical, version from it). */
  private validate(t: TemplateInput) {
    const cred = this.snmp.targets.credential(t.credential_id);
    this.snmp.roots(t.oids);
    return { ...t, credential_id: cred.id, version: cred.version, port: t.port ?? null,
      description: t.description ?? null, options: t.options ?? {} };
  }

  private unique(name: string, exceptId?: string): void {
    const other = this.app.store.get<{ id: string }>('SELECT id FROM snmp_templates WHERE name = ? COLLATE NOCASE', [name]);
    if (other && other.id !== exceptId) throw conflict(`A template named "${name}" exists`, 'name_taken');
  }

  async create(input: TemplateInput, by: Actor) {
    const v = this.validate(input);
    this.unique(v.name);
    const id = randomUUID();
    const now = this.app.clock.now();
    await this.app.store.write((tx) => {
      tx.run(
        `INSERT INTO snmp_templates (id, name, description, target, port, version, credential_id, oids, options, created_at, updated_at)
              VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        [id, v.name, v.description, v.target, v.port, v.version, v.credential_id, JSON.stringify(v.oids), JSON.stringify(v.options),
          now, now]);
      this.app.audit.insert(tx, by.auditEntry('snmp.template.create', v.name, { id, target: v.target, credential_id: v.credential_id }));
    }, 'sync');
    return this.get(id);
  }

  async update(id: string, patch: Partial<TemplateInput>, by: Actor) {
    const old = this.present(this.row(id));
    const merged: TemplateInput = {
      name: patch.name ?? old.name,
      description: patch.description !== undefined ? patch.description : old.description,
      target: patch.target ?? old.target,
      port: patch.port !== undefined ? patch.port : old.port,
      credential_id: patch.credential_id ?? old.credential_id ?? '',
      oids: patch.oids ?? old.oids,
      options: patch.options ?? old.options,
    };
    if (!merged.credential_id) throw new HttpError(400, 'validation_failed', 'credential_id is required',
      { errors: [{ path: 'credential_id', message: 'required' }] });
    const v = this.validate(merged);
    this.unique(v.name, id);
    const now = this.app.clock.now();
    await this.app.store.write((tx) => {
      const n = tx.run(`UPDATE snmp_templates SET name = ?, description = ?, target = ?, port = ?, version = ?, credential_id = ?,
                 oids = ?, options = ?, updated_at = ? WHERE id = ?`,
      [v.name, v.description, v.target, v.port, v.version, v.credential_id, JSON.stringify(v.oids), JSON.stringify(v.options), now, id]);
      if (!n.changes) throw notFound('Template');
      this.app.audit.insert(tx, by.auditEntry('snmp.template.update', v.name, { id, fields: Object.keys(patch) }));
    }, 'sync');
    return this.get(id);
  }

  async remove(id: string, by: Actor): Promise<void> {
    const old = this.row(id);
    await this.app.store.write((tx) => {
      tx.run('DELETE FROM snmp_templates WHERE id = ?', [id]);
      this.app.audit.insert(tx, by.auditEntry('snmp.template.delete', old.name, { id }));
    }, 'sync');
  }

  /** Walks now with the template's target, credential, OIDs and options; records the outcome either way. */
  async run(id: string, by: Actor, signal?: AbortSignal): Promise<WalkResponse> {
    const t = this.present(this.row(id));
    const record = (outcome: 'success' | 'failure', res: WalkResponse | null, error: string | null) =>
      this.app.store.write((tx) => {
        tx.run(`UPDATE snmp_templates SET last_run_at = ?, last_outcome = ?, last_count = ?, last_elapsed_ms = ?, last_error = ?
                WHERE id = ?`, [this.app.clock.now(), outcome, res?.count ?? null, res?.elapsed_ms ?? null, error, id]);
        this.app.audit.insert(tx, { ...by.auditEntry('snmp.template.run', t.name, { id, outcome, count: res?.count ?? null }),
          outcome });
      }, 'sync');
    try {
      if (!t.credential_id) throw new HttpError(400, 'validation_failed', 'The template has no credential');
      const res = await this.snmp.walkAgent(
        { target: t.target, port: t.port ?? undefined, credential_id: t.credential_id }, t.oids, t.options, signal);
      await record('success', res, null);
      return res;
    } catch (err) {
      await record('failure', null, err instanceof Error ? err.message.slice(0, 500) : String(err));
      throw err;
    }
  }
}
