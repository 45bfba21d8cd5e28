// Key metadata, declared on the key's schema with zod's .meta() and read by configKeys() (the API's
// masking and CSV export, the generated document): `secret: true` makes a key write-only (see secrets.ts);
// `restart: true` says a change takes effect at the next start only (every other key applies live, through
// get() or the config.changed bus event); `unit` overrides the unit the key's name implies (_ms, _seconds,
// _kb, ...). A section's own .meta() applies to each of its keys.

import { z } from 'zod';
import { getPath } from './paths.js';

/** One configuration key as the API, the CSV export and docs/configuration.md describe it. */
export interface ConfigKeyInfo {
  /** Dotted: `server.port`. */
  key: string;
  path: string[];
  default: unknown;
  description: string;
  /** Write-only: never shown, exported or logged in clear. */
  secret: boolean;
  /** False when a change takes effect at the next start only. */
  live: boolean;
  /** ms, s, min, h, days, KiB, MiB, KiB/min; '' when none. */
  unit: string;
  /** The key's JSON Schema (input side), for bounds and types. */
  schema: Record<string, unknown>;
}

const UNITS: [RegExp, string][] = [
  [/_kib_per_minute$/, 'KiB/min'], [/_ms$/, 'ms'], [/_seconds$/, 's'], [/_minutes$/, 'min'], [/_hours$/, 'h'],
  [/_days$/, 'days'], [/_(kb|kib)$/, 'KiB'], [/_(mb|mib)$/, 'MiB'],
];

const keyCache = new WeakMap<object, ConfigKeyInfo[]>();

/** Every key of a configuration schema (sections and nested mappings flattened to dotted keys). */
export function configKeys(schema: z.ZodType): ConfigKeyInfo[] {
  const hit = keyCache.get(schema);
  if (hit) return hit;
  type Json = Record<string, any>;
  const root = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as Json;
  const out: ConfigKeyInfo[] = [];
  const walk = (node: Json, at: string[], inherited: { secret: boolean; restart: boolean }, defaults: unknown) => {
    for (const [k, p] of Object.entries((node.properties ?? {}) as Record<string, Json>)) {
      const path = [...at, k];
      const meta = { secret: inherited.secret || p.secret === true, restart: inherited.restart || p.restart === true };
      const dflt = p.default !== undefined ? p.default : getPath(defaults, [k]);
      if (p.type === 'object' && p.properties) { walk(p, path, meta, dflt); continue; }
      out.push({
        key: path.join('.'), path, default: dflt, description: typeof p.description === 'string' ? p.description : '',
        secret: meta.secret, live: !meta.restart,
        unit: typeof p.unit === 'string' ? p.unit : UNITS.find(([re]) => re.test(k))?.[1] ?? '',
        schema: p,
      });
    }
  };
  walk(root, [], { secret: false, restart: false }, schema.safeParse({}).data);
  keyCache.set(schema, out);
  return out;
}
