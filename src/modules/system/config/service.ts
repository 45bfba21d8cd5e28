// The configuration through the API: the YAML file and its JSON form with secrets masked, strict saves
// (core/config/service.ts apply(): validate everything, then one atomic write), the CSV export and the import
// of CSV, YAML or JSON with a dry run. Which keys are secret and which need a restart is declared on the
// schema (.meta({ secret: true }), .meta({ restart: true })) and read through config.keys().
import YAML from 'yaml';
import type { AppContext } from '../../../core/context.js';
import { badRequest, HttpError, type FieldError } from '../../../core/errors.js';
import { secretIsSet, type ConfigKeyInfo, type ConfigService } from '../../../core/config/index.js';
import { isSecretMarker, secretShown } from '../../../core/secret-marker.js';
import { parseCsv } from '../../../core/csv.js';

export interface SaveResult {
  /** Dotted keys of the file's configuration that changed. */
  changed: string[];
  /** Of those, the keys in effect now. */
  applied_live: string[];
  /** Of those, the keys that take effect at the next start (POST /api/restart). */
  restart_required: string[];
  /** Stored secrets dropped because a key they are bound to changed and the save did not send them again; absent when none. */
  secrets_dropped?: string[];
}

export interface Change { key: string; from: unknown; to: unknown }

export type ImportFormat = 'csv' | 'yaml' | 'json';

const CSV_HEADER = ['key', 'value', 'default', 'description'];

export class ConfigApiService {
  constructor(private app: Pick<AppContext, 'config'>) {}

  private get config(): ConfigService { return this.app.config; }

  /** The file as text, each secret replaced by {set: true|false}. */
  yamlText(): string {
    const text = this.config.rawYaml();
    const secrets = this.config.keys().filter((k) => k.secret);
    if (!secrets.length || !text) return text;
    const doc = YAML.parseDocument(text);
    if (doc.errors.length || !YAML.isMap(doc.contents)) {
      // Unparseable: hide every line whose key is the last part of a secret's name.
      const names = new Set(secrets.map((k) => k.path[k.path.length - 1]!));
      return text.split('\n').map((line) => {
        const m = /^(\s*-?\s*)([A-Za-z0-9_]+)\s*:/.exec(line);
        return m && names.has(m[2]!) ? `${m[1]}${m[2]}: {set: true}` : line;
      }).join('\n');
    }
    for (const k of secrets) {
      if (!doc.hasIn(k.path)) continue;
      const node = doc.createNode(secretShown(secretIsSet(doc.getIn(k.path))));
      node.flow = true;
      doc.setIn(k.path, node);
    }
    return doc.toString();
  }

  /** The file's configuration with defaults filled in, secrets masked. */
  json(): Record<string, unknown> {
    return this.config.mask(this.config.toJson()) as unknown as Record<string, unknown>;
  }

  async saveYaml(text: string): Promise<SaveResult> {
    const syntax = yamlSyntaxErrors(text);
    if (syntax.length) throw badRequest('The configuration is not valid YAML', syntax);
    return this.result(await this.config.apply({ yaml: text }));
  }

  async saveJson(obj: unknown): Promise<SaveResult> {
    return this.result(await this.config.apply({ json: obj }));
  }

  /** The CSV export: key,value,default,description for every key; secrets as {"set":true|false}. */
  exportCsv(): string {
    const file = this.config.toJson();
    let out = csvLine(CSV_HEADER);
    for (const k of this.config.keys()) {
      const v = getPath(file, k.path);
      const value = k.secret ? JSON.stringify(secretShown(secretIsSet(v))) : cellValue(v);
      const dflt = k.secret ? '' : cellValue(k.default);
      out += csvLine([k.key, value, dflt, k.description]);
    }
    return out;
  }

  /**
   * Applies keys from a CSV export, YAML or JSON (a patch: keys left out stay as they are). Everything is
   * validated first; nothing changes on any error or on a dry run. Returns the changes, secrets masked.
   */
  async import(text: string, format: ImportFormat, dryRun: boolean): Promise<SaveResult & { dry_run: boolean; changes: Change[] }> {
    let patch: Record<string, unknown>;
    let lines: Map<string, number> | undefined;
    if (format === 'csv') ({ patch, lines } = this.patchFromCsv(text));
    else {
      let data: unknown;
      if (format === 'json') {
        try { data = JSON.parse(text); } catch (e) {
          throw badRequest('The import is not valid JSON', [{ path: '', message: (e as Error).message }]);
        }
      } else {
        const syntax = yamlSyntaxErrors(text);
        if (syntax.length) throw badRequest('The import is not valid YAML', syntax);
        const doc = YAML.parseDocument(text);
        data = doc.toJS({ maxAliasCount: 100 }) ?? {};
      }
      if (typeof data !== 'object' || data === null || Array.isArray(data))
        throw badRequest('The import must be a mapping of sections', [{ path: '', message: 'Expected an object' }]);
      patch = data as Record<string, unknown>;
    }
    let r;
    try {
      r = await this.config.apply({ patch }, { dryRun });
    } catch (e) {
      if (lines && e instanceof HttpError && e.errors) {
        for (const fe of e.errors) {
          const line = lines.get(fe.path);
          if (line) Object.assign(fe, { line, message: `${fe.message} (line ${line})` });
        }
      }
      throw e;
    }
    const secret = new Set(this.config.keys().filter((k) => k.secret).map((k) => k.key));
    const show = (key: string, v: unknown) => (secret.has(key) ? secretShown(secretIsSet(v)) : v ?? null);
    const changes = r.changed.map((key) => {
      const p = key.split('.');
      return { key, from: show(key, getPath(r.before, p)), to: show(key, getPath(r.after, p)) };
    });
    return { dry_run: dryRun, changes, ...this.result(r) };
  }

