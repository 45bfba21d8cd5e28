// Secret keys (`.meta({ secret: true })`) are write-only: the API shows one as {set: true|false}, a save
// that omits it or sends {set: true} keeps it, {set: false} clears it, and the file holds it sealed under
// the machine key once a secret box is attached. A secret that goes somewhere names the keys of its own
// section that say where (`.meta({ secret: true, bound_to: ['host', 'port'] })`): a save that changes one
// of them drops the stored secret unless it sends the secret again (docs/api.md, "Secrets and destinations").

import type YAML from 'yaml';
import type { z } from 'zod';
import type { Logger } from '../log.js';
import { isSealed, type SecretBox } from '../secretbox.js';
import { isSecretMarker } from '../secret-marker.js';
import { configKeys, type ConfigKeyInfo } from './keys.js';
import { getPath, removePath, setPath } from './paths.js';
import { setInDoc, toPlain } from './yaml.js';

/** What the configuration needs of the machine key's secret box. */
export type ConfigSecretBox = Pick<SecretBox, 'seal' | 'tryOpen' | 'isSealed'>;

/** Whether a secret holds a value (an empty string or list is no value). */
export function secretIsSet(v: unknown): boolean {
  return !(v === undefined || v === null || v === '' || (Array.isArray(v) && v.length === 0));
}

/** `obj` with the value at each path replaced by {set: true|false}; a fresh copy. */
export function maskSecrets<T>(obj: T, paths: readonly (readonly string[])[]): T {
  const out = structuredClone(obj);
  for (const p of paths) {
    const v = getPath(out, p);
    if (v === undefined) continue;
    setPath(out as unknown as Record<string, unknown>, [...p], { set: secretIsSet(v) });
  }
  return out;
}

/** The paths of a schema's secret keys. */
export function secretPaths(schema: z.ZodType): string[][] {
  return configKeys(schema).filter((k) => k.secret).map((k) => k.path);
}

/** Opens (or, without the machine key yet, drops) the sealed secrets of the file's data before validation. */
export type SecretOpener = (raw: Record<string, unknown>) => void;

export function secretOpener(schema: z.ZodType, box: Pick<SecretBox, 'tryOpen'> | undefined, log: Logger): SecretOpener {
  return (raw) => {
    for (const k of configKeys(schema)) {
      if (!k.secret) continue;
      const v = getPath(raw, k.path);
      if (!isSealed(v)) continue;
      const open = box?.tryOpen(v) ?? null;
      if (open !== null) setPath(raw, k.path, open);
      else {
        // Without the machine key (yet) the value cannot be checked: it stays unset until the key is attached.
        if (box) log.error('a secret in the configuration cannot be decrypted (another machine key?); re-enter it', { key: k.key });
        removePath(raw, k.path);
      }
    }
  };
}

/** The sibling keys a secret is bound to (its `bound_to` meta), as paths; none for a secret that goes nowhere. */
function boundPaths(k: ConfigKeyInfo): string[][] {
  const names = (k.schema as { bound_to?: unknown }).bound_to;
  return Array.isArray(names) ? names.filter((n): n is string => typeof n === 'string').map((n) => [...k.path.slice(0, -1), n]) : [];
}

/**
 * Secrets a save leaves out (or sends as {set: true}) keep their stored value (in `fileConfig`); {set: false}
 * clears one; a value replaces it. A stored secret whose destination keys (`bound_to`) the save changes is
 * dropped instead, unless the save types it again: `dropped` lists those keys (dotted). `patch`: the patch
 * merged into the file's document, which alone says what a patch typed (the document holds every stored
 * secret). `edited`: the document was changed.
 */
export function keepSecrets(doc: YAML.Document, schema: z.ZodType, fileConfig: unknown, patch?: unknown):
  { edited: boolean; dropped: string[] } {
  const plain = toPlain(doc);
  const defaults = schema.parse({});
  let edited = false;
  const dropped: string[] = [];
  for (const k of configKeys(schema).filter((x) => x.secret)) {
    const p = k.path;
    const v = getPath(plain, p);
    const stored = getPath(fileConfig, p);
    const dflt = getPath(defaults, p);
    const keep = stored !== undefined && JSON.stringify(stored) !== JSON.stringify(dflt);
    // Typed in this save: a clear value (not the marker, nor a stored envelope copied back).
    const given = patch === undefined ? v : getPath(patch, p);
    const typed = typeof given === 'string' && given !== '' && !isSealed(given);
    const moved = boundPaths(k).some((b) =>
      JSON.stringify(getPath(plain, b) ?? getPath(defaults, b)) !== JSON.stringify(getPath(fileConfig, b)));
    if (keep && moved && !typed && given !== '' && !(isSecretMarker(v) && !v.set)) {
      if (doc.hasIn(p)) doc.deleteIn(p);
      dropped.push(k.key);
      edited = true;
    } else if (isSecretMarker(v)) {
      if (v.set && keep) doc.setIn(p, stored);
      else if (doc.hasIn(p)) doc.deleteIn(p);
      edited = true;
    } else if (v === undefined && keep) {
      setInDoc(doc, p, stored);
      edited = true;
    }
  }
  return { edited, dropped };
}

/** Secrets typed in clear are written sealed. True when the document was edited. */
export function sealSecrets(doc: YAML.Document, schema: z.ZodType, box: ConfigSecretBox | undefined): boolean {
  if (!box) return false;
  const plain = toPlain(doc);
  let edited = false;
  for (const p of secretPaths(schema)) {
    const v = getPath(plain, p);
    if (typeof v === 'string' && v !== '' && !box.isSealed(v)) { doc.setIn(p, box.seal(v)); edited = true; }
  }
  return edited;
}
