// What every JSON body must satisfy before any schema sees it: bounded nesting (checked on the text,
// before JSON.parse, so no later recursion can overflow), no prototype keys, and no characters that a
// single-line field must never hold. Route schemas then validate the meaning.
import { HttpError, invalid, type FieldError } from '../errors.js';

/** Deepest nesting of objects and arrays a body may have; real bodies use fewer than ten levels. */
export const MAX_JSON_DEPTH = 32;

/** Keys that would reach an object's prototype if a body were ever merged into another object. */
const RESERVED_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

/**
 * Fields that hold text of several lines (notes, PEM keys, request bodies); they may keep CR, LF and
 * tab. Every other string field is one line. A field is known by its key, wherever it sits.
 */
export const MULTILINE_FIELDS = new Set([
  'notes', 'note', 'description', 'body', 'private_key', 'ssh_private_key', 'public_key', 'certificate', 'chain', 'pem', 'comment',
  // A postal address (a site's) is written on several lines.
  'address',
  'csv', // an inventory import's file sent as JSON (its cells are checked one by one, as a body's fields are)
]);

// NUL and the other C0 controls but tab, LF and CR, DEL and the C1 controls: never in any string.
// eslint-disable-next-line no-control-regex -- finding control characters is the point
const NEVER = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]/;
// In a one-line field: any control character at all.
// eslint-disable-next-line no-control-regex -- likewise
const NOT_ONE_LINE = /[\u0000-\u001f\u007f-\u009f]/;
// A UTF-16 surrogate without its partner (JSON's \ud800 escapes can produce them).
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** Depth of the deepest object or array in JSON text, counting only brackets outside strings. */
export function jsonDepth(text: string, stopAt = Infinity): number {
  let depth = 0, max = 0, inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92) i++; // backslash: skip the escaped character
      else if (c === 34) inString = false;
    } else if (c === 34) inString = true;
    else if (c === 123 || c === 91) {
      if (++depth > max) { max = depth; if (max > stopAt) return max; }
    } else if (c === 125 || c === 93) depth--;
  }
  return max;
}

export function tooDeep(): HttpError {
  return new HttpError(400, 'json_too_deep', `The request body nests objects or arrays deeper than ${MAX_JSON_DEPTH} levels`,
    { extra: { limit: MAX_JSON_DEPTH } });
}

/** Parses JSON text that is known to be small enough; throws the 400 a client can act on. */
export function parseGuardedJson(text: string): unknown {
  const { value, errors } = parseJsonFields(text);
  if (errors.length) throw invalid('request body', errors);
  return value;
}

/**
 * Parses JSON text that is known to be small enough. Malformed or too deep text, and a reserved key, are
 * a 400 at once (no schema may see such a body); a string with forbidden characters comes back as a field
 * error, so that the route names it in one 400 together with its schema's errors.
 */
export function parseJsonFields(text: string): { value: unknown; errors: FieldError[] } {
  if (jsonDepth(text, MAX_JSON_DEPTH) > MAX_JSON_DEPTH) throw tooDeep();
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    throw new HttpError(400, 'malformed_json', `The request body is not valid JSON: ${(e as Error).message}`);
  }
  const { errors, keys } = inspect(value, 20);
  if (keys) throw invalid('request body', errors);
  return { value, errors };
}

/** Every reserved key and forbidden character in a parsed body, with its dotted path. */
export function inspectJson(value: unknown, limit = 20): FieldError[] {
  return inspect(value, limit).errors;
}

/** inspectJson's errors, and whether a key (not only a string value) is among them. */
function inspect(value: unknown, limit: number): { errors: FieldError[]; keys: boolean } {
  const errors: FieldError[] = [];
  let keys = false;
  const visit = (v: unknown, path: string, key: string): void => {
    if (errors.length >= limit) return;
    if (typeof v === 'string') {
      const problem = stringProblem(v, MULTILINE_FIELDS.has(key));
      if (problem) errors.push({ path, message: problem });
    } else if (Array.isArray(v)) {
      v.forEach((item, i) => visit(item, path ? `${path}.${i}` : String(i), key));
    } else if (v !== null && typeof v === 'object') {
      for (const [k, child] of Object.entries(v)) {
        const p = path ? `${path}.${k}` : k;
        if (RESERVED_KEYS.has(k)) { keys = true; errors.push({ path: p, message: `"${k}" is not allowed as a field name` }); }
        else if (stringProblem(k, false)) {
          keys = true;
          errors.push({ path: p, message: 'Field names may not contain control characters' });
        }
        else visit(child, p, k);
      }
    }
  };
  visit(value, '', '');
  return { errors, keys };
}

/** Why a string may not be stored, or null when it may. */
export function stringProblem(s: string, multiline: boolean): string | null {
  if (LONE_SURROGATE.test(s)) return 'Contains an unpaired UTF-16 surrogate (not valid Unicode text)';
  if (s.includes('\u0000')) return 'Contains a NUL character';
  if (multiline ? NEVER.test(s) : NOT_ONE_LINE.test(s)) {
    return multiline ? 'Contains a control character' : 'Must be one line without control characters (line breaks, tabs, escapes)';
  }
  return null;
}
