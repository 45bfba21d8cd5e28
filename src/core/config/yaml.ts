// Reading and editing the configuration file as a YAML document, so comments and layout survive a save.

import YAML from 'yaml';
import type { FieldError } from '../errors.js';
import { isPlainObject, setPathOn, withoutNulls } from './paths.js';

export function yamlErrors(errors: readonly YAML.YAMLError[]): FieldError[] {
  return errors.map((e) => {
    const first = e.message.split('\n')[0] ?? e.message;
    return { path: '', message: `YAML syntax error: ${first}` };
  });
}

/** The document as plain data; an empty document is an empty mapping. */
export function toPlain(doc: YAML.Document): unknown {
  return doc.toJS({ maxAliasCount: 100 }) ?? {};
}

export function mergeInto(doc: YAML.Document, at: string[], patch: Record<string, unknown>): void {
  for (const [k, v] of Object.entries(patch)) {
    const p = [...at, k];
    if (v === undefined) continue;
    if (v === null) { doc.deleteIn(p); continue; }
    if (isPlainObject(v)) {
      if (YAML.isMap(doc.getIn(p, true))) { mergeInto(doc, p, v); continue; }
      const fresh = withoutNulls(v);
      if (Object.keys(fresh).length) doc.setIn(p, doc.createNode(fresh));
      continue;
    }
    doc.setIn(p, v); // keeps the scalar node, and so its comment, when replacing a scalar
  }
}

export function replaceInto(doc: YAML.Document, at: string[], obj: Record<string, unknown>): void {
  const node = at.length ? doc.getIn(at, true) : doc.contents;
  if (!YAML.isMap(node)) {
    if (at.length) doc.setIn(at, doc.createNode(obj));
    else doc.contents = doc.createNode(obj);
    return;
  }
  for (const pair of [...node.items]) {
    const key = YAML.isScalar(pair.key) ? String(pair.key.value) : String(pair.key);
    if (!Object.hasOwn(obj, key) || obj[key] === undefined) node.delete(pair.key);
  }
  for (const [k, v] of Object.entries(obj)) {
    if (v === undefined) continue;
    if (isPlainObject(v)) replaceInto(doc, [...at, k], v);
    else doc.setIn([...at, k], v);
  }
}

/** Sets a value in the document, creating the mappings on its way (a section the text does not have). */
export function setInDoc(doc: YAML.Document, p: readonly string[], value: unknown): void {
  for (let i = p.length - 1; i >= 0; i--) {
    const parent = p.slice(0, i);
    if (i === 0 ? doc.contents === null || YAML.isMap(doc.contents) : YAML.isMap(doc.getIn(parent, true))) {
      const rest = p.slice(i);
      const v = rest.length === 1 ? value : setPathOn({}, rest.slice(1), value);
      if (i === 0 && doc.contents === null) doc.contents = doc.createNode({});
      doc.setIn([...parent, rest[0]!], isPlainObject(v) ? doc.createNode(v) : v);
      return;
    }
  }
}

/** The line (1-based) of the key at a dotted path, or of its nearest ancestor the text has. */
export function lineOf(doc: YAML.Document, lines: YAML.LineCounter, p: readonly string[]): number | undefined {
  for (let n = p.length; n > 0; n--) {
    const parent = n === 1 ? doc.contents : doc.getIn(p.slice(0, n - 1), true);
    if (!YAML.isMap(parent)) continue;
    const pair = parent.items.find((it) => (YAML.isScalar(it.key) ? String(it.key.value) : String(it.key)) === p[n - 1]);
    const node = pair && (YAML.isNode(pair.key) ? pair.key : YAML.isNode(pair.value) ? pair.value : undefined);
    if (node?.range) return lines.linePos(node.range[0]).line;
  }
  return undefined;
}

