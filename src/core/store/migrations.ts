// Which migrations a start-up applies. Each module numbers its migrations in its own range, and
// forward-only holds within that range only: modules ship on their own schedule, so a probe that already
// has webhooks' 600 must still take discovery's 400 or a new monitors 202. See docs/store.md.
import type { Migration, MigrationRange } from './types.js';

/**
 * Every module's migration range; a new module claims its range here. Module names are the modules'
 * `name` (test/unit/core-migration-ranges.test.ts checks each module's migrations lie in its own range).
 */
export const MIGRATION_RANGES: readonly MigrationRange[] = Object.freeze([
  { module: 'core', from: 1, to: 99 },
  { module: 'system', from: 100, to: 199 },
  { module: 'monitors', from: 200, to: 299 },
  { module: 'brain', from: 300, to: 399 },
  { module: 'v1sion', from: 400, to: 499 },
  { module: 'snmp', from: 500, to: 599 },
  { module: 'webhooks', from: 600, to: 699 },
]);

export function rangeOf(version: number, ranges: readonly MigrationRange[]): MigrationRange | undefined {
  return ranges.find((r) => version >= r.from && version <= r.to);
}

/** Checks the ranges and the migrations (unique, each inside a range); returns them in version order. */
export function validateMigrations(list: Migration[], ranges: readonly MigrationRange[] = MIGRATION_RANGES): Migration[] {
  validateRanges(ranges);
  if (!Array.isArray(list)) throw new TypeError('migrations must be an array');
  const seen = new Set<number>();
  for (const m of list) {
    if (!Number.isSafeInteger(m.version) || m.version < 1) {
      throw new Error(`migration version must be a positive integer, got ${String(m.version)} (${m.name})`);
    }
    if (seen.has(m.version)) throw new Error(`duplicate migration version ${m.version}`);
    seen.add(m.version);
    if (typeof m.up !== 'string' && typeof m.up !== 'function') throw new Error(`migration ${m.version} has no up`);
    if (!rangeOf(m.version, ranges)) {
      throw new Error(`migration ${m.version} (${m.name}) lies outside every module's migration range (${describe(ranges)})`);
    }
  }
  return [...list].sort((a, b) => a.version - b.version);
}

function validateRanges(ranges: readonly MigrationRange[]): void {
  if (!Array.isArray(ranges) || ranges.length === 0) throw new TypeError('migration ranges must be a non-empty array');
  const sorted = [...ranges].sort((a, b) => a.from - b.from);
  const names = new Set<string>();
  sorted.forEach((r, i) => {
    if (!r.module || names.has(r.module)) throw new Error(`migration range module name missing or repeated: ${String(r.module)}`);
    names.add(r.module);
    if (!Number.isSafeInteger(r.from) || !Number.isSafeInteger(r.to) || r.from < 1 || r.to < r.from) {
      throw new Error(`migration range of ${r.module} is not a range of positive integers: ${r.from}-${r.to}`);
    }
    const prev = sorted[i - 1];
    if (prev && prev.to >= r.from) throw new Error(`migration ranges of ${prev.module} and ${r.module} overlap`);
  });
}

/**
 * The migrations to apply to a database holding `applied`, in version order. Refuses (throws) when the
 * database was written by a build that knows more: a version in no known range, or a module's version
 * above the newest this build has; and a pending migration below its own module's newest applied one.
 */
export function planMigrations(applied: number[], known: Migration[], ranges: readonly MigrationRange[]): Migration[] {
  const stranger = applied.find((v) => !rangeOf(v, ranges));
  if (stranger !== undefined) {
    throw new Error(
      `the database has migration ${stranger}, outside every module's range this build knows (${describe(ranges)}); ` +
      'refusing to start: it was written by a newer netprobe, run that or restore a backup',
    );
  }
  const max = (versions: number[], r: MigrationRange): number =>
    versions.reduce((m, v) => (v >= r.from && v <= r.to && v > m ? v : m), 0);
  const knownVersions = known.map((m) => m.version);
  for (const r of ranges) {
    const dbMax = max(applied, r);
    const codeMax = max(knownVersions, r);
    if (dbMax > codeMax) {
      throw new Error(
        `the database schema of module ${r.module} is at version ${dbMax}, newer than this build knows ` +
        `(${codeMax || 'none'}); refusing to start: run a newer netprobe or restore a backup`,
      );
    }
  }
  const done = new Set(applied);
  const pending = known.filter((m) => !done.has(m.version)).sort((a, b) => a.version - b.version);
  for (const m of pending) {
    const r = rangeOf(m.version, ranges)!;
    const dbMax = max(applied, r);
    if (m.version < dbMax) {
      throw new Error(
        `migration ${m.version} (${m.name}) of module ${r.module} is pending but that module's schema is already at ` +
        `version ${dbMax}; migrations are forward-only within a module's range: give it a number above ${dbMax}`,
      );
    }
  }
  return pending;
}

function describe(ranges: readonly MigrationRange[]): string {
  return ranges.map((r) => `${r.module} ${r.from}-${r.to}`).join(', ');
}
