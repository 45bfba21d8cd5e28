// Saving through the API is strict, unlike loading: invalid YAML, unknown keys and invalid values are
// refused with a 400 naming each field, and nothing is written. The file is replaced atomically.

import YAML from 'yaml';
import type { z } from 'zod';
import { HttpError, badRequest, conflict, fieldErrors } from '../errors.js';
import { writeFileAtomic } from '../files.js';
import type { Logger } from '../log.js';
import { isPlainObject } from './paths.js';
import type { Config } from './schema.js';
import { lineOf, mergeInto, replaceInto, yamlErrors } from './yaml.js';

/** What a save starts from: YAML text as given, a whole configuration (JSON) or a patch. */
export type SaveInput = { yaml: string } | { json: unknown } | { patch: unknown };

/**
 * The document a save would write, built from the input and the file's current text (`null`: no file),
 * so comments and layout survive; `lines` is set for YAML input, to name each error's line.
 */
export function saveDocument(input: SaveInput, current: string | null): { doc: YAML.Document; lines?: YAML.LineCounter } {
  if ('yaml' in input) {
    const lines = new YAML.LineCounter();
    const doc = YAML.parseDocument(input.yaml, { lineCounter: lines });
    if (doc.errors.length) throw badRequest('The configuration is not valid YAML', yamlErrors(doc.errors));
    if (doc.contents !== null && !YAML.isMap(doc.contents))
      throw badRequest('The configuration is invalid', [{ path: '', message: 'The top level must be a mapping of sections' }]);
    return { doc, lines };
  }
  const obj = 'json' in input ? input.json ?? {} : input.patch;
  if (!isPlainObject(obj)) throw badRequest('The configuration must be an object', [{ path: '', message: 'Expected an object' }]);
  const doc = YAML.parseDocument(current ?? '');
  const usable = !doc.errors.length && (doc.contents === null || YAML.isMap(doc.contents));
  if ('patch' in input) {
    if (!usable) {
      throw conflict('The configuration file is not valid YAML; fix it by saving the whole file first', 'config_unparseable');
    }
    mergeInto(doc, [], obj);
    return { doc };
  }
  const fresh = usable ? doc : new YAML.Document();
  replaceInto(fresh, [], obj);
  return { doc: fresh };
}

/** Strict validation (400 naming each key); with the YAML document and its lines each error also names its line. */
export function validateStrict(schema: z.ZodType<Config>, obj: unknown, doc?: YAML.Document, lines?: YAML.LineCounter): Config {
  const r = schema.safeParse(obj ?? {});
  if (r.success) return r.data;
  const errors = fieldErrors(r.error.issues, { unknown: 'Unknown key' });
  if (doc && lines) {
    for (const e of errors) {
      const line = lineOf(doc, lines, e.path ? e.path.split('.') : []);
      if (line) Object.assign(e, { line, message: `${e.message} (line ${line})` });
    }
  }
  throw badRequest('The configuration is invalid', errors);
}

/** Writes the file atomically; a failure is logged and answered as a 500 naming the file. */
export async function writeConfigFile(file: string, text: string, log: Logger): Promise<void> {
  try {
    await writeFileAtomic(file, text);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code ?? 'error';
    log.error('could not save the configuration', { path: file, err: e });
    throw new HttpError(500, 'config_write_failed', `Could not write ${file} (${code})`);
  }
}
