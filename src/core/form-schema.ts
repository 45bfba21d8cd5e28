// What the web UI draws a form from: a zod object as JSON Schema (ui/lib/schema-form.js renders it; the
// monitor form's check settings and the webhook form's provider options both come to the browser this
// way). Besides JSON Schema's own keywords (type, title, description, default, enum, const, oneOf,
// minimum, maximum, items, additionalProperties, propertyNames; the first of `examples` is the field's
// placeholder; `writeOnly` marks a secret, added here from the owner's secret paths), a field may carry
// the presentation keywords below, set with zod's `.meta()`. FORM_KEYWORDS is the whole list: the
// contract tests fail on any other `x-` keyword, and on one the UI's renderer does not read.
import { z } from 'zod';

/** A condition on the other fields of the same object, as JSON Schema (the part of it the UI evaluates). */
export interface FieldCondition {
  /** These fields have a value (an empty text field has none). */
  required?: string[];
  properties?: Record<string, ValueCondition>;
}
export interface ValueCondition { const?: unknown; enum?: unknown[]; not?: ValueCondition }

declare module 'zod' {
  interface GlobalMeta {
    /** A heading above this field; the fields after it belong to it until the next. */
    'x-section'?: string;
    /** Shown (and sent) only while the object as it would be sent matches this; a hidden field is left out. */
    'x-visible-when'?: FieldCondition;
    /** Titles of an enum's values, for its choices ({contains: 'An answer contains it'}). */
    'x-enum-titles'?: Record<string, string>;
    /** Text of several lines (a request body). */
    'x-multiline'?: boolean;
    /** The button that adds an entry to a map of names to values ("Add header"). */
    'x-add-label'?: string;
    /** The field takes the form's whole width (a list of several addresses), not one column of a row. */
    'x-wide'?: boolean;
  }
}

export const FORM_KEYWORDS = ['x-section', 'x-visible-when', 'x-enum-titles', 'x-multiline', 'x-add-label', 'x-wide'] as const;

export type JsonSchema = Record<string, unknown>;

const isObj = (v: unknown): v is JsonSchema => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The schemas at a dotted path of properties, through the variants of a oneOf or anyOf on the way. */
export function schemasAt(root: JsonSchema, path: string): JsonSchema[] {
  let here: JsonSchema[] = [root];
  for (const key of path.split('.')) {
    here = here.flatMap((s) => [s, ...[s.oneOf, s.anyOf].flatMap((v) => (Array.isArray(v) ? v.filter(isObj) : []))])
      .map((s) => (isObj(s.properties) ? s.properties[key] : undefined)).filter(isObj);
  }
  return here;
}

/**
 * A zod object as the JSON Schema a form is drawn from: the input side (defaults; fields with one are
 * not required), `$schema` left out, and each secret at `secretPaths` (dotted, "auth.password") marked
 * `writeOnly`, so the form asks for it and never expects it back.
 */
export function formSchema(schema: z.ZodType, secretPaths: readonly string[] = []): JsonSchema {
  const json = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as JsonSchema;
  delete json.$schema;
  for (const path of secretPaths) for (const s of schemasAt(json, path)) s.writeOnly = true;
  return json;
}
