// The OID dictionary: numeric OIDs, names, modules, types and descriptions compiled from MIB modules by
// scripts/compile-mibs.ts into oid-table.json, plus the IANA enterprise numbers in enterprises.json.
// Entries stay in the compact array form they are stored in; OidEntry objects are made on demand, so
// the whole store costs a few MiB of heap (docs/snmp-vendors.md has the measured figure).
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { packageRoot } from '../../../core/paths.js';
import type { OidEntry, OidLookup } from '../contracts.js';

/** [oid, name, module#, kind#, type# or -1, enums# or -1, units or 0, description or 0] */
type Row = [string, string, number, number, number, number, string | 0, string | 0];

interface TableFile {
  format: number;
  modules: string[];
  kinds: OidEntry['kind'][];
  types: string[];
  enums: Array<Record<string, string>>;
  entries: Row[];
}
interface EnterprisesFile { format: number; enterprises: Array<[number, string]> }

export interface EnterpriseInfo { number: number; name: string | null }

export interface StoreQuery {
  /** Numeric OID or a name; only that node and what is under it. */
  prefix?: string;
  /** Case-insensitive text in the name, module, OID or description. */
  q?: string;
  limit?: number;
  offset?: number;
}

const NUMERIC = /^\.?\d+(?:\.\d+)*$/;
const ENTERPRISES_ARC = '1.3.6.1.4.1.';

/** A data file next to this module (src/ under tsx), or in the package's src/ when running from dist/. */
function dataFile(name: string): string {
  const beside = fileURLToPath(new URL(name, import.meta.url));
  return existsSync(beside) ? beside : join(packageRoot(), 'src', 'modules', 'snmp', 'oids', name);
}

export class OidStore implements OidLookup {
  private static shared: OidStore | undefined;

  private readonly byOid = new Map<string, number>();
  private readonly byName = new Map<string, number>();
  /**
   * Names that modules define at different OIDs (NET-SNMP-TC::linux is .8072.3.2.10, UCD-SNMP-MIB::linux
   * .2021.250.10): a bare name picks none of them, only MODULE::name does. Taking the first one met
   * once made the UniFi profile miss every UniFi access point.
   */
  private readonly ambiguous = new Map<string, number[]>();
  private readonly enterprises: Map<number, string>;

  private constructor(private readonly table: TableFile, enterprises: EnterprisesFile) {
    if (table.format !== 1 || enterprises.format !== 1) throw new Error('OID store: unknown table format');
    table.entries.forEach((row, i) => {
      this.byOid.set(row[0], i);
      const seen = this.ambiguous.get(row[1]);
      if (seen) { seen.push(i); return; }
      const first = this.byName.get(row[1]);
      if (first === undefined) this.byName.set(row[1], i);
      else if (table.entries[first]![0] !== row[0]) {
        this.byName.delete(row[1]);
        this.ambiguous.set(row[1], [first, i]);
      }
    });
    this.enterprises = new Map(enterprises.enterprises);
  }

  /** The store compiled into the package, read once per process. */
  static load(): OidStore {
    OidStore.shared ??= OidStore.fromFiles(dataFile('oid-table.json'), dataFile('enterprises.json'));
    return OidStore.shared;
  }

  static fromFiles(tableFile: string, enterprisesFile: string): OidStore {
    return new OidStore(
      JSON.parse(readFileSync(tableFile, 'utf8')) as TableFile,
      JSON.parse(readFileSync(enterprisesFile, 'utf8')) as EnterprisesFile,
    );
  }

  get size(): number { return this.table.entries.length; }

  /** Module names in the store, in the order the compiler took them. */
  modules(): string[] { return [...this.table.modules]; }

  /** The entry defined at exactly this OID. */
  entry(oid: string): OidEntry | undefined {
    const i = this.byOid.get(stripDot(oid));
    return i === undefined ? undefined : this.toEntry(this.table.entries[i]!);
  }

  resolve(oid: string): { entry: OidEntry; suffix: string } | undefined {
    let head = stripDot(oid);
    let suffix = '';
    for (;;) {
      const i = this.byOid.get(head);
      if (i !== undefined) return { entry: this.toEntry(this.table.entries[i]!), suffix };
      const dot = head.lastIndexOf('.');
      if (dot < 0) return undefined;
      suffix = suffix ? head.slice(dot + 1) + '.' + suffix : head.slice(dot + 1);
      head = head.slice(0, dot);
    }
  }

