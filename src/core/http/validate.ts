// Turns zod failures into 400 problem details that name every invalid field.
import { z } from 'zod';
import { fieldErrors, HttpError, invalid, type FieldError } from '../errors.js';

export function validationError(where: 'body' | 'query' | 'params', err: z.ZodError): HttpError {
  const errors = fieldErrors(err.issues, { prefix: where === 'body' ? undefined : where });
  if (where !== 'params') return invalid(`request ${where}`, errors);
  const first = errors.slice(0, 3).map((e) => (e.path ? `${e.path}: ${e.message}` : e.message)).join('; ');
  return new HttpError(404, 'not_found', `No such resource: ${first}`, { errors });
}

/**
 * The field errors of input against a schema, after those already found in it (`found`, a guard's), or
 * the parsed value when there are none: every field at fault is named at once.
 */
export function checkInput<T extends z.ZodType>(where: 'body' | 'query', schema: T, input: unknown, found: FieldError[] = []):
  { ok: true; data: z.infer<T> } | { ok: false; errors: FieldError[] } {
  const r = schema.safeParse(input);
  if (r.success && !found.length) return { ok: true, data: r.data };
  const errors = r.success ? [] : fieldErrors(r.error.issues, { prefix: where === 'body' ? undefined : where });
  return { ok: false, errors: [...found, ...errors] };
}

/** Parses input with a schema or throws the 400 (or 404 for path parameters). */
export function parseInput<T extends z.ZodType>(where: 'body' | 'query' | 'params', schema: T, input: unknown): z.infer<T> {
  const r = schema.safeParse(input);
  if (!r.success) throw validationError(where, r.error);
  return r.data;
}