  private patchFromCsv(text: string): { patch: Record<string, unknown>; lines: Map<string, number> } {
    const rows = parseCsv(text);
    const header = rows.shift();
    if (!header || header.cells[0]?.trim().toLowerCase() !== 'key' || header.cells[1]?.trim().toLowerCase() !== 'value') {
      throw badRequest('The CSV must start with the header key,value[,default,description]',
        [{ path: 'key', message: 'Missing header (line 1)' }]);
    }
    const byKey = new Map(this.config.keys().map((k) => [k.key, k]));
    const file = this.config.toJson();
    const patch: Record<string, unknown> = {};
    const lines = new Map<string, number>();
    const errors: FieldError[] = [];
    for (const row of rows) {
      if (row.cells.length === 1 && row.cells[0] === '') continue;
      const key = row.cells[0]?.trim() ?? '';
      const info = byKey.get(key);
      if (!info) { errors.push({ path: key, message: `Unknown key (line ${row.line})`, ...{ line: row.line } }); continue; }
      if (lines.has(key)) { errors.push({ path: key, message: `Listed twice (line ${row.line})`, ...{ line: row.line } }); continue; }
      lines.set(key, row.line);
      const value = coerce(info, row.cells[1] ?? '');
      if (info.secret) {
        if (isSecretMarker(value)) { if (!value.set) setPath(patch, info.path, null); continue; }
      } else if (JSON.stringify(value) === JSON.stringify(getPath(file, info.path))) continue;
      setPath(patch, info.path, value);
    }
    if (errors.length) throw badRequest('The configuration is invalid', errors);
    return { patch, lines };
  }

  private result({ changed, dropped }: { changed: string[]; dropped: string[] }): SaveResult {
    const restart = new Set(this.config.keys().filter((k) => !k.live).map((k) => k.key));
    return {
      changed,
      applied_live: changed.filter((k) => !restart.has(k)),
      restart_required: changed.filter((k) => restart.has(k)),
      ...(dropped.length ? { secrets_dropped: dropped } : {}),
    };
  }
}

/**
 * The YAML syntax errors of a text, each with the line and column it starts at (1-based), so an editor can
 * mark the line: `{path: '', line, column, message: 'YAML syntax error: … (line n)'}`. Empty when it parses.
 */
export function yamlSyntaxErrors(text: string): FieldError[] {
  const lines = new YAML.LineCounter();
  const doc = YAML.parseDocument(text, { lineCounter: lines });
  return doc.errors.map((e) => {
    const pos = e.linePos?.[0] ?? lines.linePos(e.pos[0]);
    const first = (e.message.split('\n')[0] ?? e.message).replace(/ at line \d+, column \d+:?$/, '');
    return { path: '', message: `YAML syntax error: ${first} (line ${pos.line})`, ...{ line: pos.line, column: pos.col } };
  });
}

/** A CSV cell as the key's type wants it: numbers, booleans, lists and mappings from their text. */
function coerce(info: ConfigKeyInfo, cell: string): unknown {
  const s = info.schema as { type?: string };
  const text = cell;
  if (/^\{\s*"set"\s*:\s*(true|false)\s*\}$/.test(text.trim())) return JSON.parse(text);
  if (s.type === 'number' || s.type === 'integer') return /^-?\d+(\.\d+)?(e[+-]?\d+)?$/i.test(text.trim()) ? Number(text) : text;
  if (s.type === 'boolean') return text.trim() === 'true' ? true : text.trim() === 'false' ? false : text;
  if (s.type === 'array' || s.type === 'object') {
    try { return JSON.parse(text); } catch { return text; }
  }
  return text;
}

function cellValue(v: unknown): string {
  if (v === undefined || v === null) return '';
  return typeof v === 'string' ? v : JSON.stringify(v);
}

function csvLine(cells: readonly string[]): string {
  return cells.map((c) => (/[",\r\n]/.test(c) || /^\s|\s$/.test(c) ? `"${c.replace(/"/g, '""')}"` : c)).join(',') + '\r\n';
}

function getPath(obj: unknown, p: readonly string[]): unknown {
  let cur = obj;
  for (const k of p) {
    if (typeof cur !== 'object' || cur === null || !Object.hasOwn(cur, k)) return undefined;
    cur = (cur as Record<string, unknown>)[k];
  }
  return cur;
}

function setPath(obj: Record<string, unknown>, p: readonly string[], value: unknown): void {
  let cur = obj;
  for (const k of p.slice(0, -1)) {
    if (typeof cur[k] !== 'object' || cur[k] === null) cur[k] = {};
    cur = cur[k] as Record<string, unknown>;
  }
  cur[p[p.length - 1]!] = value;
}