  nameOf(oid: string): string {
    const r = this.resolve(oid);
    if (!r) return stripDot(oid);
    return r.suffix ? `${r.entry.name}.${r.suffix}` : r.entry.name;
  }

  /**
   * "sysDescr", "IF-MIB::ifDescr", "ifDescr.3", "enterprises.9.1" or a numeric OID (a leading dot is
   * dropped). Undefined for an unknown name, a malformed OID, or a bare name that several modules define
   * at different OIDs (`definitions()` lists them; write MODULE::name).
   */
  oidOf(nameOrOid: string): string | undefined {
    const text = nameOrOid.trim();
    if (NUMERIC.test(text)) return stripDot(text);
    const m = /^(?:([A-Za-z][\w-]*)::)?([A-Za-z][\w-]*)((?:\.\d+)*)$/.exec(text);
    if (!m) return undefined;
    const [, module, name, suffix] = m;
    const i = module ? this.findInModule(module, name!) : this.byName.get(name!);
    return i === undefined ? undefined : this.table.entries[i]![0] + suffix;
  }

  /**
   * The qualified names ("MODULE::name") a bare name stands for, in table order: one for an ordinary
   * name, several for an ambiguous one, none for an unknown one.
   */
  definitions(name: string): string[] {
    const bare = name.trim().replace(/(?:\.\d+)+$/, '');
    const rows = this.ambiguous.get(bare) ?? (this.byName.has(bare) ? [this.byName.get(bare)!] : []);
    return rows.map((i) => `${this.table.modules[this.table.entries[i]![2]]}::${bare}`);
  }

  /** Every name that several modules define at different OIDs (a bare one resolves to nothing). */
  ambiguousNames(): string[] { return [...this.ambiguous.keys()]; }

  list(query: StoreQuery = {}): { items: OidEntry[]; total: number } {
    const prefix = query.prefix ? this.oidOf(query.prefix) : undefined;
    if (query.prefix && !prefix) return { items: [], total: 0 };
    const q = query.q?.trim().toLowerCase();
    const { modules } = this.table;
    const matches = this.table.entries.filter((r) =>
      (!prefix || r[0] === prefix || r[0].startsWith(prefix + '.')) &&
      (!q || r[0].includes(q) || r[1].toLowerCase().includes(q) || modules[r[2]]!.toLowerCase().includes(q) ||
        (r[7] !== 0 && r[7].toLowerCase().includes(q))));
    const offset = Math.max(0, query.offset ?? 0);
    const end = query.limit === undefined ? undefined : offset + Math.max(0, query.limit);
    return { items: matches.slice(offset, end).map((r) => this.toEntry(r)), total: matches.length };
  }

  /** The private enterprise a sysObjectID belongs to (1.3.6.1.4.1.<number>...), with IANA's name for it. */
  enterprise(sysObjectID: string | null | undefined): EnterpriseInfo | undefined {
    if (!sysObjectID) return undefined;
    const oid = stripDot(sysObjectID);
    if (!oid.startsWith(ENTERPRISES_ARC)) return undefined;
    const n = Number(oid.slice(ENTERPRISES_ARC.length).split('.')[0]);
    if (!Number.isSafeInteger(n)) return undefined;
    return { number: n, name: this.enterprises.get(n) ?? null };
  }

  private findInModule(module: string, name: string): number | undefined {
    const m = this.table.modules.indexOf(module);
    if (m < 0) return undefined;
    const i = this.table.entries.findIndex((r) => r[2] === m && r[1] === name);
    return i < 0 ? undefined : i;
  }

  private toEntry(r: Row): OidEntry {
    const e: OidEntry = { oid: r[0], name: r[1], module: this.table.modules[r[2]]!, kind: this.table.kinds[r[3]]! };
    if (r[4] >= 0) e.type = this.table.types[r[4]];
    if (r[5] >= 0) e.enums = { ...this.table.enums[r[5]] };
    if (r[6] !== 0) e.units = r[6];
    if (r[7] !== 0) e.description = r[7];
    return e;
  }
}

function stripDot(oid: string): string {
  return oid.startsWith('.') ? oid.slice(1) : oid;
}
