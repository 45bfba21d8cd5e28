// Loading never stops the service: an appliance that refuses to start over a typo is unreachable, and
// its operator can no longer fix the file through the UI. So, on load:
//   - a missing file gives the defaults;
//   - a file that is not valid YAML (or whose top level is not a mapping) is logged as an error and the
//     service starts on the defaults. The file is left untouched, rawYaml() still returns its text so it
//     can be fixed through the API, and issues() lists what went wrong;
//   - an unknown key is logged as a warning and ignored;
//   - an invalid value is logged as an error and that key alone falls back to its default, so every
//     other setting the operator made still applies.

import { promises as fs } from 'node:fs';
import YAML from 'yaml';
import type { z } from 'zod';
import type { FieldError } from '../errors.js';
import type { Logger } from '../log.js';
import { dotted, isPlainObject, pruneHoles, removePath, toKey, type PathKey } from './paths.js';
import type { Config } from './schema.js';
import type { SecretOpener } from './secrets.js';
import { toPlain, yamlErrors } from './yaml.js';

export interface Loaded { text: string | null; config: Config; issues: FieldError[] }

export async function loadLenient(file: string, log: Logger, schema: z.ZodType<Config>, open?: SecretOpener): Promise<Loaded> {
  const defaults = schema.parse({});
  let text: string;
  try {
    text = await fs.readFile(file, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') {
      log.info('no configuration file, using defaults', { path: file });
      return { text: null, config: defaults, issues: [] };
    }
    log.error('cannot read the configuration file, using defaults', { path: file, err: e });
    return { text: null, config: defaults, issues: [{ path: '', message: `Cannot read ${file}: ${(e as Error).message}` }] };
  }
  return parseLenient(text, file, log, schema, open);
}

export function parseLenient(text: string, file: string, log: Logger, schema: z.ZodType<Config>, open?: SecretOpener): Loaded {
  const defaults = schema.parse({});
  const doc = YAML.parseDocument(text);
  if (doc.errors.length) {
    const issues = yamlErrors(doc.errors);
    log.error('the configuration file is not valid YAML; starting with defaults, file left as is', { path: file, errors: issues });
    return { text, config: defaults, issues };
  }
  for (const w of doc.warnings) log.warn('configuration file', { path: file, warning: w.message });

  let raw: unknown;
  try { raw = toPlain(doc); } catch (e) {
    log.error('the configuration file cannot be read as data; starting with defaults', { path: file, err: e });
    return { text, config: defaults, issues: [{ path: '', message: (e as Error).message }] };
  }
  if (!isPlainObject(raw)) {
    const issues = [{ path: '', message: 'The top level must be a mapping of sections' }];
    log.error('the configuration file is not a mapping; starting with defaults', { path: file });
    return { text, config: defaults, issues };
  }

  // Drop what is wrong, one round of issues at a time, until the rest validates.
  const issues: FieldError[] = [];
  let data: Record<string, unknown> = raw;
  open?.(data);
  for (let round = 0; round < 20; round++) {
    const r = schema.safeParse(data);
    if (r.success) return { text, config: r.data, issues };
    data = structuredClone(data);
    const dropped: PathKey[][] = [];
    for (const issue of r.error.issues) {
      const at = issue.path.map(toKey);
      if (issue.code === 'unrecognized_keys') {
        for (const key of issue.keys) {
          const p = [...at, key];
          log.warn('unknown configuration key ignored', { path: file, key: dotted(p) });
          issues.push({ path: dotted(p), message: 'Unknown key, ignored' });
          dropped.push(p);
        }
      } else {
        log.error('invalid configuration value, using the default', { path: file, key: dotted(at), error: issue.message });
        issues.push({ path: dotted(at), message: `${issue.message}; the default is used` });
        dropped.push(at);
      }
    }
    if (dropped.some((p) => p.length === 0)) break;
    for (const p of dropped) removePath(data, p);
    pruneHoles(data);
  }
  log.error('the configuration file could not be repaired; starting with defaults', { path: file });
  return { text, config: defaults, issues };
}
